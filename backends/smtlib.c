/* The "smtlib" backend: a guard set as an SMT-LIB 2.6 script (docs/proof.md).
 *
 * Encoding (the semantics of sy_gset_check, algebra/eval.c):
 *  - every source is an `Int` constant named by its text, quoted (|x.size()[0]|);
 *  - FloorDiv, Mod and CeilDiv have Python (floor) semantics. SMT-LIB's `div` and
 *    `mod` are Euclidean (SMT-LIB Ints theory: a = b*(div a b) + (mod a b),
 *    0 <= (mod a b) < |.b|), which equals floor division only for b > 0, so
 *      sy_floordiv(a, b) = ite(b > 0, div(a, b), div(-a, -b))
 *      (for b < 0, -b > 0 and floor(a/b) = floor(-a/-b)),
 *      sy_mod(a, b)      = a - b*sy_floordiv(a, b)       (Python: sign of b),
 *      sy_ceildiv(a, b)  = -sy_floordiv(-a, b);
 *  - the evaluator is eager: a guard any of whose divisors is 0 fails
 *    (docs/guards.md), so each guard is (and (distinct D 0) ... RELATION) over
 *    the distinct divisors D it contains;
 *  - Min and Max are nested `ite`; Pow is multiplication by repeated squaring;
 *  - a node shared by two or more places is bound once by a define-fun
 *    (|.eN|), so the script is linear in the DAG, not in the printed tree.
 * Runtime asserts (on unbacked sizes) are defined but not part of guards_all,
 * as sy_gset_check does not check them. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/internal.h"
#include "backends/backends_private.h"
#include "symshape/backend.h"
#include "symshape/bc.h"

typedef struct {
    unsigned uses;
    long id;  /* >= 0: bound as |e.id| */
    unsigned mark; /* per-guard visit stamp (divisor collection) */
} node_slot;

typedef struct {
    sy_etab tab; /* node -> node_slot */
    long next_id;
    unsigned stamp;
    sy_output *out;
    sy_status st;
    const sy_expr **divs; /* divisors of the current guard */
    size_t ndivs, capdivs;
    sy_ctx *ctx;
} smt;

static node_slot *slot_of(smt *m, const sy_expr *e, int insert)
{
    m->tab.fresh = false;
    size_t j = sy_etab_slot(m->ctx, &m->tab, e, sizeof(node_slot), insert);
    if (j == SIZE_MAX) {
        if (insert) m->st = SY_ENOMEM;
        return NULL;
    }
    node_slot *s = (node_slot *)m->tab.vals + j;
    if (m->tab.fresh) s->id = -1;
    return s;
}

static int is_leaf(const sy_expr *e)
{
    sy_expr_kind k = sy_expr_kind_of(e);
    return k == SY_EXPR_INT || k == SY_EXPR_SYM || k == SY_EXPR_TRUE || k == SY_EXPR_FALSE;
}

/* Children of e in the encoding (Add's monomials, Mul's factors, Pow's base, ...). */
static size_t nkids(const sy_expr *e) { return is_leaf(e) ? 0 : sy_expr_nargs(e); }

/* The DFS stack of count_uses and collect_divisors. */
typedef struct { const sy_expr **v; size_t n, cap; } node_stack;

/* Push e's children (false: out of memory, m->st set). */
static bool push_kids(smt *m, node_stack *s, const sy_expr *e)
{
    size_t k = nkids(e);
    if (s->n + k > s->cap) {
        size_t nc = s->cap ? s->cap : 64;
        while (s->n + k > nc) nc *= 2;
        const sy_expr **nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) {
            m->st = SY_ENOMEM;
            return false;
        }
        s->v = nv;
        s->cap = nc;
    }
    for (size_t i = 0; i < k; i++) s->v[s->n++] = sy_expr_arg(e, i);
    return true;
}

/* Count uses: iterative DFS, each node's children visited on its first use. */
static void count_uses(smt *m, const sy_expr *root)
{
    node_stack stk = {NULL, 0, 0};
    const sy_expr *e = root;
    for (;;) {
        node_slot *s = is_leaf(e) ? NULL : slot_of(m, e, 1);
        if (m->st != SY_OK) break;
        if (s && !s->uses++ && !push_kids(m, &stk, e)) break;
        if (!stk.n) break;
        e = stk.v[--stk.n];
    }
    free(stk.v);
}

