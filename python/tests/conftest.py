"""Shared set-up: the package from this tree and the library from SYMSHAPE_LIB (set by ctest)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def pytest_sessionfinish(session, exitstatus):
    """Print (and write to $SYMSHAPE_MODEL_TABLE) the per-model table of the model tests."""
    mu = sys.modules.get("models_util")
    if mu is not None and mu.TABLE:
        mu.write_table()
