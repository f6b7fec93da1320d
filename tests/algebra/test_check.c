/* The canonical-form checker (algebra/check.c, sy_expr_check; issue 34 item 7): canonical nodes
 * pass, and copies of them broken one invariant at a time are each caught with their reason.
 * (Builds without NDEBUG also run it on every interned node: every other test exercises it.) */
#include <string.h>

#include "common.h"

#include "algebra/expr_private.h"

#define CASE(name) Test(algebra_check, name, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(30))

/* a writable copy of node e (its fmpz members shared: only small values in these tests) */
static sy_expr *copy_node(const sy_expr *e, void *buf, size_t cap)
{
    size_t sz = sizeof(sy_expr) + e->n * (e->kind == SY_EXPR_ADD ? sizeof(sy_term) : sizeof(const sy_expr *));
    cr_assert(sz <= cap);
    memcpy(buf, e, sz);
    return buf;
}

static void expect_bad(const sy_expr *e, const char *what)
{
    const char *r = sy_expr_check(ctx, e);
    cr_assert(r != NULL, "not caught: %s", what);
    cr_assert(strstr(r, what) != NULL, "caught as '%s', expected '%s'", r, what);
}

CASE(canonical_nodes_pass)
{
    static const char *const texts[] = {"0", "-7", "x", "3*x*y**2 - 2*y + 5", "FloorDiv(x, 3) + Mod(y, 4)", "Min(x, y, 3)",
                                        "Max(x*y, 2)", "Eq(2*x, 4*y + 2)", "Ne(x, 3)", "x <= y", "And(x <= 3, Ne(y, 2))",
                                        "Or(Eq(x, 1), 5 <= y)", "CeilDiv(x, y)", "x**3", "170141183460469231731687303715884105727"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const sy_expr *e = P(texts[i]);
        const char *r = sy_expr_check(ctx, e);
        cr_assert(r == NULL, "%s (%s): %s", texts[i], S(e), r);
    }
}

CASE(broken_copies_are_caught)
{
    _Alignas(max_align_t) unsigned char buf[1024];
    const sy_expr *sum = P("3*x*y - 2*y + 5"); /* ADD, terms x*y, y */
    cr_assert(eq(int, sum->kind, SY_EXPR_ADD));
    cr_assert(eq(int, (int)sum->n, 2));

    sy_expr *b = copy_node(sum, buf, sizeof buf);
    sy_term t = SY_TERMS(b)[0];
    SY_TERMS(b)[0] = SY_TERMS(b)[1];
    SY_TERMS(b)[1] = t;
    expect_bad(b, "not sorted");

    b = copy_node(sum, buf, sizeof buf);
    SY_TERMS(b)[1] = SY_TERMS(b)[0];
    expect_bad(b, "not sorted or repeated");

    b = copy_node(sum, buf, sizeof buf);
    fmpz_zero(&SY_TERMS(b)[1].coef); /* a small fmpz: no memory to release */
    expect_bad(b, "zero coefficient");

    b = copy_node(sum, buf, sizeof buf);
    b->lo = 5;
    b->hi = 4;
    expect_bad(b, "lo > hi");

    b = copy_node(sum, buf, sizeof buf);
    b->depth = (uint16_t)(b->depth + 1);
    expect_bad(b, "depth");

    const sy_expr *mul = P("x*y*z");
    cr_assert(eq(int, mul->kind, SY_EXPR_MUL));
    b = copy_node(mul, buf, sizeof buf);
    const sy_expr *f = b->args[0];
    b->args[0] = b->args[2];
    b->args[2] = f;
    expect_bad(b, "product factors not sorted");

    const sy_expr *mn = P("Min(x, y)");
    b = copy_node(mn, buf, sizeof buf);
    b->args[1] = b->args[0];
    expect_bad(b, "Min/Max arguments not sorted or repeated");

    /* a relation on 2*x + 2*y - 1: content 2 (rel.c would have divided it out or decided it) */
    const sy_expr *le = P("x + y <= 0"), *d2 = P("2*x + 2*y - 1");
    b = copy_node(le, buf, sizeof buf);
    b->args[0] = d2;
    expect_bad(b, "content is not 1");

    const sy_expr *eqn = P("Eq(x, y)"), *neg = P("y - x");
    b = copy_node(eqn, buf, sizeof buf);
    b->args[0] = neg;
    expect_bad(b, "negative leading coefficient");

    b = copy_node(le, buf, sizeof buf);
    b->args[0] = P("7");
    b->depth = 1;
    expect_bad(b, "relation on a constant");

    const sy_expr *and = P("And(x <= 3, Ne(y, 2))");
    b = copy_node(and, buf, sizeof buf);
    b->args[1] = b->args[0];
    expect_bad(b, "And/Or arguments not sorted or repeated");
    b = copy_node(and, buf, sizeof buf);
    b->args[0] = P("x");
    expect_bad(b, "wrong sort");
}