static void w(smt *m, const char *s)
{
    if (m->st == SY_OK) m->st = sy_output_write(m->out, s, strlen(s));
}

static void w_int(smt *m, const sy_expr *c)
{
    char *s = sy_expr_print(m->ctx, c, SY_PRINT_CANONICAL);
    if (!s) {
        if (m->st == SY_OK) m->st = SY_ENOMEM;
        return;
    }
    if (s[0] == '-') {
        w(m, "(- ");
        w(m, s + 1);
        w(m, ")");
    } else {
        w(m, s);
    }
    sy_str_free(m->ctx, s);
}

static void write_symbol(sy_output *out, const char *name)
{
    /* SMT-LIB quoted symbol: any printable chars but | and \ between bars. The bytes it cannot
     * hold (|, \, control characters) are written %XX, and so is % itself, so that two distinct
     * names stay two symbols (with '_' for each, inputs "a|b" and "a_b" were one constant and
     * a guard a_b.size()[1] == a|b.size()[1] read x == x). A name without %, |, \ or control
     * characters is written as it is. */
    sy_output_write(out, "|", 1);
    for (const char *p = name; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '|' || c == '\\' || c == '%' || c < 32 || c == 127) {
            char hex[4];
            static const char digits[] = "0123456789abcdef";
            hex[0] = '%';
            hex[1] = digits[c >> 4];
            hex[2] = digits[c & 15];
            sy_output_write(out, hex, 3);
        } else {
            sy_output_write(out, p, 1);
        }
    }
    sy_output_write(out, "|", 1);
}

static void emit(smt *m, const sy_expr *e, int top);

static void emit_pow(smt *m, const sy_expr *base, uint64_t k)
{
    if (k == 1) {
        emit(m, base, 0);
        return;
    }
    if (k % 2) {
        w(m, "(* ");
        emit(m, base, 0);
        w(m, " ");
        emit_pow(m, base, k - 1);
        w(m, ")");
        return;
    }
    /* (let ((p base^(k/2))) (* p p)): the depth is log2(k). */
    w(m, "(let ((|.p| ");
    emit_pow(m, base, k / 2);
    w(m, ")) (* |.p| |.p|))");
}

static void emit_nary(smt *m, const char *op, const sy_expr *e)
{
    size_t n = sy_expr_nargs(e);
    w(m, "(");
    w(m, op);
    for (size_t i = 0; i < n; i++) {
        w(m, " ");
        emit(m, sy_expr_arg(e, i), 0);
    }
    w(m, ")");
}

/* Min/Max of args[i..n): right-nested ite. */
static void emit_minmax(smt *m, const sy_expr *e, size_t i, int is_min)
{
    size_t n = sy_expr_nargs(e);
    if (i + 1 == n) {
        emit(m, sy_expr_arg(e, i), 0);
        return;
    }
    /* (let ((|.a| x) (|.b| rest)) (ite (<= a b) a b)) keeps it linear. */
    w(m, "(let ((|.a| ");
    emit(m, sy_expr_arg(e, i), 0);
    w(m, ") (|.b| ");
    emit_minmax(m, e, i + 1, is_min);
    w(m, is_min ? ")) (ite (<= |.a| |.b|) |.a| |.b|))" : ")) (ite (>= |.a| |.b|) |.a| |.b|))");
}

