/* The ONNX fuzzing corpus (fuzz/corpus_onnx) and its regression corpus,
 * replayed through the harness itself (load, trace, produce, minimize; errors
 * carry a message, the example is accepted by its own guard set). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "fuzz_replay.h"

#define SY_FUZZ_ENTRY fuzz_onnx_entry
#include "../../fuzz/fuzz_onnx.c"

Test(fuzz_replay, onnx_seeds_and_regressions)
{
    size_t n = fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/corpus_onnx", fuzz_onnx_entry);
    cr_assert(gt(sz, n, (size_t)50), "only %zu seeds", n);
    fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/regress_onnx", fuzz_onnx_entry);
}
