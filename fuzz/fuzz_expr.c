/* libFuzzer harness for the expression parser and the algebra behind it, with
 * an evaluation oracle. The input is expression text (a relation or an integer
 * expression). Whatever parses is
 *  - simplified (no facts and under 0 <= every symbol <= 40): the result must
 *    equal the input at 24 sampled points where the input is defined;
 *  - if boolean, decided under the same facts: a true/false answer must
 *    agree with evaluation at every sampled point;
 *  - if an integer, bounded: every sampled value lies in the range.
 * Any disagreement aborts (a finding). Errors (parse, budget, division by
 * zero) are fine; a crash, a sanitizer report or an abort is not.
 * Seeds: fuzz/corpus_expr/ (replayed by tests/algebra/test_fuzz_replay.c,
 * with fuzz/regress_expr/).
 *
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DSY_BUILD_FUZZERS=ON
 *   cmake --build build-fuzz --target fuzz_expr
 *   build-fuzz/fuzz/fuzz_expr -max_total_time=60 /tmp/expr-corpus fuzz/corpus_expr
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symshape/symshape.h"
#include "fuzz_budget.h"

/* The tests replay the seeds through this same function under another name. */
#ifndef SY_FUZZ_ENTRY
#define SY_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif
int SY_FUZZ_ENTRY(const uint8_t *data, size_t size);

static uint64_t fz_rng;
static uint64_t fz_next(void)
{
    fz_rng ^= fz_rng << 13;
    fz_rng ^= fz_rng >> 7;
    fz_rng ^= fz_rng << 17;
    return fz_rng;
}

/* e at the point: 1 ok (*out set), 0 undefined (division by zero, overflow of
 * nothing: evaluation is exact) */
static int fz_eval(sy_ctx *c, const sy_expr *e, size_t n, const sy_expr *const *syms, const sy_expr *const *vals,
                   const sy_expr **out)
{
    if (sy_expr_eval(c, e, n, syms, vals, out) != SY_OK) {
        sy_ctx_reset_error(c);
        return 0;
    }
    return 1;
}

static void fz_check(sy_ctx *c, const sy_expr *e, sy_facts *f, int ranged)
{
    const sy_expr **syms = NULL;
    size_t n = 0;
    if (sy_expr_free_symbols(c, e, &syms, &n) != SY_OK) return;
    if (n > 16) {
        sy_mem_free(c, (void *)syms);
        return;
    }
    const sy_expr *s = sy_simplify(f, e);
    if (!s) sy_ctx_reset_error(c);
    sy_truth t = SY_TRUTH_UNKNOWN;
    int is_bool = sy_expr_is_bool(e);
    if (is_bool && sy_decide(f, e, &t) != SY_OK) {
        sy_ctx_reset_error(c);
        t = SY_TRUTH_UNKNOWN;
    }
    const sy_expr *lo = NULL, *hi = NULL;
    int bounded = 0;
    if (!is_bool) {
        bounded = sy_bound(f, e, &lo, &hi) == SY_OK;
        if (!bounded) sy_ctx_reset_error(c);
    }
    const sy_expr *vals[16];
    for (int k = 0; k < 24; k++) {
        for (size_t i = 0; i < n; i++) {
            int64_t v = ranged ? (int64_t)(fz_next() % 41) : (int64_t)(fz_next() % 81) - 40;
            if (k == 0) v = ranged ? 0 : -1;
            vals[i] = sy_expr_int_si(c, v);
        }
        const sy_expr *ve, *vs;
        if (!fz_eval(c, e, n, syms, vals, &ve)) continue; /* undefined there: nothing is claimed */
        if (s) {
            if (!fz_eval(c, s, n, syms, vals, &vs)) abort(); /* the rewrite is undefined where the input is not */
            if (ve != vs) abort();                           /* hash-consed: equal values are one node */
        }
        if (t != SY_TRUTH_UNKNOWN && ve != sy_expr_bool(c, t == SY_TRUTH_TRUE)) abort();
        /* constants fold: lo <= v is the node true or false */
        if (bounded && lo && sy_expr_le(c, lo, ve) != sy_expr_true(c)) abort();
        if (bounded && hi && sy_expr_le(c, ve, hi) != sy_expr_true(c)) abort();
    }
    sy_mem_free(c, (void *)syms);
}

int SY_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    sy_ctx *c = NULL;
    if (fz_ctx_new(&c) != SY_OK) return 0;
    const sy_expr *e = NULL;
    fz_rng = 0x9e3779b97f4a7c15ULL ^ size;
    for (size_t i = 0; i < size; i++) fz_rng = (fz_rng ^ data[i]) * 0x100000001b3ULL;
    if (!fz_rng) fz_rng = 1;
    if (sy_expr_parse(c, (const char *)data, size, &e) == SY_OK && e) {
        sy_facts *f = sy_facts_new(c);
        if (f) {
            fz_check(c, e, f, 0);
            sy_facts_free(f);
        }
        /* again with every symbol in [0, 40] */
        f = sy_facts_new(c);
        const sy_expr **syms = NULL;
        size_t n = 0;
        if (f && sy_expr_free_symbols(c, e, &syms, &n) == SY_OK) {
            for (size_t i = 0; i < n; i++) sy_facts_set_range(f, syms[i], sy_expr_int_si(c, 0), sy_expr_int_si(c, 40));
            sy_mem_free(c, (void *)syms);
            fz_check(c, e, f, 1);
        }
        sy_facts_free(f);
    }
    sy_ctx_free(c);
    return 0;
}
