/* A library consumer: uses only the installed public API of symshape.
 * Builds a shape environment, two fake tensors from example sizes, runs a few
 * ops (matmul, cat, view), produces and minimizes the guard set, renders it
 * with the C backend and checks other sizes with the reference checker.
 * scripts/consumer-check.sh compares its output with consumer/expected.txt.
 *
 *   cc consumer.c $(pkg-config --cflags --libs symshape) -o consumer
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symshape/symshape.h>

static int fail(sy_ctx *ctx, const char *what)
{
    fprintf(stderr, "consumer: %s: %s\n", what, sy_ctx_last_error_msg(ctx));
    return 1;
}

int main(void)
{
    if (sy_version_number() != SY_VERSION_NUMBER) {
        fprintf(stderr, "consumer: header/library version mismatch\n");
        return 1;
    }
    sy_ctx *ctx = NULL;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) return 1;
    sy_env *env = sy_env_new(ctx, NULL);
    if (!env) return fail(ctx, "env");

    /* a: (batch, 64) and b: (64, 32), batch dynamic (example 8), 64/32 static */
    const sy_tensor *a = sy_env_input(env, "a", SY_DT_FLOAT32, 2, (int64_t[]){8, 64},
                                      (sy_dim_policy[]){SY_DIM_DUCK, SY_DIM_STATIC});
    const sy_tensor *b = sy_env_input(env, "b", SY_DT_FLOAT32, 2, (int64_t[]){64, 32},
                                      (sy_dim_policy[]){SY_DIM_STATIC, SY_DIM_STATIC});
    if (!a || !b) return fail(ctx, "inputs");

    /* the typed calls take no provenance: name the node of the guards they record */
    sy_env_set_provenance(env, &(sy_provenance){"fc", NULL, NULL});
    const sy_tensor *c = sy_op_matmul(env, a, b);                 /* (s0, 32) */
    sy_env_set_provenance(env, &(sy_provenance){"concat", NULL, NULL});
    const sy_tensor *d = c ? sy_op_cat(env, 2, (const sy_tensor *[]){c, c}, 0) : NULL; /* (2*s0, 32) */
    sy_env_set_provenance(env, NULL);
    const sy_tensor *v = d ? sy_op_view(env, d, 2, (const sy_expr *[]){sy_expr_int_si(ctx, -1), sy_expr_int_si(ctx, 16)})
                           : NULL; /* (4*s0, 16) */
    if (!v) return fail(ctx, "ops");
    char *s0 = sy_expr_print(ctx, v->sizes[0], SY_PRINT_CANONICAL);
    printf("view output: (%s, 16)\n", s0);
    sy_str_free(ctx, s0);

    sy_gset *gs = NULL;
    if (sy_gset_produce(env, NULL, &gs) != SY_OK || sy_gset_minimize(gs) != SY_OK) return fail(ctx, "guards");
    printf("%zu guards:\n", sy_gset_size(gs));
    for (size_t i = 0; i < sy_gset_size(gs); i++) printf("  %s\n", sy_gset_at(gs, i)->display);

    unsigned char *code = NULL;
    size_t len = 0;
    sy_backend_options bo = SY_BACKEND_OPTIONS_INIT;
    bo.prefix = "consumer_guards";
    if (sy_backend_render("c", gs, &bo, &code, &len) != SY_OK) return fail(ctx, "C backend");
    printf("C backend: %s, exports %s_check\n", len && strstr((const char *)code, "consumer_guards_check(") ? "C source" : "no C source", bo.prefix);
    sy_mem_free(ctx, code);

    /* check other sizes: the set's sources (a.dim(), a.dtype, a.size()[1], ...)
     * are filled from each input's shape and dtype by sy_gset_values_from_shapes */
    static const int64_t points[3][2] = {{16, 64}, {1, 64}, {16, 63}};
    static const int64_t bshape[2] = {64, 32};
    int64_t *vals = calloc(sy_gset_nsources(gs) ? sy_gset_nsources(gs) : 1, sizeof *vals);
    if (!vals) return fail(ctx, "out of memory");
    for (int p = 0; p < 3; p++) {
        const char *names[2] = {"a", "b"};
        const size_t ranks[2] = {2, 2};
        const int64_t *shapes[2] = {points[p], bshape};
        const sy_dtype dtypes[2] = {SY_DT_FLOAT32, SY_DT_FLOAT32};
        sy_gset_result r = SY_GSET_RESULT_INIT;
        if (sy_gset_values_from_shapes(gs, 2, names, ranks, shapes, dtypes, vals) != SY_OK ||
            sy_gset_check_si(gs, vals, sy_gset_nsources(gs), &r) != SY_OK) {
            free(vals);
            return fail(ctx, "check");
        }
        printf("a=(%lld, %lld): %s%s\n", (long long)points[p][0], (long long)points[p][1], r.accept ? "accept" : "reject: ",
               r.accept ? "" : r.message);
    }
    free(vals);
    sy_gset_free(gs);
    sy_env_free(env);
    sy_ctx_free(ctx);
    return 0;
}
