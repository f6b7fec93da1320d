/* The C backend: the generated file, compiled with the system C compiler
 * (`$CC` or `cc`, -std=c99 -Wall -Wextra -Werror -pedantic) and loaded with
 * dlopen, agrees with the reference checker sy_gset_check_si on random points
 * of every corpus model and of a synthetic set that uses every node kind:
 * same accept/reject and failing guard whenever it does not fail closed; when
 * it fails closed, exact (bignum) evaluation of the guard confirms an int64
 * overflow or a zero divisor, and never is a rejected point accepted. Plus a
 * golden file, the verbatim helpers, the argument checks and prefix errors.
 * SY_TEST_MULTIPLIER scales the number of points; SY_TEST_SEED the seed. */
#include <dlfcn.h>
#include <unistd.h>

#include "golden.h" /* criterion first: FLINT defines ulong */
#include "corpus.h"
#include <flint/fmpz.h>

#include "symshape/cgen.h"
#include "bc_test_util.h"

/* ------------------------------------------------------------------ compile and load */

typedef int (*guard_fn)(const int64_t *);
typedef struct {
    char dir[512], src[600], so[600], err[600];
    void *h;
    sy_cgen_check_fn check;
    const char *const *sources, *const *guards;
    const size_t *nsources, *nguards;
    guard_fn const *fns; /* per guard (NULL: runtime assert), through the harness; NULL when none */
} cmod;

static void *sym_of(cmod *m, const char *prefix, const char *suffix)
{
    char name[256];
    snprintf(name, sizeof name, "%s_%s", prefix, suffix);
    void *p = dlsym(m->h, name);
    cr_assert(p != NULL, "dlsym %s: %s", name, dlerror());
    return p;
}

/* Compile @p code and load it. When the set checks guards (@p harness),
 * a few lines are appended that export the file's table of per-guard
 * functions, so that every guard is compared on its own. */
static const char *cc_defines = ""; /* extra compiler flags of the next cmod_build */

static void cmod_build(cmod *m, const char *code, size_t len, const char *prefix, int harness)
{
    memset(m, 0, sizeof *m);
    const char *tmp = getenv("TMPDIR");
    snprintf(m->dir, sizeof m->dir, "%s/sy_cgen_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    cr_assert(mkdtemp(m->dir) != NULL, "mkdtemp %s", m->dir);
    snprintf(m->src, sizeof m->src, "%s/guards.c", m->dir);
    snprintf(m->so, sizeof m->so, "%s/guards.so", m->dir);
    snprintf(m->err, sizeof m->err, "%s/cc.err", m->dir);
    FILE *f = fopen(m->src, "wb");
    cr_assert(f != NULL);
    cr_assert(eq(sz, fwrite(code, 1, len, f), len));
    if (harness)
        fprintf(f, "\n/* test harness (tests/backends/test_cgen.c) */\n"
                   "int (*const *%s_test_fns(void))(const int64_t *);\n"
                   "int (*const *%s_test_fns(void))(const int64_t *) { return %s_fns; }\n",
                prefix, prefix, prefix);
    fclose(f);
    const char *cc = getenv("CC");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -std=c99 -Wall -Wextra -Werror -pedantic -O2 %s -shared -fPIC -o '%s' '%s' 2>'%s'",
             cc && *cc ? cc : "cc", cc_defines, m->so, m->src, m->err);
    int rc = system(cmd);
    if (rc != 0) {
        char msg[4096] = "";
        FILE *e = fopen(m->err, "rb");
        if (e) {
            size_t n = fread(msg, 1, sizeof msg - 1, e);
            msg[n] = 0;
            fclose(e);
        }
        cr_fatal("generated C does not compile (%s):\n%s", cmd, msg);
    }
    m->h = dlopen(m->so, RTLD_NOW | RTLD_LOCAL);
    cr_assert(m->h != NULL, "dlopen: %s", dlerror());
    void *p = sym_of(m, prefix, "check");
    memcpy(&m->check, &p, sizeof p);
    m->sources = sym_of(m, prefix, "sources");
    m->nsources = sym_of(m, prefix, "nsources");
    m->guards = sym_of(m, prefix, "guards");
    m->nguards = sym_of(m, prefix, "nguards");
    if (harness) {
        guard_fn const *(*get)(void);
        p = sym_of(m, prefix, "test_fns");
        memcpy(&get, &p, sizeof p);
        m->fns = get();
    }
}

static void cmod_free(cmod *m)
{
    if (m->h) dlclose(m->h);
    unlink(m->src);
    unlink(m->so);
    unlink(m->err);
    rmdir(m->dir);
}

