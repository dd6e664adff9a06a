"""Every public namespace is a real module: importable by its dotted name, the
same object as the attribute, naming itself in AttributeError, listing only
public names in dir() (issue 21 item 1, issue 20 item 4)."""
import importlib
import subprocess
import sys
import types

import pytest

import duograd as dg

NAMESPACES = """nn math linalg random test autodiff debugging nest config errors keras
keras.optimizers keras.optimizers.schedules optimizers train summary compat compat.v1
compat.v1.train compat.v1.summary compat.v1.test compat.v1.nn compat.v1.math compat.v2
compat.v2.nn""".split()


@pytest.mark.parametrize("dotted", NAMESPACES)
def test_namespace_is_the_module_in_sys_modules(dotted):
    attribute = dg
    for part in dotted.split("."):
        attribute = getattr(attribute, part)
    module = importlib.import_module("duograd." + dotted)
    assert module is attribute and sys.modules["duograd." + dotted] is attribute
    assert isinstance(module, types.ModuleType)


@pytest.mark.parametrize("dotted", NAMESPACES)
def test_dir_lists_public_names_only(dotted):
    names = dir(importlib.import_module("duograd." + dotted))
    assert names and not [n for n in names if n.startswith("_")]
    assert names == sorted(names)


def test_import_forms_of_tf_programs():
    import duograd.compat.v1 as tf
    import duograd.nn
    from duograd.compat.v1.train import Saver
    from duograd.keras import optimizers
    from duograd.keras.optimizers import Adam
    assert tf is dg.compat.v1 and duograd.nn is dg.nn
    assert Saver is dg.compat.v1.train.Saver and Adam is optimizers.Adam
    assert tf.matmul is dg.matmul and tf.nn.relu is dg.nn.relu


def test_missing_name_names_the_module():
    with pytest.raises(AttributeError, match=r"^module 'duograd.keras' has no attribute 'nolayer'$"):
        dg.keras.nolayer  # noqa: B018
    with pytest.raises(AttributeError, match=r"^module 'duograd.compat.v1' has no attribute 'nope'$"):
        dg.compat.v1.nope  # noqa: B018
    with pytest.raises(AttributeError, match=r"^module 'duograd.nn' has no attribute 'nope'$"):
        dg.nn.nope  # noqa: B018
    with pytest.raises(ImportError):
        from duograd.nn import nope  # noqa: F401


def test_missing_submodule_is_module_not_found():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("duograd.keras.nosuchthing")


def test_aliases_share_one_object():
    assert dg.optimizers is dg.keras.optimizers
    assert importlib.import_module("duograd.optimizers.schedules") is dg.keras.optimizers.schedules
    assert dg.compat.v1.linalg is dg.linalg and dg.compat.v2.train is dg.train
    assert dg.compat.v1.train is not dg.train  # TF1's train has Saver
    assert hasattr(dg.compat.v1.train, "Saver")


def test_fresh_interpreter_imports_compat_v1_first():
    """`import duograd.compat.v1 as tf` as a program's first line (no `import duograd`)."""
    code = ("import duograd.compat.v1 as tf, sys; "
            "assert tf is sys.modules['duograd'].compat.v1; print(tf.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "duograd.compat.v1"


def test_library_code_never_imports_the_assembly():
    import pathlib
    root = pathlib.Path(dg.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in ("tests", "benchmarks", "conformance", "examples", "tools") \
                or rel.startswith(".") \
                or rel in ("__init__.py", "namespaces.py"):
            continue
        text = path.read_text()
        if "namespaces import" in text or "import namespaces" in text:
            offenders.append(rel)
    assert offenders == []
