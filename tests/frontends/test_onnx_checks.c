/* Checks of the ONNX frontend on small models written by onnx.helper
 * (tests/frontends/data/, python3-onnx 1.23): issue 38's int64 dims, SSA and
 * user dim names in messages. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>

#include "symshape/symshape.h"

#define DATA SY_TESTS_DIR "/frontends/data/"

/* trace DATA/name (examples: input name and one dim each, NULL-terminated): the status; *msg the message */
static sy_status trace(const char *name, const char *const *ex_in, const int64_t *ex_dim, char *msg, size_t cap)
{
    sy_ctx *ctx = NULL;
    cr_assert(eq(int, sy_ctx_new(NULL, &ctx), SY_OK));
    char path[512];
    snprintf(path, sizeof path, DATA "%s.onnx", name);
    sy_onnx_model *m = NULL;
    sy_status st = sy_onnx_load_file(ctx, path, &m);
    cr_assert(eq(int, st, SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_onnx_example ex[4];
    size_t nex = 0;
    for (; ex_in && ex_in[nex]; nex++) ex[nex] = (sy_onnx_example){ex_in[nex], 1, &ex_dim[nex]};
    sy_onnx_trace_options o = SY_ONNX_TRACE_OPTIONS_INIT;
    o.nexamples = nex;
    o.examples = ex;
    sy_onnx_trace *t = NULL;
    st = sy_env_trace_onnx(env, m, &o, &t);
    snprintf(msg, cap, "%s", st ? sy_ctx_last_error_msg(ctx) : "");
    if (!st) {
        /* the last value's dims, printed with the user's names */
        const sy_tensor *y = sy_onnx_trace_value(t, sy_onnx_trace_output(t, 0));
        size_t n = 0;
        for (size_t i = 0; i < y->ndim && n < cap; i++) {
            char *s = sy_expr_print(ctx, sy_onnx_trace_display(t, y->sizes[i]), SY_PRINT_CANONICAL);
            n += (size_t)snprintf(msg + n, cap - n, "%s%s", i ? ", " : "", s);
            sy_str_free(ctx, s);
        }
    }
    sy_onnx_trace_free(t);
    sy_env_free(env);
    sy_onnx_free(m);
    sy_ctx_free(ctx);
    return st;
}

Test(onnx_checks, flatten_past_int64_at_every_size_is_rejected)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    char msg[600];
    /* [n, 2**62, 4], axis 0: [1, 2**64*n] (was accepted, exit 0, no guard) */
    cr_assert(eq(int, trace("flatten_past_int64", NULL, NULL, msg, sizeof msg), SY_EOVERFLOW));
    cr_assert(eq(str, msg, "node 'flat' (Flatten): output dim 1 = 18446744073709551616*n does not fit int64 (at any size)"));
    /* a shape-tensor element: Shape(x)[0] * 2**62, n >= 2 (was accepted) */
    cr_assert(eq(int, trace("element_past_int64", NULL, NULL, msg, sizeof msg), SY_EOVERFLOW));
    cr_assert(eq(str, msg, "node 'mul' (Mul): element 0 = 4611686018427387904*n does not fit int64 (at any size)"));
    /* [n, 2**61, 2], axis 1: [n, 2**62] fits; the default example is n = 1, the largest whose
     * numel fits int64 (at 224 the input could not exist; fix38), so the default policy
     * specializes it */
    cr_assert(eq(int, trace("flatten_fits_int64", NULL, NULL, msg, sizeof msg), SY_OK), "%s", msg);
    cr_assert(eq(str, msg, "1, 4611686018427387904"));
}

/* kernel 2**40 and dilation 2**40 (each within the attributes' 2**40 bound): (k - 1)*dil is past
 * int64. ConvTranspose computed it in int64: signed overflow (UBSan) and the output [1, 1, L];
 * Conv's message did the same (attack38e) */
Test(onnx_checks, window_extent_past_int64_is_exact)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    char msg[600];
    cr_assert(eq(int, trace("convT_dil_past_int64", NULL, NULL, msg, sizeof msg), SY_EOVERFLOW), "%s", msg);
    cr_assert(eq(str, msg, "node 'ct' (ConvTranspose): output dim 2 = L + 1208925819613529663078400 does not fit int64 (at any size)"));
    cr_assert(ne(int, trace("conv_dil_past_int64", NULL, NULL, msg, sizeof msg), SY_OK));
    cr_assert(strstr(msg, "node 'cv' (Conv): Conv: the window (extent 1208925819613529663078401) must fit the padded input") != NULL,
              "%s", msg);
}

