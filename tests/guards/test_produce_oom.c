/* Guard production under allocation failure: every allocation of
 * sy_gset_produce failing in turn gives SY_ENOMEM, leaks nothing but interned
 * nodes, and leaves the env usable, so that the set produced once memory
 * suffices is the one produced without failures (its JSON, byte for byte).
 * (Written for the split of produce() into steps, issue 34.) */
#include "common.h"

static void produce_at_every_allocation(const char *path)
{
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *tr;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &tr), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *want_gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &want_gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    char *want = sy_gset_to_json(want_gs);
    cr_assert(want != NULL);
    sy_gset_free(want_gs);
    int ok = 0;
    long n;
    for (n = 0; n < 1000000 && !ok; n++) {
        long live = g_alloc.live;
        g_alloc.count = 0;
        g_alloc.fail_at = n;
        sy_gset *gs = (sy_gset *)1;
        sy_status st = sy_gset_produce(env, g, &gs);
        g_alloc.fail_at = -1;
        if (st == SY_OK) {
            char *got = sy_gset_to_json(gs);
            cr_assert(got != NULL);
            cr_assert(eq(str, got, want), "%s: the set differs after %ld failed allocations", path, n);
            sy_str_free(ctx, got);
            sy_gset_free(gs);
            ok = 1;
        } else {
            cr_assert(eq(int, st, SY_ENOMEM), "%s, allocation %ld: status %d: %s", path, n, st, sy_ctx_last_error_msg(ctx));
            cr_assert(gs == NULL, "%s, allocation %ld: *out not NULL on failure", path, n);
            /* the reference production interned every node, so a failed one keeps nothing */
            cr_assert(eq(long, g_alloc.live - live, 0), "%s, allocation %ld: %ld blocks more", path, n, g_alloc.live - live);
            sy_ctx_reset_error(ctx);
        }
    }
    cr_assert(ok, "%s: no success after %ld allocations", path, n);
    cr_assert(gt(long, n, 10), "%s: production made only %ld allocations (the loop tested nothing)", path, n);
    sy_str_free(ctx, want);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
}

Test(guards_produce, out_of_memory_at_every_allocation, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(300))
{
    produce_at_every_allocation(SY_TESTS_DIR "/../examples/vit_b_16.json");
    produce_at_every_allocation(SY_TESTS_DIR "/../examples/shufflenet_v2_x1_0.json");
}