static void emit_body(smt *m, const sy_expr *e)
{
    sy_ctx *ctx = m->ctx;
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_INT: w_int(m, e); break;
    case SY_EXPR_TRUE: w(m, "true"); break;
    case SY_EXPR_FALSE: w(m, "false"); break;
    case SY_EXPR_SYM: {
        if (m->st == SY_OK) write_symbol(m->out, sy_expr_sym_name(e));
        break;
    }
    case SY_EXPR_ADD: {
        size_t n = sy_expr_nargs(e);
        const sy_expr *c0 = sy_expr_add_const(ctx, e);
        int64_t c0v = 1;
        int has_c0 = !(sy_expr_get_si(c0, &c0v) == SY_OK && c0v == 0);
        w(m, "(+");
        if (has_c0) {
            w(m, " ");
            w_int(m, c0);
        }
        for (size_t i = 0; i < n; i++) {
            const sy_expr *ci = sy_expr_add_coeff(ctx, e, i);
            int64_t cv = 0;
            w(m, " ");
            if (sy_expr_get_si(ci, &cv) == SY_OK && cv == 1) {
                emit(m, sy_expr_arg(e, i), 0);
            } else {
                w(m, "(* ");
                w_int(m, ci);
                w(m, " ");
                emit(m, sy_expr_arg(e, i), 0);
                w(m, ")");
            }
        }
        if (n + has_c0 < 2) w(m, " 0");
        w(m, ")");
        break;
    }
    case SY_EXPR_MUL: emit_nary(m, "*", e); break;
    case SY_EXPR_POW: emit_pow(m, sy_expr_arg(e, 0), sy_expr_pow_exp(e)); break;
    case SY_EXPR_FLOORDIV: emit_nary(m, "sy_floordiv", e); break;
    case SY_EXPR_MOD: emit_nary(m, "sy_mod", e); break;
    case SY_EXPR_CEILDIV: emit_nary(m, "sy_ceildiv", e); break;
    case SY_EXPR_MIN: emit_minmax(m, e, 0, 1); break;
    case SY_EXPR_MAX: emit_minmax(m, e, 0, 0); break;
    case SY_EXPR_EQ:
        w(m, "(= ");
        emit(m, sy_expr_arg(e, 0), 0);
        w(m, " 0)");
        break;
    case SY_EXPR_NE:
        w(m, "(distinct ");
        emit(m, sy_expr_arg(e, 0), 0);
        w(m, " 0)");
        break;
    case SY_EXPR_LE:
        w(m, "(<= ");
        emit(m, sy_expr_arg(e, 0), 0);
        w(m, " 0)");
        break;
    case SY_EXPR_AND: emit_nary(m, "and", e); break;
    case SY_EXPR_OR: emit_nary(m, "or", e); break;
    default:
        if (m->st == SY_OK) m->st = SY_EUNSUPPORTED;
        break;
    }
}

static void emit(smt *m, const sy_expr *e, int top)
{
    if (m->st != SY_OK) return;
    node_slot *s = is_leaf(e) ? NULL : slot_of(m, e, 0);
    if (s && s->id >= 0 && !top) {
        char buf[32];
        snprintf(buf, sizeof buf, "|.e%ld|", s->id);
        w(m, buf);
        return;
    }
    emit_body(m, e);
}

/* Post-order: bind every shared compound node (uses >= 2) before its first
 * use. Skipped: leaves, nodes bound already, nodes finished and inlined. */
static int bind_skip(void *ud, const sy_expr *e)
{
    smt *m = ud;
    node_slot *s = is_leaf(e) ? NULL : slot_of(m, e, 0);
    return !s || s->id >= 0 || s->mark == (unsigned)-1;
}

static sy_status bind_visit(void *ud, const sy_expr *e)
{
    smt *m = ud;
    node_slot *s = slot_of(m, e, 0);
    if (s->uses >= 2) {
        char buf[48];
        s->id = m->next_id++;
        snprintf(buf, sizeof buf, "(define-fun |.e%ld| () %s ", s->id, sy_expr_is_bool(e) ? "Bool" : "Int");
        w(m, buf);
        emit(m, e, 1);
        w(m, ")\n");
    } else {
        s->mark = (unsigned)-1; /* finished, inlined at its one use */
    }
    return m->st;
}

static void bind_shared(smt *m, const sy_expr *root)
{
    sy_status st = sy_expr_walk_postorder(m->ctx, root, bind_skip, bind_visit, m);
    if (m->st == SY_OK) m->st = st;
}

/* The distinct divisors reachable from root (each collected once per guard). */
static void collect_divisors(smt *m, const sy_expr *root)
{
    m->stamp++;
    if (m->stamp == 0 || m->stamp == (unsigned)-1) m->stamp = 1;
    m->ndivs = 0;
    node_stack stk = {NULL, 0, 0};
    for (const sy_expr *e = root; m->st == SY_OK; e = stk.v[--stk.n]) {
        node_slot *s = is_leaf(e) ? NULL : slot_of(m, e, 0);
        if (!s || s->mark == m->stamp) {
            if (!stk.n) break;
            continue;
        }
        /* inlined nodes carry mark == -1 after binding; restore per stamp */
        s->mark = m->stamp;
        sy_expr_kind k = sy_expr_kind_of(e);
        if (k == SY_EXPR_FLOORDIV || k == SY_EXPR_MOD || k == SY_EXPR_CEILDIV) {
            const sy_expr *d = sy_expr_arg(e, 1);
            int64_t dv = 0;
            int known_nonzero = sy_expr_get_si(d, &dv) == SY_OK && dv != 0;
            int dup = 0;
            for (size_t i = 0; i < m->ndivs && !dup; i++) dup = m->divs[i] == d;
            if (!known_nonzero && !dup) {
                if (m->ndivs == m->capdivs) {
                    size_t nc = m->capdivs ? m->capdivs * 2 : 8;
                    const sy_expr **nd = realloc(m->divs, nc * sizeof *nd);
                    if (!nd) {
                        m->st = SY_ENOMEM;
                        break;
                    }
                    m->divs = nd;
                    m->capdivs = nc;
                }
                m->divs[m->ndivs++] = d;
            }
        }
        if (!push_kids(m, &stk, e) || !stk.n) break;
    }
    free(stk.v);
}

