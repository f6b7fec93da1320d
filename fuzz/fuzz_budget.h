/* The context options of the algebra harnesses (fuzz_expr, fuzz_cases): the
 * default work budgets (include/symshape/ctx.h) stop one operation within
 * about a second in a release build, but ASan, UBSan and coverage make the
 * library 30-40x slower and libFuzzer's -timeout (scripts/fuzz.sh) is 10 s per
 * input, which runs dozens of operations. A valid but expensive input such as
 * (a + b + c)**7**2 took 4.7 s under ASan and was reported as a timeout at
 * load 10. With budgets 1/50 of the defaults such inputs end in SY_EQUOTA,
 * which the harnesses treat as any other error, so the budget paths are
 * fuzzed too; the oracles still check every operation that completes. The
 * replay tests (tests/algebra/test_fuzz_replay.c) run the same code. */
#ifndef SY_FUZZ_BUDGET_H
#define SY_FUZZ_BUDGET_H

#include "symshape/symshape.h"

static inline sy_status fz_ctx_new(sy_ctx **out)
{
    sy_ctx_options o;
    sy_status st = sy_ctx_options_init(&o, SY_CTX_OPTIONS_VERSION);
    if (st != SY_OK) return st;
    o.max_terms = 20000;
    o.max_steps = 400000;
    o.max_work_terms = 400000;
    o.max_work_bytes = (uint64_t)16 << 20;
    return sy_ctx_new(&o, out);
}

#endif