static char *render_c(const sy_gset *gs, const char *prefix, size_t *len)
{
    sy_backend_options o = SY_BACKEND_OPTIONS_INIT;
    o.prefix = prefix;
    unsigned char *data;
    cr_assert(eq(int, sy_backend_render("c", gs, &o, &data, len), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return (char *)data;
}

/* ------------------------------------------------------------------ exact oracle */

/* Exact evaluation of a guard at a point, flagging every value the generated
 * code may hold in an int64 (a superset: node values, constants, |c|*m terms,
 * the partial sums of the positive and of the negative terms of a sum and
 * their difference, partial products) that does not fit, and every zero
 * divisor. */
typedef struct {
    const sy_gset *gs;
    const int64_t *v;
    int ovf, dz;
} oracle;

static void fits(oracle *o, const fmpz_t x)
{
    if (!fmpz_fits_si(x)) o->ovf = 1;
}

static void ev(oracle *o, const sy_expr *e, fmpz_t out)
{
    fmpz_t a, b, L, R;
    fmpz_init(a);
    fmpz_init(b);
    fmpz_init(L);
    fmpz_init(R);
    sy_expr_kind k = sy_expr_kind_of(e);
    switch (k) {
    case SY_EXPR_INT: const_fmpz(e, out); fits(o, out); break;
    case SY_EXPR_SYM: {
        long s = -1;
        for (size_t i = 0; i < sy_gset_nsources(o->gs); i++)
            if (sy_gset_source_var(o->gs, i) == e) s = (long)i;
        cr_assert(ge(long, s, 0));
        fmpz_set_si(out, o->v[s]);
        break;
    }
    case SY_EXPR_ADD: {
        const_fmpz(sy_expr_add_const(ctx, e), out);
        fits(o, out);
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            const_fmpz(sy_expr_add_coeff(ctx, e, i), a);
            ev(o, sy_expr_arg(e, i), b);
            fmpz_mul(b, b, a);
            fmpz_add(out, out, b);
            fits(o, out);
            int pos = fmpz_sgn(a) > 0;
            if (!pos) fmpz_neg(b, b);
            fits(o, b);
            fmpz_add(pos ? L : R, pos ? L : R, b);
            fits(o, pos ? L : R);
        }
        fmpz_sub(a, L, R);
        fits(o, a);
        break;
    }
    case SY_EXPR_MUL:
        fmpz_one(out);
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            ev(o, sy_expr_arg(e, i), a);
            fmpz_mul(out, out, a);
            fits(o, out);
        }
        break;
    case SY_EXPR_POW: {
        ev(o, sy_expr_arg(e, 0), a);
        uint64_t n = sy_expr_pow_exp(e);
        if (!fmpz_is_zero(a) && !fmpz_is_pm1(a) && (uint64_t)fmpz_bits(a) * n > 4096) {
            o->ovf = 1; /* |a|**n > 2**4096 */
            fmpz_zero(out);
        } else {
            fmpz_pow_ui(out, a, n);
            fits(o, out);
        }
        break;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV:
        ev(o, sy_expr_arg(e, 0), a);
        ev(o, sy_expr_arg(e, 1), b);
        if (fmpz_is_zero(b)) {
            o->dz = 1;
            fmpz_zero(out);
            break;
        }
        if (k == SY_EXPR_FLOORDIV) fmpz_fdiv_q(out, a, b);
        else if (k == SY_EXPR_MOD) fmpz_fdiv_r(out, a, b);
        else fmpz_cdiv_q(out, a, b);
        fits(o, out);
        break;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            ev(o, sy_expr_arg(e, i), a);
            if (i == 0 || (k == SY_EXPR_MIN ? fmpz_cmp(a, out) < 0 : fmpz_cmp(a, out) > 0)) fmpz_set(out, a);
        }
        break;
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: {
        ev(o, sy_expr_arg(e, 0), a);
        int s = fmpz_sgn(a);
        fmpz_set_si(out, k == SY_EXPR_EQ ? s == 0 : k == SY_EXPR_NE ? s != 0 : s <= 0);
        break;
    }
    case SY_EXPR_AND:
    case SY_EXPR_OR: {
        int r = k == SY_EXPR_AND;
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            ev(o, sy_expr_arg(e, i), a);
            r = k == SY_EXPR_AND ? r && !fmpz_is_zero(a) : r || !fmpz_is_zero(a);
        }
        fmpz_set_si(out, r);
        break;
    }
    case SY_EXPR_TRUE: fmpz_one(out); break;
    case SY_EXPR_FALSE: fmpz_zero(out); break;
    }
    fmpz_clear(a);
    fmpz_clear(b);
    fmpz_clear(L);
    fmpz_clear(R);
}

/* ------------------------------------------------------------------ random points */

typedef struct {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct {
    size_t ns;
    int64_t consts[256];
    size_t nconsts;
    int64_t *pin;     /* per slot: value of a `slot == c` guard */
    int *has_pin;
    int *is_size;     /* per slot: a ".size()[" source */
    int64_t *example; /* a point the trace saw (accepted), or NULL */
} pointgen;

static void add_const(pointgen *pg, int64_t c)
{
    for (size_t i = 0; i < pg->nconsts; i++)
        if (pg->consts[i] == c) return;
    if (pg->nconsts < sizeof pg->consts / sizeof pg->consts[0]) pg->consts[pg->nconsts++] = c;
}

static void add_const_expr(pointgen *pg, const sy_expr *c)
{
    int64_t x;
    if (!c || sy_expr_get_si(c, &x) != SY_OK) return;
    add_const(pg, x);
    if (x != INT64_MIN) add_const(pg, -x);
}

static void collect_consts(pointgen *pg, const sy_expr *e)
{
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k == SY_EXPR_INT) add_const_expr(pg, e);
    if (k == SY_EXPR_ADD) {
        add_const_expr(pg, sy_expr_add_const(ctx, e));
        for (size_t i = 0; i < sy_expr_nargs(e); i++) add_const_expr(pg, sy_expr_add_coeff(ctx, e, i));
    }
    for (size_t i = 0; i < sy_expr_nargs(e); i++) collect_consts(pg, sy_expr_arg(e, i));
}

static void pointgen_init(pointgen *pg, const sy_gset *gs, const int64_t *example)
{
    memset(pg, 0, sizeof *pg);
    size_t ns = pg->ns = sy_gset_nsources(gs);
    pg->pin = calloc(ns + 1, sizeof *pg->pin);
    pg->has_pin = calloc(ns + 1, sizeof *pg->has_pin);
    pg->is_size = calloc(ns + 1, sizeof *pg->is_size);
    pg->example = example ? malloc((ns + 1) * sizeof *pg->example) : NULL;
    if (example) memcpy(pg->example, example, ns * sizeof *example);
    for (size_t i = 0; i < ns; i++) pg->is_size[i] = strstr(sy_gset_source(gs, i), ".size()[") != NULL;
    for (size_t i = 0; i < sy_gset_size(gs); i++) {
        const sy_expr *e = sy_gset_at(gs, i)->expr;
        collect_consts(pg, e);
        if (sy_expr_kind_of(e) != SY_EXPR_EQ) continue;
        const sy_expr *d = sy_expr_arg(e, 0);
        int64_t c0 = 0, c = 1;
        if (sy_expr_kind_of(d) == SY_EXPR_ADD && sy_expr_nargs(d) == 1) {
            if (sy_expr_get_si(sy_expr_add_const(ctx, d), &c0) != SY_OK ||
                sy_expr_get_si(sy_expr_add_coeff(ctx, d, 0), &c) != SY_OK || c != 1 || c0 == INT64_MIN)
                continue;
            d = sy_expr_arg(d, 0);
        }
        for (size_t s = 0; s < ns; s++)
            if (sy_gset_source_var(gs, s) == d) {
                pg->pin[s] = -c0;
                pg->has_pin[s] = 1;
            }
    }
    for (int64_t x = 0; x < 4; x++) add_const(pg, x);
}

static void pointgen_free(pointgen *pg)
{
    free(pg->pin);
    free(pg->has_pin);
    free(pg->is_size);
    free(pg->example);
}