static const char smt_prelude[] =
    "; FloorDiv, Mod and CeilDiv with Python (floor) semantics; SMT-LIB div is Euclidean.\n"
    "(define-fun sy_floordiv ((a Int) (b Int)) Int (ite (> b 0) (div a b) (div (- a) (- b))))\n"
    "(define-fun sy_mod ((a Int) (b Int)) Int (- a (* b (sy_floordiv a b))))\n"
    "(define-fun sy_ceildiv ((a Int) (b Int)) Int (- (sy_floordiv (- a) b)))\n";

static sy_status write_defs(sy_ctx *ctx, sy_output *out, size_t n, const sy_expr *const *exprs,
                            const char *const *fn_names)
{
    smt m;
    memset(&m, 0, sizeof m);
    m.out = out;
    m.st = SY_OK;
    m.ctx = ctx;
    for (size_t i = 0; i < n && m.st == SY_OK; i++) {
        if (!exprs[i] || !sy_expr_is_bool(exprs[i])) m.st = SY_EINVAL;
        else count_uses(&m, exprs[i]);
    }
    for (size_t i = 0; i < n && m.st == SY_OK; i++) bind_shared(&m, exprs[i]);
    for (size_t i = 0; i < n && m.st == SY_OK; i++) {
        collect_divisors(&m, exprs[i]);
        w(&m, "(define-fun ");
        if (m.st == SY_OK) write_symbol(out, fn_names[i]);
        w(&m, " () Bool ");
        if (m.ndivs) {
            w(&m, "(and");
            for (size_t j = 0; j < m.ndivs; j++) {
                w(&m, " (distinct ");
                emit(&m, m.divs[j], 0);
                w(&m, " 0)");
            }
            w(&m, " ");
        }
        emit(&m, exprs[i], 0);
        if (m.ndivs) w(&m, ")");
        w(&m, ")\n");
    }
    sy_etab_clear(m.ctx, &m.tab, sizeof(node_slot));
    free(m.divs);
    return m.st;
}

static sy_status write_gset(sy_output *out, const sy_gset *gs, const char *prefix, int decls)
{
    size_t ng = sy_gset_size(gs), ns = sy_gset_nsources(gs);
    sy_status st = SY_OK;
    if (decls)
        for (size_t i = 0; i < ns && st == SY_OK; i++) {
            st = sy_output_printf(out, "(declare-const ");
            write_symbol(out, sy_gset_source(gs, i));
            if (st == SY_OK) st = sy_output_printf(out, " Int)\n");
        }
    if (st != SY_OK) return st;
    const sy_expr **ex = calloc(ng ? ng : 1, sizeof *ex);
    char **fn = calloc(ng ? ng : 1, sizeof *fn);
    const char **fnc = calloc(ng ? ng : 1, sizeof *fnc);
    if (!ex || !fn || !fnc) st = SY_ENOMEM;
    for (size_t i = 0; i < ng && st == SY_OK; i++) {
        ex[i] = sy_gset_at(gs, i)->expr;
        size_t len = strlen(prefix) + 32;
        fn[i] = malloc(len);
        if (!fn[i]) st = SY_ENOMEM;
        else snprintf(fn[i], len, "%s_%zu", prefix, i);
        fnc[i] = fn[i];
    }
    if (st == SY_OK) st = write_defs(sy_gset_ctx(gs), out, ng, ex, fnc);
    /* <prefix>_all: the checked guards (runtime asserts excluded). */
    if (st == SY_OK) st = sy_output_printf(out, "(define-fun |%s_all| () Bool (and true", prefix);
    for (size_t i = 0; i < ng && st == SY_OK; i++)
        if (sy_gset_at(gs, i)->kind != SY_GK_RUNTIME_ASSERT) st = sy_output_printf(out, " |%s|", fn[i]);
    if (st == SY_OK) st = sy_output_printf(out, "))\n");
    for (size_t i = 0; fn && i < ng; i++) free(fn[i]);
    free(fn);
    free(fnc);
    free(ex);
    return st;
}

