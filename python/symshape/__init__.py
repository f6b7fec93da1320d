"""symshape: symbolic tensor shapes for PyTorch models (docs/python.md).

  * symshape.export(model, example_inputs, dynamic=None, name=None) -> graph dict
    (needs torch; imported on first use);
  * symshape.from_exported(ep, dynamic=None) -> GuardSet of a torch.export ExportedProgram
    (PyTorch 2.x; ``trace=False``: the graph dict);
  * symshape.trace(graph, dynamic=None, duck_sizing=True, specialize_01=True) -> GuardSet;
  * symshape.diff(a, b, map=None) -> the semantic diff of two guard sets (dict), with witnesses;
  * symshape.Dispatcher(sets).run(sizes) -> the first of N guard sets that accepts the sizes;
  * symshape.parse(text) -> Expr, with simplify / decide / bound / eval, to_sympy / from_sympy.

The C library libsymshape.so is loaded with ctypes on import (SYMSHAPE_LIB, else next to
the package, else the installed library).
"""
import sys as _sys

from .errors import (Error, ExportError, NoMemoryError, InvalidError, OverflowError_, DivisionByZeroError,
                     FormatError, VersionError, VerifyError, QuotaError, UnsupportedError, LibraryNotFound)


def _running_as_main():
    """True while `python -m symshape` imports this package to find symshape.__main__ (sys.argv[0]
    is "-m" then, and runpy is locating this module): the command line reports a missing library
    itself, as one line, and its --help works without one."""
    if _sys.argv[:1] != ["-m"]:
        return False
    f = _sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "_get_module_details" and f.f_locals.get("mod_name") in ("symshape", "symshape.__main__"):
            return True
        f = f.f_back
    return False


try:
    from ._lib import lib_path
except LibraryNotFound:
    if not _running_as_main():
        raise
    # python -m symshape: the command imports the binding when it needs it and reports the error
else:
    from ._core import Context, Expr, parse, default_context
    from .guards import GuardSet, Guard, Origin, trace, backends
    from .diff import diff, Dispatcher

__version__ = "0.1.0"


def features():
    """The optional parts compiled into the loaded library: a subset of ["onnx", "html", "z3"]
    (sy_version_features, symshape/version.h)."""
    from ._lib import lib
    return lib.sy_version_features().decode().split()

__all__ = ["export", "export_to", "from_exported", "trace", "parse", "from_sympy", "Expr", "Context", "GuardSet", "Guard",
           "Origin", "Error", "ExportError", "NoMemoryError", "InvalidError", "OverflowError_",
           "DivisionByZeroError", "FormatError", "VersionError", "VerifyError", "QuotaError", "UnsupportedError",
           "LibraryNotFound", "lib_path", "default_context", "backends", "features", "diff", "Dispatcher"]


def export(model, example_inputs, dynamic=None, name=None):
    """See symshape.exporter.export (imports torch)."""
    from .exporter import export as _export
    return _export(model, example_inputs, dynamic, name)


def export_to(path, model, example_inputs, dynamic=None, name=None):
    """See symshape.exporter.export_to (imports torch)."""
    from .exporter import export_to as _export_to
    return _export_to(path, model, example_inputs, dynamic, name)


def from_exported(ep, dynamic=None, name=None, program_guards=True, trace=True, **trace_kw):
    """See symshape.export_program.from_exported: a torch.export ExportedProgram (imports torch)."""
    from .export_program import from_exported as _f
    return _f(ep, dynamic=dynamic, name=name, program_guards=program_guards, trace=trace, **trace_kw)


def from_sympy(e, ctx=None):
    """See symshape.sympy_conv.from_sympy (imports sympy)."""
    from .sympy_conv import from_sympy as _f
    return _f(e, ctx)