/* the related-example retry (sy_onnx_trace_relate) on it: the relation 2^80 + 1 <= L holds at no
 * int64 size, so the error says so and suggests no example (issue 38: it suggested --example) */
Test(onnx_checks, an_unsatisfiable_relation_suggests_no_example)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    sy_ctx *ctx = NULL;
    cr_assert(eq(int, sy_ctx_new(NULL, &ctx), SY_OK));
    sy_onnx_model *m = NULL;
    cr_assert(eq(int, sy_onnx_load_file(ctx, DATA "conv_dil_past_int64.onnx", &m), SY_OK));
    sy_env *env = NULL;
    sy_onnx_trace *t = NULL;
    cr_assert(eq(int, sy_onnx_trace_relate(ctx, m, NULL, NULL, &env, &t), SY_EINVAL));
    const char *msg = sy_ctx_last_error_msg(ctx);
    cr_assert(strstr(msg, "; the model needs 1208925819613529663078401 <= L, which no size satisfies (every dim is an int64 "
                          "within its range): no input size can run the model") != NULL, "%s", msg);
    cr_assert(strstr(msg, "--example") == NULL, "%s", msg);
    cr_assert(env == NULL && t == NULL);
    sy_onnx_free(m);
    sy_ctx_free(ctx);
}

/* the retry when every dim has the user's example: the message named the default example, "(224 for
 * a dim without one)", though no dim took it (issue 38). With one dim left to the default, the
 * retry traces at the related example instead. */
Test(onnx_checks, the_retry_names_the_default_only_where_a_dim_took_it)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    sy_ctx *ctx = NULL;
    cr_assert(eq(int, sy_ctx_new(NULL, &ctx), SY_OK));
    sy_onnx_model *m = NULL;
    cr_assert(eq(int, sy_onnx_load_file(ctx, DATA "bcast_unnamed.onnx", &m), SY_OK));
    static const int64_t five = 5, seven = 7;
    sy_onnx_example ex[2] = {{"x", 1, &five}, {"z", 1, &seven}};
    sy_onnx_trace_options o = SY_ONNX_TRACE_OPTIONS_INIT;
    o.nexamples = 2;
    o.examples = ex;
    sy_env *env = NULL;
    sy_onnx_trace *t = NULL;
    cr_assert(eq(int, sy_onnx_trace_relate(ctx, m, NULL, &o, &env, &t), SY_EINVAL));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx),
                 "node 'add' (Add): cannot broadcast dims z_d0 and x_d0; the model needs x_d0 == z_d0, which the "
                 "example does not satisfy and no example symshape tried did (at most 8 retraces): give example sizes "
                 "that satisfy it (--example) or make those dims static"));
    o.nexamples = 1;
    cr_assert(eq(int, sy_onnx_trace_relate(ctx, m, NULL, &o, &env, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_tensor *y = sy_onnx_trace_value(t, sy_onnx_trace_output(t, 0));
    char *s = sy_expr_print(ctx, sy_onnx_trace_display(t, y->sizes[0]), SY_PRINT_CANONICAL);
    cr_assert(eq(str, s, "x_d0"));
    sy_str_free(ctx, s);
    sy_onnx_trace_free(t);
    sy_env_free(env);
    sy_onnx_free(m);
    sy_ctx_free(ctx);
}

/* an initializer of shape [3] with 2 int64_data values: onnxruntime refuses the model ("data field
 * count (2) does not match expected count from shape (3)"); it was read as values unknown, the
 * Reshape's output unbacked, and every size accepted (attack38e) */
Test(onnx_checks, an_initializer_with_too_few_values_is_refused)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    char msg[600];
    cr_assert(eq(int, trace("init_short_data", NULL, NULL, msg, sizeof msg), SY_EFORMAT), "%s", msg);
    cr_assert(strstr(msg, "initializer 's': its data field holds 2 values, expected 3 (the elements of its shape)") != NULL, "%s",
              msg);
}

Test(onnx_checks, a_second_definition_of_a_value_is_rejected_with_names)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    char msg[600];
    cr_assert(eq(int, trace("ssa_two_writers", NULL, NULL, msg, sizeof msg), SY_EINVAL));
    cr_assert(eq(str, msg, "node 'second' (Neg): output 0 'y' is already defined, as the output of an earlier node "
                           "(or of this one): a value has one definition (SSA)"));
    cr_assert(eq(int, trace("ssa_output_is_input", NULL, NULL, msg, sizeof msg), SY_EINVAL));
    cr_assert(eq(str, msg, "node 'relu' (Relu): output 0 'x' is already defined, as a graph input: a value has one "
                           "definition (SSA)"));
}

