"""ctypes declarations of the symshape C API (include/symshape/*.h).

The library is found, in this order:
  1. the file named by the environment variable SYMSHAPE_LIB;
  2. libsymshape.so (or a versioned libsymshape.so.0.1, libsymshape.so.0.1.0, ...) next to the
     package (inside the package directory, where `pip install` of the repository or of its wheel
     bundles it, then beside it), then, when the package is run from
     a source tree, in its CMake build directory (build/ beside python/);
  3. the installed library: ctypes.util.find_library("symshape"), then the usual lib
     directories (/usr/local/lib, /usr/lib, /usr/lib/<multiarch>).

Only the structs the binding reads are mirrored here, each field for field with its header.
Nothing in this module owns memory: ownership is handled by the wrapper classes.
"""
import ctypes
import ctypes.util
import os
import sys
from ctypes import (POINTER, Structure, Union, c_char, c_char_p, c_int, c_int32, c_int64, c_long, c_size_t,
                    c_uint, c_uint32, c_uint64, c_void_p)

__all__ = ["lib", "lib_path", "LibraryNotFound"]


from .errors import LibraryNotFound  # noqa: E402  (defined there: usable without the library)


# --------------------------------------------------------------------------- structs (mirrors)
# Each mirrors its C struct field for field (tests/test_binding.py compares every size and offset
# with the C compiler's): an array of them (a guard's origins, a list's items) is indexed by size.
class sy_loc(Structure):  # env.h
    _fields_ = [("file", c_char_p), ("line", c_long), ("function", c_char_p)]


class sy_guard_origin(Structure):  # env.h
    _fields_ = [("node", c_char_p), ("op", c_char_p), ("reason", c_char_p), ("count", c_uint), ("loc", sy_loc),
                ("required", c_int), ("limit", c_int)]


class sy_gset_guard(Structure):  # gset.h
    _fields_ = [("kind", c_int), ("expr", c_void_p), ("text", c_char_p), ("why", c_char_p), ("count", c_uint),
                ("norigins", c_size_t), ("origins", POINTER(sy_guard_origin)), ("nslots", c_size_t),
                ("slots", POINTER(c_size_t)), ("display", c_char_p)]


class sy_gset_violation(Structure):  # gset.h
    _fields_ = [("guard", c_size_t), ("kind", c_int), ("dims", c_char_p), ("message", c_char_p), ("fix", c_char_p),
                ("model_requires", c_int)]


class sy_gset_result(Structure):  # gset.h: size set to sizeof before a check (SY_GSET_RESULT_INIT)
    _fields_ = [("size", c_size_t), ("accept", c_int), ("failed", c_long), ("message", c_char * 512), ("truncated", c_int)]

    def __init__(self):
        super().__init__()
        self.size = ctypes.sizeof(self)


class sy_env_options(Structure):  # env.h
    _fields_ = [("version", c_uint), ("duck_sizing", c_int), ("specialize_zero_one", c_int)]


class sy_backend_options(Structure):  # backend.h
    _fields_ = [("version", c_uint), ("prefix", c_char_p), ("env", c_void_p), ("graph", c_void_p)]


class sy_graph_input(Structure):  # graph.h
    _fields_ = [("name", c_char_p), ("dtype", c_int), ("ndim", c_size_t), ("shape", POINTER(c_int64)),
                ("dynamic", POINTER(c_int)), ("node", c_size_t), ("nspec", c_size_t), ("spec", c_void_p),
                ("strides_given", c_int), ("layout", c_int), ("strides", POINTER(c_int64))]


class sy_tensor(Structure):  # tensor.h
    _fields_ = [("dtype", c_int), ("ndim", c_size_t), ("sizes", POINTER(c_void_p)), ("strides", POINTER(c_void_p))]


class sy_value(Structure):  # tensor.h
    pass


class _sy_value_list(Structure):
    _fields_ = [("n", c_size_t), ("items", POINTER(sy_value))]


