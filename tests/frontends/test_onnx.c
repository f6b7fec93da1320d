/* The ONNX reader on a small model: the trace, and every truncation and
 * byte flip of the file is an error or a trace, never a crash (run under
 * ASan+UBSan in the sanitizer build). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symshape/symshape.h"
#include "small_model.h"

static char *dim(sy_ctx *ctx, sy_onnx_trace *t, const sy_expr *e)
{
    return sy_expr_print(ctx, sy_onnx_trace_display(t, e), SY_PRINT_CANONICAL);
}

Test(onnx, small_model_traces_exactly)
{
    sy_ctx *ctx;
    cr_assert_eq(sy_ctx_new(NULL, &ctx), SY_OK);
    cr_assert(sy_onnx_available());
    sy_onnx_model *m;
    cr_assert_eq(sy_onnx_load_mem(ctx, small_model, sizeof small_model, "small", &m), SY_OK, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert_eq(sy_onnx_opset(m), 14);
    cr_assert_eq(sy_onnx_nnodes(m), 6);
    cr_assert_eq(sy_onnx_ninputs(m), 1);
    cr_assert_str_eq(sy_onnx_input_at(m, 0)->params[2], "h");
    sy_env *env = sy_env_new(ctx, NULL);
    sy_onnx_trace *t;
    cr_assert_eq(sy_env_trace_onnx(env, m, NULL, &t), SY_OK, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert_eq(sy_onnx_trace_noutputs(t), 1);
    const sy_tensor *y = sy_onnx_trace_value(t, sy_onnx_trace_output(t, 0));
    cr_assert_eq(y->ndim, 2);
    char *a = dim(ctx, t, y->sizes[0]), *b = dim(ctx, t, y->sizes[1]);
    cr_assert_str_eq(a, "batch");
    cr_assert_str_eq(b, "4*CeilDiv(h, 2)*CeilDiv(w, 2)");
    sy_str_free(ctx, a);
    sy_str_free(ctx, b);
    size_t nin;
    const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(t, &nin);
    sy_gset *gs;
    cr_assert_eq(sy_gset_produce_inputs(env, sy_onnx_name(m), nin, ins, &gs), SY_OK);
    cr_assert_eq(sy_gset_minimize(gs), SY_OK);
    cr_assert_gt(sy_gset_size(gs), 0);
    sy_gset_free(gs);
    sy_onnx_trace_free(t);
    sy_env_free(env);
    sy_onnx_free(m);
    sy_ctx_free(ctx);
}

/* load + trace; returns the load status */
static sy_status try_model(const unsigned char *data, size_t len)
{
    sy_ctx *ctx;
    cr_assert_eq(sy_ctx_new(NULL, &ctx), SY_OK);
    sy_onnx_model *m = NULL;
    sy_status st = sy_onnx_load_mem(ctx, data, len, "mut", &m);
    if (st == SY_OK) {
        sy_env *env = sy_env_new(ctx, NULL);
        sy_onnx_trace *t = NULL;
        sy_status ts = sy_env_trace_onnx(env, m, NULL, &t);
        if (ts != SY_OK) cr_assert(strlen(sy_ctx_last_error_msg(ctx)) > 0, "an error without a message");
        sy_onnx_trace_free(t);
        sy_env_free(env);
        sy_onnx_free(m);
    } else {
        cr_assert(strlen(sy_ctx_last_error_msg(ctx)) > 0);
        cr_assert_null(m);
    }
    sy_ctx_free(ctx);
    return st;
}

Test(onnx, every_truncation_is_an_error_or_a_trace)
{
    size_t errors = 0;
    for (size_t n = 0; n < sizeof small_model; n++) errors += try_model(small_model, n) != SY_OK;
    /* most prefixes cut a length-delimited field */
    cr_assert_gt(errors, sizeof small_model / 2);
    cr_assert_eq(try_model(small_model, 0), SY_EFORMAT);
}

