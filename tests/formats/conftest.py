"""Lets the format tests import their helpers (fixture_models) beside them."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
