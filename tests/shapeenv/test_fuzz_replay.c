/* The graph fuzzing corpus (fuzz/corpus_graph) and its regression corpus,
 * replayed through the harness itself (load, trace, produce, minimize, every
 * backend; the example must be accepted and its real values match). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "fuzz_replay.h"

#define SY_FUZZ_ENTRY fuzz_graph_entry
#include "../../fuzz/fuzz_graph.c"

Test(fuzz_replay, graph_seeds_and_regressions)
{
    size_t n = fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/corpus_graph", fuzz_graph_entry);
    cr_assert(gt(sz, n, (size_t)10), "only %zu seeds", n);
    fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/regress_graph", fuzz_graph_entry);
}
