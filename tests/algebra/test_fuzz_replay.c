/* The expression and .cases fuzzing corpora (fuzz/corpus_expr, fuzz/corpus_cases)
 * and their regression corpora, replayed through the harnesses themselves. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "fuzz_replay.h"

#define SY_FUZZ_ENTRY fuzz_expr_entry
#include "../../fuzz/fuzz_expr.c"
#undef SY_FUZZ_ENTRY
#define SY_FUZZ_ENTRY fuzz_cases_entry
#include "../../fuzz/fuzz_cases.c"
#undef SY_FUZZ_ENTRY

Test(fuzz_replay, expression_seeds_and_regressions)
{
    size_t n = fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/corpus_expr", fuzz_expr_entry);
    cr_assert(gt(sz, n, (size_t)100), "only %zu seeds", n);
    fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/regress_expr", fuzz_expr_entry);
}

Test(fuzz_replay, cases_seeds_and_regressions)
{
    size_t n = fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/corpus_cases", fuzz_cases_entry);
    cr_assert(gt(sz, n, (size_t)5), "only %zu seeds", n);
    fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/regress_cases", fuzz_cases_entry);
}
