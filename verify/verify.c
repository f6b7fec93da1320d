/* Proof obligations discharged with Z3's C API (symshape/verify.h,
 * docs/proof.md). Expressions are translated node by node, memoized on node
 * identity (the hash-consed DAG is translated once, whatever its tree size),
 * into Z3 integer terms; each node also gets its definedness: the conjunction
 * of "divisor != 0" over the divisions it contains (the checker fails a guard
 * that divides by zero). FloorDiv(a, b) = ite(b > 0, div(a, b), div(-a, -b)):
 * for a positive divisor Z3's integer div (SMT-LIB: Euclidean) is floor
 * division; for b < 0 floor(a/b) = floor(-a/-b). Mod(a, b) = a - b*FloorDiv(a, b),
 * CeilDiv(a, b) = -FloorDiv(-a, b) (Python semantics).
 * Length (over 1,200 lines): the three entry points over expressions (equal, bound, model) and the
 * certificate check share one translation state (tr) and the dlopen'd Z3 function table, both
 * static here; a split would put Z3's types in an internal header for one module's use. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algebra/buf.h"
#include "algebra/internal.h"
#include "symshape/env.h"
#include "symshape/verify.h"

#ifndef SY_HAVE_Z3
#define NO_Z3 "verify: built without Z3 (install libz3-dev and reconfigure)"

int sy_verify_available(void) { return 0; }
const char *sy_verify_unavailable_reason(void) { return NO_Z3; }
sy_status sy_verify_model(sy_env *env, const sy_gset *produced, const sy_gset *final, const int64_t *example,
                          const sy_verify_options *opts, sy_verify_fn fn, void *ud, sy_verify_summary *summary)
{
    (void)produced; (void)final; (void)example; (void)opts; (void)fn; (void)ud; (void)summary;
    return env ? sy_fail_st(sy_env_ctx(env), SY_EUNSUPPORTED, NO_Z3)
               : SY_EUNSUPPORTED;
}
sy_status sy_verify_equal(sy_ctx *ctx, size_t n, const sy_expr *const *assumptions, const sy_expr *a, const sy_expr *b,
                          const sy_verify_options *opts, sy_verify_verdict *verdict, char **counterexample)
{
    (void)n; (void)assumptions; (void)a; (void)b; (void)opts; (void)verdict;
    if (counterexample) *counterexample = NULL;
    return sy_fail_st(ctx, SY_EUNSUPPORTED, NO_Z3);
}
sy_status sy_verify_bound(sy_ctx *ctx, size_t n, const sy_expr *const *assumptions, const sy_expr *e, const sy_expr *lo,
                          const sy_expr *hi, const sy_verify_options *opts, sy_verify_verdict *verdict, char **counterexample)
{
    (void)n; (void)assumptions; (void)e; (void)lo; (void)hi; (void)opts; (void)verdict;
    if (counterexample) *counterexample = NULL;
    return sy_fail_st(ctx, SY_EUNSUPPORTED, NO_Z3);
}

sy_status sy_verify_smtlib(sy_ctx *ctx, const char *script, const sy_verify_options *opts, sy_verify_verdict *verdict,
                           char **detail)
{
    (void)script; (void)opts; (void)verdict;
    if (detail) *detail = NULL;
    return ctx ? sy_fail_st(ctx, SY_EUNSUPPORTED, NO_Z3) : SY_EINVAL;
}

#else
#include <dlfcn.h>
#include <pthread.h>
#include <z3.h>

/* Z3 is loaded when the first obligation is set up (dlopen of SY_Z3_SONAME, the soname of the
 * libz3 the build found), not linked: libsymshape.so and the CLI start without loading and
 * relocating Z3's ~20 MB of C++, and only a process that verifies pays for it. Every function
 * used is looked up once (pthread_once) into z3 below; z3.Z3_mk_eq(...) is the call of Z3's own
 * Z3_mk_eq. Z3 stays loaded until the process exits (its static destructors). */
#define SY_Z3_FNS(X) \
    X(del_config) X(del_context) X(get_error_code) X(get_error_msg) X(get_numeral_string) X(mk_add) X(mk_and) \
    X(mk_config) X(mk_const) X(mk_context) X(mk_div) X(mk_eq) X(mk_false) X(mk_fresh_const) X(mk_ge) X(mk_gt) \
    X(mk_iff) X(mk_int) X(mk_int64) X(mk_int_sort) X(mk_ite) X(mk_le) X(mk_mod) X(mk_mul) X(mk_not) \
    X(mk_numeral) X(mk_or) X(mk_solver) X(mk_solver_from_tactic) X(mk_string_symbol) X(mk_sub) X(mk_tactic) \
    X(mk_true) X(mk_unary_minus) X(model_dec_ref) X(model_eval) X(model_inc_ref) X(set_error_handler) \
    X(set_param_value) X(solver_assert) X(solver_check) X(solver_dec_ref) X(solver_get_model) \
    X(solver_get_reason_unknown) X(solver_inc_ref) X(solver_pop) X(solver_push) X(substitute) X(tactic_dec_ref) \
    X(tactic_inc_ref) X(parse_smtlib2_string) X(ast_vector_size) X(ast_vector_get) X(ast_vector_inc_ref) \
    X(ast_vector_dec_ref) X(model_to_string)
#define SY_Z3_FIELD(f) __typeof__(Z3_##f) *Z3_##f;
static struct {
    SY_Z3_FNS(SY_Z3_FIELD)
} z3;
#undef SY_Z3_FIELD
static int z3_loaded;      /* 1 once every function was found */
static char z3_error[400]; /* else why not */
static pthread_once_t z3_once = PTHREAD_ONCE_INIT;

