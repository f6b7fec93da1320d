"""Expressions (parse, simplify, decide, bound, eval) over the C library."""
import ctypes
import threading
from ctypes import POINTER, byref, c_char_p, c_int, c_int64, c_size_t, c_void_p

from . import _lib as L
from ._lib import lib
from .errors import Error, error_for

__all__ = ["Context", "Expr", "parse", "default_context"]


class Context:
    """An owner of expressions (sy_ctx). Expressions keep their context alive; the C context
    is freed when the last Python reference to it (or to one of its expressions) goes."""

    __slots__ = ("_h", "__weakref__")

    def __init__(self):
        h = c_void_p()
        st = lib.sy_ctx_new(None, byref(h))
        if st != 0:
            raise error_for(st, "sy_ctx_new failed")
        self._h = h.value

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            lib.sy_ctx_free(h)

    # error helpers -----------------------------------------------------
    def _error(self, status=None, what=None):
        code = status if status is not None else lib.sy_ctx_last_error(self._h)
        if code == 0:
            code = -1
        msg = (lib.sy_ctx_last_error_msg(self._h) or b"").decode("utf-8", "replace")
        off = lib.sy_ctx_last_error_offset(self._h)
        lib.sy_ctx_reset_error(self._h)
        if what:
            msg = what + ": " + msg if msg else what
        return error_for(code, msg or "error", None if off < 0 else off)

    def _check(self, p, what=None):
        if not p:
            raise self._error(what=what)
        return p

    def _take_str(self, p):
        """Copy a GIVE string and free it."""
        if not p:
            raise self._error()
        try:
            return ctypes.string_at(p).decode("utf-8")
        finally:
            lib.sy_str_free(self._h, p)

    # constructors ------------------------------------------------------
    def parse(self, text):
        """Parse text in docs/algebra.md syntax. Raises FormatError (with .offset) on syntax errors."""
        if not isinstance(text, str):
            raise TypeError("parse() expects a str, got " + type(text).__name__)
        b = text.encode("utf-8")
        out = c_void_p()
        st = lib.sy_expr_parse(self._h, b, len(b), byref(out))
        if st != 0:
            raise self._error(st)
        return Expr(self, out.value)

    def integer(self, v):
        v = int(v)
        return Expr(self, self._check(lib.sy_expr_int_str(self._h, str(v).encode())))

    def symbol(self, name):
        return Expr(self, self._check(lib.sy_expr_sym(self._h, name.encode("utf-8"))))

    def boolean(self, v):
        return Expr(self, self._check(lib.sy_expr_true(self._h) if v else lib.sy_expr_false(self._h)))

    def _facts(self, assume):
        """A new sy_facts handle with the assumptions added (caller frees)."""
        f = lib.sy_facts_new(self._h)
        if not f:
            raise self._error()
        try:
            for a in assume or ():
                e = self.coerce(a)
                st = lib.sy_facts_add(f, e._p)
                if st != 0:
                    raise self._error(st, "assumption " + str(e))
        except BaseException:
            lib.sy_facts_free(f)
            raise
        return f

    def coerce(self, v):
        """An Expr of this context from an Expr, a str (parsed), an int or a bool."""
        if isinstance(v, Expr):
            if v._ctx is self:
                return v
            return self.parse(str(v))
        if isinstance(v, bool):
            return self.boolean(v)
        if isinstance(v, int):
            return self.integer(v)
        if isinstance(v, str):
            return self.parse(v)
        raise TypeError("cannot make an expression from " + type(v).__name__)


_default = threading.local()


def default_context():
    """The context parse() uses when none is given: one per thread, since a context must be used by
    one thread at a time (docs/ownership.md section 5; ctypes releases the GIL during each call, so
    threads sharing one context crashed the process)."""
    c = getattr(_default, "ctx", None)
    if c is None:
        c = _default.ctx = Context()
    return c


def parse(text, ctx=None):
    """Parse an expression (docs/algebra.md syntax) into an Expr."""
    return (ctx or default_context()).parse(text)


