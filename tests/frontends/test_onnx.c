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

/* protobuf wire format by hand: a length-delimited field (tag, length, bytes) */
static size_t pb_bytes(unsigned char *o, unsigned field, const void *p, size_t n)
{
    size_t k = 0;
    o[k++] = (unsigned char)(field << 3 | 2);
    for (size_t v = n; ; v >>= 7) {
        o[k++] = (unsigned char)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
        if (!(v >> 7)) break;
    }
    memcpy(o + k, p, n);
    return k + n;
}

/* A model whose initializer "w" (float, dims [2]) holds two payload fields: a packed float_data of
 * `small` bytes, then raw_data of `big` bytes; an Identity node reads it. */
static size_t payload_model(unsigned char *buf, size_t small, size_t big)
{
    static unsigned char t[8192], n[64], g[9000], os[16], pay[6000];
    memset(pay, 0, sizeof pay);
    size_t tl = 0, nl = 0, gl = 0, ol = 0, ml = 0;
    t[tl++] = 0x08, t[tl++] = 2;          /* dims: 2 */
    t[tl++] = 0x10, t[tl++] = 1;          /* data_type: FLOAT */
    tl += pb_bytes(t + tl, 4, pay, small); /* float_data */
    tl += pb_bytes(t + tl, 8, "w", 1);     /* name */
    tl += pb_bytes(t + tl, 9, pay, big);   /* raw_data */
    nl += pb_bytes(n + nl, 1, "w", 1);     /* input */
    nl += pb_bytes(n + nl, 2, "y", 1);     /* output */
    nl += pb_bytes(n + nl, 4, "Identity", 8);
    gl += pb_bytes(g + gl, 1, n, nl);      /* node */
    gl += pb_bytes(g + gl, 2, "g", 1);     /* name */
    gl += pb_bytes(g + gl, 5, t, tl);      /* initializer */
    os[ol++] = 0x10, os[ol++] = 14;        /* OperatorSetIdProto.version */
    buf[ml++] = 0x08, buf[ml++] = 8;       /* ir_version */
    ml += pb_bytes(buf + ml, 8, os, ol);   /* opset_import */
    ml += pb_bytes(buf + ml, 7, g, gl);    /* graph */
    return ml;
}

/* The payload of a tensor is summed over all its payload fields: a small field that comes before
 * a large one is dropped with it (the pre-scan reads the tensor once, and walks it again only in
 * that case), and both are kept when their sum is within SY_ONNX_MAX_PAYLOAD. */
Test(onnx, payload_summed_over_fields)
{
    static unsigned char buf[9200];
    const size_t cases[][2] = {{8, 5000}, {0, 5000}, {8, 4000}, {8, 4088}, {8, 4089}, {4100, 0}};
    size_t kept0 = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t small = cases[c][0], big = cases[c][1], len = payload_model(buf, small, big);
        sy_ctx *ctx;
        cr_assert_eq(sy_ctx_new(NULL, &ctx), SY_OK);
        sy_onnx_model *m;
        cr_assert_eq(sy_onnx_load_mem(ctx, buf, len, "payload", &m), SY_OK, "%s", sy_ctx_last_error_msg(ctx));
        size_t kept, skipped;
        sy_onnx_sizes(m, &kept, &skipped);
        int drop = small + big > SY_ONNX_MAX_PAYLOAD;
        cr_assert_eq(skipped, drop ? small + big : 0, "float_data %zu + raw_data %zu bytes: %zu skipped", small, big, skipped);
        /* dropped: every payload field goes, its tag too, whatever came first */
        if (c == 0) kept0 = kept;
        if (drop) cr_assert_eq(kept, kept0, "float_data %zu + raw_data %zu bytes: %zu kept, %zu for 8 + 5000", small, big, kept, kept0);
        if (drop) { /* the trace reads the initializer again, without its payload: y has w's dims */
            sy_env *env = sy_env_new(ctx, NULL);
            sy_onnx_trace *t;
            cr_assert_eq(sy_env_trace_onnx(env, m, NULL, &t), SY_OK, "%s", sy_ctx_last_error_msg(ctx));
            size_t found = 0;
            for (size_t i = 0; i < sy_onnx_trace_nvalues(t); i++)
                if (!strcmp(sy_onnx_trace_value_name(t, i), "y")) {
                    const sy_tensor *y = sy_onnx_trace_value(t, i);
                    int64_t d;
                    cr_assert_eq(y->ndim, 1);
                    cr_assert_eq(sy_expr_get_si(y->sizes[0], &d), SY_OK);
                    cr_assert_eq(d, 2);
                    found++;
                }
            cr_assert_eq(found, 1);
            sy_onnx_trace_free(t);
            sy_env_free(env);
        }
        sy_onnx_free(m);
        sy_ctx_free(ctx);
    }
}