static int64_t pick(rng *r, const pointgen *pg)
{
    static const int64_t extremes[] = {INT64_MAX, INT64_MAX - 1, INT64_MAX - 2, INT64_MIN, INT64_MIN + 1, INT64_MIN + 2,
                                       (int64_t)1 << 62, -((int64_t)1 << 62), (int64_t)1 << 32, -((int64_t)1 << 32),
                                       3037000499, 3037000500, -3037000500, INT64_MAX / 2, INT64_MIN / 2, 1, 0, -1};
    switch (rnd(r) % 10) {
    case 0:
    case 1:
    case 2: return (int64_t)(rnd(r) % 12);
    case 3:
    case 4:
    case 5: {
        int64_t c = pg->consts[rnd(r) % pg->nconsts], v;
        int64_t d = rnd(r) % 2 ? 0 : (int64_t)(rnd(r) % 5) - 2;
        return __builtin_add_overflow(c, d, &v) ? c : v;
    }
    case 6: return extremes[rnd(r) % (sizeof extremes / sizeof extremes[0])];
    case 7: return (int64_t)rnd(r);
    default: return (int64_t)(rnd(r) % 2001) - 1000;
    }
}

static void gen_point(rng *r, const pointgen *pg, int64_t *v)
{
    unsigned mode = (unsigned)(rnd(r) % 10);
    if (mode < 2 && pg->example) {
        /* the example, or the example with one value changed */
        memcpy(v, pg->example, pg->ns * sizeof *v);
        if (mode == 1 && pg->ns) v[rnd(r) % pg->ns] = pick(r, pg);
        return;
    }
    int64_t common = pick(r, pg);
    for (size_t s = 0; s < pg->ns; s++) {
        if (pg->has_pin[s] && rnd(r) % 10 < 8) v[s] = pg->pin[s];
        else if (pg->is_size[s] && mode < 5) v[s] = common; /* all sizes equal: equalities pass */
        else v[s] = pick(r, pg);
    }
}

/* ------------------------------------------------------------------ differential check */

typedef struct {
    long points, accepted, rejected, overflow, divzero, guard_evals;
} stats;

static void show_point(char *buf, size_t n, const int64_t *v, size_t ns)
{
    size_t p = 0;
    for (size_t i = 0; i < ns && p < n; i++) p += (size_t)snprintf(buf + p, n - p, "%s%lld", i ? ", " : "[", (long long)v[i]);
    if (p < n) snprintf(buf + p, n - p, "]");
}

static void differential(const char *what, const sy_gset *gs, const cmod *m, long npoints, const int64_t *example,
                         stats *st)
{
    size_t ns = sy_gset_nsources(gs), n = sy_gset_size(gs);
    cr_assert(eq(sz, *m->nsources, ns));
    cr_assert(eq(sz, *m->nguards, n));
    for (size_t i = 0; i < ns; i++) cr_assert(eq(str, (char *)m->sources[i], (char *)sy_gset_source(gs, i)));
    for (size_t i = 0; i < n; i++) cr_assert(eq(str, (char *)m->guards[i], (char *)sy_gset_at(gs, i)->text));
    pointgen pg;
    pointgen_init(&pg, gs, example);
    uint64_t seed = test_seed();
    rng r = {seed ^ sy_expr_hash(n ? sy_gset_at(gs, n - 1)->expr : sy_expr_true(ctx))};
    int64_t *v = calloc(ns + 1, sizeof *v);
    char pt[1024];
    memset(st, 0, sizeof *st);
    for (long it = 0; it < npoints; it++) {
        gen_point(&r, &pg, v);
        int32_t failed = 12345;
        int rc = m->check(v, ns, &failed);
        sy_gset_result ref = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, v, ns, &ref), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        if (!ref.accept && ref.failed == -1) ref.accept = 1; /* cannot exist: the guards' verdict is compared */
        st->points++;
        /* every guard on its own against its exact value */
        for (size_t i = 0; m->fns && i < n; i++) {
            if (!m->fns[i]) {
                cr_assert(eq(int, sy_gset_at(gs, i)->kind, SY_GK_RUNTIME_ASSERT));
                continue;
            }
            int gr = m->fns[i](v);
            oracle o = {gs, v, 0, 0};
            fmpz_t x;
            fmpz_init(x);
            ev(&o, sy_gset_at(gs, i)->expr, x);
            int truth = !fmpz_is_zero(x);
            fmpz_clear(x);
            st->guard_evals++;
            if (gr == 0 || gr == 1) {
                if (gr != truth || o.dz) show_point(pt, sizeof pt, v, ns);
                cr_assert(eq(int, gr, truth), "%s (seed %llu) at %s: guard %zu (%s) is %d, exactly %d", what,
                          (unsigned long long)seed, pt, i, sy_gset_at(gs, i)->text, gr, truth);
                cr_assert(eq(int, o.dz, 0), "%s at %s: guard %zu (%s) divides by zero, generated %d", what, pt, i,
                          sy_gset_at(gs, i)->text, gr);
            } else {
                show_point(pt, sizeof pt, v, ns);
                cr_assert(gr == SY_CGEN_EOVERFLOW ? o.ovf : gr == SY_CGEN_EDIVZERO ? o.dz : 0,
                          "%s (seed %llu) at %s: guard %zu (%s) fails closed with %d, unjustified", what,
                          (unsigned long long)seed, pt, i, sy_gset_at(gs, i)->text, gr);
            }
        }
        if (rc == SY_CGEN_ACCEPT || rc == SY_CGEN_REJECT) {
            show_point(pt, sizeof pt, v, ns);
            cr_assert(eq(int, rc, ref.accept), "%s (seed %llu) at %s: generated %d, reference %d (%s)", what,
                      (unsigned long long)seed, pt, rc, ref.accept, ref.message);
            cr_assert(eq(long, (long)failed, ref.failed), "%s (seed %llu) at %s: generated guard %d, reference %ld (%s)",
                      what, (unsigned long long)seed, pt, (int)failed, ref.failed, ref.message);
            if (rc) st->accepted++;
            else st->rejected++;
            continue;
        }
        show_point(pt, sizeof pt, v, ns);
        cr_assert(rc == SY_CGEN_EOVERFLOW || rc == SY_CGEN_EDIVZERO, "%s at %s: unexpected code %d", what, pt, rc);
        cr_assert(failed >= 0 && (size_t)failed < n, "%s at %s: fail-closed code %d without a guard (%d)", what, pt, rc,
                  (int)failed);
        const sy_gset_guard *g = sy_gset_at(gs, (size_t)failed);
        cr_assert(ne(int, g->kind, SY_GK_RUNTIME_ASSERT));
        /* the guards before it hold exactly */
        cr_assert(ref.accept || ref.failed >= failed, "%s (seed %llu) at %s: generated reached guard %d, reference failed %ld (%s)",
                  what, (unsigned long long)seed, pt, (int)failed, ref.failed, ref.message);
        oracle o = {gs, v, 0, 0};
        fmpz_t x;
        fmpz_init(x);
        ev(&o, g->expr, x);
        fmpz_clear(x);
        if (rc == SY_CGEN_EOVERFLOW) {
            st->overflow++;
            cr_assert(o.ovf, "%s (seed %llu) at %s: guard %d (%s) failed closed on overflow but nothing overflows int64",
                      what, (unsigned long long)seed, pt, (int)failed, g->text);
        } else {
            st->divzero++;
            cr_assert(o.dz, "%s (seed %llu) at %s: guard %d (%s) reported a zero divisor that exact evaluation does not see",
                      what, (unsigned long long)seed, pt, (int)failed, g->text);
            cr_assert(ref.accept == 0 && ref.failed == failed, "%s at %s: the reference rejects at the zero divisor (%s)", what, pt,
                      ref.message);
        }
    }
    free(v);
    pointgen_free(&pg);
}

