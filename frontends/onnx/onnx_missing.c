/* The ONNX frontend when the library is built without protobuf-c: every call
 * fails with SY_EUNSUPPORTED "built without ONNX support". */
#include "algebra/internal.h"
#include "symshape/onnx.h"

#define MISSING "built without ONNX support (install libprotobuf-c-dev, protobuf-c-compiler and libonnx-dev, then reconfigure)"

int sy_onnx_available(void) { return 0; }
sy_status sy_onnx_load_file(sy_ctx *ctx, const char *path, sy_onnx_model **out)
{
    (void)path;
    if (out) *out = NULL;
    return ctx ? sy_fail_st(ctx, SY_EUNSUPPORTED, "%s", MISSING) : SY_EUNSUPPORTED;
}
sy_status sy_onnx_load_mem(sy_ctx *ctx, const void *data, size_t len, const char *name, sy_onnx_model **out)
{
    (void)data, (void)len, (void)name;
    if (out) *out = NULL;
    return ctx ? sy_fail_st(ctx, SY_EUNSUPPORTED, "%s", MISSING) : SY_EUNSUPPORTED;
}
sy_onnx_model *sy_onnx_free(sy_onnx_model *m) { (void)m; return NULL; }
const char *sy_onnx_name(const sy_onnx_model *m) { (void)m; return NULL; }
int64_t sy_onnx_opset(const sy_onnx_model *m) { (void)m; return -1; }
size_t sy_onnx_nnodes(const sy_onnx_model *m) { (void)m; return 0; }
void sy_onnx_sizes(const sy_onnx_model *m, size_t *kept, size_t *skipped)
{
    (void)m;
    if (kept) *kept = 0;
    if (skipped) *skipped = 0;
}
size_t sy_onnx_ninputs(const sy_onnx_model *m) { (void)m; return 0; }
const sy_onnx_input *sy_onnx_input_at(const sy_onnx_model *m, size_t i) { (void)m, (void)i; return NULL; }
sy_status sy_env_trace_onnx(sy_env *env, const sy_onnx_model *m, const sy_onnx_trace_options *opts, sy_onnx_trace **out)
{
    (void)m, (void)opts;
    if (out) *out = NULL;
    sy_ctx *ctx = sy_env_ctx(env);
    return ctx ? sy_fail_st(ctx, SY_EUNSUPPORTED, "%s", MISSING) : SY_EUNSUPPORTED;
}
sy_onnx_trace *sy_onnx_trace_free(sy_onnx_trace *t) { (void)t; return NULL; }
sy_status sy_onnx_trace_relate(sy_ctx *ctx, const sy_onnx_model *m, const sy_env_options *eo, const sy_onnx_trace_options *opts,
                               sy_env **env, sy_onnx_trace **out)
{
    (void)m, (void)eo, (void)opts;
    if (env) *env = NULL;
    if (out) *out = NULL;
    return ctx ? sy_fail_st(ctx, SY_EUNSUPPORTED, "%s", MISSING) : SY_EUNSUPPORTED;
}
const char *sy_onnx_trace_related(const sy_onnx_trace *t) { (void)t; return NULL; }
size_t sy_onnx_trace_nvalues(const sy_onnx_trace *t) { (void)t; return 0; }
const char *sy_onnx_trace_value_name(const sy_onnx_trace *t, size_t i) { (void)t, (void)i; return NULL; }
const sy_tensor *sy_onnx_trace_value(const sy_onnx_trace *t, size_t i) { (void)t, (void)i; return NULL; }
int sy_onnx_trace_value_role(const sy_onnx_trace *t, size_t i) { (void)t, (void)i; return 0; }
size_t sy_onnx_trace_noutputs(const sy_onnx_trace *t) { (void)t; return 0; }
size_t sy_onnx_trace_output(const sy_onnx_trace *t, size_t i) { (void)t, (void)i; return 0; }
const sy_graph_input *const *sy_onnx_trace_gset_inputs(const sy_onnx_trace *t, size_t *n)
{
    (void)t;
    if (n) *n = 0;
    return NULL;
}
const sy_expr *sy_onnx_trace_display(sy_onnx_trace *t, const sy_expr *e) { (void)t; return e; }
const sy_expr *sy_onnx_trace_source_symbol(const sy_onnx_trace *t, const char *source) { (void)t, (void)source; return NULL; }
sy_status sy_onnx_write_value_info(sy_onnx_trace *t, const char *model_path, const char *path)
{
    (void)t, (void)model_path, (void)path;
    return SY_EUNSUPPORTED;
}
