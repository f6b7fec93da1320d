/* Issue 14, huge expressions in the backends: hash-consing makes a guard a
 * DAG whose printed tree can be exponentially larger (the nested FloorDiv
 * chain). Every backend's output must be linear in the DAG: the C backend
 * and the bytecode compute each shared subterm once, smtlib binds each with
 * one define-fun, and guard texts (report, markdown, json, comments) past
 * a bound of tree nodes are the let-form of sy_expr_print_bounded.
 * The exact sizes are pinned for the 69-node graph and for the chain as a
 * user fact at 6 and 24 layers (4x the layers: 3-5x the bytes). */
#include "bc_test_util.h"

static const char *const backends[] = {"report", "markdown", "json", "c", "smtlib", "bytecode"};
#define NB (sizeof backends / sizeof backends[0])

static void render_all(const sy_gset *gs, size_t sizes[NB])
{
    for (size_t b = 0; b < NB; b++) {
        unsigned char *data;
        size_t len;
        cr_assert(eq(int, sy_backend_render(backends[b], gs, NULL, &data, &len), SY_OK), "%s: %s", backends[b],
                  sy_ctx_last_error_msg(ctx));
        sizes[b] = len;
        if (b != NB - 1) cr_assert(eq(sz, strlen((char *)data), len), "%s", backends[b]);
        sy_mem_free(ctx, data);
    }
}

Test(backends_huge, floordiv_chain_69_every_backend_is_linear_in_the_dag, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(120))
{
    sy_graph *g;
    sy_gset *gs = bt_chain69_gset(&g);
    size_t sizes[NB];
    render_all(gs, sizes);
    /* before: report, markdown, json the same (bounded texts); c 1.3 GB
     * before the shared temporaries; bytecode SY_EUNSUPPORTED (more than
     * 2^24 instructions); smtlib a script z3 rejected (let-form lines
     * outside comments) */
    const size_t want[NB] = {9779, 8414, 8532, 29531, 6766, 3604}; /* issue 38: with the chain product's int64 guard */
    for (size_t b = 0; b < NB; b++) cr_assert(eq(sz, sizes[b], want[b]), "%s", backends[b]);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(backends_huge, chain_as_a_guard_every_backend_is_linear_in_the_dag, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(120))
{
    size_t s6[NB], s24[NB];
    sy_graph *g;
    sy_gset *gs = bt_chain_gset(6, &g);
    render_all(gs, s6);
    sy_gset_free(gs);
    sy_graph_free(g);
    gs = bt_chain_gset(24, &g);
    render_all(gs, s24);
    sy_gset_free(gs);
    sy_graph_free(g);
    const size_t w6[NB] = {4327, 3957, 3765, 16565, 4566, 2072};
    const size_t w24[NB] = {12895, 10509, 10461, 79861, 14772, 7724};
    for (size_t b = 0; b < NB; b++) {
        cr_assert(eq(sz, s6[b], w6[b]), "%s", backends[b]);
        cr_assert(eq(sz, s24[b], w24[b]), "%s", backends[b]);
    }
}