_REL = {"==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5}


class Expr:
    """An immutable, hash-consed expression. Equal canonical forms are the same node, so ``==``
    is structural equality of canonical forms and ``hash`` is O(1). Arithmetic operators
    build new expressions (``//`` is FloorDiv, ``%`` is Mod, Python semantics); comparisons
    are not overloaded into relations: use ``Expr.rel``."""

    __slots__ = ("_ctx", "_p")

    def __init__(self, ctx, p):
        self._ctx = ctx
        self._p = p

    # text --------------------------------------------------------------
    def __str__(self):
        return self._ctx._take_str(lib.sy_expr_print(self._ctx._h, self._p, L.PRINT_CANONICAL))

    def __repr__(self):
        return "Expr(%r)" % str(self)

    def python(self):
        """A valid Python expression (//, %, min, max, and/or)."""
        return self._ctx._take_str(lib.sy_expr_print(self._ctx._h, self._p, L.PRINT_PYTHON))

    def c(self):
        """C text with calls sy_floordiv/sy_mod/sy_ceildiv/sy_min/sy_max."""
        return self._ctx._take_str(lib.sy_expr_print(self._ctx._h, self._p, L.PRINT_C))

    # identity ------------------------------------------------------------
    def __eq__(self, other):
        if isinstance(other, Expr):
            if other._ctx is self._ctx:
                return self._p == other._p
            return str(self) == str(other)
        if isinstance(other, (int, str)) and not isinstance(other, bool):
            try:
                return self == self._ctx.coerce(other)
            except Error:
                return False
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(lib.sy_expr_hash(self._p))

    def __bool__(self):
        """The truth value of a constant (true/false, an integer: nonzero). A relation or an
        integer over symbols has none: TypeError, as sympy's Relational, rather than Python's
        default True (``if parse("x >= 5"):`` was taken whatever x); use .decide()."""
        k = self.kind
        if k == L.K_TRUE:
            return True
        if k == L.K_FALSE:
            return False
        if k == L.K_INT:
            return int(self) != 0
        raise TypeError("the truth value of %s is not known%s" % (
            self, ": use .decide(assume=[...])" if self.is_bool else ": it depends on its symbols"))

    @property
    def context(self):
        return self._ctx

    @property
    def is_bool(self):
        return bool(lib.sy_expr_is_bool(self._p))

    @property
    def kind(self):
        return lib.sy_expr_kind_of(self._p)

    def args(self):
        return [Expr(self._ctx, lib.sy_expr_arg(self._p, i)) for i in range(lib.sy_expr_nargs(self._p))]

    def free_symbols(self):
        """Names of the symbols of the expression, in canonical order."""
        arr = POINTER(c_void_p)()
        n = c_size_t()
        st = lib.sy_expr_free_symbols(self._ctx._h, self._p, byref(arr), byref(n))
        if st != 0:
            raise self._ctx._error(st)
        try:
            return [lib.sy_expr_sym_name(arr[i]).decode() for i in range(n.value)]
        finally:
            if arr:
                lib.sy_mem_free(self._ctx._h, ctypes.cast(arr, c_void_p))

    def __int__(self):
        v = c_int64()
        st = lib.sy_expr_get_si(self._p, byref(v))
        if st == 0:
            return v.value
        if self.kind == L.K_INT:
            return int(str(self))
        raise TypeError("not an integer constant: " + str(self))

    # arithmetic --------------------------------------------------------
    def _bin(self, fn, other, rev=False):
        o = self._ctx.coerce(other)
        a, b = (o, self) if rev else (self, o)
        return Expr(self._ctx, self._ctx._check(fn(self._ctx._h, a._p, b._p)))

    def __add__(self, o): return self._bin(lib.sy_expr_add, o)
    def __radd__(self, o): return self._bin(lib.sy_expr_add, o, True)
    def __sub__(self, o): return self._bin(lib.sy_expr_sub, o)
    def __rsub__(self, o): return self._bin(lib.sy_expr_sub, o, True)
    def __mul__(self, o): return self._bin(lib.sy_expr_mul, o)
    def __rmul__(self, o): return self._bin(lib.sy_expr_mul, o, True)
    def __floordiv__(self, o): return self._bin(lib.sy_expr_floordiv, o)
    def __rfloordiv__(self, o): return self._bin(lib.sy_expr_floordiv, o, True)
    def __mod__(self, o): return self._bin(lib.sy_expr_mod, o)
    def __rmod__(self, o): return self._bin(lib.sy_expr_mod, o, True)

    def __neg__(self):
        return Expr(self._ctx, self._ctx._check(lib.sy_expr_neg(self._ctx._h, self._p)))

    def __pow__(self, k):
        if not isinstance(k, int) or k < 0:
            raise ValueError("exponent must be a non-negative int")
        return Expr(self._ctx, self._ctx._check(lib.sy_expr_pow_ui(self._ctx._h, self._p, k)))

    def rel(self, op, other):
        """The relation ``self OP other`` with OP one of == != < <= > >=."""
        if op not in _REL:
            raise ValueError("unknown relation " + repr(op))
        o = self._ctx.coerce(other)
        return Expr(self._ctx, self._ctx._check(lib.sy_expr_rel(self._ctx._h, _REL[op], self._p, o._p)))

    # queries -------------------------------------------------------------
    def simplify(self, assume=()):
        """Range-aware rewriting under the assumptions (sy_simplify)."""
        f = self._ctx._facts(assume)
        try:
            return Expr(self._ctx, self._ctx._check(lib.sy_simplify(f, self._p)))
        finally:
            lib.sy_facts_free(f)

    def decide(self, assume=()):
        """True / False when the relation holds / fails at every integer point satisfying the
        assumptions, None (unknown) otherwise. Never guesses."""
        if not self.is_bool:
            raise TypeError("decide() needs a boolean expression, got " + str(self))
        f = self._ctx._facts(assume)
        try:
            t = c_int()
            st = lib.sy_decide(f, self._p, byref(t))
            if st != 0:
                raise self._ctx._error(st)
            return {L.TRUTH_TRUE: True, L.TRUTH_FALSE: False}.get(t.value)
        finally:
            lib.sy_facts_free(f)

    def bound(self, assume=()):
        """A sound range (lo, hi) of the integer expression; None stands for -oo / +oo.
        Raises DivisionByZeroError when a divisor may be zero."""
        if self.is_bool:
            raise TypeError("bound() needs an integer expression, got " + str(self))
        f = self._ctx._facts(assume)
        try:
            lo, hi = c_void_p(), c_void_p()
            st = lib.sy_bound(f, self._p, byref(lo), byref(hi))
            if st != 0:
                raise self._ctx._error(st)
            return tuple(None if not x.value else int(Expr(self._ctx, x.value)) for x in (lo, hi))
        finally:
            lib.sy_facts_free(f)

    def eval(self, **values):
        """Exact value at a point: an int (a bool for relations). Every symbol must be bound."""
        ctx = self._ctx
        n = len(values)
        syms = (c_void_p * max(n, 1))()
        vals = (c_void_p * max(n, 1))()
        for i, (k, v) in enumerate(values.items()):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError("value of %s must be an int, got %s" % (k, type(v).__name__))
            syms[i] = ctx.symbol(k)._p
            vals[i] = ctx.integer(v)._p
        out = c_void_p()
        st = lib.sy_expr_eval(ctx._h, self._p, n, syms, vals, byref(out))
        if st != 0:
            raise ctx._error(st)
        r = Expr(ctx, out.value)
        k = r.kind
        if k == L.K_TRUE:
            return True
        if k == L.K_FALSE:
            return False
        return int(r)

    # sympy ---------------------------------------------------------------
    def to_sympy(self):
        """The same expression in sympy (FloorDiv/CeilDiv as the sympy Functions of
        symshape.sympy_conv, matching torch.utils._sympy.functions names)."""
        from .sympy_conv import to_sympy
        return to_sympy(self)