class _sy_value_slice(Structure):
    _fields_ = [("start", c_void_p), ("stop", c_void_p), ("step", c_void_p)]


class _sy_value_quot(Structure):
    _fields_ = [("num", c_void_p), ("den", c_void_p)]


class _sy_value_u(Union):
    _fields_ = [("i", c_void_p), ("f", ctypes.c_double), ("s", c_char_p), ("t", POINTER(sy_tensor)),
                ("list", _sy_value_list), ("dtype", c_int), ("slice", _sy_value_slice), ("quot", _sy_value_quot)]


sy_value._fields_ = [("kind", c_int), ("u", _sy_value_u)]

# sy_value_kind
V_NONE, V_INT, V_BOOL, V_FLOAT, V_STR, V_TENSOR, V_LIST, V_DTYPE, V_SLICE, V_ELLIPSIS = range(10)
# sy_truth
TRUTH_FALSE, TRUTH_TRUE, TRUTH_UNKNOWN = 0, 1, 2
SY_ENV_OPTIONS_VERSION = 1
SY_BACKEND_OPTIONS_VERSION = 1
# sy_expr_kind
(K_INT, K_SYM, K_ADD, K_MUL, K_POW, K_FLOORDIV, K_MOD, K_CEILDIV, K_MIN, K_MAX, K_EQ, K_NE, K_LE, K_AND, K_OR,
 K_TRUE, K_FALSE) = range(17)
# sy_print_style
PRINT_CANONICAL, PRINT_PYTHON, PRINT_C = 0, 1, 2

P = c_void_p  # opaque handles and expressions


# the library's file names, most specific first: the dev symlink, the soname of this release
# (libsymshape.so.MAJOR.MINOR before 1.0, docs/packaging.md), the full version
_NAMES = ["libsymshape.so", "libsymshape.so.0.1", "libsymshape.so.0.1.0", "libsymshape.so.0", "libsymshape.dylib"]


def _versioned(d):
    """libsymshape.so.* in directory d not named in _NAMES, newest version first."""
    try:
        found = [n for n in os.listdir(d) if n.startswith("libsymshape.so.") and n not in _NAMES]
    except OSError:
        return []

    def key(n):
        return [int(p) if p.isdigit() else -1 for p in n[len("libsymshape.so."):].split(".")]
    return [os.path.join(d, n) for n in sorted(found, key=key, reverse=True)]


def _candidates():
    env = os.environ.get("SYMSHAPE_LIB")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [here, os.path.dirname(here)]
    # run from a source tree (python/symshape): the CMake build directory beside python/
    root = os.path.dirname(os.path.dirname(here))
    if os.path.exists(os.path.join(root, "CMakeLists.txt")):
        dirs.append(os.path.join(root, "build"))
    c = []
    for d in dirs:
        c += [os.path.join(d, n) for n in _NAMES] + _versioned(d)
    found = ctypes.util.find_library("symshape")
    if found:
        c.append(found)
    multiarch = getattr(sys.implementation, "_multiarch", "") or ""
    for d in ("/usr/local/lib", "/usr/local/lib64", "/usr/lib", "/usr/lib64",
              "/usr/local/lib/" + multiarch, "/usr/lib/" + multiarch):
        c += [os.path.join(d, n) for n in _NAMES[:4]]
    return c, False