/* ------------------------------------------------------------------ corpus */

static int checks_guards(const sy_gset *gs)
{
    for (size_t i = 0; i < sy_gset_size(gs); i++)
        if (sy_gset_at(gs, i)->kind != SY_GK_RUNTIME_ASSERT) return 1;
    return 0;
}

/* the values of the graph's example shapes */
static int64_t *example_values(const sy_gset *gs, const sy_graph *g)
{
    size_t ni = sy_graph_ninputs(g);
    const char **names = calloc(ni + 1, sizeof *names);
    size_t *ranks = calloc(ni + 1, sizeof *ranks);
    const int64_t **shapes = calloc(ni + 1, sizeof *shapes);
    sy_dtype *dts = calloc(ni + 1, sizeof *dts);
    int64_t *v = calloc(sy_gset_nsources(gs) + 1, sizeof *v);
    for (size_t i = 0; i < ni; i++) {
        const sy_graph_input *in = sy_graph_input_at(g, i);
        names[i] = in->name;
        ranks[i] = in->ndim;
        shapes[i] = in->shape;
        dts[i] = in->dtype;
    }
    cr_assert(eq(int, sy_gset_values_from_shapes(gs, ni, names, ranks, shapes, dts, v), SY_OK));
    free(names);
    free(ranks);
    free(shapes);
    free(dts);
    return v;
}

static void cgen_diff_one(const char *path, const char *probes, const char *file, void *ud)
{
    (void)probes;
    long npoints = *(const long *)ud;
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    sy_gset *gs = trace_minimize_opts(g, NULL);
    size_t len;
    char *code = render_c(gs, NULL, &len);
    cmod m;
    cmod_build(&m, code, len, "guards", checks_guards(gs));
    int64_t *ex = example_values(gs, g);
    int32_t failed = 7;
    cr_assert(eq(int, m.check(ex, sy_gset_nsources(gs), &failed), SY_CGEN_ACCEPT), "%s: the example is rejected at %d", file,
              (int)failed);
    stats st;
    differential(file, gs, &m, npoints, ex, &st);
    fprintf(stderr,
            "%-24s %ld points: %ld accepted, %ld rejected, failed closed %ld (overflow) %ld (division by zero); "
            "%ld guard evaluations\n",
            file, st.points, st.accepted, st.rejected, st.overflow, st.divzero, st.guard_evals);
    cr_assert(lt(long, 0, st.accepted));
    cr_assert(lt(long, 0, st.rejected));
    free(ex);
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(backends_cgen, agrees_with_the_reference_checker_on_every_corpus_model, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(600))
{
    long npoints = 10000 * test_multiplier();
    cr_assert(lt(int, 0, corpus_for_each(cgen_diff_one, &npoints)), "no model found");
}

/* ------------------------------------------------------------------ every node kind */

static const char *const SYNTH_GRAPH =
    "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"synthetic\",\"nodes\":["
    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[5,7,11,13],\"dynamic\":[0,1,2,3]}],"
    "\"outputs\":[{\"ref\":\"x\"}]}";

/* user facts over a, b, c, d = the four sizes (example 5, 7, 11, 13), each
 * true at the example, together using every node kind, divisors that vanish
 * (c = 10, b = 6, b = 8 gives -1 with a = INT64_MIN), constants and
 * coefficients beyond int64, and sums whose halves overflow */
static const char *const SYNTH_FACTS[] = {
    "Mod(a*b, 7) == 0 or Max(a, c) <= 2**70",
    "FloorDiv(a + b, c - 10) >= -5 or d >= 3",
    "CeilDiv(a, b - 6) * c - d**3 != 17",
    "Min(a, b, 2**64) + 2**65 * Mod(c, 11) <= 2**66 + d",
    "a - b <= 5",
    "a**5 <= 10**18",
    "a*b*c >= d",
    "-(2**63) <= a - b",
    "2**64 - a*b != 0",
    "a*b == 2**64 or c <= 20",
    "(Mod(a, 4) == 1 or FloorDiv(d, -3) <= -5) and Max(a - d, b) >= 7",
    "Mod(a - d, -5) == -3",
    "(a - b)**2 <= 100",
    "FloorDiv(a, b - 8) >= -(10**18) or d == 13",
    "-(2**64) <= Min(a - b, 0)",
    "a*b - c*d + 2*a*c - 3 <= 2**62",
};

/* the synthetic graph with @p n facts over a, b, c, d (and a runtime assert
 * when @p ra); not minimized */
static sy_gset *synthetic_set(const char *const *facts, size_t n, int ra, sy_graph **gout, sy_env **eout)
{
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, SYNTH_GRAPH, strlen(SYNTH_GRAPH), "synthetic", &g), SY_OK));
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    sy_env *env = sy_env_new(ctx, &eo);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_tensor *x = sy_trace_value(t, 0)->u.t;
    const sy_expr *keys[4] = {P("a"), P("b"), P("c"), P("d")};
    for (size_t i = 0; i < n; i++) {
        const sy_expr *rel = sy_expr_subs(ctx, P(facts[i]), 4, keys, x->sizes);
        sy_provenance why = {"fact", "assume", facts[i]};
        cr_assert(eq(int, sy_env_assume(env, rel, &why), SY_OK), "%s: %s", facts[i], sy_ctx_last_error_msg(ctx));
    }
    if (ra) {
        sy_provenance w = {"ra", "runtime_assert", "checked by the runtime"};
        cr_assert(eq(int, sy_env_runtime_assert(env, sy_expr_subs(ctx, P("a + c <= 1000"), 4, keys, x->sizes), &w), SY_OK),
                  "%s", sy_ctx_last_error_msg(ctx));
    }
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(t);
    *gout = g;
    *eout = env;
    return gs;
}

