"""dg.config's device and threading answers, as TF 2.21 gives them on a CPU-only machine."""
import pytest

import duograd as dg


def test_devices_are_one_cpu():
    cpu = dg.config.list_physical_devices("CPU")[0]
    assert repr(dg.config.list_physical_devices()) == \
        "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    assert (cpu.name, cpu.device_type) == ("/physical_device:CPU:0", "CPU")
    assert dg.config.list_physical_devices("GPU") == []
    assert repr(dg.config.list_logical_devices()) == \
        "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    assert dg.config.get_visible_devices() == [cpu]
    assert dg.config.experimental.list_physical_devices("GPU") == []


def test_settings_accepted_as_tf():
    dg.config.set_visible_devices([], "GPU")          # hiding GPUs: accepted, as TF
    with pytest.raises(RuntimeError, match="Visible devices cannot be modified"):
        dg.config.set_visible_devices([], "CPU")
    cpu = dg.config.list_physical_devices()[0]
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU"):
        dg.config.experimental.set_memory_growth(cpu, True)
    dg.config.experimental.enable_op_determinism()
    assert dg.config.get_soft_device_placement()
    dg.config.set_soft_device_placement(False)
    assert not dg.config.get_soft_device_placement()
    dg.config.set_soft_device_placement(True)
    assert dg.config.threading.get_intra_op_parallelism_threads() == 0
    dg.config.threading.set_inter_op_parallelism_threads(2)
    assert dg.config.threading.get_inter_op_parallelism_threads() == 2
    dg.config.threading.set_inter_op_parallelism_threads(0)
    assert dg.config.experimental_functions_run_eagerly() is False
