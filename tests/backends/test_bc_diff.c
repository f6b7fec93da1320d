/* Differential test of the bytecode VM against the reference checker
 * (sy_gset_check_si: exact bignum evaluation). For every corpus model (as in
 * tests/guards/test_gset.c: ../shared/corpus, else examples/) and for
 * synthetic guard sets (Mod, Min/Max, Or/And, powers, constants beyond
 * int64), the guard set is traced, produced, minimized, compiled, encoded
 * and loaded; then on random points (small sizes, sizes around the guards'
 * constants, values near INT64_MAX and INT64_MIN) the loaded program's
 * answer must equal the reference whenever it does not fail closed. When it
 * fails closed, the guard it names must really overflow int64 (a value, a
 * product, a partial sum or a constant of its exact evaluation has
 * magnitude >= 2^63) or divide by zero at that point, and come no later than
 * the reference's first failing guard: never a wrong accept. */

#include "bc_test_util.h"
#include "corpus.h"
/* after Criterion: FLINT defines a ulong macro */
#include <flint/fmpz.h>
#include <flint/fmpz_vec.h>

/* ------------------------------------------------------------------ exact mirror */

typedef struct mflags {
    int overflow, divzero;
} mflags;

static int wide(const fmpz_t v) { return fmpz_bits(v) >= 64; } /* |v| >= 2^63 */

static long slot_of(const sy_gset *gs, const sy_expr *sym)
{
    for (size_t i = 0; i < sy_gset_nsources(gs); i++)
        if (sy_gset_source_var(gs, i) == sym) return (long)i;
    return -1;
}

/* Exact value of e at vals; flags every way an int64 evaluation of it could
 * overflow (generously: any order of the terms of a sum) or divide by 0. */
static void mirror(const sy_gset *gs, const sy_expr *e, const fmpz *vals, mflags *f, fmpz_t out)
{
    size_t n = sy_expr_nargs(e);
    fmpz_t a, b, t, pall, ppos, pneg;
    fmpz_init(a);
    fmpz_init(b);
    fmpz_init(t);
    fmpz_init(pall);
    fmpz_init(ppos);
    fmpz_init(pneg);
    fmpz_zero(out);
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_INT: const_fmpz(e, out); break;
    case SY_EXPR_SYM: {
        long s = slot_of(gs, e);
        cr_assert(ge(long, s, 0));
        fmpz_set(out, &vals[s]);
        break;
    }
    case SY_EXPR_TRUE: fmpz_one(out); break;
    case SY_EXPR_FALSE: break;
    case SY_EXPR_ADD:
        const_fmpz(sy_expr_add_const(ctx, e), a);
        f->overflow |= wide(a);
        for (size_t i = 0; i < n; i++) {
            const_fmpz(sy_expr_add_coeff(ctx, e, i), b);
            f->overflow |= wide(b);
            mirror(gs, sy_expr_arg(e, i), vals, f, t);
            fmpz_mul(t, t, b);
            f->overflow |= wide(t);
            fmpz_add(pall, pall, t);
            if (fmpz_sgn(t) >= 0) fmpz_add(ppos, ppos, t);
            else fmpz_sub(pneg, pneg, t);
            f->overflow |= wide(pall) | wide(ppos) | wide(pneg);
        }
        fmpz_abs(b, a);
        fmpz_add(ppos, ppos, b);
        fmpz_add(pneg, pneg, b);
        f->overflow |= wide(ppos) | wide(pneg);
        fmpz_add(out, pall, a);
        break;
    case SY_EXPR_MUL:
        fmpz_one(out);
        for (size_t i = 0; i < n; i++) {
            mirror(gs, sy_expr_arg(e, i), vals, f, t);
            fmpz_mul(out, out, t);
            f->overflow |= wide(out);
        }
        break;
    case SY_EXPR_POW: {
        uint64_t k = sy_expr_pow_exp(e);
        mirror(gs, sy_expr_arg(e, 0), vals, f, a);
        if (fmpz_is_zero(a) || fmpz_is_pm1(a) || fmpz_bits(a) * k <= 4096) fmpz_pow_ui(out, a, k);
        else f->overflow = 1; /* |a| >= 2, k >= 64: huge */
        break;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV:
        mirror(gs, sy_expr_arg(e, 0), vals, f, a);
        mirror(gs, sy_expr_arg(e, 1), vals, f, b);
        if (fmpz_is_zero(b)) {
            f->divzero = 1;
            break;
        }
        if (sy_expr_kind_of(e) == SY_EXPR_FLOORDIV) fmpz_fdiv_q(out, a, b);
        else if (sy_expr_kind_of(e) == SY_EXPR_CEILDIV) fmpz_cdiv_q(out, a, b);
        else fmpz_fdiv_r(out, a, b);
        break;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        mirror(gs, sy_expr_arg(e, 0), vals, f, out);
        for (size_t i = 1; i < n; i++) {
            mirror(gs, sy_expr_arg(e, i), vals, f, t);
            int c = fmpz_cmp(t, out);
            if (sy_expr_kind_of(e) == SY_EXPR_MIN ? c < 0 : c > 0) fmpz_set(out, t);
        }
        break;
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: {
        mirror(gs, sy_expr_arg(e, 0), vals, f, a);
        int s = fmpz_sgn(a);
        sy_expr_kind k = sy_expr_kind_of(e);
        fmpz_set_si(out, k == SY_EXPR_EQ ? s == 0 : k == SY_EXPR_NE ? s != 0 : s <= 0);
        break;
    }
    case SY_EXPR_AND:
    case SY_EXPR_OR: {
        int is_and = sy_expr_kind_of(e) == SY_EXPR_AND, v = is_and;
        for (size_t i = 0; i < n; i++) {
            mirror(gs, sy_expr_arg(e, i), vals, f, t);
            if (is_and) v &= !fmpz_is_zero(t);
            else v |= !fmpz_is_zero(t);
        }
        fmpz_set_si(out, v);
        break;
    }
    }
    f->overflow |= wide(out);
    fmpz_clear(a);
    fmpz_clear(b);
    fmpz_clear(t);
    fmpz_clear(pall);
    fmpz_clear(ppos);
    fmpz_clear(pneg);
}

