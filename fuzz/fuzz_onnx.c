/* libFuzzer harness for the ONNX reader and everything behind it: load (the
 * protobuf-c decoder and our model checks), trace the main graph at the
 * default example, produce and minimize the guard set. Oracle: an error
 * carries a message (never a crash, a sanitizer report or an abort); a model
 * that traces has its example sizes accepted by its own guard set.
 * One input in 8 (by a hash of its bytes, so a run replays the same way) is
 * loaded from a file (sy_onnx_load_file: a temporary file, read with pread
 * during the load and the traces) instead of from memory: the file path has
 * code of its own (node_prime; issue 38 found UB there that the memory path
 * never reached). The replay test runs every seed through both paths.
 * Seeds: fuzz/corpus_onnx/ (small models of the ONNX op tests; replayed by
 * tests/frontends/test_fuzz_replay.c, with fuzz/regress_onnx/).
 *
 *   build-fuzz/fuzz/fuzz_onnx -max_total_time=60 /tmp/onnx-corpus fuzz/corpus_onnx
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symshape/symshape.h"

/* The tests replay the seeds through this same function under another name. */
#ifndef SY_FUZZ_ENTRY
#define SY_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif
int SY_FUZZ_ENTRY(const uint8_t *data, size_t size);

/* an error must be reported with a message */
static void fz_clean_error(sy_ctx *c)
{
    const char *m = sy_ctx_last_error_msg(c);
    if (sy_ctx_last_error(c) == SY_OK || !m || !*m) abort();
    sy_ctx_reset_error(c);
}

/* The example sizes the trace used (no examples given: a dim_value is its
 * own example, a symbolic dim SY_ONNX_DEFAULT_EXAMPLE) are accepted by the
 * produced guard set. */
static void fz_check_example(sy_ctx *c, const sy_gset *gs, const sy_onnx_model *m)
{
    size_t ni = sy_onnx_ninputs(m), ns = sy_gset_nsources(gs), nd = 0;
    for (size_t i = 0; i < ni; i++) nd += sy_onnx_input_at(m, i)->ndim;
    const char **names = calloc(ni + 1, sizeof *names);
    size_t *ranks = calloc(ni + 1, sizeof *ranks);
    const int64_t **shapes = calloc(ni + 1, sizeof *shapes);
    int64_t *dims = calloc(nd + 1, sizeof *dims);
    sy_dtype *dts = calloc(ni + 1, sizeof *dts);
    int64_t *vals = calloc(ns + 1, sizeof *vals);
    if (names && ranks && shapes && dims && dts && vals) {
        int64_t *p = dims;
        for (size_t i = 0; i < ni; i++) {
            const sy_onnx_input *in = sy_onnx_input_at(m, i);
            names[i] = in->name;
            ranks[i] = in->ndim;
            dts[i] = in->dtype;
            shapes[i] = p;
            for (size_t d = 0; d < in->ndim; d++) *p++ = in->dims[d] >= 0 ? in->dims[d] : SY_ONNX_DEFAULT_EXAMPLE;
        }
        if (sy_gset_values_from_shapes(gs, ni, names, ranks, shapes, dts, vals) == SY_OK) {
            sy_gset_result r = SY_GSET_RESULT_INIT;
            if (sy_gset_check_si(gs, vals, ns, &r) != SY_OK) abort();
            if (!r.accept) abort(); /* the traced example itself is rejected */
        } else {
            fz_clean_error(c);
        }
    }
    free(names);
    free(ranks);
    free(shapes);
    free(dims);
    free(dts);
    free(vals);
}

/* Load data from a temporary file: the path is unlinked once loaded (the
 * model keeps its descriptor for the traces' reads). 0: no file could be
 * written (the input is then not run). */
static int fz_load_file(sy_ctx *c, const uint8_t *data, size_t size, sy_onnx_model **m, sy_status *st)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/sy_fuzz_onnx_XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t k = write(fd, data + done, size - done);
        if (k <= 0) break;
        done += (size_t)k;
    }
    close(fd);
    if (done == size) *st = sy_onnx_load_file(c, path, m);
    unlink(path);
    return done == size;
}

/* One input through the whole pipeline, loaded from memory or (via_file) from a file. */
static int fz_onnx_run(const uint8_t *data, size_t size, int via_file)
{
    sy_ctx *c = NULL;
    if (sy_ctx_new(NULL, &c) != SY_OK) return 0;
    sy_onnx_model *m = NULL;
    sy_status lst = SY_OK;
    if (via_file) {
        if (!fz_load_file(c, data, size, &m, &lst)) {
            sy_ctx_free(c);
            return 0;
        }
    } else {
        lst = sy_onnx_load_mem(c, data, size, "fuzz.onnx", &m);
    }
    if (lst != SY_OK) {
        fz_clean_error(c);
        sy_ctx_free(c);
        return 0;
    }
    sy_env *env = sy_env_new(c, NULL);
    sy_onnx_trace *t = NULL;
    if (env && sy_env_trace_onnx(env, m, NULL, &t) == SY_OK) {
        size_t nin = 0;
        const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(t, &nin);
        sy_gset *gs = NULL;
        if (sy_gset_produce_inputs(env, sy_onnx_name(m), nin, ins, &gs) == SY_OK) {
            if (sy_gset_minimize(gs) == SY_OK) fz_check_example(c, gs, m);
            else fz_clean_error(c);
            sy_gset_free(gs);
        } else {
            fz_clean_error(c);
        }
        sy_onnx_trace_free(t);
    } else if (env) {
        fz_clean_error(c);
    }
    sy_env_free(env);
    sy_onnx_free(m);
    sy_ctx_free(c);
    return 0;
}

int SY_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
    return fz_onnx_run(data, size, (h >> 13) % 8 == 0);
}