Test(backends_cgen, every_node_kind_agrees_or_fails_closed_soundly, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(300))
{
    sy_graph *g;
    sy_env *env;
    sy_gset *gs = synthetic_set(SYNTH_FACTS, sizeof SYNTH_FACTS / sizeof SYNTH_FACTS[0], 1, &g, &env);
    size_t len;
    char *code = render_c(gs, "synth", &len);
    /* every path of the generator is present */
    const char *want[] = {"sy_i64_floordiv(", "sy_i64_mod(", "sy_i64_ceildiv(", "sy_i64_mul(", "sy_i64_add(", "sy_i64_sub(",
                          "for (k = 0; k < UINT64_C(5)", "does not fit int64", "    NULL,", "|= ", "&= ", " >= 0 ? "};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert(strstr(code, want[i]) != NULL, "generated C lacks '%s':\n%s", want[i], code);
    int ra = 0;
    for (size_t i = 0; i < sy_gset_size(gs); i++) ra += sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT;
    cr_assert(eq(int, ra, 1));
    cmod m;
    cmod_build(&m, code, len, "synth", 1);
    int64_t ex[] = {4, 0, 5, 7, 11, 13};
    cr_assert(eq(sz, sy_gset_nsources(gs), 6));
    int32_t failed;
    cr_assert(eq(int, m.check(ex, 6, &failed), SY_CGEN_ACCEPT), "example rejected at %d", (int)failed);
    stats st;
    differential("synthetic", gs, &m, 20000 * test_multiplier(), ex, &st);
    fprintf(stderr,
            "synthetic: %ld points: %ld accepted, %ld rejected, failed closed %ld (overflow) %ld (division by zero); "
            "%ld guard evaluations\n",
            st.points, st.accepted, st.rejected, st.overflow, st.divzero, st.guard_evals);
    cr_assert(lt(long, 0, st.accepted));
    cr_assert(lt(long, 0, st.rejected));
    cr_assert(lt(long, 0, st.overflow));
    cr_assert(lt(long, 0, st.divzero));
    /* minimized, the same set still agrees */
    cmod_free(&m);
    sy_mem_free(ctx, code);
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    code = render_c(gs, "synth", &len);
    cmod_build(&m, code, len, "synth", 1);
    differential("synthetic (minimized)", gs, &m, 5000 * test_multiplier(), ex, &st);
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_env_free(env);
    sy_graph_free(g);
}

/* The portable overflow checks (selected by SY_INT64_PORTABLE, as on a
 * compiler without __GNUC__) agree with the reference at every point, with
 * the same overflows, including the int64 edges. -fsanitize=undefined makes a
 * signed overflow in the fallback itself a failure when the compiler has it. */
Test(backends_cgen, portable_overflow_fallback_agrees, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(300))
{
    sy_graph *g;
    sy_env *env;
    sy_gset *gs = synthetic_set(SYNTH_FACTS, sizeof SYNTH_FACTS / sizeof SYNTH_FACTS[0], 1, &g, &env);
    size_t len;
    char *code = render_c(gs, "port", &len);
    cr_assert(strstr(code, "#if defined(__GNUC__) && !defined(SY_INT64_PORTABLE)") != NULL);
    cmod m;
    cc_defines = "-DSY_INT64_PORTABLE";
    cmod_build(&m, code, len, "port", 1);
    cc_defines = "";
    stats st;
    int64_t ex[] = {4, 0, 5, 7, 11, 13};
    differential("synthetic (portable overflow checks)", gs, &m, 20000 * test_multiplier(), ex, &st);
    cr_assert(lt(long, 0, st.overflow));
    cr_assert(lt(long, 0, st.accepted));
    /* the edges: a - b past INT64_MAX / INT64_MIN, products at the limit */
    static const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, -3037000500, -2, -1, 0, 1, 2, 3037000499, 3037000500,
                                    INT64_MAX - 1, INT64_MAX};
    size_t ne = sizeof edges / sizeof edges[0];
    int64_t v[6] = {4, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++) {
            v[2] = edges[i];
            v[3] = edges[j];
            v[4] = edges[(i + j) % ne];
            v[5] = edges[(i * 7 + j) % ne];
            int32_t failed;
            sy_gset_result ref = SY_GSET_RESULT_INIT;
            cr_assert(eq(int, sy_gset_check_si(gs, v, 6, &ref), SY_OK));
            int rc = m.check(v, 6, &failed);
            if (rc == SY_CGEN_ACCEPT || rc == SY_CGEN_REJECT) cr_assert(eq(int, rc == SY_CGEN_ACCEPT, ref.accept));
            if (rc == SY_CGEN_ACCEPT) cr_assert(ref.accept);
        }
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_env_free(env);
    sy_graph_free(g);
}

/* decisions at the edge of int64, point by point */
static long guard_index(const sy_gset *gs, const char *text)
{
    for (size_t i = 0; i < sy_gset_size(gs); i++)
        if (!strcmp(sy_gset_at(gs, i)->text, text)) return (long)i;
    cr_fatal("no guard '%s'", text);
    return -1;
}

static void expect(const sy_gset *gs, const cmod *m, const int64_t *v, int want_rc, long want_failed)
{
    int32_t failed = 99;
    sy_gset_result ref = SY_GSET_RESULT_INIT;
    size_t ns = sy_gset_nsources(gs);
    cr_assert(eq(int, sy_gset_check_si(gs, v, ns, &ref), SY_OK));
    int rc = m->check(v, ns, &failed);
    cr_assert(eq(int, rc, want_rc), "code %d at guard %d, want %d at %ld (reference: %s)", rc, (int)failed, want_rc,
              want_failed, ref.message);
    cr_assert(eq(long, (long)failed, want_failed));
    if (rc == SY_CGEN_ACCEPT || rc == SY_CGEN_REJECT || rc == SY_CGEN_EDIVZERO) cr_assert(eq(long, ref.failed, want_failed));
}