/* ------------------------------------------------------------------ points */

typedef struct diff_stats {
    long points, accept, reject, overflow, divzero;
} diff_stats;

/* integer constants of e that fit int64, for sizes around them */
static void collect_consts(const sy_expr *e, int64_t *out, size_t *n, size_t cap)
{
    int64_t v;
    if (*n + 2 >= cap) return;
    if (sy_expr_kind_of(e) == SY_EXPR_INT && sy_expr_get_si(e, &v) == SY_OK) {
        out[(*n)++] = v;
        if (v != INT64_MIN) out[(*n)++] = -v;
    }
    if (sy_expr_kind_of(e) == SY_EXPR_ADD) {
        if (sy_expr_get_si(sy_expr_add_const(ctx, e), &v) == SY_OK && v != INT64_MIN) out[(*n)++] = -v;
        for (size_t i = 0; i < sy_expr_nargs(e) && *n + 1 < cap; i++)
            if (sy_expr_get_si(sy_expr_add_coeff(ctx, e, i), &v) == SY_OK) out[(*n)++] = v;
    }
    for (size_t i = 0; i < sy_expr_nargs(e); i++) collect_consts(sy_expr_arg(e, i), out, n, cap);
}

static int64_t pick(uint64_t *s, const int64_t *consts, size_t nc)
{
    int64_t c, d;
    switch (bt_rand(s) % 12) {
    case 0:
    case 1: return (int64_t)(bt_rand(s) % 17);
    case 2: return (int64_t)(bt_rand(s) % 1025);
    case 3:
    case 4:
        if (!nc) return 1;
        c = consts[bt_rand(s) % nc];
        d = (int64_t)(bt_rand(s) % 5) - 2;
        return __builtin_add_overflow(c, d, &d) ? c : d;
    case 5: return INT64_MAX - (int64_t)(bt_rand(s) % 4);
    case 6: return INT64_MIN + (int64_t)(bt_rand(s) % 4);
    case 7: return (int64_t)bt_rand(s);
    case 8: return ((int64_t)1 << (bt_rand(s) % 63)) + (int64_t)(bt_rand(s) % 3) - 1;
    case 9: return INT64_C(3037000499) + (int64_t)(bt_rand(s) % 5) - 2; /* about sqrt(2^63) */
    case 10: return -(int64_t)(bt_rand(s) % 300);
    default: return (int64_t)(bt_rand(s) % 300);
    }
}