static void z3_load(void)
{
    void *h = dlopen(SY_Z3_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(z3_error, sizeof z3_error, "verify: cannot load Z3 (%s): %s", SY_Z3_SONAME, e ? e : "unknown error");
        return;
    }
    /* a data pointer converted to a function pointer: what dlsym's POSIX contract allows */
#define SY_Z3_LOAD(f)                                                                                     \
    if (!(*(void **)&z3.Z3_##f = dlsym(h, "Z3_" #f))) {                                                  \
        snprintf(z3_error, sizeof z3_error, "verify: Z3 (%s) has no function Z3_%s", SY_Z3_SONAME, #f); \
        return;                                                                                           \
    }
    SY_Z3_FNS(SY_Z3_LOAD)
#undef SY_Z3_LOAD
    z3_loaded = 1;
}

int sy_verify_available(void)
{
    pthread_once(&z3_once, z3_load);
    return z3_loaded;
}

const char *sy_verify_unavailable_reason(void) { return sy_verify_available() ? NULL : z3_error; }

typedef struct {
    Z3_ast val, def; /* def: NULL means "always defined" */
    unsigned mark;   /* the residue split's walk epoch that last met the node */
    uint8_t poly;    /* 0: not a polynomial; 1: an integer polynomial of degree <= 1; 2: of degree >= 2
                        (Add/Mul/Pow over symbols and int64 constants only) */
    uint8_t pdepth;  /* its depth (polynomials deeper than SPLIT_MAX_DEPTH count as not one) */
} tslot;

/* Maps a symbol node to the name of its Z3 constant (NULL: the symbol's own name). */
typedef const char *(*name_fn)(void *ud, const sy_expr *sym);

typedef struct {
    Z3_context z;
    sy_ctx *ctx;
    sy_etab tab; /* node -> tslot */
    sy_status st;
    name_fn name_of;
    void *name_ud;
    /* the Z3 constants created, in creation order (counterexamples), and a
     * hash index on their names: cindex[i] is 1 + the constant's position,
     * 0 for an empty slot (open addressing, capcindex a power of 2) */
    char **cnames;
    Z3_ast *consts;
    size_t nconsts, capconsts;
    size_t *cindex, capcindex;
    Z3_sort int_sort;
    Z3_ast zero;
    unsigned timeout_ms, max_cases, epoch;
} tr;

/* The node's slot (sy_etab_slot: a new one zeroed: no value, always defined). */
static tslot *lookup(tr *t, const sy_expr *e, int insert)
{
    size_t j = sy_etab_slot(t->ctx, &t->tab, e, sizeof(tslot), insert);
    if (j == SIZE_MAX) {
        if (insert) t->st = SY_ENOMEM;
        return NULL;
    }
    return (tslot *)t->tab.vals + j;
}

static size_t hstr(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)h;
}

/* The slot of name in the index (its entry or the empty slot to fill). */
static size_t *cslot(tr *t, const char *name)
{
    size_t j = hstr(name) & (t->capcindex - 1);
    while (t->cindex[j] && strcmp(t->cnames[t->cindex[j] - 1], name)) j = (j + 1) & (t->capcindex - 1);
    return &t->cindex[j];
}

/* The Z3 integer constant named name, created once (expected O(1) per lookup). */
static Z3_ast mk_const(tr *t, const char *name)
{
    if (t->capcindex && *cslot(t, name)) return t->consts[*cslot(t, name) - 1];
    if ((t->nconsts + 1) * 2 > t->capcindex) {
        size_t nc = t->capcindex ? t->capcindex * 2 : 64;
        size_t *ni = calloc(nc, sizeof *ni);
        if (!ni) {
            t->st = SY_ENOMEM;
            return NULL;
        }
        free(t->cindex);
        t->cindex = ni;
        t->capcindex = nc;
        for (size_t i = 0; i < t->nconsts; i++) *cslot(t, t->cnames[i]) = i + 1;
    }
    if (t->nconsts == t->capconsts) {
        size_t nc = t->capconsts ? t->capconsts * 2 : 16;
        char **nn = realloc(t->cnames, nc * sizeof *nn);
        if (!nn) {
            t->st = SY_ENOMEM;
            return NULL;
        }
        t->cnames = nn;
        Z3_ast *na = realloc(t->consts, nc * sizeof *na);
        if (!na) {
            t->st = SY_ENOMEM;
            return NULL;
        }
        t->consts = na;
        t->capconsts = nc;
    }
    size_t len = strlen(name) + 1;
    char *copy = malloc(len);
    if (!copy) {
        t->st = SY_ENOMEM;
        return NULL;
    }
    memcpy(copy, name, len);
    Z3_ast c = z3.Z3_mk_const(t->z, z3.Z3_mk_string_symbol(t->z, name), t->int_sort);
    t->cnames[t->nconsts] = copy;
    t->consts[t->nconsts++] = c;
    *cslot(t, name) = t->nconsts;
    return c;
}

static Z3_ast mk_int(tr *t, const sy_expr *c)
{
    int64_t v;
    if (sy_expr_get_si(c, &v) == SY_OK) return z3.Z3_mk_int64(t->z, v, t->int_sort);
    char *s = sy_expr_print(t->ctx, c, SY_PRINT_CANONICAL);
    if (!s) {
        t->st = SY_ENOMEM;
        return NULL;
    }
    Z3_ast r = z3.Z3_mk_numeral(t->z, s, t->int_sort);
    sy_str_free(t->ctx, s);
    return r;
}

static Z3_ast and2(tr *t, Z3_ast a, Z3_ast b)
{
    if (!a) return b;
    if (!b) return a;
    Z3_ast v[2] = {a, b};
    return z3.Z3_mk_and(t->z, 2, v);
}

static Z3_ast floordiv(tr *t, Z3_ast a, Z3_ast b)
{
    Z3_ast pos = z3.Z3_mk_gt(t->z, b, t->zero);
    return z3.Z3_mk_ite(t->z, pos, z3.Z3_mk_div(t->z, a, b), z3.Z3_mk_div(t->z, z3.Z3_mk_unary_minus(t->z, a), z3.Z3_mk_unary_minus(t->z, b)));
}

static int is_leaf(const sy_expr *e)
{
    sy_expr_kind k = sy_expr_kind_of(e);
    return k == SY_EXPR_INT || k == SY_EXPR_SYM || k == SY_EXPR_TRUE || k == SY_EXPR_FALSE;
}

#define SPLIT_MAX_DEPTH 32

/* Whether e (translated, children too) is an integer polynomial: sums,
 * products and powers of symbols and int64 constants (the numerators the
 * residue split can evaluate modulo a constant), and whether nonlinear. */
static void classify(tr *t, const sy_expr *e, tslot *s)
{
    s->poly = 0;
    s->pdepth = 0;
    sy_expr_kind k = sy_expr_kind_of(e);
    int64_t v;
    if (k == SY_EXPR_INT) {
        if (sy_expr_get_si(e, &v) == SY_OK) s->poly = 1;
        return;
    }
    if (k == SY_EXPR_SYM) {
        s->poly = 1;
        return;
    }
    if (k != SY_EXPR_ADD && k != SY_EXPR_MUL && k != SY_EXPR_POW) return;
    unsigned cls = k == SY_EXPR_ADD ? 1 : 2, depth = 0;
    for (size_t i = 0; i < sy_expr_nargs(e); i++) {
        const tslot *c = lookup(t, sy_expr_arg(e, i), 0);
        if (!c || !c->poly) return;
        if (c->poly > cls) cls = c->poly;
        if (c->pdepth > depth) depth = c->pdepth;
        if (k == SY_EXPR_ADD) {
            const sy_expr *cf = sy_expr_add_coeff(t->ctx, e, i);
            if (!cf || sy_expr_get_si(cf, &v) != SY_OK) return;
        }
    }
    if (k == SY_EXPR_ADD) {
        const sy_expr *c0 = sy_expr_add_const(t->ctx, e);
        if (!c0 || sy_expr_get_si(c0, &v) != SY_OK) return;
    }
    if (depth + 1 > SPLIT_MAX_DEPTH) return;
    s->poly = (uint8_t)cls;
    s->pdepth = (uint8_t)(depth + 1);
}

/* Translate one node whose children are translated already. */
static void translate_node(tr *t, const sy_expr *e, tslot *s)
{
    Z3_context z = t->z;
    size_t n = is_leaf(e) ? 0 : sy_expr_nargs(e);
    Z3_ast stackargs[16], *args = n <= 16 ? stackargs : malloc(n * sizeof *args);
    if (!args) {
        t->st = SY_ENOMEM;
        return;
    }
    Z3_ast def = NULL;
    for (size_t i = 0; i < n; i++) {
        tslot *c = lookup(t, sy_expr_arg(e, i), 0);
        args[i] = c->val;
        def = and2(t, def, c->def);
    }
    Z3_ast v = NULL;
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_INT: v = mk_int(t, e); break;
    case SY_EXPR_TRUE: v = z3.Z3_mk_true(z); break;
    case SY_EXPR_FALSE: v = z3.Z3_mk_false(z); break;
    case SY_EXPR_SYM: {
        const char *nm = t->name_of ? t->name_of(t->name_ud, e) : NULL;
        v = mk_const(t, nm ? nm : sy_expr_sym_name(e));
        break;
    }
    case SY_EXPR_ADD: {
        Z3_ast *terms = malloc((n + 1) * sizeof *terms);
        if (!terms) {
            t->st = SY_ENOMEM;
            break;
        }
        terms[0] = mk_int(t, sy_expr_add_const(t->ctx, e));
        for (size_t i = 0; i < n; i++) {
            Z3_ast m2[2] = {mk_int(t, sy_expr_add_coeff(t->ctx, e, i)), args[i]};
            terms[i + 1] = z3.Z3_mk_mul(z, 2, m2);
        }
        v = z3.Z3_mk_add(z, (unsigned)(n + 1), terms);
        free(terms);
        break;
    }
    case SY_EXPR_MUL: v = z3.Z3_mk_mul(z, (unsigned)n, args); break;
    case SY_EXPR_POW: {
        /* repeated squaring on Z3 terms (shared: Z3 hash-conses too) */
        uint64_t k = sy_expr_pow_exp(e);
        Z3_ast base = args[0], acc = NULL;
        while (k) {
            if (k & 1) {
                if (!acc) acc = base;
                else {
                    Z3_ast m2[2] = {acc, base};
                    acc = z3.Z3_mk_mul(z, 2, m2);
                }
            }
            k >>= 1;
            if (k) {
                Z3_ast m2[2] = {base, base};
                base = z3.Z3_mk_mul(z, 2, m2);
            }
        }
        v = acc;
        break;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV: {
        Z3_ast a = args[0], b = args[1];
        int64_t dv = 0;
        if (!(sy_expr_get_si(sy_expr_arg(e, 1), &dv) == SY_OK && dv != 0))
            def = and2(t, def, z3.Z3_mk_not(z, z3.Z3_mk_eq(z, b, t->zero)));
        if (sy_expr_kind_of(e) == SY_EXPR_FLOORDIV) v = floordiv(t, a, b);
        else if (sy_expr_kind_of(e) == SY_EXPR_CEILDIV) v = z3.Z3_mk_unary_minus(z, floordiv(t, z3.Z3_mk_unary_minus(z, a), b));
        else {
            Z3_ast m2[2] = {b, floordiv(t, a, b)};
            Z3_ast s2[2] = {a, z3.Z3_mk_mul(z, 2, m2)};
            v = z3.Z3_mk_sub(z, 2, s2);
        }
        break;
    }
    case SY_EXPR_MIN:
    case SY_EXPR_MAX: {
        v = args[0];
        for (size_t i = 1; i < n; i++) {
            Z3_ast c = sy_expr_kind_of(e) == SY_EXPR_MIN ? z3.Z3_mk_le(z, v, args[i]) : z3.Z3_mk_ge(z, v, args[i]);
            v = z3.Z3_mk_ite(z, c, v, args[i]);
        }
        break;
    }
    case SY_EXPR_EQ: v = z3.Z3_mk_eq(z, args[0], t->zero); break;
    case SY_EXPR_NE: v = z3.Z3_mk_not(z, z3.Z3_mk_eq(z, args[0], t->zero)); break;
    case SY_EXPR_LE: v = z3.Z3_mk_le(z, args[0], t->zero); break;
    case SY_EXPR_AND: v = z3.Z3_mk_and(z, (unsigned)n, args); break;
    case SY_EXPR_OR: v = z3.Z3_mk_or(z, (unsigned)n, args); break;
    default: t->st = sy_fail_st(t->ctx, SY_EUNSUPPORTED, "verify: expression kind %d has no Z3 encoding", (int)sy_expr_kind_of(e)); break;
    }
    if (args != stackargs) free(args);
    s->val = v;
    s->def = def;
    classify(t, e, s);
}

/* Post-order translation (sy_expr_walk_postorder: no recursion, each DAG
 * node once). */
static int tr_skip(void *ud, const sy_expr *e)
{
    tslot *s = lookup(ud, e, 0);
    return s && s->val;
}

static sy_status tr_visit(void *ud, const sy_expr *e)
{
    tr *t = ud;
    tslot *s = lookup(t, e, 1);
    if (s) translate_node(t, e, s);
    return t->st;
}

static tslot *translate(tr *t, const sy_expr *root)
{
    sy_status st = sy_expr_walk_postorder(t->ctx, root, tr_skip, tr_visit, t);
    if (t->st == SY_OK) t->st = st;
    return t->st == SY_OK ? lookup(t, root, 0) : NULL;
}

/* The expression as a Z3 Bool that is false where a divisor is 0. */
static Z3_ast defined_true(tr *t, const sy_expr *e)
{
    tslot *s = translate(t, e);
    if (!s) return NULL;
    return s->def ? and2(t, s->def, s->val) : s->val;
}

static void on_z3_error(Z3_context z, Z3_error_code c)
{
    (void)z;
    (void)c; /* errors are read back with Z3_get_error_code after each call */
}

static sy_status tr_init(tr *t, sy_ctx *ctx, const sy_verify_options *opts)
{
    /* version 1 (without max_cases) is still accepted */
    if (opts && opts->version != SY_VERIFY_OPTIONS_VERSION && opts->version != 1u)
        return sy_fail_st(ctx, SY_EINVAL, "verify: options version mismatch");
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->st = SY_OK;
    t->timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : 60000u;
    t->max_cases = opts && opts->version >= 2u && opts->max_cases ? opts->max_cases : SY_VERIFY_MAX_CASES_DEFAULT;
    if (t->max_cases > SY_VERIFY_MAX_CASES_LIMIT) t->max_cases = SY_VERIFY_MAX_CASES_LIMIT;
    if (!sy_verify_available()) return sy_fail_st(ctx, SY_EUNSUPPORTED, "%s", z3_error);
    Z3_config cfg = z3.Z3_mk_config();
    if (!cfg) return sy_fail_st(ctx, SY_ENOMEM, "verify: cannot create a Z3 configuration");
    char buf[32];
    snprintf(buf, sizeof buf, "%u", opts && opts->timeout_ms ? opts->timeout_ms : 60000u);
    z3.Z3_set_param_value(cfg, "timeout", buf);
    snprintf(buf, sizeof buf, "%u", opts && opts->rlimit ? opts->rlimit : 2000000u);
    z3.Z3_set_param_value(cfg, "rlimit", buf);
    t->z = z3.Z3_mk_context(cfg);
    z3.Z3_del_config(cfg);
    if (!t->z) return sy_fail_st(ctx, SY_ENOMEM, "verify: cannot create a Z3 context");
    z3.Z3_set_error_handler(t->z, on_z3_error);
    t->int_sort = z3.Z3_mk_int_sort(t->z);
    t->zero = z3.Z3_mk_int(t->z, 0, t->int_sort);
    return SY_OK;
}

static void tr_clear(tr *t)
{
    for (size_t i = 0; i < t->nconsts; i++) free(t->cnames[i]);
    free(t->cnames);
    free(t->consts);
    free(t->cindex);
    sy_etab_clear(t->ctx, &t->tab, sizeof(tslot));
    if (t->z) z3.Z3_del_context(t->z);
    memset(t, 0, sizeof *t);
}

/* The expressions an obligation's premises and claim were translated from
 * (the residue split walks them): the checked guards of up to two sets and a
 * list of expressions. */
typedef struct {
    const sy_gset *sets[2];
    const sy_expr *const *list;
    size_t nlist;
    const sy_expr *more[3];
} roots;

/* ---------------------------------------------------------- residue split
 * For an integer polynomial p, integers x and r with x_i ≡ r_i (mod m) for
 * every symbol give p(x) ≡ p(r) (mod m): sums and products respect
 * congruences (Gauss, Disquisitiones Arithmeticae, art. 7-9; any text on
 * modular arithmetic). So once the residues of p's symbols modulo a multiple
 * L of |c| are fixed, Mod(p, c) is the constant Mod(p(r), c) (Python's Mod
 * depends only on p mod |c|), FloorDiv(p, c) the Q with c*Q + Mod(p, c) = p
 * (exact: c*Q = p - Mod(p, c)) and CeilDiv(p, c) = Q + (Mod(p, c) != 0). The
 * split enumerates every residue vector r of the symbols of the nonlinear
 * numerators modulo L = lcm(|c|): each case asserts the linear premises
 * x_i mod L = r_i, so the cases cover every integer point; the claim is
 * proven when every case is unsat, refuted by a case's model (a real point:
 * every replaced term equals its value there), unknown otherwise. */
typedef struct {
    const sy_expr *p;                        /* the numerator (a polynomial) */
    int64_t c;                               /* the constant divisor, nonzero */
    int nonlinear, used;
    Z3_ast p_ast, mod_ast, fdiv_ast, cdiv_ast; /* translations met (NULL: that node is not in the obligation) */
    Z3_ast M, Q;
} rpair;

#define SPLIT_MAX_PAIRS 256

typedef struct {
    tr *t;
    rpair *pairs;
    size_t n;
    int overflow;
} rcollect;

static int rc_skip(void *ud, const sy_expr *e)
{
    rcollect *rc = ud;
    tslot *s = lookup(rc->t, e, 0);
    if (!s || !s->val || s->mark == rc->t->epoch) return 1;
    s->mark = rc->t->epoch;
    return 0;
}

static sy_status rc_visit(void *ud, const sy_expr *e)
{
    rcollect *rc = ud;
    sy_expr_kind k = sy_expr_kind_of(e);
    int64_t c;
    if ((k != SY_EXPR_MOD && k != SY_EXPR_FLOORDIV && k != SY_EXPR_CEILDIV) ||
        sy_expr_get_si(sy_expr_arg(e, 1), &c) != SY_OK || c == 0 || c == INT64_MIN)
        return SY_OK;
    const sy_expr *p = sy_expr_arg(e, 0);
    const tslot *ps = lookup(rc->t, p, 0), *es = lookup(rc->t, e, 0);
    if (!ps || !ps->poly || !es) return SY_OK;
    size_t i = 0;
    while (i < rc->n && !(rc->pairs[i].p == p && rc->pairs[i].c == c)) i++;
    if (i == rc->n) {
        if (rc->n == SPLIT_MAX_PAIRS) {
            rc->overflow = 1;
            return SY_OK;
        }
        memset(&rc->pairs[rc->n], 0, sizeof rc->pairs[0]);
        rc->pairs[rc->n].p = p;
        rc->pairs[rc->n].c = c;
        rc->pairs[rc->n].p_ast = ps->val;
        rc->pairs[rc->n].nonlinear = ps->poly == 2;
        rc->n++;
    }
    rpair *r = &rc->pairs[i];
    if (k == SY_EXPR_MOD) r->mod_ast = es->val;
    else if (k == SY_EXPR_FLOORDIV) r->fdiv_ast = es->val;
    else r->cdiv_ast = es->val;
    return SY_OK;
}

static sy_status rc_walk(rcollect *rc, const sy_expr *e)
{
    return e ? sy_expr_walk_postorder(rc->t->ctx, e, rc_skip, rc_visit, rc) : SY_OK;
}

/* p at the residues r of the symbols syms[0..k) (nonnegative, < m), modulo m
 * (m <= SY_VERIFY_MAX_CASES_LIMIT, so products fit 64 bits). */
static uint64_t peval(sy_ctx *ctx, const sy_expr *e, const sy_expr *const *syms, const uint64_t *r, size_t k, uint64_t m)
{
    int64_t v;
    uint64_t acc;
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_INT:
        sy_expr_get_si(e, &v);
        return (uint64_t)(((v % (int64_t)m) + (int64_t)m) % (int64_t)m);
    case SY_EXPR_SYM:
        for (size_t i = 0; i < k; i++)
            if (syms[i] == e) return r[i] % m;
        return 0; /* not reached: the pair's symbols are among syms */
    case SY_EXPR_ADD:
        sy_expr_get_si(sy_expr_add_const(ctx, e), &v);
        acc = (uint64_t)(((v % (int64_t)m) + (int64_t)m) % (int64_t)m);
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            sy_expr_get_si(sy_expr_add_coeff(ctx, e, i), &v);
            uint64_t cf = (uint64_t)(((v % (int64_t)m) + (int64_t)m) % (int64_t)m);
            acc = (acc + cf * peval(ctx, sy_expr_arg(e, i), syms, r, k, m)) % m;
        }
        return acc;
    case SY_EXPR_MUL:
        acc = 1 % m;
        for (size_t i = 0; i < sy_expr_nargs(e); i++) acc = acc * peval(ctx, sy_expr_arg(e, i), syms, r, k, m) % m;
        return acc;
    case SY_EXPR_POW: {
        uint64_t b = peval(ctx, sy_expr_arg(e, 0), syms, r, k, m), x = sy_expr_pow_exp(e);
        acc = 1 % m;
        while (x) {
            if (x & 1) acc = acc * b % m;
            b = b * b % m;
            x >>= 1;
        }
        return acc;
    }
    default: return 0; /* not reached: classify() admits only the kinds above */
    }
}

