/* A library consumer: uses only the installed public API of symshape.
 * Builds a shape environment, two fake tensors from example sizes, runs a few
 * ops (matmul, cat, view), produces and minimizes the guard set, renders it
 * with the C backend and checks other sizes with the reference checker.
 *
 *   cc consumer.c $(pkg-config --cflags --libs symshape) -o consumer
 */
#include <stdio.h>
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

    const sy_tensor *c = sy_op_matmul(env, a, b);                 /* (s0, 32) */
    const sy_tensor *d = c ? sy_op_cat(env, 2, (const sy_tensor *[]){c, c}, 0) : NULL; /* (2*s0, 32) */
    const sy_tensor *v = d ? sy_op_view(env, d, 2, (const sy_expr *[]){sy_expr_int_si(ctx, -1), sy_expr_int_si(ctx, 16)})
                           : NULL; /* (4*s0, 16) */
    if (!v) return fail(ctx, "ops");
    char *s0 = sy_expr_print(ctx, v->sizes[0], SY_PRINT_CANONICAL);
    printf("view output: (%s, 16)\n", s0);
    sy_str_free(ctx, s0);

    sy_gset *gs = NULL;
    if (sy_gset_produce(env, NULL, &gs) != SY_OK || sy_gset_minimize(gs) != SY_OK) return fail(ctx, "guards");
    printf("%zu guards:\n", sy_gset_size(gs));
    for (size_t i = 0; i < sy_gset_size(gs); i++) printf("  %s\n", sy_gset_at(gs, i)->text);

    unsigned char *code = NULL;
    size_t len = 0;
    sy_backend_options bo = SY_BACKEND_OPTIONS_INIT;
    bo.prefix = "consumer_guards";
    if (sy_backend_render("c", gs, &bo, &code, &len) != SY_OK) return fail(ctx, "C backend");
    printf("C backend: %zu bytes of C, exports %s_check\n", len, bo.prefix);
    sy_mem_free(ctx, code);

    /* check other sizes: sources are a.size()[0], a.size()[1], b.size()[0], b.size()[1] */
    static const int64_t points[3][4] = {{16, 64, 64, 32}, {1, 64, 64, 32}, {16, 63, 64, 32}};
    for (int p = 0; p < 3; p++) {
        sy_gset_result r;
        if (sy_gset_check_si(gs, points[p], sy_gset_nsources(gs), &r) != SY_OK) return fail(ctx, "check");
        printf("a=(%lld, %lld): %s%s%s\n", (long long)points[p][0], (long long)points[p][1], r.accept ? "accept" : "reject: ",
               r.accept ? "" : r.message, "");
    }
    sy_gset_free(gs);
    sy_env_free(env);
    sy_ctx_free(ctx);
    return 0;
}