static void make_point(uint64_t *s, const int64_t *base, size_t n, const int64_t *consts, size_t nc, int64_t *v)
{
    memcpy(v, base, n * sizeof *v);
    if (!n) return;
    switch (bt_rand(s) % 10) {
    case 0: break; /* the example itself */
    case 1:
    case 2:
    case 3:
        for (uint64_t k = 1 + bt_rand(s) % 3; k; k--) v[bt_rand(s) % n] = pick(s, consts, nc);
        break;
    case 4:
        for (size_t i = 0; i < n; i++) v[i] = pick(s, consts, nc);
        break;
    case 5:
        for (size_t i = 2 < n ? 2 : 0; i < n; i++) v[i] = (int64_t)(bt_rand(s) % 65);
        break;
    case 6: v[bt_rand(s) % n] = bt_rand(s) & 1 ? INT64_MAX - (int64_t)(bt_rand(s) % 3) : INT64_MIN + (int64_t)(bt_rand(s) % 3);
        break;
    case 7: { /* every size scaled: shapes the model may accept */
        int64_t k = 1 + (int64_t)(bt_rand(s) % 4);
        for (size_t i = 0; i < n; i++)
            if (v[i] > 1 && v[i] < ((int64_t)1 << 40)) v[i] = v[i] * k + (int64_t)(bt_rand(s) % 3) - 1;
        break;
    }
    default:
        for (size_t i = 0; i < n; i++)
            if (bt_rand(s) & 1) v[i] = pick(s, consts, nc);
        break;
    }
}

static void point_text(const int64_t *v, size_t n, char *buf, size_t cap)
{
    size_t pos = 0;
    for (size_t i = 0; i < n && pos + 24 < cap; i++) pos += (size_t)snprintf(buf + pos, cap - pos, "%s%lld", i ? "," : "[", (long long)v[i]);
    snprintf(buf + pos, cap - pos, "]");
}

