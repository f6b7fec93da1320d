"""The build backend of python/pyproject.toml (the binding alone, no library): setuptools' own
(setuptools.build_meta), with one check before a wheel is built.

Both pyproject.toml files name their distribution ``symshape``: the repository's top-level one
(scikit-build-core) bundles libsymshape.so inside the package, this one does not. pip installs
one over the other by uninstalling it first, so ``pip install ./python`` over the bundled wheel
deleted symshape/libsymshape.so and left ``import symshape`` with no library (LibraryNotFound).
So the wheel hooks first look at the environment pip installs into (this interpreter's purelib
and platlib: pip runs the backend with the target interpreter, under build isolation too) and
stop, saying what to do, when an installed ``symshape`` distribution lists
symshape/libsymshape.so* in its RECORD. SYMSHAPE_BINDING_ONLY=1 skips the check (the binding
alone replaces the bundled package on purpose, or a ``pip wheel`` that installs nothing); so does
``pip uninstall symshape`` first. A library copied into the package by hand (not in a RECORD) is
not pip's to delete and does not stop the build.
"""
import os
import sys
import sysconfig

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (the sdist hooks, unchanged)

__all__ = [n for n in getattr(_setuptools, "__all__", dir(_setuptools)) if not n.startswith("_")]


def bundled_install(paths=None):
    """The dist-info directory of an installed symshape whose RECORD holds the bundled library
    (symshape/libsymshape.so*), in the site directories ``paths`` (default: this interpreter's
    purelib and platlib), or None."""
    if paths is None:
        p = sysconfig.get_paths()
        paths = [p.get("purelib"), p.get("platlib")]
    seen = set()
    for d in paths:
        if not d or d in seen or not os.path.isdir(d):
            continue
        seen.add(d)
        for name in sorted(os.listdir(d)):
            if not (name.startswith("symshape-") and name.endswith(".dist-info")):
                continue
            try:
                with open(os.path.join(d, name, "RECORD"), encoding="utf-8") as f:
                    if any(line.split(",", 1)[0].startswith("symshape/libsymshape.so") for line in f):
                        return os.path.join(d, name)
            except OSError:
                continue
    return None


def _check():
    if os.environ.get("SYMSHAPE_BINDING_ONLY") == "1":
        return
    found = bundled_install()
    if found is None:
        return
    version = os.path.basename(found)[len("symshape-"):-len(".dist-info")]
    raise SystemExit(
        "symshape: %s has symshape %s with its bundled library (symshape/libsymshape.so, from the\n"
        "repository's top-level pyproject.toml or its wheel). This directory, python/, is the binding\n"
        "alone, without the library: installing it uninstalls that package first, library included, and\n"
        "leaves `import symshape` with no library (LibraryNotFound). To update the package, install the\n"
        "repository itself: pip install /path/to/symshape (its top level). To replace it by the binding\n"
        "alone on purpose (a library of your own, through SYMSHAPE_LIB or cmake --install): pip uninstall\n"
        "symshape first, or set SYMSHAPE_BINDING_ONLY=1.\n" % (os.path.dirname(found), version))


def _checked(name):
    hook = getattr(_setuptools, name, None)
    if hook is None:
        return None

    def run(*args, **kwargs):
        _check()
        return hook(*args, **kwargs)
    run.__name__ = name
    run.__doc__ = "setuptools' %s, after the check that no bundled symshape would be lost" % name
    return run


for _name in ("get_requires_for_build_wheel", "prepare_metadata_for_build_wheel", "build_wheel",
              "get_requires_for_build_editable", "prepare_metadata_for_build_editable", "build_editable"):
    _hook = _checked(_name)
    if _hook is not None:
        globals()[_name] = _hook
del _name, _hook