/* Text inside a `;` comment, which ends at the line's end: a line break
 * continues the comment on the next line (the let-form of a large guard,
 * sy_expr_print_bounded, has several lines), and any other control character
 * (a \r that some readers take as a line end, from a model or input name)
 * is written as '?', so no text of the model can end the comment and become
 * a command. */
static sy_status write_comment(sy_output *out, const char *t)
{
    sy_status st = SY_OK;
    for (const char *p = t; *p && st == SY_OK; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n') st = sy_output_printf(out, "\n;   ");
        else st = sy_output_write(out, c < 32 || c == 127 ? "?" : p, 1);
    }
    return st;
}

static sy_status render_smtlib(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts,
                               sy_output *out)
{
    (void)self;
    const char *prefix = opts && opts->prefix ? opts->prefix : "guard";
    for (const char *p = prefix; *p; p++)
        if (*p == '|' || *p == '\\' || (unsigned char)*p < 32 || (unsigned char)*p == 127)
            return sy_fail_st(sy_gset_ctx(gs), SY_EINVAL,
                              "smtlib backend: prefix '%s' cannot stand in an SMT-LIB quoted symbol "
                              "(no '|', '\\' or control characters)", prefix);
    size_t ng = sy_gset_size(gs), ns = sy_gset_nsources(gs);
    sy_status st = sy_output_printf(out, "; symshape guard set of ");
    if (st == SY_OK) st = write_comment(out, sy_gset_model(gs) ? sy_gset_model(gs) : "(unnamed)");
    if (st == SY_OK)
        st = sy_output_printf(out,
                              ": %zu guards over %zu sources (SMT-LIB 2.6).\n"
                              "; (define-fun |%s_I| () Bool ...) is guard I as symshape prints it; |%s_all| is\n"
                              "; the whole set as sy_gset_check decides it (runtime asserts excluded).\n"
                              "; A guard any of whose divisors is 0 fails. Check with: z3 FILE\n"
                              "(set-logic ALL)\n",
                              ng, ns, prefix, prefix);
    if (st == SY_OK) st = sy_output_printf(out, "%s", smt_prelude);
    for (size_t i = 0; i < ng && st == SY_OK; i++) {
        /* the guard's text as a comment */
        st = sy_output_printf(out, "; %s_%zu: ", prefix, i);
        if (st == SY_OK) st = write_comment(out, sy_gset_at(gs, i)->text);
        if (st == SY_OK) st = sy_output_printf(out, "\n");
    }
    if (st == SY_OK) st = write_gset(out, gs, prefix, 1);
    if (st == SY_OK)
        st = sy_output_printf(out, "; satisfiable iff some input passes every guard:\n(assert |%s_all|)\n(check-sat)\n",
                              prefix);
    return st;
}

static const sy_backend smtlib_backend = {
    "smtlib", "the guard set as an SMT-LIB 2.6 script (floor-division semantics; check with z3)", render_smtlib, NULL};

sy_status sy_backend_register_smtlib(void) { return sy_backend_register(&smtlib_backend); }

/* ------------------------------------------------------------------ certificates (bc.h) */

/* The obligation of a certificate: final <=> recorded for every size, rank and stride >= 0
 * (docs/bytecode.md section 10). One write_defs over both sets, so shared nodes are bound once
 * and the |.eN| names never collide. */