/* Compile, encode, load; compare on npoints points. */
static void differential(const char *name, const sy_gset *gs, const int64_t *base, long npoints, int small_no_overflow,
                         diff_stats *st)
{
    sy_bc_program *c = bt_compile(gs);
    unsigned char *data;
    size_t len;
    cr_assert(eq(int, sy_bc_encode(c, &data, &len), SY_OK));
    sy_bc_load_err err;
    sy_bc_program *p = bt_load(data, len, SY_OK, &err);
    char *t1, *t2;
    cr_assert(eq(int, sy_bc_disassemble_str(c, &t1), SY_OK));
    cr_assert(eq(int, sy_bc_disassemble_str(p, &t2), SY_OK));
    cr_assert(eq(str, t1, t2), "%s: the loaded program differs", name);
    sy_str_free(ctx, t1);
    sy_str_free(ctx, t2);
    sy_mem_free(ctx, data);
    sy_bc_free(c);

    size_t n = sy_gset_nsources(gs), nc = 0;
    int64_t consts[512];
    for (size_t i = 0; i < sy_gset_size(gs); i++) collect_consts(sy_gset_at(gs, i)->expr, consts, &nc, 512);
    for (size_t i = 0; i < n && nc < 512; i++) consts[nc++] = base[i];
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    fmpz *vals = _fmpz_vec_init((slong)(n ? n : 1));
    uint64_t seed = test_seed() ^ (uint64_t)strlen(name) * 0x9E3779B97F4A7C15ull;
    for (const char *q = name; *q; q++) seed = seed * 131 + (unsigned char)*q;
    seed |= 1;
    for (long it = 0; it < npoints; it++) {
        make_point(&seed, base, n, consts, nc, v);
        int32_t failed = 77;
        int r = sy_bc_check(p, v, n, &failed);
        sy_gset_result ref = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, v, n, &ref), SY_OK));
        /* an input that cannot exist (numel past int64) is rejected by the checker after every guard
         * held (failed -1); the programs check the guards only: compared on the guards' verdict */
        if (!ref.accept && ref.failed == -1) ref.accept = 1;
        char pt[1024];
        st->points++;
        if (r >= 0) {
            if (r != ref.accept || (!r && failed != ref.failed) || (r && failed != -1)) {
                point_text(v, n, pt, sizeof pt);
                cr_fatal("%s at %s: VM %d (guard %d), reference %d (guard %ld: %s)", name, pt, r, (int)failed, ref.accept,
                         ref.failed, ref.message);
            }
            if (r) st->accept++;
            else st->reject++;
            continue;
        }
        /* failed closed: the guard it names really faults, no later than the
         * reference's first failure */
        point_text(v, n, pt, sizeof pt);
        cr_assert(r == SY_EOVERFLOW || r == SY_EDIVZERO, "%s at %s: VM returned %d", name, pt, r);
        long bound = ref.accept ? (long)sy_gset_size(gs) - 1 : ref.failed;
        cr_assert(failed >= 0 && failed <= bound, "%s at %s: fault in guard %d, reference %d/%ld", name, pt, (int)failed,
                  ref.accept, ref.failed);
        for (size_t i = 0; i < n; i++) fmpz_set_si(&vals[i], v[i]);
        mflags f = {0, 0};
        fmpz_t out;
        fmpz_init(out);
        mirror(gs, sy_gset_at(gs, (size_t)failed)->expr, vals, &f, out);
        fmpz_clear(out);
        cr_assert(r == SY_EOVERFLOW ? f.overflow : f.divzero, "%s at %s: %s in guard %d (%s) but exact evaluation %s", name,
                  pt, sy_status_name((sy_status)r), (int)failed, sy_gset_at(gs, (size_t)failed)->text,
                  f.overflow ? "overflows (not divides by zero)" : f.divzero ? "divides by zero" : "stays in int64");
        if (r == SY_EOVERFLOW && small_no_overflow) {
            int small = 1;
            for (size_t i = 0; i < n; i++) small &= v[i] >= -4096 && v[i] <= 4096;
            cr_assert(small == 0, "%s at %s: overflow with small sizes", name, pt);
        }
        if (r == SY_EOVERFLOW) st->overflow++;
        else st->divzero++;
    }
    _fmpz_vec_clear(vals, (slong)(n ? n : 1));
    free(v);
    sy_bc_free(p);
}

/* ------------------------------------------------------------------ corpus models */

static void base_point(const sy_gset *gs, const sy_graph *g, int64_t *base)
{
    size_t ni = sy_graph_ninputs(g);
    const char *names[64];
    size_t ranks[64];
    const int64_t *shapes[64];
    sy_dtype dts[64];
    cr_assert(le(sz, ni, 64));
    for (size_t i = 0; i < ni; i++) {
        const sy_graph_input *in = sy_graph_input_at(g, i);
        names[i] = in->name;
        ranks[i] = in->ndim;
        shapes[i] = in->shape;
        dts[i] = in->dtype;
    }
    cr_assert(eq(int, sy_gset_values_from_shapes(gs, ni, names, ranks, shapes, dts, base), SY_OK), "%s",
              sy_ctx_last_error_msg(ctx));
}

static sy_gset *corpus_gset(sy_graph *g, int all_dynamic)
{
    sy_env_options o = SY_ENV_OPTIONS_INIT;
    if (all_dynamic) o.duck_sizing = 0;
    sy_env *env = sy_env_new(ctx, &o);
    size_t ni = sy_graph_ninputs(g);
    sy_trace_override ov[64];
    int dims[64][16];
    cr_assert(le(sz, ni, 64));
    for (size_t i = 0; i < ni; i++) {
        const sy_graph_input *in = sy_graph_input_at(g, i);
        ov[i] = (sy_trace_override){in->name, 0, in->ndim < 16 ? in->ndim : 16, dims[i], NULL};
        for (size_t d = 0; d < 16; d++) dims[i][d] = (int)d;
    }
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, all_dynamic ? ni : 0, all_dynamic ? ov : NULL, &t), SY_OK), "%s",
              sy_ctx_last_error_msg(ctx));
    return produce_minimized(env, g, t);
}