static double elapsed(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

/* Adds the symbols of e not yet in syms (kept sorted by sy_expr_cmp). */
static sy_status add_syms(sy_ctx *ctx, const sy_expr *e, const sy_expr ***syms, size_t *k, size_t *cap)
{
    const sy_expr **fs = NULL;
    size_t nf = 0;
    sy_status st = sy_expr_free_symbols(ctx, e, &fs, &nf);
    for (size_t i = 0; i < nf && st == SY_OK; i++) {
        size_t j = 0;
        while (j < *k && sy_expr_cmp((*syms)[j], fs[i]) < 0) j++;
        if (j < *k && (*syms)[j] == fs[i]) continue;
        if (*k == *cap) {
            size_t nc = *cap ? *cap * 2 : 8;
            const sy_expr **ns = realloc((void *)*syms, nc * sizeof *ns);
            if (!ns) {
                st = SY_ENOMEM;
                break;
            }
            *syms = ns;
            *cap = nc;
        }
        memmove((void *)(*syms + j + 1), (const void *)(*syms + j), (*k - j) * sizeof **syms);
        (*syms)[j] = fs[i];
        (*k)++;
    }
    sy_mem_free(ctx, (void *)fs);
    return st;
}

static int syms_subset(sy_ctx *ctx, const sy_expr *e, const sy_expr *const *syms, size_t k)
{
    const sy_expr **fs = NULL;
    size_t nf = 0;
    if (sy_expr_free_symbols(ctx, e, &fs, &nf) != SY_OK) return 0;
    int in = 1;
    for (size_t i = 0; i < nf && in; i++) {
        size_t j = 0;
        while (j < k && syms[j] != fs[i]) j++;
        in = j < k;
    }
    sy_mem_free(ctx, (void *)fs);
    return in;
}

static uint64_t gcd_u(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static void print_syms(sy_buf *b, const sy_expr *const *syms, size_t k, tr *t)
{
    for (size_t i = 0; i < k; i++) {
        const char *nm = t->name_of ? t->name_of(t->name_ud, syms[i]) : NULL;
        sy_buf_printf(b, "%s%s", i ? ", " : "", nm ? nm : sy_expr_sym_name(syms[i]));
    }
}

/* The residue split of an obligation Z3 left unknown. Returns -1 when it does
 * not apply (no Mod, FloorDiv or CeilDiv of a nonlinear polynomial by a
 * constant), else the verdict (why: the reason of an unknown). */
static int residue_split(tr *t, const roots *R, size_t np, Z3_ast *premises, Z3_ast claim, const struct timespec *start,
                         Z3_solver *out, sy_buf *why)
{
    rcollect rc = {t, NULL, 0, 0};
    rc.pairs = malloc(SPLIT_MAX_PAIRS * sizeof *rc.pairs);
    if (!rc.pairs) {
        t->st = SY_ENOMEM;
        return SY_VERIFY_UNKNOWN;
    }
    t->epoch++;
    sy_status st = SY_OK;
    for (int w = 0; w < 2 && st == SY_OK; w++)
        for (size_t i = 0; R->sets[w] && i < sy_gset_size(R->sets[w]) && st == SY_OK; i++) {
            const sy_gset_guard *g = sy_gset_at(R->sets[w], i);
            if (g->kind != SY_GK_RUNTIME_ASSERT) st = rc_walk(&rc, g->expr);
        }
    for (size_t i = 0; i < R->nlist && st == SY_OK; i++) st = rc_walk(&rc, R->list[i]);
    for (size_t i = 0; i < 3 && st == SY_OK; i++) st = rc_walk(&rc, R->more[i]);
    /* the modulus and the symbols: those of the nonlinear numerators */
    uint64_t L = 1;
    const sy_expr **syms = NULL;
    size_t k = 0, capk = 0, nnl = 0;
    int verdict = -1;
    for (size_t i = 0; i < rc.n && st == SY_OK; i++) {
        rpair *r = &rc.pairs[i];
        if (!r->nonlinear) continue;
        nnl++;
        uint64_t a = r->c < 0 ? (uint64_t)(-r->c) : (uint64_t)r->c, g = gcd_u(L, a);
        L = a / g > UINT64_MAX / L ? UINT64_MAX : L * (a / g);
        st = add_syms(t->ctx, r->p, &syms, &k, &capk);
    }
    Z3_context z = t->z;
    Z3_solver s = NULL;
    if (st != SY_OK) {
        t->st = st;
        verdict = SY_VERIFY_UNKNOWN;
        goto done;
    }
    if (!nnl) goto done;
    if (rc.overflow) {
        sy_buf_printf(why, "the residue split met more than %d Mod/FloorDiv/CeilDiv terms with a constant divisor", SPLIT_MAX_PAIRS);
        verdict = SY_VERIFY_UNKNOWN;
        goto done;
    }
    uint64_t ncases = 1;
    for (size_t i = 0; i < k && ncases <= t->max_cases; i++) ncases = L > t->max_cases ? UINT64_MAX : ncases * L;
    if (L > t->max_cases || ncases > t->max_cases) {
        sy_buf_printf(why, "the residue split over ");
        print_syms(why, syms, k, t);
        if (L > t->max_cases) sy_buf_printf(why, " needs more than max_cases = %u cases (the modulus alone exceeds it)", t->max_cases);
        else sy_buf_printf(why, " modulo %llu needs %llu^%zu cases, more than max_cases = %u", (unsigned long long)L,
                       (unsigned long long)L, k, t->max_cases);
        verdict = SY_VERIFY_UNKNOWN;
        goto done;
    }
    /* replace each term of a pair whose divisor divides L and whose symbols
     * are split by a fresh constant: M = Mod(p, c), Q = FloorDiv(p, c) */
    Z3_ast from[3 * SPLIT_MAX_PAIRS], to[3 * SPLIT_MAX_PAIRS];
    unsigned nsub = 0;
    for (size_t i = 0; i < rc.n; i++) {
        rpair *r = &rc.pairs[i];
        uint64_t a = r->c < 0 ? (uint64_t)(-r->c) : (uint64_t)r->c;
        if (L % a || !syms_subset(t->ctx, r->p, syms, k)) continue;
        r->used = 1;
        r->M = z3.Z3_mk_fresh_const(z, "sy_mod", t->int_sort);
        if (r->mod_ast) from[nsub] = r->mod_ast, to[nsub++] = r->M;
        if (r->fdiv_ast || r->cdiv_ast) {
            r->Q = z3.Z3_mk_fresh_const(z, "sy_floordiv", t->int_sort);
            if (r->fdiv_ast) from[nsub] = r->fdiv_ast, to[nsub++] = r->Q;
            if (r->cdiv_ast) {
                Z3_ast one = z3.Z3_mk_int(z, 1, t->int_sort), q1[2] = {r->Q, one};
                from[nsub] = r->cdiv_ast;
                to[nsub++] = z3.Z3_mk_ite(z, z3.Z3_mk_eq(z, r->M, t->zero), r->Q, z3.Z3_mk_add(z, 2, q1));
            }
        }
    }
    s = z3.Z3_mk_solver(z);
    if (!s) {
        verdict = SY_VERIFY_UNKNOWN;
        sy_buf_printf(why, "Z3 could not create a solver");
        goto done;
    }
    z3.Z3_solver_inc_ref(z, s);
    for (size_t i = 0; i < np; i++) z3.Z3_solver_assert(z, s, z3.Z3_substitute(z, premises[i], nsub, from, to));
    z3.Z3_solver_assert(z, s, z3.Z3_mk_not(z, z3.Z3_substitute(z, claim, nsub, from, to)));
    for (size_t i = 0; i < rc.n; i++) {
        rpair *r = &rc.pairs[i];
        if (!r->Q) continue;
        Z3_ast cq[2] = {z3.Z3_mk_int64(z, r->c, t->int_sort), r->Q}, sum[2] = {z3.Z3_mk_mul(z, 2, cq), r->M};
        z3.Z3_solver_assert(z, s, z3.Z3_mk_eq(z, z3.Z3_mk_add(z, 2, sum), r->p_ast));
    }
    Z3_ast *xs = malloc((k ? k : 1) * sizeof *xs);
    uint64_t *res = calloc(k ? k : 1, sizeof *res);
    if (!xs || !res) {
        free(xs);
        free(res);
        t->st = SY_ENOMEM;
        verdict = SY_VERIFY_UNKNOWN;
        goto done;
    }
    for (size_t i = 0; i < k; i++) xs[i] = lookup(t, syms[i], 0)->val;
    Z3_ast Lz = z3.Z3_mk_int64(z, (int64_t)L, t->int_sort);
    verdict = SY_VERIFY_PROVEN;
    for (uint64_t done = 0; done < ncases; done++) {
        if (elapsed(start) * 1000.0 > (double)t->timeout_ms) {
            sy_buf_printf(why, "the residue split reached the timeout (%u ms) after %llu of %llu cases", t->timeout_ms,
                      (unsigned long long)done, (unsigned long long)ncases);
            verdict = SY_VERIFY_UNKNOWN;
            break;
        }
        z3.Z3_solver_push(z, s);
        for (size_t i = 0; i < k; i++)
            z3.Z3_solver_assert(z, s, z3.Z3_mk_eq(z, z3.Z3_mk_mod(z, xs[i], Lz), z3.Z3_mk_int64(z, (int64_t)res[i], t->int_sort)));
        for (size_t i = 0; i < rc.n; i++) {
            rpair *r = &rc.pairs[i];
            if (!r->used) continue;
            uint64_t a = r->c < 0 ? (uint64_t)(-r->c) : (uint64_t)r->c;
            int64_t m = (int64_t)peval(t->ctx, r->p, syms, res, k, a);
            if (r->c < 0 && m) m += r->c; /* Python: the sign of the divisor */
            z3.Z3_solver_assert(z, s, z3.Z3_mk_eq(z, r->M, z3.Z3_mk_int64(z, m, t->int_sort)));
        }
        Z3_lbool lb = z3.Z3_solver_check(z, s);
        if (lb == Z3_L_TRUE) {
            verdict = SY_VERIFY_REFUTED; /* the model is read by the caller, before the pop */
            break;
        }
        if (lb == Z3_L_UNDEF) {
            sy_buf_printf(why, "the residue split over ");
            print_syms(why, syms, k, t);
            sy_buf_printf(why, " modulo %llu: Z3 answered unknown (%s) in case %llu of %llu", (unsigned long long)L,
                      z3.Z3_solver_get_reason_unknown(z, s), (unsigned long long)done + 1, (unsigned long long)ncases);
            verdict = SY_VERIFY_UNKNOWN;
            break;
        }
        z3.Z3_solver_pop(z, s, 1);
        for (size_t i = 0; i < k && ++res[i] == L; i++) res[i] = 0;
    }
    free(xs);
    free(res);
done:
    free(rc.pairs);
    free((void *)syms);
    if (verdict == SY_VERIFY_REFUTED) *out = s;
    else if (s) z3.Z3_solver_dec_ref(z, s);
    return verdict;
}

/* The solver of one attempt: Z3's default (tactic NULL) or one built from a
 * tactic. */
static Z3_solver attempt(tr *t, const char *tactic, size_t np, Z3_ast *premises, Z3_ast claim)
{
    Z3_solver s;
    if (tactic) {
        Z3_tactic tac = z3.Z3_mk_tactic(t->z, tactic);
        if (!tac) return NULL;
        z3.Z3_tactic_inc_ref(t->z, tac);
        s = z3.Z3_mk_solver_from_tactic(t->z, tac);
        z3.Z3_tactic_dec_ref(t->z, tac);
    } else {
        s = z3.Z3_mk_solver(t->z);
    }
    if (!s) return NULL;
    z3.Z3_solver_inc_ref(t->z, s);
    for (size_t i = 0; i < np; i++) z3.Z3_solver_assert(t->z, s, premises[i]);
    z3.Z3_solver_assert(t->z, s, z3.Z3_mk_not(t->z, claim));
    return s;
}

/* Check that `premises` imply `claim`: Z3 on premises and not(claim). An
 * unknown from Z3's default solver (its budget ran out: nonlinear terms such
 * as Mod(x*y, 6) or a symbolic divisor) goes to the residue split when the
 * obligation (the expressions R, NULL: none) has a Mod, FloorDiv or CeilDiv
 * of a nonlinear polynomial by a constant; an unknown after that is tried
 * again with Z3's "qfnia" tactic, its strategy for quantifier-free nonlinear
 * integer arithmetic (simplification, div/mod purification, then nlsat),
 * within the same rlimit per attempt. Every sat/unsat is exact; unknown stays
 * unknown, with its reason in why (the split's when it was tried). */
static sy_verify_verdict prove(tr *t, size_t np, Z3_ast *premises, Z3_ast claim, const roots *R, sy_buf *cex, sy_buf *why,
                               double *secs)
{
    struct timespec a;
    clock_gettime(CLOCK_MONOTONIC, &a);
    Z3_solver s = attempt(t, NULL, np, premises, claim);
    Z3_lbool r = s ? z3.Z3_solver_check(t->z, s) : Z3_L_UNDEF;
    int split = -1;
    sy_buf sw;
    sy_buf_init(&sw, t->ctx);
    if (r == Z3_L_UNDEF && R && z3.Z3_get_error_code(t->z) == Z3_OK) {
        Z3_solver ss = NULL;
        split = residue_split(t, R, np, premises, claim, &a, &ss, &sw);
        if (split == SY_VERIFY_REFUTED) {
            if (s) z3.Z3_solver_dec_ref(t->z, s);
            s = ss;
            r = Z3_L_TRUE;
        } else if (split == SY_VERIFY_PROVEN) {
            r = Z3_L_FALSE;
        }
    }
    if (r == Z3_L_UNDEF && z3.Z3_get_error_code(t->z) == Z3_OK) {
        if (s) z3.Z3_solver_dec_ref(t->z, s);
        s = attempt(t, "qfnia", np, premises, claim);
        r = s ? z3.Z3_solver_check(t->z, s) : Z3_L_UNDEF;
    }
    if (r == Z3_L_UNDEF && why) {
        if (split == SY_VERIFY_UNKNOWN) sy_buf_printf(why, "%s", sw.p ? sw.p : "");
        else sy_buf_printf(why, "Z3: %s (default solver, then qfnia)", s ? z3.Z3_solver_get_reason_unknown(t->z, s) : "no solver");
    }
    if (sw.oom && why) why->oom = true;
    sy_buf_free(&sw);
    sy_verify_verdict v = r == Z3_L_FALSE ? SY_VERIFY_PROVEN : r == Z3_L_TRUE ? SY_VERIFY_REFUTED : SY_VERIFY_UNKNOWN;
    if (v == SY_VERIFY_REFUTED && cex) {
        Z3_model m = z3.Z3_solver_get_model(t->z, s);
        z3.Z3_model_inc_ref(t->z, m);
        for (size_t i = 0; i < t->nconsts; i++) {
            Z3_ast val = NULL;
            if (z3.Z3_model_eval(t->z, m, t->consts[i], 1, &val) && val)
                sy_buf_printf(cex, "%s%s = %s", i ? ", " : "", t->cnames[i], z3.Z3_get_numeral_string(t->z, val));
        }
        z3.Z3_model_dec_ref(t->z, m);
    }
    if (s) z3.Z3_solver_dec_ref(t->z, s);
    if (z3.Z3_get_error_code(t->z) != Z3_OK) {
        if (v != SY_VERIFY_UNKNOWN && why) sy_buf_printf(why, "Z3 error: %s", z3.Z3_get_error_msg(t->z, z3.Z3_get_error_code(t->z)));
        v = SY_VERIFY_UNKNOWN;
    }
    *secs = elapsed(&a);
    return v;
}

/* assumptions => (a defined => claim(a, b)): claim built in Z3 from the two
 * translations. which: 0 equal, 1 bound (b = lo, c = hi, either NULL). */
static sy_status prove_about(sy_ctx *ctx, size_t n, const sy_expr *const *assumptions, const sy_expr *a,
                             const sy_expr *b, const sy_expr *c, int which, const sy_verify_options *opts,
                             sy_verify_verdict *verdict, char **counterexample)
{
    if (counterexample) *counterexample = NULL;
    if (!ctx) return SY_EINVAL;
    if (!a || !verdict || (n && !assumptions) || (which == 0 && !b))
        return sy_fail_st(ctx, SY_EINVAL, "verify: NULL argument");
    if (which == 0 && sy_expr_is_bool(a) != sy_expr_is_bool(b))
        return sy_fail_st(ctx, SY_EINVAL, "verify: the two sides differ in type (integer vs boolean)");
    if (which == 1 && (sy_expr_is_bool(a) || (b && sy_expr_is_bool(b)) || (c && sy_expr_is_bool(c))))
        return sy_fail_st(ctx, SY_EINVAL, "verify: a bound is about integer expressions");
    for (size_t i = 0; i < n; i++)
        if (!assumptions[i] || !sy_expr_is_bool(assumptions[i]))
            return sy_fail_st(ctx, SY_EINVAL, "verify: assumption %zu is not a boolean expression", i);
    tr t;
    sy_status st = tr_init(&t, ctx, opts);
    if (st != SY_OK) return st;
    Z3_ast *prem = malloc((n + 1) * sizeof *prem);
    size_t np = 0;
    if (!prem) st = SY_ENOMEM;
    for (size_t i = 0; i < n && st == SY_OK; i++) {
        prem[np] = defined_true(&t, assumptions[i]);
        if (!prem[np]) st = t.st;
        np++;
    }
    tslot *ta = st == SY_OK ? translate(&t, a) : NULL;
    if (st == SY_OK && !ta) st = t.st;
    Z3_ast claim = NULL;
    if (st == SY_OK) {
        if (ta->def) prem[np++] = ta->def;
        Z3_ast av = ta->val;
        if (which == 0) {
            tslot *tb = translate(&t, b);
            if (!tb) st = t.st;
            else claim = and2(&t, tb->def, sy_expr_is_bool(a) ? z3.Z3_mk_iff(t.z, av, tb->val) : z3.Z3_mk_eq(t.z, av, tb->val));
        } else {
            claim = z3.Z3_mk_true(t.z);
            for (int side = 0; side < 2 && st == SY_OK; side++) {
                const sy_expr *bd = side ? c : b;
                if (!bd) continue;
                tslot *tb = translate(&t, bd);
                if (!tb) {
                    st = t.st;
                    break;
                }
                claim = and2(&t, claim, and2(&t, tb->def, side ? z3.Z3_mk_le(t.z, av, tb->val) : z3.Z3_mk_le(t.z, tb->val, av)));
            }
        }
    }
    if (st == SY_OK) {
        sy_buf cex;
        sy_buf_init(&cex, ctx);
        double secs;
        roots R = {{NULL, NULL}, assumptions, n, {a, b, c}};
        *verdict = prove(&t, np, prem, claim, &R, counterexample ? &cex : NULL, counterexample ? &cex : NULL, &secs);
        if (cex.oom) st = SY_ENOMEM;
        else if (counterexample && *verdict != SY_VERIFY_PROVEN) {
            *counterexample = sy_buf_finish(&cex);
            if (!*counterexample) st = SY_ENOMEM;
        }
        sy_buf_free(&cex);
    }
    free(prem);
    tr_clear(&t);
    if (st == SY_ENOMEM) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    return st;
}

sy_status sy_verify_equal(sy_ctx *ctx, size_t n, const sy_expr *const *assumptions, const sy_expr *a, const sy_expr *b,
                          const sy_verify_options *opts, sy_verify_verdict *verdict, char **counterexample)
{
    return prove_about(ctx, n, assumptions, a, b, NULL, 0, opts, verdict, counterexample);
}

sy_status sy_verify_bound(sy_ctx *ctx, size_t n, const sy_expr *const *assumptions, const sy_expr *e, const sy_expr *lo,
                          const sy_expr *hi, const sy_verify_options *opts, sy_verify_verdict *verdict, char **counterexample)
{
    return prove_about(ctx, n, assumptions, e, lo, hi, 1, opts, verdict, counterexample);
}

/* Symbols of the env read as the first source they were created for, so that an env symbol and
 * the guard-set variable of its source (a symbol named by the source) are one Z3 constant. The
 * map must stay injective over the env's symbols: through the C API a source is any text, so a
 * symbol created for source "s3" (or "u0") and the sourceless symbol s3 (or the unbacked u0), or
 * two symbols created for one source, were one constant, and a recorded guard s2 == s3 that the
 * guard set lost (its variable for source "s3" is the node s3) was "proven". Each env symbol is
 * named once, in creation order: its first source when backed with one and no earlier symbol
 * holds that name, else its own name when free, else NAME#k (the first k free). */
typedef struct {
    sy_env *env;
    const char **byid;  /* the name of env symbol id (NULL: not an env symbol: its own name) */
    size_t nid;
    char **made;        /* the NAME#k strings */
    size_t nmade;
    const char **used;  /* every name given, sorted (strcmp) */
    size_t nused;
} env_names;

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool name_used(const env_names *nm, const char *s)
{
    return nm->nused && bsearch(&s, nm->used, nm->nused, sizeof *nm->used, cmp_str) != NULL;
}

static bool name_use(env_names *nm, const char *s)
{
    size_t i = nm->nused;
    while (i > 0 && strcmp(nm->used[i - 1], s) > 0) i--; /* insertion: n symbols, sorted once each */
    memmove(nm->used + i + 1, nm->used + i, (nm->nused - i) * sizeof *nm->used);
    nm->used[i] = s;
    nm->nused++;
    return true;
}

static void env_names_clear(env_names *nm)
{
    for (size_t i = 0; i < nm->nmade; i++) free(nm->made[i]);
    free(nm->made);
    free(nm->byid);
    free(nm->used);
}

static sy_status env_names_init(env_names *nm, sy_env *env)
{
    memset(nm, 0, sizeof *nm);
    nm->env = env;
    size_t n = sy_env_nsymbols(env);
    for (size_t i = 0; i < n; i++) {
        uint32_t id = sy_expr_sym_id(sy_env_symbol(env, i)->sym);
        if ((size_t)id + 1 > nm->nid) nm->nid = (size_t)id + 1;
    }
    nm->byid = calloc(nm->nid ? nm->nid : 1, sizeof *nm->byid);
    nm->used = malloc((n ? n : 1) * sizeof *nm->used);
    nm->made = malloc((n ? n : 1) * sizeof *nm->made);
    if (!nm->byid || !nm->used || !nm->made) return SY_ENOMEM;
    /* the sources first: a guard set's variables are named by them */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            const sy_symbol_info *si = sy_env_symbol(env, i);
            uint32_t id = sy_expr_sym_id(si->sym);
            if (nm->byid[id]) continue;
            const char *want = pass == 0 ? (!si->unbacked && si->nsources ? si->sources[0] : NULL) : sy_expr_sym_name(si->sym);
            if (!want || (pass == 0 && name_used(nm, want))) continue;
            if (name_used(nm, want)) { /* pass 1: the own name is taken: NAME#k */
                size_t len = strlen(want) + 24;
                char *m = malloc(len);
                if (!m) return SY_ENOMEM;
                unsigned k = 1;
                do snprintf(m, len, "%s#%u", want, k++);
                while (name_used(nm, m));
                nm->made[nm->nmade++] = m;
                want = m;
            }
            nm->byid[id] = want;
            name_use(nm, want);
        }
    return SY_OK;
}

static const char *env_source_name(void *ud, const sy_expr *sym)
{
    const env_names *nm = ud;
    uint32_t id = sy_expr_sym_id(sym);
    return id < nm->nid ? nm->byid[id] : NULL;
}

static int is_size_source(const char *s) { return strstr(s, ".size()[") != NULL || strstr(s, ".dim()") != NULL; }

/* The conjunction of a set's checked guards (runtime asserts excluded). */
static Z3_ast set_all(tr *t, const sy_gset *gs)
{
    size_t n = sy_gset_size(gs), k = 0;
    Z3_ast *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        t->st = SY_ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < n && t->st == SY_OK; i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        if (g->kind == SY_GK_RUNTIME_ASSERT) continue;
        v[k] = defined_true(t, g->expr);
        if (v[k]) k++;
    }
    Z3_ast r = t->st == SY_OK ? (k ? z3.Z3_mk_and(t->z, (unsigned)k, v) : z3.Z3_mk_true(t->z)) : NULL;
    free(v);
    return r;
}