Test(backends_cgen, exact_at_the_int64_edges, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    static const char *const facts[] = {"a - b <= 5", "a <= 2**64", "-(2**63) <= a - b"};
    sy_graph *g;
    sy_env *env;
    sy_gset *gs = synthetic_set(facts, 3, 0, &g, &env);
    size_t len;
    char *code = render_c(gs, "edge", &len);
    cmod m;
    cmod_build(&m, code, len, "edge", 1);
    long sub = guard_index(gs, "x.size()[0] <= x.size()[1] + 5"),
         k63 = guard_index(gs, "x.size()[1] <= x.size()[0] + 9223372036854775808");
    /* a - b overflows int64 upwards: decided false, exactly */
    expect(gs, &m, (int64_t[]){4, 0, INT64_MAX, -1, 11, 13}, SY_CGEN_REJECT, sub);
    /* a - b overflows downwards: decided true; then b - a = 2**63 + 1 cannot be
     * compared with 2**63 in int64: fail closed (the reference rejects) */
    expect(gs, &m, (int64_t[]){4, 0, INT64_MIN, 1, 11, 13}, SY_CGEN_EOVERFLOW, k63);
    /* a bound above INT64_MAX is vacuous; b - a = INT64_MAX <= 2**63 */
    expect(gs, &m, (int64_t[]){4, 0, INT64_MAX, INT64_MAX, 11, 13}, SY_CGEN_ACCEPT, -1);
    long lo = guard_index(gs, "2 <= x.size()[0]");
    expect(gs, &m, (int64_t[]){4, 0, 0, INT64_MAX, 11, 13}, SY_CGEN_REJECT, lo);
    /* wrong number of values, NULL sizes, NULL failed */
    int32_t failed;
    int64_t ok[] = {4, 0, 5, 7, 11, 13};
    cr_assert(eq(int, m.check(ok, 5, &failed), SY_CGEN_EARG));
    cr_assert(eq(int, failed, -1));
    cr_assert(eq(int, m.check(NULL, 6, &failed), SY_CGEN_EARG));
    cr_assert(eq(int, m.check(ok, 6, NULL), SY_CGEN_ACCEPT));
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_env_free(env);
    sy_graph_free(g);
    /* b = 6: CeilDiv(a, b - 6) divides by zero, where the reference rejects */
    gs = synthetic_set(SYNTH_FACTS, sizeof SYNTH_FACTS / sizeof SYNTH_FACTS[0], 1, &g, &env);
    code = render_c(gs, "edge", &len);
    cmod_build(&m, code, len, "edge", 1);
    long cd = guard_index(gs, "x.size()[3]**3 + 17 != x.size()[2]*CeilDiv(x.size()[0], x.size()[1] - 6)");
    int64_t dz[] = {4, 0, 5, 6, 11, 13};
    expect(gs, &m, dz, SY_CGEN_EDIVZERO, cd);
    sy_gset_result ref = SY_GSET_RESULT_INIT;
    cr_assert(eq(int, sy_gset_check_si(gs, dz, 6, &ref), SY_OK));
    cr_assert(strstr(ref.message, "division by zero") != NULL, "%s", ref.message);
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_env_free(env);
    sy_graph_free(g);
}

/* An And/Or whose later operand holds a constant beyond int64 fails closed
 * there (return -2); the temporaries declared before that return are never
 * read and must not break -Wall -Wextra -Werror (cmod_build compiles with it). */
Test(backends_cgen, fail_closed_inside_and_or_compiles_cleanly, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    static const char *const facts[] = {
        "a <= 3 or Max(a, 2**70) >= b",
        "a <= 3 or Mod(a, 2**70) <= b",
        "a - b + 5 <= c or FloorDiv(2**70, a) >= b",
        "(a - b <= 3 and c <= 4) or (a - b - 7 <= c and Max(a, 2**70) >= b)",
    };
    sy_graph *g;
    sy_env *env;
    sy_gset *gs = synthetic_set(facts, sizeof facts / sizeof facts[0], 0, &g, &env);
    size_t len;
    char *code = render_c(gs, "orbig", &len);
    cr_assert(strstr(code, "(void)b0;\n    return -2;") != NULL, "%s", code);
    cmod m;
    cmod_build(&m, code, len, "orbig", 1);
    int64_t ex[] = {4, 0, 5, 7, 11, 13};
    int32_t failed;
    cr_assert(eq(int, m.check(ex, 6, &failed), SY_CGEN_EOVERFLOW));
    cr_assert(eq(long, (long)failed,
                 guard_index(gs, "Or(x.size()[0] <= 3, x.size()[1] <= Max(1180591620717411303424, x.size()[0]))")));
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_env_free(env);
    sy_graph_free(g);
}

/* A Min whose later operand fails closed (its constant term 2**70 - 1 does not fit int64)
 * left the first operand's copy unread: "unused variable 't2'" under -Werror (attack38e). */
Test(backends_cgen, fail_closed_inside_min_compiles_cleanly, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    static const char *const facts[] = {"CeilDiv(b, 100) <= Min(c, CeilDiv(b, 2**70))"};
    sy_graph *g;
    sy_env *env;
    sy_gset *gs = synthetic_set(facts, 1, 0, &g, &env);
    size_t len;
    char *code = render_c(gs, "minbig", &len);
    cr_assert(strstr(code, "(void)t2;\n    return -2;") != NULL, "%s", code);
    cmod m;
    cmod_build(&m, code, len, "minbig", 1);
    int64_t ex[] = {4, 0, 5, 7, 11, 13};
    int32_t failed;
    cr_assert(eq(int, m.check(ex, 6, &failed), SY_CGEN_EOVERFLOW));
    cr_assert(eq(long, (long)failed,
                 guard_index(gs, "CeilDiv(x.size()[1], 100) <= Min(x.size()[2], CeilDiv(x.size()[1], 1180591620717411303424))")));
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_env_free(env);
    sy_graph_free(g);
}

/* ------------------------------------------------------------------ golden, helpers, prefix */