Test(onnx, every_byte_flip_is_an_error_or_a_trace)
{
    unsigned char buf[sizeof small_model];
    for (size_t i = 0; i < sizeof small_model; i++)
        for (int k = 0; k < 3; k++) {
            static const unsigned char x[3] = {0xff, 0x80, 0x01};
            memcpy(buf, small_model, sizeof buf);
            buf[i] ^= x[k];
            (void)try_model(buf, sizeof buf);
        }
}

Test(onnx, missing_file_names_the_reason)
{
    sy_ctx *ctx;
    cr_assert_eq(sy_ctx_new(NULL, &ctx), SY_OK);
    sy_onnx_model *m = NULL;
    cr_assert_eq(sy_onnx_load_file(ctx, "/nonexistent/x.onnx", &m), SY_EFORMAT);
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "No such file"));
    cr_assert_eq(sy_onnx_load_file(ctx, "/", &m), SY_EFORMAT);
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "Is a directory"), "%s", sy_ctx_last_error_msg(ctx));
    sy_ctx_free(ctx);
}

/* the file path: the nodes are read one at a time from the file during the
 * trace (pread through a window), with the same result as from memory */
static const char *write_tmp(const unsigned char *data, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/sy_test_onnx_%d.onnx", (int)getpid());
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    return path;
}

Test(onnx, file_traces_like_memory)
{
    const char *path = write_tmp(small_model, sizeof small_model);
    sy_ctx *ctx;
    cr_assert_eq(sy_ctx_new(NULL, &ctx), SY_OK);
    sy_onnx_model *m;
    cr_assert_eq(sy_onnx_load_file(ctx, path, &m), SY_OK, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert_eq(sy_onnx_nnodes(m), 6);
    size_t kept, skipped;
    sy_onnx_sizes(m, &kept, &skipped);
    cr_assert_gt(kept, 0);
    cr_assert_leq(kept, sizeof small_model);
    /* two traces of one model: each reads the nodes again */
    for (int k = 0; k < 2; k++) {
        sy_env *env = sy_env_new(ctx, NULL);
        sy_onnx_trace *t;
        cr_assert_eq(sy_env_trace_onnx(env, m, NULL, &t), SY_OK, "%s", sy_ctx_last_error_msg(ctx));
        const sy_tensor *y = sy_onnx_trace_value(t, sy_onnx_trace_output(t, 0));
        char *a = dim(ctx, t, y->sizes[0]), *b = dim(ctx, t, y->sizes[1]);
        cr_assert_str_eq(a, "batch");
        cr_assert_str_eq(b, "4*CeilDiv(h, 2)*CeilDiv(w, 2)");
        sy_str_free(ctx, a);
        sy_str_free(ctx, b);
        sy_onnx_trace_free(t);
        sy_env_free(env);
    }
    /* the file changes after the load: the trace fails with a message, never a crash */
    cr_assert_eq(truncate(path, (off_t)(sizeof small_model / 3)), 0);
    sy_env *env = sy_env_new(ctx, NULL);
    sy_onnx_trace *t = NULL;
    cr_assert_eq(sy_env_trace_onnx(env, m, NULL, &t), SY_EFORMAT);
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "before its length when it was loaded (it changed since)"), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert_null(t);
    sy_env_free(env);
    sy_onnx_free(m);
    /* every truncated file: an error or a trace */
    for (size_t n = 0; n < sizeof small_model; n += 7) {
        path = write_tmp(small_model, n);
        m = NULL;
        sy_status st = sy_onnx_load_file(ctx, path, &m);
        if (st == SY_OK) {
            env = sy_env_new(ctx, NULL);
            t = NULL;
            if (sy_env_trace_onnx(env, m, NULL, &t) != SY_OK) cr_assert(strlen(sy_ctx_last_error_msg(ctx)) > 0);
            sy_onnx_trace_free(t);
            sy_env_free(env);
        } else {
            cr_assert_null(m);
        }
        sy_onnx_free(m);
    }
    unlink(path);
    sy_ctx_free(ctx);
}
