"""Lets test modules import the shared helpers beside them (gradcheck, op_tables), and
keeps pytest from importing the package a second time.

The repository root is the package `duograd` (it has an `__init__.py`), so pytest
collects it as a Package and imports that `__init__.py` under the checkout's folder
name (`main`, `repo`, ...): a second copy of every module, whose namespaces would
re-register over `duograd`'s own. Naming the installed package under that folder name
first makes pytest reuse it."""
import os
import sys

import duograd

sys.path.insert(0, os.path.dirname(__file__))

_CHECKOUT_NAME = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.dirname(os.path.abspath(duograd.__file__)) == os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))):
    sys.modules.setdefault(_CHECKOUT_NAME.replace(".", "_"), duograd)
