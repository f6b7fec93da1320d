"""Conversion to and from sympy (needs sympy; imported lazily).

Names follow PyTorch's torch.utils._sympy.functions (FloorDiv, CeilDiv, Mod; Min and Max
are sympy's own). FloorDiv, CeilDiv and Mod are defined here as sympy Functions that evaluate
exactly on integer arguments (Python's //, ceiling division, and % with the sign of the
divisor) and never rewrite symbolic arguments: sympy.Mod's automatic rewriting is not exact
on symbolic divisors (sympy 1.11 turns Mod(-1, Max(5, a)) into 2*Max(5, a) - 1), which is why
PyTorch defines its own Mod too. from_sympy accepts these, sympy.Mod, and torch's classes of
the same names (matched by class name).
"""
import sympy

from . import _lib as L
from ._lib import lib
from ._core import Expr, default_context
from .errors import InvalidError

__all__ = ["FloorDiv", "CeilDiv", "Mod", "to_sympy", "from_sympy"]


class FloorDiv(sympy.Function):
    """FloorDiv(a, b) = floor(a / b) (Python //)."""
    is_integer = True
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if b == 0:
            raise ZeroDivisionError("FloorDiv by zero")
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(int(a) // int(b))
        return None


class CeilDiv(sympy.Function):
    """CeilDiv(a, b) = -FloorDiv(-a, b)."""
    is_integer = True
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if b == 0:
            raise ZeroDivisionError("CeilDiv by zero")
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(-(-int(a) // int(b)))
        return None


class Mod(sympy.Function):
    """Mod(a, b) = a - b*FloorDiv(a, b) (Python %, the sign of the divisor)."""
    is_integer = True
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if b == 0:
            raise ZeroDivisionError("Mod by zero")
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(int(a) % int(b))
        return None


def to_sympy(e):
    """sympy form of an Expr; symbols become integer sympy Symbols of the same name."""
    memo = {}

    def conv(x):
        key = x._p
        if key in memo:
            return memo[key]
        k = x.kind
        args = x.args()
        if k == L.K_INT:
            r = sympy.Integer(int(x))
        elif k == L.K_SYM:
            r = sympy.Symbol(lib.sy_expr_sym_name(x._p).decode(), integer=True)
        elif k == L.K_ADD:
            ctx = x._ctx
            terms = [sympy.Integer(int(Expr(ctx, ctx._check(lib.sy_expr_add_const(ctx._h, x._p)))))]
            for i, m in enumerate(args):
                c = int(Expr(ctx, ctx._check(lib.sy_expr_add_coeff(ctx._h, x._p, i))))
                terms.append(sympy.Integer(c) * conv(m))
            r = sympy.Add(*terms)
        elif k == L.K_MUL:
            r = sympy.Mul(*[conv(a) for a in args])
        elif k == L.K_POW:
            r = sympy.Pow(conv(args[0]), sympy.Integer(lib.sy_expr_pow_exp(x._p)))
        elif k == L.K_FLOORDIV:
            r = FloorDiv(conv(args[0]), conv(args[1]))
        elif k == L.K_CEILDIV:
            r = CeilDiv(conv(args[0]), conv(args[1]))
        elif k == L.K_MOD:
            r = Mod(conv(args[0]), conv(args[1]))
        elif k == L.K_MIN:  # evaluate=False: sympy would redistribute Min/Max (equal, but not the same form)
            r = sympy.Min(*[conv(a) for a in args], evaluate=False)
        elif k == L.K_MAX:
            r = sympy.Max(*[conv(a) for a in args], evaluate=False)
        elif k == L.K_EQ:
            r = sympy.Eq(conv(args[0]), 0)
        elif k == L.K_NE:
            r = sympy.Ne(conv(args[0]), 0)
        elif k == L.K_LE:
            r = sympy.Le(conv(args[0]), 0)
        elif k == L.K_AND:
            r = sympy.And(*[conv(a) for a in args])
        elif k == L.K_OR:
            r = sympy.Or(*[conv(a) for a in args])
        elif k == L.K_TRUE:
            r = sympy.true
        elif k == L.K_FALSE:
            r = sympy.false
        else:  # pragma: no cover - the header's kinds are all handled
            raise InvalidError("unknown expression kind %d" % k)
        memo[key] = r
        return r

    return conv(e)


_REL = {sympy.Eq: "==", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">", sympy.Ge: ">="}


def from_sympy(s, ctx=None):
    """The Expr of a sympy integer expression or relation. Accepts Integer, Symbol, Add, Mul
    (integer coefficients), Pow (non-negative integer exponents), FloorDiv, CeilDiv (by class
    name, so torch's own classes work), Mod, Min, Max, floor(a/b) with integer b, Eq, Ne, Lt, Le,
    Gt, Ge, And, Or, Not, true, false. Anything else raises InvalidError naming it."""
    ctx = ctx or default_context()
    h = ctx._h

    def E(p):
        return Expr(ctx, ctx._check(p))

    def conv(x):
        if x is sympy.true or x == sympy.true:
            return ctx.boolean(True)
        if x is sympy.false or x == sympy.false:
            return ctx.boolean(False)
        if isinstance(x, bool):
            return ctx.boolean(x)
        if isinstance(x, int):
            return ctx.integer(x)
        if x.is_Integer:
            return ctx.integer(int(x))
        if x.is_Rational:
            raise InvalidError("from_sympy: non-integer constant %s" % x)
        if x.is_Symbol:
            return ctx.symbol(x.name)
        name = type(x).__name__
        if x.is_Add:
            acc = [conv(a) for a in x.args]
            arr = (L.P * len(acc))(*[a._p for a in acc])
            return E(lib.sy_expr_add_n(h, len(acc), arr))
        if x.is_Mul:
            acc = [conv(a) for a in x.args]
            arr = (L.P * len(acc))(*[a._p for a in acc])
            return E(lib.sy_expr_mul_n(h, len(acc), arr))
        if x.is_Pow:
            b, k = x.args
            if not (k.is_Integer and int(k) >= 0):
                raise InvalidError("from_sympy: exponent %s is not a non-negative integer" % k)
            return conv(b) ** int(k)
        if name in ("FloorDiv", "CeilDiv") and len(x.args) == 2:
            a, b = conv(x.args[0]), conv(x.args[1])
            fn = lib.sy_expr_floordiv if name == "FloorDiv" else lib.sy_expr_ceildiv
            return E(fn(h, a._p, b._p))
        if isinstance(x, sympy.Mod) or (name == "Mod" and len(x.args) == 2):
            return conv(x.args[0]) % conv(x.args[1])
        if isinstance(x, sympy.floor) and x.args[0].is_Mul:
            # floor(a * b**-1) with b an integer constant: FloorDiv(a, b)
            num, den = sympy.fraction(sympy.together(x.args[0]))
            if den.is_Integer:
                return conv(num) // conv(den)
            raise InvalidError("from_sympy: floor of %s is not a division by an integer" % x.args[0])
        if isinstance(x, (sympy.Min, sympy.Max)):
            acc = [conv(a) for a in x.args]
            arr = (L.P * len(acc))(*[a._p for a in acc])
            fn = lib.sy_expr_min_n if isinstance(x, sympy.Min) else lib.sy_expr_max_n
            return E(fn(h, len(acc), arr))
        for cls, op in _REL.items():
            if isinstance(x, cls):
                return conv(x.args[0]).rel(op, conv(x.args[1]))
        if isinstance(x, (sympy.And, sympy.Or)):
            acc = [conv(a) for a in x.args]
            arr = (L.P * len(acc))(*[a._p for a in acc])
            fn = lib.sy_expr_and_n if isinstance(x, sympy.And) else lib.sy_expr_or_n
            return E(fn(h, len(acc), arr))
        if isinstance(x, sympy.Not):
            return E(lib.sy_expr_not(h, conv(x.args[0])._p))
        raise InvalidError("from_sympy: unsupported sympy expression %s (%s)" % (x, name))

    if not isinstance(s, (sympy.Basic, int, bool)):
        raise TypeError("from_sympy expects a sympy expression, got " + type(s).__name__)
    return conv(s)
