/* The ONNX fuzzing corpus (fuzz/corpus_onnx) and its regression corpus,
 * replayed through the harness itself (load, trace, produce, minimize; errors
 * carry a message, the example is accepted by its own guard set). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "fuzz_replay.h"

#define SY_FUZZ_ENTRY fuzz_onnx_entry
#include "../../fuzz/fuzz_onnx.c"

static int from_mem(const uint8_t *d, size_t n) { return fz_onnx_run(d, n, 0); }
static int from_file(const uint8_t *d, size_t n) { return fz_onnx_run(d, n, 1); }

/* every seed and regression through both of the reader's paths: the file
 * path (sy_onnx_load_file, pread) has code the memory path never runs; issue
 * 38: crash-b327... was UB (memcpy to NULL) only from a file */
Test(fuzz_replay, onnx_seeds_and_regressions)
{
    size_t n = fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/corpus_onnx", from_mem);
    cr_assert(gt(sz, n, (size_t)50), "only %zu seeds", n);
    cr_assert(gt(sz, fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/regress_onnx", from_mem), (size_t)0));
}

Test(fuzz_replay, onnx_seeds_and_regressions_from_files)
{
    size_t n = fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/corpus_onnx", from_file);
    cr_assert(gt(sz, n, (size_t)50), "only %zu seeds", n);
    cr_assert(gt(sz, fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/regress_onnx", from_file), (size_t)0));
}