def _shown(path):
    """A path as text, its bytes that are not UTF-8 as \\xHH (os.environ holds them as surrogates)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _load():
    cands, explicit = _candidates()
    errors = []
    for path in cands:
        if not explicit and os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))  # names the path
        except UnicodeDecodeError:  # dlerror() names a path that is not UTF-8 (ctypes decodes it)
            errors.append("%s: cannot be loaded" % _shown(path))
    if explicit:
        where = "SYMSHAPE_LIB=" + _shown(cands[0])
    else:  # the directories, not every file name tried in each
        dirs = []
        for p in cands:
            d = os.path.dirname(p) or p
            if d not in dirs:
                dirs.append(d)
        where = "libsymshape.so* in " + ", ".join(dirs)
    why = "" if explicit else (_installed_why() or "")
    raise LibraryNotFound("cannot load libsymshape.so (looked for " + where + ")" +
                          ("; " + "; ".join(errors) if errors else "") +
                          ". " + why + ("b" if why.endswith(": ") else "B") +
                          "uild it (cmake, SY_BUILD_SHARED=ON) and set SYMSHAPE_LIB, or install it.")


def _own_distribution(pkgdir):
    """(version, lists_library) of the installed distribution whose RECORD holds this package's
    symshape/_lib.py, in the site directory that holds the package, or None (a source tree, or no
    RECORD). lists_library: its RECORD holds symshape/libsymshape.so* (the bundled wheel)."""
    site = os.path.dirname(pkgdir)
    try:
        names = sorted(n for n in os.listdir(site) if n.startswith("symshape-") and n.endswith(".dist-info"))
    except OSError:
        return None
    for name in names:
        try:
            with open(os.path.join(site, name, "RECORD"), encoding="utf-8") as f:
                files = [line.split(",", 1)[0] for line in f]
        except (OSError, UnicodeDecodeError):
            continue
        if "symshape/_lib.py" in files:
            return (name[len("symshape-"):-len(".dist-info")],
                    any(p.startswith("symshape/libsymshape.so") for p in files))
    return None


def _installed_why():
    """Why a pip-installed package has no library, and the pip command that brings it back, or None.

    Both pyproject.toml files build the distribution ``symshape`` (docs/packaging.md): the
    repository's bundles symshape/libsymshape.so, python/'s is the binding alone (version
    X+binding). pip installs one over the other by uninstalling the first, library included, and a
    pre-built wheel has no install hook that could stop it (python/_symshape_build.py stops only a
    build), so the binding alone can end up where the bundled package was."""
    own = _own_distribution(os.path.dirname(os.path.abspath(__file__)))
    if own is None:
        return None
    version, lists_library = own
    release = version.split("+", 1)[0]
    bundled = ("the package with the library, symshape %s: `pip install --force-reinstall "
               "/path/to/symshape-%s-py3-none-<platform>.whl` (the wheel of the repository's top-level "
               "pyproject.toml), or `pip install /path/to/symshape` (the repository, which builds it)"
               % (release, release))
    if lists_library:
        return ("symshape %s was installed with its library (its RECORD lists symshape/libsymshape.so), "
                "which is gone: reinstall %s. " % (version, bundled))
    if version.endswith("+binding"):
        return ("symshape %s is the binding alone (python/pyproject.toml), without the library; if it was "
                "installed over the package with the library, pip removed that library: install %s. "
                "Or keep the binding and give it a library: " % (version, bundled))
    return None


lib, lib_path = _load()


def _f(name, restype, *argtypes):
    try:
        fn = getattr(lib, name)
    except AttributeError:  # another library, or a libsymshape older than this package
        raise LibraryNotFound("%s does not define %s: it is not libsymshape.so, or one older than this package "
                              "(set SYMSHAPE_LIB to the libsymshape.so built from the same sources)" % (lib_path, name)) from None
    fn.restype = restype
    fn.argtypes = list(argtypes)


# ctx.h / types.h
_f("sy_ctx_new", c_int, c_void_p, POINTER(P))
_f("sy_ctx_free", P, P)
_f("sy_ctx_last_error", c_int, P)
_f("sy_ctx_last_error_msg", c_char_p, P)
_f("sy_ctx_last_error_offset", c_long, P)
_f("sy_ctx_reset_error", None, P)
_f("sy_status_name", c_char_p, c_int)
# version.h
_f("sy_version_string", c_char_p)
_f("sy_version_features", c_char_p)
# expr.h
_f("sy_expr_parse", c_int, P, c_char_p, c_size_t, POINTER(P))
_f("sy_expr_print", c_void_p, P, P, c_int)
_f("sy_str_free", c_void_p, P, c_void_p)
_f("sy_mem_free", c_void_p, P, c_void_p)
_f("sy_expr_int_str", P, P, c_char_p)
_f("sy_expr_int_si", P, P, c_int64)
_f("sy_expr_sym", P, P, c_char_p)
_f("sy_expr_true", P, P)
_f("sy_expr_false", P, P)
for _n in ("add", "sub", "mul", "floordiv", "mod", "ceildiv", "min", "max", "and", "or"):
    _f("sy_expr_" + _n, P, P, P, P)
_f("sy_expr_neg", P, P, P)
_f("sy_expr_not", P, P, P)
_f("sy_expr_pow_ui", P, P, P, c_uint64)
_f("sy_expr_rel", P, P, c_int, P, P)
_f("sy_expr_add_n", P, P, c_size_t, POINTER(P))
_f("sy_expr_mul_n", P, P, c_size_t, POINTER(P))
_f("sy_expr_min_n", P, P, c_size_t, POINTER(P))
_f("sy_expr_max_n", P, P, c_size_t, POINTER(P))
_f("sy_expr_and_n", P, P, c_size_t, POINTER(P))
_f("sy_expr_or_n", P, P, c_size_t, POINTER(P))
_f("sy_expr_kind_of", c_int, P)
_f("sy_expr_is_bool", c_int, P)
_f("sy_expr_nargs", c_size_t, P)
_f("sy_expr_arg", P, P, c_size_t)
_f("sy_expr_add_coeff", P, P, P, c_size_t)
_f("sy_expr_add_const", P, P, P)
_f("sy_expr_pow_exp", c_uint64, P)
_f("sy_expr_sym_name", c_char_p, P)
_f("sy_expr_get_si", c_int, P, POINTER(c_int64))
_f("sy_expr_hash", c_uint64, P)
_f("sy_expr_eval", c_int, P, P, c_size_t, POINTER(P), POINTER(P), POINTER(P))
_f("sy_expr_free_symbols", c_int, P, P, POINTER(POINTER(P)), POINTER(c_size_t))
# decide.h
_f("sy_facts_new", P, P)
_f("sy_facts_free", P, P)
_f("sy_facts_add", c_int, P, P)
_f("sy_decide", c_int, P, P, POINTER(c_int))
_f("sy_bound", c_int, P, P, POINTER(P), POINTER(P))
_f("sy_simplify", P, P, P)
# graph.h
_f("sy_graph_load_text", c_int, P, c_char_p, c_size_t, c_char_p, POINTER(P))
_f("sy_graph_free", P, P)
_f("sy_graph_name", c_char_p, P)
_f("sy_graph_nnodes", c_size_t, P)
_f("sy_graph_ninputs", c_size_t, P)
_f("sy_graph_input_at", POINTER(sy_graph_input), P, c_size_t)
_f("sy_env_new", P, P, POINTER(sy_env_options))
_f("sy_env_free", P, P)
_f("sy_env_trace", c_int, P, P, c_size_t, c_void_p, POINTER(P))
_f("sy_trace_free", P, P)
_f("sy_trace_noutputs", c_size_t, P)
_f("sy_trace_output", POINTER(sy_value), P, c_size_t)
_f("sy_realvals_new", P, P, P)
_f("sy_realvals_free", P, P)
_f("sy_realvals_bind", c_int, P, c_char_p, c_size_t, POINTER(c_int64))
_f("sy_realvals_output", c_int, P, c_size_t, POINTER(POINTER(sy_value)))
_f("sy_realvals_noutputs", c_size_t, P)
# gset.h
_f("sy_gset_produce", c_int, P, P, POINTER(P))
_f("sy_gset_free", P, P)
_f("sy_gset_minimize", c_int, P)
_f("sy_gset_size", c_size_t, P)
_f("sy_gset_at", POINTER(sy_gset_guard), P, c_size_t)
_f("sy_gset_nsources", c_size_t, P)
_f("sy_gset_source", c_char_p, P, c_size_t)
_f("sy_gset_kind_name", c_char_p, c_int)
_f("sy_gset_nviolations", c_size_t, P)
_f("sy_gset_violation_at", POINTER(sy_gset_violation), P, c_size_t)
_f("sy_violation_kind_name", c_char_p, c_int)
_f("sy_gset_check_si", c_int, P, POINTER(c_int64), c_size_t, POINTER(sy_gset_result))
_f("sy_gset_values_from_shapes", c_int, P, c_size_t, POINTER(c_char_p), POINTER(c_size_t),
   POINTER(POINTER(c_int64)), POINTER(c_int), POINTER(c_int64))
_f("sy_gset_values_from_tensors", c_int, P, c_size_t, POINTER(c_char_p), POINTER(c_size_t),
   POINTER(POINTER(c_int64)), POINTER(POINTER(c_int64)), POINTER(c_int), POINTER(c_int64))
# backend.h / bc.h
_f("sy_backend_count", c_size_t)
_f("sy_backend_at", POINTER(c_char_p), c_size_t)  # a const sy_backend *: its first field is the name
_f("sy_backend_render", c_int, c_char_p, P, POINTER(sy_backend_options), POINTER(c_void_p), POINTER(c_size_t))
_f("sy_bc_compile", c_int, P, POINTER(P))
_f("sy_bc_encode", c_int, P, POINTER(c_void_p), POINTER(c_size_t))
_f("sy_bc_free", P, P)
# tensor.h
_f("sy_dtype_name", c_char_p, c_int)
# deploy.h (issue 36): regions
_f("sy_region_new", c_int, P, c_void_p, POINTER(P))
_f("sy_region_free", P, P)
_f("sy_region_format", c_void_p, P, c_int)
class sy_profile_options(Structure):  # deploy.h
    _fields_ = [("version", c_uint), ("k", c_size_t), ("max_size", c_int64)]


_f("sy_profiles_new", c_int, P, P, c_void_p, c_size_t, POINTER(c_int64), POINTER(c_uint64), POINTER(P))
_f("sy_profiles_free", P, P)
_f("sy_profiles_format", c_void_p, P, c_int)
_f("sy_corners_new", c_int, P, P, POINTER(P))
_f("sy_corners_free", P, P)
_f("sy_corners_to_json", c_void_p, P)


class sy_memory_value(Structure):  # deploy.h
    _fields_ = [("node", c_char_p), ("op", c_char_p), ("elem_bytes", c_int64), ("numel", c_void_p), ("bytes", c_void_p)]


_f("sy_memory_new", c_int, P, P, P, P, POINTER(P))
_f("sy_memory_free", P, P)
_f("sy_memory_size", c_size_t, P)
_f("sy_memory_at", POINTER(sy_memory_value), P, c_size_t)
_f("sy_memory_largest", c_int, P, P, c_size_t, POINTER(c_int64), c_int, c_uint64, POINTER(c_int64), POINTER(c_int))
_f("sy_memory_largest_tied", c_int, P, P, c_size_t, POINTER(c_int64), POINTER(c_int64), POINTER(c_int64), c_int, c_uint64,
   POINTER(c_int64), POINTER(c_int), POINTER(c_int))


class sy_memory_input(Structure):  # deploy.h
    _fields_ = [("node", c_char_p), ("op", c_char_p), ("t", c_void_p), ("elem_bytes", c_int64), ("born", c_size_t),
                ("dies", c_size_t)]


_f("sy_memory_new_values", c_int, P, c_size_t, c_size_t, POINTER(sy_memory_input), P, POINTER(P))
