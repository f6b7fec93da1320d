"""symshape: symbolic tensor shapes for PyTorch models (docs/python.md).

  * symshape.export(model, example_inputs, dynamic=None, name=None) -> graph dict
    (needs torch; imported on first use);
  * symshape.trace(graph, dynamic=None, duck_sizing=True, specialize_01=True) -> GuardSet;
  * symshape.parse(text) -> Expr, with simplify / decide / bound / eval, to_sympy / from_sympy.

The C library libsymshape.so is loaded with ctypes on import (SYMSHAPE_LIB, else next to
the package, else the installed library).
"""
from .errors import (Error, ExportError, NoMemoryError, InvalidError, OverflowError_, DivisionByZeroError,
                     FormatError, VersionError, VerifyError, QuotaError, UnsupportedError)
from ._lib import lib_path, LibraryNotFound
from ._core import Context, Expr, parse, default_context
from .guards import GuardSet, Guard, Origin, trace

__version__ = "0.1.0"

__all__ = ["export", "export_to", "trace", "parse", "from_sympy", "Expr", "Context", "GuardSet", "Guard",
           "Origin", "Error", "ExportError", "NoMemoryError", "InvalidError", "OverflowError_",
           "DivisionByZeroError", "FormatError", "VersionError", "VerifyError", "QuotaError", "UnsupportedError",
           "LibraryNotFound", "lib_path", "default_context"]


def export(model, example_inputs, dynamic=None, name=None):
    """See symshape.exporter.export (imports torch)."""
    from .exporter import export as _export
    return _export(model, example_inputs, dynamic, name)


def export_to(path, model, example_inputs, dynamic=None, name=None):
    """See symshape.exporter.export_to (imports torch)."""
    from .exporter import export_to as _export_to
    return _export_to(path, model, example_inputs, dynamic, name)


def from_sympy(e, ctx=None):
    """See symshape.sympy_conv.from_sympy (imports sympy)."""
    from .sympy_conv import from_sympy as _f
    return _f(e, ctx)
