"""Lets test modules import the shared helpers beside them (gradcheck, op_tables)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
