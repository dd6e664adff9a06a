"""Running one piece of work per replica, each on its own thread (MirroredStrategy's
replicas, eagerly and inside a dg.function's MirroredReplicaCall op)."""
from __future__ import annotations

import threading
from typing import Any, Callable, List, Optional

from ..framework.errors import UnavailableError
from .replica_context import state


def run_replicas(num_replicas: int, engine: Any, strategy: Any,
                 body: Callable[[int], Any]) -> List[Any]:
    """`body(replica)` for every replica at once, each thread bound to its replica of
    `engine` and with `strategy` current; their results in replica order. A failing
    replica aborts the group, and its error is raised (the cause first: the others
    only saw the abort)."""
    results: List[Any] = [None] * num_replicas
    failures: List[Optional[BaseException]] = [None] * num_replicas

    def replica_main(replica: int) -> None:
        engine.bind_replica(replica)
        state.strategies.append(strategy)
        try:
            results[replica] = body(replica)
        except BaseException as error:  # noqa: BLE001 - re-raised below
            failures[replica] = error
            engine.abort(f"replica {replica} raised {type(error).__name__}: {error}")
        finally:
            state.strategies.pop()
            engine.bind_replica(None)

    threads = [threading.Thread(target=replica_main, args=(i,), name=f"replica-{i}")
               for i in range(num_replicas)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    errors = [e for e in failures if e is not None]
    if errors:
        raise next((e for e in errors if not isinstance(e, UnavailableError)), errors[0])
    return results