static void vm_diff_one(const char *path, const char *probes, const char *file, void *ud)
{
    (void)probes;
    long per_model = *(const long *)ud;
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    for (int variant = 0; variant < 2; variant++) {
        sy_gset *gs = corpus_gset(g, variant);
        int64_t *base = malloc((sy_gset_nsources(gs) + 1) * sizeof *base);
        base_point(gs, g, base);
        /* the example itself is accepted */
        cr_assert(eq(int, sy_gset_check_si(gs, base, sy_gset_nsources(gs), &(sy_gset_result)SY_GSET_RESULT_INIT), SY_OK));
        diff_stats st = {0, 0, 0, 0, 0};
        char name[300];
        snprintf(name, sizeof name, "%s%s", file, variant ? " (every dim dynamic)" : "");
        differential(name, gs, base, variant ? per_model / 5 : per_model, 1, &st);
        fprintf(stderr, "%-44s %zu guards: %ld points: %ld accept, %ld reject, %ld overflow, %ld div/0\n", name,
                sy_gset_size(gs), st.points, st.accept, st.reject, st.overflow, st.divzero);
        cr_assert(lt(long, 0, st.accept), "%s: no point accepted", name);
        cr_assert(lt(long, 0, st.reject), "%s: no point rejected", name);
        free(base);
        sy_gset_free(gs);
    }
    sy_graph_free(g);
}

Test(backends_bc_diff, vm_equals_the_reference_on_every_corpus_model, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(300))
{
    long per_model = 10000 * test_multiplier();
    cr_assert(lt(int, 0, corpus_for_each(vm_diff_one, &per_model)), "no model found");
}

/* ------------------------------------------------------------------ synthetic guard sets */

typedef struct synth {
    const char *name;
    const char *facts[8];
    size_t nfacts;
} synth;

Test(backends_bc_diff, vm_equals_the_reference_on_synthetic_guard_sets, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(300))
{
    static const synth sets[] = {
        {"division and min/max",
         {"Mod(s0, 8) == 0", "s0*s1 <= 2**40", "Or(s0 == 64, s1 == 64)", "Max(s0, s1) - Min(s0, s1) <= 100",
          "FloorDiv(s0, s1) >= 1", "CeilDiv(s0, s1 - 40) <= 8"},
         6},
        {"beyond int64",
         {"s0*s1 - 2**70 != 0", "s0*s1*s2 <= 2**70", "s0*s1*s2 >= -2**65", "s0 - 2**63 + s1 <= s2*s2"},
         4},
        /* these fail closed wherever the huge term is not 0 */
        {"big coefficient and power", {"s0*s1 - 2**64*s2 != 5", "s0**300 != 3*s1"}, 2},
        {"powers and signs",
         {"s0**2 + s1**3 >= 100", "Or(Mod(s0, s1) == 0, s2 <= 9)", "And(s0 != 3, Or(s1 <= 100, Mod(s0, s2 - 6) == 0))",
          "s0 - s1 + 3*s2 == 37", "2*s0 - 3*s1 + 5 <= s2*s2", "s0**3 <= 2**60", "CeilDiv(s1, s2)*s2 >= s1",
          "Min(s0, s1, s2 + 100) >= 7"},
         8},
        {"negative terms inside atoms",
         {"FloorDiv(s0 - 3*s1, 5) <= 100", "FloorDiv(s1 - s0, 7) <= 0", "Min(s2 - s0, s1) <= 5",
          "Or(And(s0 == 64, s1 == 48), s2 == 9)", "Mod(9 - s2, 4) == 2"},
         5},
        {"or of divisions",
         {"Or(s0 == 64, FloorDiv(100, s1 - 40) == 12)", "Or(s2 == 7, Mod(s0, 8) == 0)",
          "Or(s2 >= 5, CeilDiv(s0, s2 - 6) >= 1)", "s0**7 != 3*s1"},
         4},
    };
    long per_set = 5000 * test_multiplier();
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        for (int minimize = 0; minimize < 2; minimize++) {
            sy_graph *g;
            sy_gset *gs = bt_gset("[64,48,7]", "[0,1,2]", sets[k].facts, sets[k].nfacts, NULL, 0, minimize, &g);
            int64_t base[5] = {3, 0, 64, 48, 7};
            cr_assert(eq(sz, sy_gset_nsources(gs), 5));
            diff_stats st = {0, 0, 0, 0, 0};
            char name[128];
            snprintf(name, sizeof name, "%s%s", sets[k].name, minimize ? " (minimized)" : "");
            differential(name, gs, base, per_set, 0, &st);
            fprintf(stderr, "%-44s %zu guards: %ld points: %ld accept, %ld reject, %ld overflow, %ld div/0\n", name,
                    sy_gset_size(gs), st.points, st.accept, st.reject, st.overflow, st.divzero);
            if (strncmp(sets[k].name, "big", 3)) cr_assert(lt(long, 0, st.accept), "%s: no point accepted", name);
            cr_assert(lt(long, 0, st.reject), "%s: no point rejected", name);
            sy_gset_free(gs);
            sy_graph_free(g);
        }
    }
}