static sy_status write_obligation(sy_output *out, const sy_gset *fin, const sy_gset *rec)
{
    const sy_gset *sets[2] = {fin, rec};
    size_t nf = sy_gset_size(fin), nr = sy_gset_size(rec), n = nf + nr;
    sy_status st = sy_output_printf(out, "; symshape certificate obligation (SMT-LIB 2.6) for ");
    if (st == SY_OK) st = write_comment(out, sy_gset_model(fin) ? sy_gset_model(fin) : "(unnamed)");
    if (st == SY_OK)
        st = sy_output_printf(out,
                              ":\n; the %zu guards of the program (min_I, in the program's order) are equivalent to the %zu\n"
                              "; guards recorded while tracing (rec_J), for every size, rank and stride >= 0 (runtime\n"
                              "; asserts excluded, as the program does not check them). unsat: proven. Check with: z3 FILE\n",
                              nf, nr);
    for (int s = 0; s < 2 && st == SY_OK; s++)
        for (size_t i = 0; i < sy_gset_size(sets[s]) && st == SY_OK; i++) {
            st = sy_output_printf(out, "; %s_%zu: ", s ? "rec" : "min", i);
            if (st == SY_OK) st = write_comment(out, sy_gset_at(sets[s], i)->text);
            if (st == SY_OK) st = sy_output_printf(out, "\n");
        }
    if (st == SY_OK) st = sy_output_printf(out, "(set-logic ALL)\n%s", smt_prelude);
    /* the sources of both sets, each once (by text), with its domain */
    for (int s = 0; s < 2 && st == SY_OK; s++)
        for (size_t i = 0; i < sy_gset_nsources(sets[s]) && st == SY_OK; i++) {
            const char *src = sy_gset_source(sets[s], i);
            if (s == 1 && sy_gset_find_source(fin, src) >= 0) continue;
            st = sy_output_printf(out, "(declare-const ");
            write_symbol(out, src);
            if (st == SY_OK) st = sy_output_printf(out, " Int)\n");
            size_t nl, dim;
            int kind = sy_gset_source_parse(src, &nl, &dim);
            if (st == SY_OK && kind >= 0 && kind != SY_SOURCE_DTYPE) {
                st = sy_output_printf(out, "(assert (>= ");
                write_symbol(out, src);
                if (st == SY_OK) st = sy_output_printf(out, " 0))\n");
            }
        }
    const sy_expr **ex = calloc(n ? n : 1, sizeof *ex);
    char **fn = calloc(n ? n : 1, sizeof *fn);
    if (!ex || !fn) st = SY_ENOMEM;
    for (size_t i = 0; i < n && st == SY_OK; i++) {
        const sy_gset_guard *g = i < nf ? sy_gset_at(fin, i) : sy_gset_at(rec, i - nf);
        ex[i] = g->expr;
        if (!(fn[i] = malloc(32))) st = SY_ENOMEM;
        else snprintf(fn[i], 32, "%s_%zu", i < nf ? "min" : "rec", i < nf ? i : i - nf);
    }
    if (st == SY_OK) st = write_defs(sy_gset_ctx(fin), out, n, ex, (const char *const *)fn);
    for (int s = 0; s < 2 && st == SY_OK; s++) {
        st = sy_output_printf(out, "(define-fun |%s_all| () Bool (and true", s ? "rec" : "min");
        for (size_t i = 0; i < sy_gset_size(sets[s]) && st == SY_OK; i++)
            if (sy_gset_at(sets[s], i)->kind != SY_GK_RUNTIME_ASSERT) st = sy_output_printf(out, " |%s_%zu|", s ? "rec" : "min", i);
        if (st == SY_OK) st = sy_output_printf(out, "))\n");
    }
    if (st == SY_OK) st = sy_output_printf(out, "(assert (not (= |min_all| |rec_all|)))\n(check-sat)\n");
    for (size_t i = 0; fn && i < n; i++) free(fn[i]);
    free(fn);
    free(ex);
    return st;
}

char *sy_bc_certificate_obligation(const sy_gset *final, const sy_gset *recorded)
{
    if (!final || !recorded) return NULL;
    sy_ctx *ctx = sy_gset_ctx(final);
    if (sy_gset_ctx(recorded) != ctx) return SY_NFAIL(ctx, SY_EINVAL, "certificate: the two guard sets live in different contexts");
    sy_status st = sy_gset_format(final);
    if (st == SY_OK) st = sy_gset_format(recorded);
    if (st != SY_OK) return SY_NFAIL(ctx, st, "certificate: a text of a guard set could not be made when it was built");
    sy_output *out = sy_output_mem_new(ctx);
    if (!out) return SY_NOOM(ctx);
    st = write_obligation(out, final, recorded);
    char *r = sy_output_mem_take(out, &st);
    if (st != SY_OK) return st == SY_ENOMEM ? SY_NOOM(ctx) : SY_NFAIL(ctx, st, "certificate: cannot write the obligation");
    return r;
}