Test(onnx_checks, broadcast_error_names_the_users_dims)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    char msg[600];
    static const char *const in[] = {"x", "z", NULL};
    static const int64_t dims[] = {5, 7};
    cr_assert(eq(int, trace("bcast_unnamed", in, dims, msg, sizeof msg), SY_EINVAL));
    cr_assert(eq(str, msg, "node 'add' (Add): cannot broadcast dims z_d0 and x_d0"));
}

/* Issue 38: an output dim past int64 only at some sizes. Every input's numel
 * is within int64 (the input exists), so a dim that fits whenever the inputs
 * do gets no guard, one that can pass int64 although they fit gets
 * `dim <= INT64_MAX`: the outer product of u [n] and v [m], flattened, is
 * n*m (past int64 at n = m = 2**32); Pad of x [n, w] by 2 + 2 gives w + 4,
 * which fits when n >= 1 (w <= INT64_MAX / n). The same rule as the torch
 * frontend's (shapeenv_ops.int64_guard_only_where_an_input_fits). */
static size_t trace_guards(const char *name, char *last, size_t cap)
{
    sy_ctx *ctx = NULL;
    cr_assert(eq(int, sy_ctx_new(NULL, &ctx), SY_OK));
    char path[512];
    snprintf(path, sizeof path, DATA "%s.onnx", name);
    sy_onnx_model *m = NULL;
    cr_assert(eq(int, sy_onnx_load_file(ctx, path, &m), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_onnx_trace_options o = SY_ONNX_TRACE_OPTIONS_INIT;
    sy_onnx_trace *t = NULL;
    cr_assert(eq(int, sy_env_trace_onnx(env, m, &o, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    size_t n = sy_env_nguards(env);
    last[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char *s = sy_expr_print(ctx, sy_onnx_trace_display(t, sy_env_guard(env, i)->expr), SY_PRINT_CANONICAL);
        if (strstr(s, "9223372036854775807")) snprintf(last, cap, "%s", s);
        sy_str_free(ctx, s);
    }
    sy_onnx_trace_free(t);
    sy_env_free(env);
    sy_onnx_free(m);
    sy_ctx_free(ctx);
    return n;
}

Test(onnx_checks, int64_guard_only_where_an_input_fits)
{
    if (!sy_onnx_available()) cr_skip_test("built without ONNX");
    char g[300];
    trace_guards("outer_int64", g, sizeof g);
    cr_assert(eq(str, g, "m*n <= 9223372036854775807"));
    trace_guards("pad_int64", g, sizeof g);
    cr_assert(eq(str, g, ""));
}