Test(backends_cgen, golden_resnet18, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, SY_TESTS_DIR "/../examples/resnet18.json", &g), SY_OK));
    sy_gset *gs = trace_minimize_opts(g, NULL);
    size_t len;
    char *code = render_c(gs, NULL, &len);
    golden_check("resnet18.c.txt", code, len);
    /* deterministic */
    size_t len2;
    char *code2 = render_c(gs, NULL, &len2);
    cr_assert(eq(sz, len, len2));
    cr_assert(eq(int, memcmp(code, code2, len), 0));
    sy_mem_free(ctx, code2);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(backends_cgen, helpers_are_a_verbatim_copy_of_sy_int64_h, .init = ctx_setup, .fini = ctx_teardown)
{
    FILE *f = fopen(SY_TESTS_DIR "/../algebra/sy_int64.h", "rb");
    cr_assert(f != NULL);
    static char hdr[65536];
    size_t n = fread(hdr, 1, sizeof hdr - 1, f);
    hdr[n] = 0;
    fclose(f);
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, SY_TESTS_DIR "/../examples/vit_b_16.json", &g), SY_OK));
    sy_gset *gs = trace_minimize_opts(g, NULL);
    size_t len;
    char *code = render_c(gs, NULL, &len);
    cr_assert(strstr(code, hdr) != NULL, "the generated C does not contain algebra/sy_int64.h verbatim: update the copy in backends/cgen.c");
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(backends_cgen, prefix_is_checked_and_used, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    cr_assert(sy_backend_find("c") != NULL);
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, SY_TESTS_DIR "/../examples/vit_b_16.json", &g), SY_OK));
    sy_gset *gs = trace_minimize_opts(g, NULL);
    const char *bad[] = {"", "1abc", "a-b", "my guards", "__x", "_X", "a.b", "g\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sy_backend_options o = SY_BACKEND_OPTIONS_INIT;
        o.prefix = bad[i];
        unsigned char *data = (unsigned char *)"junk";
        size_t len = 99;
        cr_assert(eq(int, sy_backend_render("c", gs, &o, &data, &len), SY_EINVAL), "prefix '%s' accepted", bad[i]);
        cr_assert(data == NULL && len == 0);
        cr_assert(strstr(sy_ctx_last_error_msg(ctx), "prefix") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    }
    size_t len;
    char *code = render_c(gs, "_vit_B16", &len);
    cr_assert(strstr(code, "int _vit_B16_check(const int64_t *sizes, size_t n, int32_t *failed)") != NULL);
    cr_assert(strstr(code, "guards_check") == NULL);
    cmod m;
    cmod_build(&m, code, len, "_vit_B16", 0);
    int64_t v[] = {4, 0, 2, 3, 224, 224};
    int32_t failed;
    cr_assert(eq(int, m.check(v, 6, &failed), SY_CGEN_ACCEPT));
    v[5] = 225;
    cr_assert(eq(int, m.check(v, 6, &failed), SY_CGEN_REJECT));
    cr_assert(eq(str, (char *)m.guards[failed], "x.size()[2] == x.size()[3]"));
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(backends_cgen, empty_set_and_escaped_strings_compile, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    /* no inputs: no sources, no guards */
    const char *E = "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"empty */ ?\?/\",\"nodes\":[],\"outputs\":[]}";
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, E, strlen(E), "e", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    /* produced, not minimized: sy_gset_minimize passes NULL to qsort for an
     * empty set (UBSan flags it; guards/gset_minimize.c) */
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(t);
    sy_env_free(env);
    size_t len;
    char *code = render_c(gs, NULL, &len);
    cmod m;
    cmod_build(&m, code, len, "guards", 0);
    int32_t failed = 3;
    cr_assert(eq(int, m.check(NULL, 0, &failed), SY_CGEN_ACCEPT));
    cr_assert(eq(int, failed, -1));
    cr_assert(eq(int, m.check(NULL, 1, &failed), SY_CGEN_EARG));
    cr_assert(eq(sz, *m.nsources, 0));
    cr_assert(eq(sz, *m.nguards, 0));
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_graph_free(g);
    /* an input name that needs escaping in strings and comments, and a long
     * guard text (> 4095 characters: a char array, not a literal) */
    const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"m\",\"nodes\":["
                    "{\"name\":\"in\\\"*/?\?=\\\\\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[3,5],\"dynamic\":[0,1]}],"
                    "\"outputs\":[{\"ref\":\"in\\\"*/?\?=\\\\\"}]}";
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "m", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    env = sy_env_new(ctx, NULL);
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_tensor *x = sy_trace_value(t, 0)->u.t;
    /* Mod(x0, 2) + ... + Mod(x0, 240) != 7*x1 */
    const sy_expr *sum = sy_expr_int_si(ctx, 0);
    for (int k = 2; k <= 240; k++) sum = sy_expr_add(ctx, sum, sy_expr_mod(ctx, x->sizes[0], sy_expr_int_si(ctx, k)));
    cr_assert(eq(int, sy_env_assume(env, sy_expr_ne(ctx, sum, sy_expr_mul_si(ctx, x->sizes[1], 7)), NULL), SY_OK), "%s",
              sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK));
    size_t longest = 0;
    for (size_t i = 0; i < sy_gset_size(gs); i++)
        if (strlen(sy_gset_at(gs, i)->text) > longest) longest = strlen(sy_gset_at(gs, i)->text);
    cr_assert(lt(sz, 4095, longest));
    code = render_c(gs, NULL, &len);
    cmod_build(&m, code, len, "guards", 0);
    for (size_t i = 0; i < sy_gset_nsources(gs); i++) cr_assert(eq(str, (char *)m.sources[i], (char *)sy_gset_source(gs, i)));
    for (size_t i = 0; i < sy_gset_size(gs); i++) cr_assert(eq(str, (char *)m.guards[i], (char *)sy_gset_at(gs, i)->text));
    int64_t v[] = {2, 0, 3, 5};
    cr_assert(eq(int, m.check(v, 4, &failed), SY_CGEN_ACCEPT), "failed %d", (int)failed);
    int64_t big[] = {2, 0, 1000, INT64_MAX};
    cr_assert(eq(int, m.check(big, 4, &failed), SY_CGEN_EOVERFLOW), "failed %d", (int)failed);
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* The run-time check: runtime asserts on unbacked values (a unique() whose
 * length u0 is broadcast against y and viewed as (3, -1)), generated C vs the
 * reference sy_gset_check_runtime_si, with exact answers. */
typedef int (*rt_check_fn)(const int64_t *, size_t, const int64_t *, size_t, int32_t *);
Test(backends_cgen, check_runtime_takes_the_unbacked_values, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"ub\",\"nodes\":["
                    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"int64\",\"shape\":[4,6],\"dynamic\":[0,1]},"
                    "{\"name\":\"y\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[5],\"dynamic\":[0]},"
                    "{\"name\":\"uq\",\"op\":\"unique\",\"args\":[{\"ref\":\"x\"}]},"
                    "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"uq\"},3,-1]},"
                    "{\"name\":\"c\",\"op\":\"add\",\"args\":[{\"ref\":\"uq\"},{\"ref\":\"y\"}]}],"
                    "\"outputs\":[{\"ref\":\"v\"},{\"ref\":\"c\"}]}";
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "ub", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    sy_trace_free(t);
    sy_env_free(env);
    cr_assert(eq(sz, sy_gset_nunbacked(gs), 1));
    cr_assert(eq(str, (char *)sy_gset_unbacked_source(gs, 0), "uq.size()[0] (from unique at node uq)"));
    size_t len;
    char *code = render_c(gs, "ub", &len);
    cmod m;
    cmod_build(&m, code, len, "ub", 0);
    void *p = sym_of(&m, "ub", "check_runtime");
    rt_check_fn rt;
    memcpy(&rt, &p, sizeof p);
    const char *const *ubn = sym_of(&m, "ub", "unbacked");
    cr_assert(eq(str, (char *)ubn[0], "uq.size()[0] (from unique at node uq)"));
    size_t ns = sy_gset_nsources(gs);
    cr_assert(eq(sz, ns, 7)); /* x.dim, x.dtype, x.size 0, 1, y.dim, y.dtype, y.size 0 */
    long ra_mod = guard_index(gs, "Mod(u0, 3) == 0  [u0 = uq.size()[0] (from unique at node uq)]");
    /* the view's y == 3*FloorDiv(u0, 3), exact under Mod(u0, 3) == 0 (guards/gset_minimize.c) */
    long ra_eq = guard_index(gs, "u0 == y.size()[0]  [u0 = uq.size()[0] (from unique at node uq)]");
    cr_assert(eq(int, sy_gset_at(gs, (size_t)ra_mod)->kind, SY_GK_RUNTIME_ASSERT));
    cr_assert(eq(int, sy_gset_at(gs, (size_t)ra_eq)->kind, SY_GK_RUNTIME_ASSERT));
    int checked = 0;
    for (int64_t ysz = 2; ysz <= 9; ysz++)
        for (int64_t u0 = 0; u0 <= 10; u0++) {
            int64_t v[7] = {2, SY_DT_INT64, 4, 6, 1, SY_DT_FLOAT32, ysz}, uv[1] = {u0};
            sy_gset_result ref = SY_GSET_RESULT_INIT;
            cr_assert(eq(int, sy_gset_check_runtime_si(gs, v, ns, uv, 1, &ref), SY_OK));
            int32_t failed = 99;
            int rc = rt(v, ns, uv, 1, &failed);
            cr_assert(eq(int, rc, ref.accept ? SY_CGEN_ACCEPT : SY_CGEN_REJECT), "y=%lld u0=%lld: %s", (long long)ysz,
                      (long long)u0, ref.message);
            cr_assert(eq(long, (long)failed, ref.failed));
            /* exact: accepted iff 3 divides u0 (the view) and u0 == y (the add) */
            int want = u0 == ysz && u0 % 3 == 0;
            cr_assert(eq(int, ref.accept, want), "y=%lld u0=%lld: %s", (long long)ysz, (long long)u0, ref.message);
            /* the first guard in the set's order that fails */
            long first = -1;
            if (u0 % 3) first = ra_mod;
            if (u0 != ysz && (first < 0 || ra_eq < first)) first = ra_eq;
            if (!want) cr_assert(eq(long, ref.failed, first));
            /* the size check alone does not read unbacked values */
            cr_assert(eq(int, m.check(v, ns, &failed), SY_CGEN_ACCEPT));
            checked++;
        }
    cr_assert(eq(int, checked, 88));
    int64_t v[7] = {2, SY_DT_INT64, 4, 6, 1, SY_DT_FLOAT32, 6}, uv[1] = {6};
    int32_t failed;
    cr_assert(eq(int, rt(v, ns, uv, 0, &failed), SY_CGEN_EARG));
    cr_assert(eq(int, rt(v, ns, NULL, 1, &failed), SY_CGEN_EARG));
    sy_gset_result ref = SY_GSET_RESULT_INIT;
    cr_assert(eq(int, sy_gset_check_runtime_si(gs, v, ns, uv, 0, &ref), SY_EINVAL));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), "check_runtime: expected 1 unbacked values, got 0"));
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* Issue 14's 69-node FloorDiv chain (tests/guards/data/floordiv_chain69.json):
 * its relation guard is a DAG of a few hundred distinct nodes whose printed
 * tree is about 20 million. Each guard function computes a shared subterm
 * once and reuses its temporary, so the file is linear in the DAG (before:
 * 1.3 GB of C, 27 s, 2.6 GB of memory). The exact file is the golden; the
 * compiled module agrees with the reference checker. */