static int mentions_unbacked(sy_env *env, const sy_expr *e)
{
    const sy_expr **syms = NULL;
    size_t n = 0;
    if (sy_expr_free_symbols(sy_env_ctx(env), e, &syms, &n) != SY_OK) return 1;
    int u = 0;
    for (size_t i = 0; i < n && !u; i++) {
        const sy_symbol_info *si = sy_env_symbol_of(env, syms[i]);
        u = si && si->unbacked;
    }
    sy_mem_free(sy_env_ctx(env), (void *)syms);
    return u;
}

static char *short_text(sy_ctx *ctx, const sy_expr *e)
{
    char *s = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
    if (s && strlen(s) > 160) strcpy(s + 150, " ...");
    return s;
}

sy_status sy_verify_model(sy_env *env, const sy_gset *produced, const sy_gset *final, const int64_t *example,
                          const sy_verify_options *opts, sy_verify_fn fn, void *ud, sy_verify_summary *summary)
{
    if (!env || !produced || !final) return SY_EINVAL;
    sy_ctx *ctx = sy_env_ctx(env);
    sy_verify_summary sum = {0, 0, 0, 0};
    tr t;
    sy_status st = tr_init(&t, ctx, opts);
    if (st != SY_OK) return st;
    env_names names;
    if (st == SY_OK) st = env_names_init(&names, env);
    else memset(&names, 0, sizeof names);
    t.name_of = env_source_name;
    t.name_ud = &names;
    /* the domain: sizes and ranks are >= 0 */
    size_t ns = sy_gset_nsources(final);
    Z3_ast *dom = malloc((ns + sy_gset_nsources(produced) + 2) * sizeof *dom);
    size_t nd = 0;
    if (!dom) st = SY_ENOMEM;
    for (int which = 0; which < 2 && st == SY_OK; which++) {
        const sy_gset *gs = which ? produced : final;
        for (size_t i = 0; i < sy_gset_nsources(gs); i++)
            if (is_size_source(sy_gset_source(gs, i))) {
                Z3_ast c = mk_const(&t, sy_gset_source(gs, i));
                if (c) dom[nd++] = z3.Z3_mk_ge(t.z, c, t.zero);
            }
    }
    Z3_ast fin = st == SY_OK ? set_all(&t, final) : NULL, pro = fin ? set_all(&t, produced) : NULL;
    if (st == SY_OK && (!fin || !pro)) st = t.st;
    sy_buf cex, what, why;
    sy_buf_init(&cex, ctx);
    sy_buf_init(&what, ctx);
    sy_buf_init(&why, ctx);
    sy_verify_obligation ob;
#define EMIT(KIND, IDX, CLAIM, PREM, NPREM, ROOTS)                                                   \
    do {                                                                                            \
        cex.len = why.len = 0;                                                                      \
        if (cex.p) cex.p[0] = 0;                                                                    \
        if (why.p) why.p[0] = 0;                                                                    \
        memset(&ob, 0, sizeof ob);                                                                  \
        ob.kind = (KIND);                                                                           \
        ob.index = (IDX);                                                                           \
        ob.verdict = prove(&t, (NPREM), (PREM), (CLAIM), (ROOTS), &cex, &why, &ob.seconds);         \
        ob.what = what.p ? what.p : "";                                                             \
        ob.counterexample = ob.verdict == SY_VERIFY_REFUTED ? (cex.p ? cex.p : "") : NULL;           \
        ob.reason = ob.verdict == SY_VERIFY_UNKNOWN ? (why.p ? why.p : "") : NULL;                   \
        if (ob.verdict == SY_VERIFY_PROVEN) sum.proven++;                                           \
        else if (ob.verdict == SY_VERIFY_REFUTED) sum.refuted++;                                    \
        else sum.unknown++;                                                                         \
        if (fn) fn(ud, &ob);                                                                        \
    } while (0)
    /* (a) equivalence */
    if (st == SY_OK) {
        what.len = 0;
        sy_buf_printf(&what, "the minimized set (%zu guards) is equivalent to the produced set (%zu guards)", sy_gset_size(final),
                  sy_gset_size(produced));
        roots R = {{final, produced}, NULL, 0, {NULL, NULL, NULL}};
        EMIT(SY_VERIFY_EQUIVALENT, 0, z3.Z3_mk_iff(t.z, fin, pro), dom, nd, &R);
    }
    /* (b) every recorded guard; premises: domain + final set */
    Z3_ast *prem = st == SY_OK ? malloc((nd + 1) * sizeof *prem) : NULL;
    if (st == SY_OK && !prem) st = SY_ENOMEM;
    if (prem) {
        memcpy(prem, dom, nd * sizeof *prem);
        prem[nd] = fin;
    }
    for (size_t i = 0; st == SY_OK && i < sy_env_nguards(env); i++) {
        const sy_guard_record *r = sy_env_guard(env, i);
        if (r->kind == SY_GUARD_RUNTIME_ASSERT || mentions_unbacked(env, r->expr)) {
            sum.skipped_runtime++;
            continue;
        }
        Z3_ast c = defined_true(&t, r->expr);
        if (!c) {
            st = t.st;
            break;
        }
        char *txt = short_text(ctx, r->expr);
        what.len = 0;
        sy_buf_printf(&what, "implies recorded guard %zu: %s (%s%s%s)", i, txt ? txt : "?",
                  r->norigins && r->origins[0].op ? r->origins[0].op : "?", r->norigins && r->origins[0].node ? " at " : "",
                  r->norigins && r->origins[0].node ? r->origins[0].node : "");
        sy_str_free(ctx, txt);
        roots R = {{final, NULL}, NULL, 0, {r->expr, NULL, NULL}};
        EMIT(SY_VERIFY_IMPLIES, i, c, prem, nd + 1, &R);
    }
    /* (c) replacements */
    sy_facts *facts = sy_env_facts(env);
    for (size_t i = 0; st == SY_OK && i < sy_env_nsymbols(env); i++) {
        const sy_symbol_info *si = sy_env_symbol(env, i);
        const sy_expr *rep = si->unbacked ? NULL : sy_facts_replacement(facts, si->sym);
        if (!rep || rep == si->sym || mentions_unbacked(env, rep)) continue;
        const sy_expr *eq = sy_expr_eq(ctx, si->sym, rep);
        if (!eq) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        Z3_ast c = defined_true(&t, eq);
        if (!c) {
            st = t.st;
            break;
        }
        char *txt = short_text(ctx, rep);
        what.len = 0;
        sy_buf_printf(&what, "implies the replacement %s -> %s (%s)", sy_expr_sym_name(si->sym), txt ? txt : "?",
                  si->nsources ? si->sources[0] : "");
        sy_str_free(ctx, txt);
        roots R = {{final, NULL}, NULL, 0, {eq, NULL, NULL}};
        EMIT(SY_VERIFY_REPLACEMENT, i, c, prem, nd + 1, &R);
    }
    /* (d) the example point satisfies every guard */
    if (example && st == SY_OK) {
        Z3_ast *pt = malloc((ns ? ns : 1) * sizeof *pt);
        if (!pt) st = SY_ENOMEM;
        for (size_t i = 0; st == SY_OK && i < ns; i++)
            pt[i] = z3.Z3_mk_eq(t.z, mk_const(&t, sy_gset_source(final, i)), z3.Z3_mk_int64(t.z, example[i], t.int_sort));
        for (size_t g = 0; st == SY_OK && g < sy_gset_size(final); g++) {
            const sy_gset_guard *gd = sy_gset_at(final, g);
            if (gd->kind == SY_GK_RUNTIME_ASSERT) continue;
            Z3_ast c = defined_true(&t, gd->expr);
            if (!c) {
                st = t.st;
                break;
            }
            what.len = 0;
            /* the display: a dtype by name ("x.dtype == float32"), as the reports show it */
            sy_buf_printf(&what, "guard %zu holds at the example: %s", g, gd->display ? gd->display : gd->text);
            EMIT(SY_VERIFY_EXAMPLE, g, c, pt, ns, NULL); /* a point: constants, nothing to split */
        }
        free(pt);
    }
#undef EMIT
    if (cex.oom || what.oom || why.oom) st = SY_ENOMEM;
    sy_buf_free(&cex);
    sy_buf_free(&what);
    sy_buf_free(&why);
    free(prem);
    free(dom);
    if (st == SY_OK && t.st != SY_OK) st = t.st;
    tr_clear(&t);
    env_names_clear(&names);
    if (summary) *summary = sum;
    if (st == SY_ENOMEM) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    return st;
}