/* A relation P + 2**63 op N (c0 = 2**63, terms of both signs): -c0 = INT64_MIN fits int64, but the
 * compiler took P - N vs -c0 as known, INT64_MIN as below int64: at s0 = INT64_MAX, s1 = -1 (P - N =
 * INT64_MIN) `s1 + 2**63 <= s0` holds and the VM said false, and `s0 - s1 != 2**63` fails and the VM
 * said true, an accept the reference rejects (found by a random differential, attack38e). */
Test(backends_bc_diff, a_constant_of_2_pow_63_beside_terms_of_both_signs, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(60))
{
    static const char *const facts[][1] = {{"Or(s1 + 2**63 <= s0, s0 <= 10*s2)"}, {"s1 - s0 + 2**63 != 0"}, {"s0 - s1 != 2**63"},
                                           {"Or(s1 + 2**63 == s0, s0 <= 10*s2)"}, {"Or(s1 + 2**63 != s0, s2 == 5)"}};
    static const int64_t pts[][3] = {{INT64_MAX, -1, -5}, {INT64_MAX - 1, -1, -5}, {INT64_MAX, 0, -5}, {-2, INT64_MAX, -5},
                                     {INT64_MAX, INT64_MIN, -5}, {0, INT64_MIN, -5}, {-1, INT64_MAX, -5}, {64, 48, 7}};
    long decided = 0;
    for (size_t k = 0; k < sizeof facts / sizeof facts[0]; k++) {
        sy_graph *g;
        sy_gset *gs = bt_gset("[64,48,7]", "[0,1,2]", facts[k], 1, NULL, 0, 0, &g);
        sy_bc_program *p;
        cr_assert(eq(int, sy_bc_compile(gs, &p), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
            int64_t v[5] = {3, 0, pts[i][0], pts[i][1], pts[i][2]};
            sy_gset_result ref = SY_GSET_RESULT_INIT;
            cr_assert(eq(int, sy_gset_check_si(gs, v, 5, &ref), SY_OK));
            if (!ref.accept && ref.failed == -1) ref.accept = 1; /* cannot exist: the guards' verdict */
            int32_t failed;
            int r = sy_bc_check(p, v, 5, &failed);
            if (r == SY_BC_ACCEPT || r == SY_BC_REJECT) {
                decided++;
                cr_assert(eq(int, r, ref.accept), "%s at (%lld, %lld, %lld): VM %d, reference %d (%s)", facts[k][0],
                          (long long)v[2], (long long)v[3], (long long)v[4], r, ref.accept, ref.message);
                if (!r) cr_assert(eq(long, (long)failed, ref.failed));
            }
        }
        sy_bc_free(p);
        sy_gset_free(gs);
        sy_graph_free(g);
    }
    cr_assert(lt(long, 20, decided), "only %ld points decided", decided);
}
