"""TF1's session configuration messages: ConfigProto, GPUOptions, GraphOptions,
OptimizerOptions, RunOptions, RunMetadata.

`Session(config=...)` and `Session.run(options=..., run_metadata=...)` accept them
so TF1 programs run unchanged; on NumPy none of their fields changes anything
(devices, threads, memory growth, placement logging, tracing). Like protocol
buffers they know their fields: an unknown one raises ValueError as TF's does.
"""
from __future__ import annotations

from typing import Any, Dict


class Message:
    """A small protocol-buffer-like record: known fields with defaults, nested messages."""

    FIELDS: Dict[str, Any] = {}

    def __init__(self, **fields: Any) -> None:
        for key, default in self.FIELDS.items():
            object.__setattr__(self, key, default() if isinstance(default, type) else default)
        for key, value in fields.items():
            setattr(self, key, value)

    def __setattr__(self, key: str, value: Any) -> None:
        if key not in self.FIELDS:
            raise ValueError(f'Protocol message {type(self).__name__} has no "{key}" field.')
        object.__setattr__(self, key, value)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self) -> str:
        changed = [f"{k}: {v!r}" for k, v in vars(self).items()
                   if not isinstance(v, Message) and v != self.FIELDS[k]]
        return "\n".join(changed)


class GPUOptions(Message):
    FIELDS = {"per_process_gpu_memory_fraction": 0.0, "allow_growth": False,
              "allocator_type": "", "visible_device_list": "", "force_gpu_compatible": False,
              "deferred_deletion_bytes": 0, "polling_active_delay_usecs": 0,
              "polling_inactive_delay_msecs": 0, "experimental": None}


class OptimizerOptions(Message):
    L1, L0 = 0, -1
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2
    FIELDS = {"do_common_subexpression_elimination": False, "do_constant_folding": False,
              "max_folded_constant_in_bytes": 0, "do_function_inlining": False,
              "opt_level": 0, "global_jit_level": 0, "cpu_global_jit": False}


class GraphOptions(Message):
    FIELDS = {"enable_recv_scheduling": False, "optimizer_options": OptimizerOptions,
              "build_cost_model": 0, "build_cost_model_after": 0, "infer_shapes": False,
              "place_pruned_graph": False, "enable_bfloat16_sendrecv": False,
              "timeline_step": 0, "rewrite_options": None}


class ConfigProto(Message):
    FIELDS = {"device_count": dict, "intra_op_parallelism_threads": 0,
              "inter_op_parallelism_threads": 0, "use_per_session_threads": False,
              "session_inter_op_thread_pool": list, "placement_period": 0,
              "device_filters": list, "gpu_options": GPUOptions, "allow_soft_placement": False,
              "log_device_placement": False, "graph_options": GraphOptions,
              "operation_timeout_in_ms": 0, "rpc_options": None, "cluster_def": None,
              "isolate_session_state": False, "share_cluster_devices_in_session": False,
              "experimental": None}


class RunOptions(Message):
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    FIELDS = {"trace_level": 0, "timeout_in_ms": 0, "inter_op_thread_pool": 0,
              "output_partition_graphs": False, "debug_options": None,
              "report_tensor_allocations_upon_oom": False, "experimental": None}


class RunMetadata(Message):
    """What a traced run reports; duograd records no step statistics (fields stay empty)."""
    FIELDS = {"step_stats": None, "cost_graph": None, "partition_graphs": list,
              "function_graphs": list, "session_metadata": None}


NAMES = {cls.__name__: cls for cls in (ConfigProto, GPUOptions, GraphOptions,
                                        OptimizerOptions, RunOptions, RunMetadata)}