/* A script of the certificates (bc.h): parsed by Z3's SMT-LIB 2 reader (its assertions; the
 * commands it carries, check-sat included, are not run) and checked once by the default solver. */
sy_status sy_verify_smtlib(sy_ctx *ctx, const char *script, const sy_verify_options *opts, sy_verify_verdict *verdict,
                           char **detail)
{
    if (detail) *detail = NULL;
    if (!ctx) return SY_EINVAL;
    if (!script || !verdict) return sy_fail_st(ctx, SY_EINVAL, "verify: NULL argument");
    tr t;
    sy_status st = tr_init(&t, ctx, opts);
    if (st != SY_OK) return st;
    Z3_ast_vector v = z3.Z3_parse_smtlib2_string(t.z, script, 0, NULL, NULL, 0, NULL, NULL);
    if (!v || z3.Z3_get_error_code(t.z) != Z3_OK) {
        st = sy_fail_st(ctx, SY_EFORMAT, "verify: Z3 does not parse the script: %s", z3.Z3_get_error_msg(t.z, z3.Z3_get_error_code(t.z)));
        tr_clear(&t);
        return st;
    }
    z3.Z3_ast_vector_inc_ref(t.z, v);
    Z3_solver s = z3.Z3_mk_solver(t.z);
    z3.Z3_solver_inc_ref(t.z, s);
    for (unsigned i = 0; i < z3.Z3_ast_vector_size(t.z, v); i++) z3.Z3_solver_assert(t.z, s, z3.Z3_ast_vector_get(t.z, v, i));
    Z3_lbool r = z3.Z3_solver_check(t.z, s);
    *verdict = r == Z3_L_FALSE ? SY_VERIFY_PROVEN : r == Z3_L_TRUE ? SY_VERIFY_REFUTED : SY_VERIFY_UNKNOWN;
    const char *d = NULL;
    Z3_model m = NULL;
    if (r == Z3_L_TRUE && (m = z3.Z3_solver_get_model(t.z, s))) {
        z3.Z3_model_inc_ref(t.z, m);
        d = z3.Z3_model_to_string(t.z, m);
    } else if (r == Z3_L_UNDEF) {
        d = z3.Z3_solver_get_reason_unknown(t.z, s);
    }
    if (detail && d && !(*detail = sy_alloc(ctx, strlen(d) + 1))) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    else if (detail && d) memcpy(*detail, d, strlen(d) + 1);
    if (m) z3.Z3_model_dec_ref(t.z, m);
    z3.Z3_solver_dec_ref(t.z, s);
    z3.Z3_ast_vector_dec_ref(t.z, v);
    tr_clear(&t);
    return st;
}
#endif
