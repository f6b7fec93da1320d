/* libFuzzer harness for the graph JSON loader and everything behind it: load,
 * trace (default policy), produce and minimize the guard set, render every
 * backend. Oracle: a model that traces must have its example sizes accepted
 * by its own guard set (sy_gset_check_si), and the real values at the example
 * (get_real_value) must equal the traced outputs' hints. Errors with a message
 * are fine; a crash, a sanitizer report or an abort is not.
 * Seeds: fuzz/corpus_graph/ (small graphs of every node kind; replayed by
 * tests/shapeenv/test_fuzz_replay.c, with fuzz/regress_graph/).
 *
 *   build-fuzz/fuzz/fuzz_graph -max_total_time=60 /tmp/graph-corpus fuzz/corpus_graph
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symshape/symshape.h"

/* The tests replay the seeds through this same function under another name. */
#ifndef SY_FUZZ_ENTRY
#define SY_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif
int SY_FUZZ_ENTRY(const uint8_t *data, size_t size);

static void fz_check_example(sy_ctx *c, sy_env *env, const sy_graph *g, const sy_gset *gs, const sy_trace *t)
{
    size_t ni = sy_graph_ninputs(g), ns = sy_gset_nsources(gs);
    const char **names = calloc(ni + 1, sizeof *names);
    size_t *ranks = calloc(ni + 1, sizeof *ranks);
    const int64_t **shapes = calloc(ni + 1, sizeof *shapes);
    sy_dtype *dts = calloc(ni + 1, sizeof *dts);
    int64_t *vals = calloc(ns + 1, sizeof *vals);
    if (names && ranks && shapes && dts && vals) {
        for (size_t i = 0; i < ni; i++) {
            const sy_graph_input *in = sy_graph_input_at(g, i);
            names[i] = in->name;
            ranks[i] = in->ndim;
            shapes[i] = in->shape;
            dts[i] = in->dtype;
        }
        if (sy_gset_values_from_shapes(gs, ni, names, ranks, shapes, dts, vals) == SY_OK) {
            sy_gset_result r = SY_GSET_RESULT_INIT;
            if (sy_gset_check_si(gs, vals, ns, &r) != SY_OK) abort();
            if (!r.accept) abort(); /* the traced example itself is rejected */
        }
        /* real values at the example = the traced outputs' hints */
        sy_realvals *rv = sy_realvals_new(c, g);
        int bound = rv != NULL;
        for (size_t i = 0; bound && i < ni; i++)
            bound = sy_realvals_bind(rv, names[i], ranks[i], shapes[i]) == SY_OK;
        for (size_t o = 0; bound && o < sy_trace_noutputs(t) && o < sy_realvals_noutputs(rv); o++) {
            const sy_value *sym = sy_trace_output(t, o), *real = NULL;
            if (sy_realvals_output(rv, o, &real) != SY_OK || !real) {
                sy_ctx_reset_error(c);
                abort(); /* the example ran symbolically, so it must run concretely */
            }
            if (sym->kind == SY_V_TENSOR && real->kind == SY_V_TENSOR) {
                if (sym->u.t->ndim != real->u.t->ndim) abort();
                for (size_t k = 0; k < sym->u.t->ndim; k++) {
                    const sy_expr *h = NULL;
                    if (sy_env_hint(env, sym->u.t->sizes[k], &h) != SY_OK) {
                        sy_ctx_reset_error(c); /* unbacked: no hint */
                        continue;
                    }
                    if (h != real->u.t->sizes[k]) abort();
                }
            }
        }
        sy_realvals_free(rv);
    }
    free(names);
    free(ranks);
    free(shapes);
    free(dts);
    free(vals);
}

int SY_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    if (size > 1 << 16) return 0;
    sy_ctx *c = NULL;
    if (sy_ctx_new(NULL, &c) != SY_OK) return 0;
    sy_graph *g = NULL;
    if (sy_graph_load_text(c, (const char *)data, size, "fuzz.json", &g) == SY_OK) {
        sy_env *env = sy_env_new(c, NULL);
        sy_trace *t = NULL;
        if (env && sy_env_trace(env, g, 0, NULL, &t) == SY_OK) {
            sy_gset *gs = NULL;
            if (sy_gset_produce(env, g, &gs) == SY_OK && sy_gset_minimize(gs) == SY_OK) {
                fz_check_example(c, env, g, gs, t);
                for (size_t b = 0; b < sy_backend_count(); b++) {
                    unsigned char *out = NULL;
                    size_t len = 0;
                    sy_backend_options bo = SY_BACKEND_OPTIONS_INIT;
                    bo.env = env;
                    bo.graph = g;
                    if (sy_backend_render(sy_backend_at(b)->name, gs, &bo, &out, &len) == SY_OK) sy_mem_free(c, out);
                    else sy_ctx_reset_error(c);
                }
            }
            sy_gset_free(gs);
        }
        sy_trace_free(t);
        sy_env_free(env);
    }
    sy_graph_free(g);
    sy_ctx_free(c);
    return 0;
}
