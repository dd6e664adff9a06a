"""What each rank of `mpiexec -n N python data_worker.py OUT` gets from dg.data through
MultiWorkerMirroredStrategy: the distributed dataset's batches and the batches of
distribute_datasets_from_function, written to OUT.rank<r>.json."""
from __future__ import annotations

import json
import sys

import duograd as dg

D = dg.data.Dataset


def main() -> None:
    strategy = dg.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id if hasattr(strategy, "cluster_resolver") \
        else None
    distributed = [b.numpy().tolist() for b in strategy.experimental_distribute_dataset(
        D.range(12).batch(4))]
    contexts = []

    def dataset_fn(context):
        contexts.append([context.num_input_pipelines, context.input_pipeline_id,
                         context.num_replicas_in_sync])
        return D.range(12).shard(context.num_input_pipelines, context.input_pipeline_id) \
            .batch(context.get_per_replica_batch_size(4))

    from_function = [b.numpy().tolist()
                     for b in strategy.distribute_datasets_from_function(dataset_fn)]
    pipeline_id = contexts[0][1]
    with open(f"{sys.argv[1]}.rank{pipeline_id}.json", "w") as f:
        json.dump({"distributed": distributed, "from_function": from_function,
                   "contexts": contexts, "rank": rank}, f)


if __name__ == "__main__":
    main()