Test(backends_cgen, floordiv_chain_69_computes_each_shared_subterm_once, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(120))
{
    /* loaded from text under a relative name: the file's header names the
     * model, and the golden must not hold the checkout's absolute path */
    sy_graph *g;
    bt_chain69_load(&g);
    sy_gset *gs = trace_minimize_opts(g, NULL);
    size_t len;
    char *code = render_c(gs, NULL, &len);
    golden_check("floordiv_chain69.c.txt", code, len);
    cmod m;
    cmod_build(&m, code, len, "guards", checks_guards(gs));
    int64_t *ex = example_values(gs, g);
    int32_t failed = 7;
    cr_assert(eq(int, m.check(ex, sy_gset_nsources(gs), &failed), SY_CGEN_ACCEPT), "the example is rejected at %d", (int)failed);
    /* every size from -2 to 3000 (no int64 overflow there: nothing fails
     * closed), against sy_gset_check; the test's tree-walking oracle of
     * differential() would be exponential on this DAG */
    size_t ns = sy_gset_nsources(gs), at = ns;
    for (size_t i = 0; i < ns; i++)
        if (!strcmp(sy_gset_source(gs, i), "x.size()[0]")) at = i;
    cr_assert(lt(sz, at, ns));
    long acc = 0;
    for (int64_t v = -2; v <= 3000; v++) {
        ex[at] = v;
        sy_gset_result ref = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, ex, ns, &ref), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        failed = 12345;
        int rc = m.check(ex, ns, &failed);
        cr_assert(eq(int, rc, ref.accept), "x.size()[0] = %lld: generated %d, reference %d", (long long)v, rc, ref.accept);
        cr_assert(eq(long, (long)failed, ref.failed), "x.size()[0] = %lld", (long long)v);
        acc += rc;
    }
    cr_assert(eq(long, acc, 2999)); /* 2 <= x.size()[0]: the relation holds from 2 on */
    free(ex);
    cmod_free(&m);
    sy_mem_free(ctx, code);
    sy_gset_free(gs);
    sy_graph_free(g);
}
