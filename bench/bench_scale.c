/* Scale benchmark (issue 14): for each family of inputs that used to take
 * exponential, cubic or quadratic time, run several sizes, each in a fresh
 * child process, and print wall time, the child's peak RSS and the fitted
 * growth exponent (least-squares slope of log time over log size). Goal:
 * slope <= 1.3 for every family. Figures only; the exact results are
 * asserted by tests/algebra/test_scale.c and tests/guards/test_minimize_golden.c.
 *
 *   ./build/bench/bench_scale [--quick]     (each size 3 times, the fastest; --quick: 3 sizes once)
 * Then the chain graph through every backend (render time, output size,
 * bytecode instructions). Environment: SY_BENCH_FAMILY=TEXT runs only the
 * families whose title contains TEXT ("backends": only that table); SY_CORPUS_DIR names the folder of transformer_encoder.json
 * (default ../shared/corpus, else examples/).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symshape/bc.h"
#include "symshape/symshape.h"
#include "bench_util.h"

typedef int (*family_fn)(sy_ctx *ctx, long n); /* 0 ok */

static char *join(const char *fmt, const char *sep, long n)
{
    size_t cap = (size_t)n * (strlen(fmt) + strlen(sep) + 12) + 64, len = 0;
    char *t = malloc(cap);
    t[0] = 0;
    for (long i = 0; i < n; i++) {
        if (i) len += (size_t)snprintf(t + len, cap - len, "%s", sep);
        len += (size_t)snprintf(t + len, cap - len, fmt, i);
    }
    return t;
}

static int parse_only(sy_ctx *ctx, const char *t)
{
    const sy_expr *e;
    return sy_expr_parse(ctx, t, (size_t)-1, &e) != SY_OK;
}

/* nested FloorDiv chain: n layers built, then decide LAYER >= 0 and simplify */
static int fam_floordiv(sy_ctx *ctx, long n)
{
    const sy_expr *s = sy_expr_sym(ctx, "s"), *L = s, *lay = NULL;
    const sy_expr *k448 = sy_expr_int_si(ctx, 448), *k7 = sy_expr_int_si(ctx, 7), *k8 = sy_expr_int_si(ctx, 8);
    for (long i = 0; i < n; i++) {
        const sy_expr *q = sy_expr_floordiv(ctx, sy_expr_pow_ui(ctx, L, 2), k448);
        const sy_expr *a = sy_expr_floordiv(ctx, sy_expr_mul_si(ctx, q, 64), k7);
        const sy_expr *t = sy_expr_floordiv(ctx, sy_expr_mul(ctx, sy_expr_floordiv(ctx, sy_expr_int_si(ctx, 512), a), q), k8);
        lay = sy_expr_floordiv(ctx, sy_expr_mul(ctx, t, a), k7);
        L = sy_expr_floordiv(ctx, lay, sy_expr_int_si(ctx, 4));
    }
    if (!lay) return 1;
    sy_facts *f = sy_facts_new(ctx);
    sy_truth tr;
    int bad = sy_facts_add(f, sy_expr_ge(ctx, s, sy_expr_int_si(ctx, 1))) != SY_OK ||
              sy_decide(f, sy_expr_ge(ctx, lay, sy_expr_int_si(ctx, 0)), &tr) != SY_OK || !sy_simplify(f, lay);
    sy_facts_free(f);
    return bad;
}

static int fam_product(sy_ctx *ctx, long n)
{
    char *t = join("x%ld", "*", n);
    int r = parse_only(ctx, t);
    free(t);
    return r;
}

static int fam_and(sy_ctx *ctx, long n)
{
    char *t = join("x%ld <= 0", " and ", n);
    int r = parse_only(ctx, t);
    free(t);
    return r;
}

static int fam_chain(sy_ctx *ctx, long n)
{
    char *t = join("x%ld", " < ", n);
    int r = parse_only(ctx, t);
    free(t);
    return r;
}

static int fam_pow7(sy_ctx *ctx, long n)
{
    char *ys = join("y%ld", "*", n);
    size_t cap = strlen(ys) + 64;
    char *t = malloc(cap);
    snprintf(t, cap, "(a+b+c+d+e+f+g+h+1)**7*%s", ys);
    int r = parse_only(ctx, t);
    free(t);
    free(ys);
    return r;
}

/* issue 38: Max(Min(x0, 0), ..., Min(x{n-1}, n-1)), parsed (simplified) and decided >= 0 */
static int fam_maxmin(sy_ctx *ctx, long n)
{
    size_t cap = (size_t)n * 32 + 64, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "Max(");
    for (long i = 0; i < n; i++) len += (size_t)snprintf(t + len, cap - len, "%sMin(x%ld, %ld)", i ? ", " : "", i, i);
    snprintf(t + len, cap - len, ")");
    const sy_expr *e;
    int bad = sy_expr_parse(ctx, t, (size_t)-1, &e) != SY_OK;
    free(t);
    if (bad) return 1;
    sy_facts *f = sy_facts_new(ctx);
    sy_truth tr;
    bad = !f || sy_decide(f, sy_expr_ge(ctx, e, sy_expr_int_si(ctx, 0)), &tr) != SY_OK;
    sy_facts_free(f);
    return bad;
}

/* issue 38 item 3: the widths of n x (Slice [1:2^62], Concat with itself): w -> 2*(Min(2^62, w) - 1),
 * each step simplified under m >= 2 as the ONNX trace does (was quadratic, then nested too deep) */
static int fam_slicecat(sy_ctx *ctx, long n)
{
    const sy_expr *m = sy_expr_sym(ctx, "m"), *end = NULL, *w = m;
    sy_facts *f = sy_facts_new(ctx);
    int bad = !f || sy_expr_parse(ctx, "4611686018427387904", (size_t)-1, &end) != SY_OK ||
              sy_facts_set_range(f, m, sy_expr_int_si(ctx, 2), NULL) != SY_OK;
    for (long i = 0; i < n && !bad; i++) {
        const sy_expr *s = sy_simplify(f, sy_expr_add_si(ctx, sy_expr_min(ctx, end, w), -1));
        w = sy_simplify(f, sy_expr_mul_si(ctx, s, 2));
        bad = !w;
    }
    sy_facts_free(f);
    return bad;
}

static int run_graph_opts(sy_ctx *ctx, const char *text, size_t len, const sy_env_options *opts)
{
    sy_graph *g;
    if (sy_graph_load_text(ctx, text, len, "scale.json", &g) != SY_OK) {
        fprintf(stderr, "load: %s\n", sy_ctx_last_error_msg(ctx));
        return 1;
    }
    sy_env *env = sy_env_new(ctx, opts);
    sy_trace *tr = NULL;
    sy_gset *gs = NULL;
    int bad = sy_env_trace(env, g, 0, NULL, &tr) != SY_OK || sy_gset_produce(env, g, &gs) != SY_OK ||
              sy_gset_minimize(gs) != SY_OK;
    if (bad) fprintf(stderr, "trace: %s\n", sy_ctx_last_error_msg(ctx));
    sy_gset_free(gs);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
    return bad;
}

static int run_graph(sy_ctx *ctx, const char *text, size_t len) { return run_graph_opts(ctx, text, len, NULL); }

/* run_graph, and the minimized set must keep exactly @p want guards (a wrong count fails the row) */
static int run_graph_kept(sy_ctx *ctx, const char *text, size_t len, size_t want)
{
    sy_graph *g;
    if (sy_graph_load_text(ctx, text, len, "scale.json", &g) != SY_OK) {
        fprintf(stderr, "load: %s\n", sy_ctx_last_error_msg(ctx));
        return 1;
    }
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *tr = NULL;
    sy_gset *gs = NULL;
    int bad = sy_env_trace(env, g, 0, NULL, &tr) != SY_OK || sy_gset_produce(env, g, &gs) != SY_OK ||
              sy_gset_minimize(gs) != SY_OK;
    if (bad) fprintf(stderr, "trace: %s\n", sy_ctx_last_error_msg(ctx));
    else if (sy_gset_size(gs) != want) {
        fprintf(stderr, "kept %zu guards, expected %zu\n", sy_gset_size(gs), want);
        bad = 1;
    }
    sy_gset_free(gs);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
    return bad;
}

/* issue 38: n inputs [8, 16] added in place into x0 in a chain (x0.add_(x_i)), no duck sizing:
 * n equalities (relaxed: Ors) tying each x_i to x0; 4,000 took 36 s (default) before */
static int inplace_chain(sy_ctx *ctx, long n, int relaxed)
{
    size_t cap = (size_t)n * 200 + 512, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[");
    for (long i = 0; i <= n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"x%ld\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[8,16],\"dynamic\":[0,1]},", i);
    for (long i = 1; i <= n; i++)
        len += (size_t)snprintf(t + len, cap - len, "{\"name\":\"a%ld\",\"op\":\"add_\",\"args\":[{\"ref\":\"%s%ld\"},{\"ref\":\"x%ld\"}]},",
                                i, i == 1 ? "x" : "a", i == 1 ? 0 : i - 1, i);
    len += (size_t)snprintf(t + len - 1, cap - len, "],\"outputs\":[{\"ref\":\"a%ld\"}]}", n) - 1;
    sy_env_options o = SY_ENV_OPTIONS_INIT;
    o.duck_sizing = 0;
    o.specialize_zero_one = !relaxed;
    int r = run_graph_opts(ctx, t, len, &o);
    free(t);
    return r;
}
static int fam_inplace(sy_ctx *ctx, long n) { return inplace_chain(ctx, n, 0); }
static int fam_inplace_relaxed(sy_ctx *ctx, long n) { return inplace_chain(ctx, n, 1); }

/* bcast47: an offset chain, n inputs [8 + i] tied by guard_bool(x_{i+1}.size(0) == x_i.size(0) + 1),
 * each a replacement x_{i+1} := x_0 + i + 1: install_replacement walked every id per compound
 * replacement (4,000 inputs 8.3 s, 2,000 2.1 s). Trace and produce only: minimizing the set is
 * still quadratic per candidate (decide_implied re-adds every other guard) */
static int fam_offsets(sy_ctx *ctx, long n)
{
    size_t cap = (size_t)n * 900 + 512, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[");
    for (long i = 0; i <= n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"x%ld\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[%ld],\"dynamic\":[0]},", i, 8 + i);
    for (long i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"s%ld\",\"op\":\"size\",\"args\":[{\"ref\":\"x%ld\"},0]},"
                                "{\"name\":\"t%ld\",\"op\":\"size\",\"args\":[{\"ref\":\"x%ld\"},0]},"
                                "{\"name\":\"p%ld\",\"op\":\"add\",\"args\":[{\"ref\":\"s%ld\"},1]},"
                                "{\"name\":\"e%ld\",\"op\":\"eq\",\"args\":[{\"ref\":\"t%ld\"},{\"ref\":\"p%ld\"}]},"
                                "{\"name\":\"g%ld\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"e%ld\"},true]},",
                                i, i, i, i + 1, i, i, i, i, i, i, i);
    len += (size_t)snprintf(t + len - 1, cap - len, "],\"outputs\":[{\"ref\":\"x%ld\"}]}", n) - 1;
    sy_graph *g;
    int bad = sy_graph_load_text(ctx, t, len, "offsets.json", &g) != SY_OK;
    free(t);
    if (bad) return 1;
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *tr = NULL;
    sy_gset *gs = NULL;
    bad = sy_env_trace(env, g, 0, NULL, &tr) != SY_OK || sy_gset_produce(env, g, &gs) != SY_OK ||
          sy_gset_size(gs) != 4 * (size_t)n + 3;
    sy_gset_free(gs);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
    return bad;
}

/* n guard_bool nodes 's*(i+2) != t': trace + produce + minimize */
static int fam_guards(sy_ctx *ctx, long n)
{
    size_t cap = (size_t)n * 260 + 512, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len,
                            "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["
                            "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[3,7],\"dynamic\":[0,1]},"
                            "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0],\"kwargs\":{}},"
                            "{\"name\":\"t\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},1],\"kwargs\":{}}");
    for (long i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                ",{\"name\":\"m%ld\",\"op\":\"mul\",\"args\":[{\"ref\":\"s\"},%ld],\"kwargs\":{}}"
                                ",{\"name\":\"c%ld\",\"op\":\"ne\",\"args\":[{\"ref\":\"m%ld\"},{\"ref\":\"t\"}],\"kwargs\":{}}"
                                ",{\"name\":\"g%ld\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"c%ld\"},true],\"kwargs\":{}}",
                                i, i + 2, i, i, i, i);
    len += (size_t)snprintf(t + len, cap - len, "],\"outputs\":[]}");
    int r = run_graph(ctx, t, len);
    free(t);
    return r;
}

/* n duck-sized inputs of shape [2 + i % 50, 3] */
static int fam_inputs(sy_ctx *ctx, long n)
{
    size_t cap = (size_t)n * 120 + 256, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[");
    for (long i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "%s{\"name\":\"x%ld\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[%ld,3],\"dynamic\":[0,1]}",
                                i ? "," : "", i, 2 + i % 50);
    len += (size_t)snprintf(t + len, cap - len, "],\"outputs\":[]}");
    int r = run_graph(ctx, t, len);
    free(t);
    return r;
}

/* issue 38: n inputs [2 + i, 3] (distinct examples) joined by one cat along dim 0 */
static int fam_cat(sy_ctx *ctx, long n)
{
    size_t cap = (size_t)n * 140 + 256, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[");
    for (long i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"x%ld\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[%ld,3],\"dynamic\":[0,1]},",
                                i, 2 + i);
    len += (size_t)snprintf(t + len, cap - len, "{\"name\":\"c\",\"op\":\"cat\",\"args\":[[");
    for (long i = 0; i < n; i++) len += (size_t)snprintf(t + len, cap - len, "%s{\"ref\":\"x%ld\"}", i ? "," : "", i);
    len += (size_t)snprintf(t + len, cap - len, "],0],\"kwargs\":{}}],\"outputs\":[{\"ref\":\"c\"}]}");
    int r = run_graph(ctx, t, len);
    free(t);
    return r;
}

/* attack46n / onnx47l: a chain of n cats, c_i = cat(c_{i-1}, x_i) along dim 1, of inputs x_i [8, 100 + i/2]
 * (duck-sized: one batch symbol, one width symbol per pair); each width a sum of up to n/2 terms with
 * an int64 guard. Every guard's fact made the int64 check bound every symbol and input again under a
 * growing set of relations: the ONNX twin took K^3.3 (K = 64 2.7 s, 128 24-30 s). scale47: the minimization
 * kept every width's guard from n = 128 on (K^3 to decide them); now the widest implies the rest. */
static int fam_catchain(sy_ctx *ctx, long n)
{
    size_t cap = (size_t)n * 220 + 256, len = 0;
    char *t = malloc(cap);
    if (!t) return 1;
    len += (size_t)snprintf(t + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[");
    for (long i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"x%ld\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[8,%ld],\"dynamic\":[0,1]},",
                                i, 100 + i / 2);
    for (long i = 1; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"c%ld\",\"op\":\"cat\",\"args\":[[{\"ref\":\"%s%ld\"},{\"ref\":\"x%ld\"}],1],\"kwargs\":{}},", i,
                                i == 1 ? "x" : "c", i == 1 ? 0 : i - 1, i);
    len += (size_t)snprintf(t + len - 1, cap - len, "],\"outputs\":[{\"ref\":\"c%ld\"}]}", n - 1) - 1;
    /* kept: rank and dtype (2n), the duck equalities of the batch (n - 1) and of the widths (n/2),
     * 2 <= d_j (n/2) and the widest width's int64 guard, which implies the others (scale47) */
    int r = run_graph_kept(ctx, t, len, (size_t)(4 * n));
    free(t);
    return r;
}

/* issue 38 (fix38f): sy_region_new of n inputs [4, d_i] (d_i dynamic; with tie, the 4 too, tied by the
 * cat) joined by one cat along dim 1, under the relaxed policy: 2.0 / 7.0 / 26 s at 300 / 600 /
 * 1,200 inputs before (a binding of every symbol per evaluation, a scan of the sources per
 * lookup, of the guards per root, n keys per substitution, a trial copy per equality) */
static int region_of(sy_ctx *ctx, long n, int tie)
{
    size_t cap = (size_t)n * 140 + 256, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[");
    for (long i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"x%ld\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[4,6],\"dynamic\":[%s]},", i,
                                tie ? "0,1" : "1");
    len += (size_t)snprintf(t + len, cap - len, "{\"name\":\"c\",\"op\":\"cat\",\"args\":[[");
    for (long i = 0; i < n; i++) len += (size_t)snprintf(t + len, cap - len, "%s{\"ref\":\"x%ld\"}", i ? "," : "", i);
    len += (size_t)snprintf(t + len, cap - len, "],1],\"kwargs\":{}}],\"outputs\":[{\"ref\":\"c\"}]}");
    sy_graph *g = NULL;
    sy_env *env = NULL;
    sy_trace *tr = NULL;
    sy_gset *gs = NULL;
    sy_region *r = NULL;
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    int bad = sy_graph_load_text(ctx, t, len, "scale.json", &g) != SY_OK || !(env = sy_env_new(ctx, &eo)) ||
              sy_env_trace(env, g, 0, NULL, &tr) != SY_OK || sy_gset_produce(env, g, &gs) != SY_OK ||
              sy_gset_minimize(gs) != SY_OK || sy_region_new(gs, NULL, &r) != SY_OK || sy_region_nvars(r) != (size_t)(tie ? n + 1 : n);
    if (bad) fprintf(stderr, "region: %s\n", sy_ctx_last_error_msg(ctx));
    sy_region_free(r);
    sy_gset_free(gs);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
    free(t);
    return bad;
}
static int fam_region(sy_ctx *ctx, long n) { return region_of(ctx, n, 0); }
static int fam_region_tied(sy_ctx *ctx, long n) { return region_of(ctx, n, 1); }

/* protobuf wire format for fam_onnx_inputs: a varint, a length-delimited field */
static void pb_varint(char **p, uint64_t v)
{
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        *(*p)++ = (char)(c | (v ? 0x80 : 0));
    } while (v);
}

static void pb_bytes(char **p, int field, const char *data, size_t len)
{
    pb_varint(p, (uint64_t)field << 3 | 2);
    pb_varint(p, len);
    memcpy(*p, data, len);
    *p += len;
}

static void pb_str(char **p, int field, const char *s) { pb_bytes(p, field, s, strlen(s)); }

/* ValueInfoProto NAME: float tensor [PARAM, 3] */
static void pb_value_info(char **p, int field, const char *name, const char *param)
{
    char dim0[64], dim1[8], shape[96], tensor[128], type[160], vi[256], *q;
    q = dim0, pb_str(&q, 2, param);                      /* Dimension.dim_param */
    size_t l0 = (size_t)(q - dim0);
    q = dim1, pb_varint(&q, 1 << 3), pb_varint(&q, 3);   /* Dimension.dim_value */
    size_t l1 = (size_t)(q - dim1);
    q = shape, pb_bytes(&q, 1, dim0, l0), pb_bytes(&q, 1, dim1, l1);
    size_t ls = (size_t)(q - shape);
    q = tensor, pb_varint(&q, 1 << 3), pb_varint(&q, 1), pb_bytes(&q, 2, shape, ls); /* elem_type FLOAT, shape */
    size_t lt = (size_t)(q - tensor);
    q = type, pb_bytes(&q, 1, tensor, lt);               /* TypeProto.tensor_type */
    size_t ly = (size_t)(q - type);
    q = vi, pb_str(&q, 1, name), pb_bytes(&q, 2, type, ly);
    pb_bytes(p, field, vi, (size_t)(q - vi));
}

/* the ONNX twin of fam_inputs: n inputs x_i of [p_i, 3] (dim_param p_i, example 2 + i % 50), each through
 * a Relu; read, trace, produce, minimize, then every value's dims and every source's symbol by display
 * name, as symshape infer prints them */
static int fam_onnx_inputs(sy_ctx *ctx, long n)
{
    size_t cap = (size_t)n * 160 + 256;
    char *graph = malloc(cap), *model = malloc(cap + 64), *p = graph;
    sy_onnx_example *ex = calloc((size_t)n, sizeof *ex);
    int64_t *shapes = calloc((size_t)n * 2, sizeof *shapes);
    char (*names)[24] = calloc((size_t)n, sizeof *names);
    if (!graph || !model || !ex || !shapes || !names) return 1;
    for (long i = 0; i < n; i++) {
        char node[128], x[24], y[24], r[24], *q = node;
        snprintf(x, sizeof x, "x%ld", i);
        snprintf(y, sizeof y, "y%ld", i);
        snprintf(r, sizeof r, "r%ld", i);
        pb_str(&q, 1, x), pb_str(&q, 2, y), pb_str(&q, 3, r), pb_str(&q, 4, "Relu");
        pb_bytes(&p, 1, node, (size_t)(q - node)); /* GraphProto.node */
    }
    pb_str(&p, 2, "many_inputs");
    for (int io = 0; io < 2; io++)
        for (long i = 0; i < n; i++) {
            char v[24], prm[24];
            snprintf(v, sizeof v, "%c%ld", io ? 'y' : 'x', i);
            snprintf(prm, sizeof prm, "p%ld", i);
            pb_value_info(&p, io ? 12 : 11, v, prm); /* GraphProto.input, .output */
        }
    char opset[16], *q = model, *o = opset;
    pb_str(&o, 1, ""), pb_varint(&o, 2 << 3), pb_varint(&o, 13);
    pb_varint(&q, 1 << 3), pb_varint(&q, 8);             /* ir_version */
    pb_bytes(&q, 8, opset, (size_t)(o - opset));         /* opset_import */
    pb_bytes(&q, 7, graph, (size_t)(p - graph));         /* graph */
    for (long i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "x%ld", i);
        shapes[2 * i] = 2 + i % 50;
        shapes[2 * i + 1] = 3;
        ex[i].input = names[i];
        ex[i].ndim = 2;
        ex[i].shape = &shapes[2 * i];
    }
    sy_onnx_model *m = NULL;
    sy_onnx_trace *tr = NULL;
    sy_env *env = NULL;
    sy_gset *gs = NULL;
    sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
    to.nexamples = (size_t)n;
    to.examples = ex;
    size_t nin = 0;
    const sy_graph_input *const *ins = NULL;
    int bad = sy_onnx_load_mem(ctx, model, (size_t)(q - model), "many_inputs.onnx", &m) != SY_OK || !(env = sy_env_new(ctx, NULL)) ||
              sy_env_trace_onnx(env, m, &to, &tr) != SY_OK || !(ins = sy_onnx_trace_gset_inputs(tr, &nin)) ||
              sy_gset_produce_inputs(env, sy_onnx_name(m), nin, ins, &gs) != SY_OK || sy_gset_minimize(gs) != SY_OK;
    for (size_t i = 0; !bad && i < sy_onnx_trace_nvalues(tr); i++) {
        const sy_tensor *v = sy_onnx_trace_value(tr, i);
        for (size_t k = 0; k < v->ndim && !bad; k++) bad = !sy_onnx_trace_display(tr, v->sizes[k]);
    }
    for (size_t i = 0; !bad && i < sy_gset_nsources(gs); i++) sy_onnx_trace_source_symbol(tr, sy_gset_source(gs, i));
    if (bad) fprintf(stderr, "onnx: %s\n", sy_ctx_last_error_msg(ctx));
    sy_gset_free(gs);
    sy_onnx_trace_free(tr);
    sy_env_free(env);
    sy_onnx_free(m);
    free(graph);
    free(model);
    free(ex);
    free(shapes);
    free(names);
    return bad;
}

/* chunk of a [4n, 3] input into n views */
static int fam_chunk(sy_ctx *ctx, long n)
{
    char t[512];
    int len = snprintf(t, sizeof t,
                       "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["
                       "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[%ld,3],\"dynamic\":[0]},"
                       "{\"name\":\"c\",\"op\":\"chunk\",\"args\":[{\"ref\":\"x\"},%ld],\"kwargs\":{}}"
                       "],\"outputs\":[{\"ref\":\"c\"}]}",
                       4 * n, n);
    return run_graph(ctx, t, (size_t)len);
}

/* issue 14's FloorDiv chain as a graph of n layers (the 69-node graph of
 * bench/make_floordiv69.py at n = 6): 11 scalar nodes per layer on
 * x.size(0), divisor A + 1, then narrow(x, 0, 0, LAYERn) */
static char *fd_text(long n, size_t *lenp)
{
    size_t cap = (size_t)n * 2048 + 1024, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len,
                            "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["
                            "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[1000],\"dynamic\":[0]},"
                            "{\"name\":\"L_0\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0],\"kwargs\":{}}");
#define FD(name, op, a, b) len += (size_t)snprintf(t + len, cap - len, ",{\"name\":\"%s_%ld\",\"op\":\"%s\",\"args\":[%s,%s],\"kwargs\":{}}", name, k, op, a, b)
    for (long k = 1; k <= n; k++) {
        char r[12][64];
        const char *nm[] = {"L", "sq", "q", "q64", "a", "a1", "d", "dq", "t", "ta", "lay"};
        for (int i = 0; i < 11; i++) snprintf(r[i], sizeof r[i], "{\"ref\":\"%s_%ld\"}", nm[i], i == 0 ? k - 1 : k);
        FD("sq", "pow", r[0], "2");
        FD("q", "floordiv", r[1], "448");
        FD("q64", "mul", r[2], "64");
        FD("a", "floordiv", r[3], "7");
        FD("a1", "add", r[4], "1");
        FD("d", "floordiv", "512", r[5]);
        FD("dq", "mul", r[6], r[2]);
        FD("t", "floordiv", r[7], "8");
        FD("ta", "mul", r[8], r[4]);
        FD("lay", "floordiv", r[9], "7");
        FD("L", "floordiv", r[10], "4");
    }
#undef FD
    len += (size_t)snprintf(t + len, cap - len,
                            ",{\"name\":\"y\",\"op\":\"narrow\",\"args\":[{\"ref\":\"x\"},0,0,{\"ref\":\"lay_%ld\"}],\"kwargs\":{}}"
                            "],\"outputs\":[{\"ref\":\"y\"}]}",
                            n);
    *lenp = len;
    return t;
}

static int fam_fdgraph(sy_ctx *ctx, long n)
{
    size_t len;
    char *t = fd_text(n, &len);
    int rc = run_graph(ctx, t, len);
    free(t);
    return rc;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The chain graph's minimized guard set through every backend: CPU time of
 * sy_backend_render (the fastest of 3) and the output's bytes; for the
 * bytecode also the instruction and register counts. Linear in the layers:
 * each backend computes or binds every shared subterm once. */
static int backends_table(int quick)
{
    static const char *const bk[] = {"bytecode", "c", "smtlib", "json", "report", "markdown"};
    const long sizes[] = {6, 12, 24, 48, 96};
    int nsz = quick ? 3 : 5, rc = 0;
    printf("\nfloordiv chain graph through each backend (render CPU ms, fastest of 3 / output bytes)\n%6s", "layers");
    for (size_t b = 0; b < sizeof bk / sizeof bk[0]; b++) printf(" %20s", bk[b]);
    printf(" %16s\n", "bc instr/regs");
    for (int i = 0; i < nsz; i++) {
        sy_ctx *ctx;
        if (sy_ctx_new(NULL, &ctx)) return 1;
        size_t len;
        char *t = fd_text(sizes[i], &len);
        sy_graph *g = NULL;
        sy_env *env = NULL;
        sy_trace *tr = NULL;
        sy_gset *gs = NULL;
        int bad = sy_graph_load_text(ctx, t, len, "chain.json", &g) != SY_OK || !(env = sy_env_new(ctx, NULL)) ||
                  sy_env_trace(env, g, 0, NULL, &tr) != SY_OK || sy_gset_produce(env, g, &gs) != SY_OK ||
                  sy_gset_minimize(gs) != SY_OK;
        free(t);
        printf("%6ld", sizes[i]);
        for (size_t b = 0; b < sizeof bk / sizeof bk[0] && !bad; b++) {
            double best = -1;
            size_t n = 0;
            for (int r = 0; r < 3; r++) {
                unsigned char *data = NULL;
                double t0 = cpu_ms();
                sy_status st = sy_backend_render(bk[b], gs, NULL, &data, &n);
                double dt = cpu_ms() - t0;
                sy_mem_free(ctx, data);
                if (st != SY_OK) {
                    printf(" %20s", sy_status_name(st));
                    rc = 1;
                    best = -2;
                    break;
                }
                if (best < 0 || dt < best) best = dt;
            }
            if (best >= 0) printf(" %10.3f /%8zu", best, n);
        }
        sy_bc_program *p = NULL;
        if (!bad && sy_bc_compile(gs, &p) == SY_OK) printf(" %10zu/%zu\n", sy_bc_ninstr(p), sy_bc_nregs(p));
        else printf(" %16s\n", "failed");
        rc |= bad || !p;
        sy_bc_free(p);
        sy_gset_free(gs);
        sy_trace_free(tr);
        sy_env_free(env);
        sy_graph_free(g);
        sy_ctx_free(ctx);
    }
    return rc;
}

/* transformer encoder with n layers: layer 0 of the corpus's
 * transformer_encoder.json (symbolic batch and sequence) repeated n times */
static const char *g_encoder;
static void rename_refs(json_t *v, const char *from, const char *to, json_t *names, long c)
{
    if (json_is_object(v)) {
        json_t *r = json_object_get(v, "ref");
        if (r && json_is_string(r)) {
            const char *s = json_string_value(r);
            if (!strcmp(s, from)) json_object_set_new(v, "ref", json_string(to));
            else if (json_object_get(names, s)) {
                char buf[512];
                snprintf(buf, sizeof buf, "%s_L%ld", s, c);
                json_object_set_new(v, "ref", json_string(buf));
            }
            return;
        }
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) rename_refs(x, from, to, names, c);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) rename_refs(x, from, to, names, c);
    }
}

static int fam_encoder(sy_ctx *ctx, long n)
{
    json_error_t err;
    json_t *g = g_encoder ? json_load_file(g_encoder, 0, &err) : NULL;
    if (!g) return 1;
    json_t *nodes = json_object_get(g, "nodes"), *out = json_array(), *names = json_object();
    size_t a = 0, b = 0, i;
    json_t *nd;
    json_array_foreach(nodes, i, nd) {
        const char *nm = json_string_value(json_object_get(nd, "name"));
        if (!strcmp(nm, "dim") && !a) a = i;
        if (!strcmp(nm, "enc_layers_0_norm2")) b = i;
    }
    if (!a || b <= a) return 1;
    for (i = 0; i < a; i++) json_array_append(out, json_array_get(nodes, i));
    for (i = a; i <= b; i++) json_object_set_new(names, json_string_value(json_object_get(json_array_get(nodes, i), "name")), json_true());
    char prev[512] = "emb";
    for (long c = 0; c < n; c++) {
        for (i = a; i <= b; i++) {
            json_t *cp = json_deep_copy(json_array_get(nodes, i));
            char buf[512];
            snprintf(buf, sizeof buf, "%s_L%ld", json_string_value(json_object_get(cp, "name")), c);
            json_object_set_new(cp, "name", json_string(buf));
            rename_refs(cp, "emb", prev, names, c);
            json_object_del(cp, "example");
            json_array_append_new(out, cp);
        }
        snprintf(prev, sizeof prev, "enc_layers_0_norm2_L%ld", c);
    }
    json_array_foreach(nodes, i, nd) /* the params the layers read */
        if (i > b && !strcmp(json_string_value(json_object_get(nd, "op")), "param")) json_array_append(out, nd);
    json_object_set_new(g, "nodes", out);
    json_t *outs = json_array(), *r = json_object();
    json_object_set_new(r, "ref", json_string(prev));
    json_array_append_new(outs, r);
    json_object_set_new(g, "outputs", outs);
    char *text = json_dumps(g, JSON_COMPACT);
    int rc = run_graph(ctx, text, strlen(text));
    free(text);
    json_decref(names);
    json_decref(g);
    return rc;
}

/* the library reads ONNX (sy_onnx_load_mem is SY_EUNSUPPORTED without it) */
static int onnx_built(void)
{
    sy_ctx *ctx;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) return 0;
    sy_onnx_model *m = NULL;
    int ok = sy_onnx_load_mem(ctx, "", 0, "empty.onnx", &m) != SY_EUNSUPPORTED;
    sy_onnx_free(m);
    sy_ctx_free(ctx);
    return ok;
}

typedef struct {
    const char *name;
    family_fn fn;
    long sizes[5];
} family;

static double run_child(family_fn fn, long n, long *rss_kb, int *failed)
{
    int fd[2];
    *rss_kb = 0;
    *failed = 1;
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        sy_ctx *ctx;
        double t = -1;
        if (sy_ctx_new(NULL, &ctx) == SY_OK) {
            double t0 = bench_now_ns();
            int bad = fn(ctx, n);
            t = (bench_now_ns() - t0) * 1e-6;
            if (bad) t = -t - 1;
            sy_ctx_free(ctx);
        }
        if (write(fd[1], &t, sizeof t) != (ssize_t)sizeof t) _exit(2);
        _exit(0);
    }
    close(fd[1]);
    double t = -1;
    if (read(fd[0], &t, sizeof t) != (ssize_t)sizeof t) t = -1;
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    *rss_kb = ru.ru_maxrss;
    *failed = t < 0;
    return t < 0 ? -t - 1 : t;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    static char enc[1024];
    const char *cdir = getenv("SY_CORPUS_DIR"); /* default: SY_SHARED_DIR/corpus as configured (bench/CMakeLists.txt) */
    snprintf(enc, sizeof enc, "%s/transformer_encoder.json", cdir && *cdir ? cdir : SY_SHARED_CORPUS);
    if (access(enc, R_OK) != 0) snprintf(enc, sizeof enc, "%s/transformer_encoder.json", SY_EXAMPLES);
    g_encoder = access(enc, R_OK) == 0 ? enc : NULL;
    family fams[] = {
        {"floordiv chain (layers; build+decide+simplify)", fam_floordiv, {10, 20, 40, 80, 160}},
        {"floordiv chain graph, 11 nodes per layer (6 layers: the 69-node graph; trace+produce+minimize)", fam_fdgraph,
         {6, 12, 24, 48, 96}},
        {"product x0*...*xn (parse)", fam_product, {2500, 5000, 10000, 20000, 40000}},
        {"x0 <= 0 and ... (parse)", fam_and, {2000, 4000, 8000, 16000, 32000}},
        {"x0 < x1 < ... (parse)", fam_chain, {2000, 4000, 8000, 16000, 32000}},
        {"(a+..+h+1)**7*y1*..*yn (parse)", fam_pow7, {50, 100, 200, 400, 800}},
        {"guard_bool s*(i+2) != t (trace+produce+minimize)", fam_guards, {1250, 2500, 5000, 10000, 20000}},
        {"duck-sized inputs (trace+produce+minimize)", fam_inputs, {250, 500, 1000, 2000, 4000}},
        {"ONNX inputs [p_i, 3], each through a Relu (read+trace+produce+minimize+display names)", fam_onnx_inputs,
         {250, 500, 1000, 2000, 4000}},
        {"chunk into n views (trace+produce+minimize)", fam_chunk, {125, 250, 500, 1000, 2000}},
        {"Max(Min(x0, 0), ..., Min(xn, n)) (parse+decide >= 0)", fam_maxmin, {5000, 10000, 20000, 40000, 80000}},
        {"cat of n inputs [2 + i, 3] (trace+produce+minimize)", fam_cat, {250, 500, 1000, 2000, 4000}},
        {"chain of n cats of inputs [8, 100 + i/2] (trace+produce+minimize)", fam_catchain, {32, 64, 128, 256, 512}},
        {"in-place add_ chain of n inputs, no duck sizing (trace+produce+minimize)", fam_inplace, {500, 1000, 2000, 4000, 8000}},
        {"in-place add_ chain of n inputs, no duck sizing, relaxed (trace+produce+minimize)", fam_inplace_relaxed,
         {500, 1000, 2000, 4000, 8000}},
        {"offset chain x_{i+1} == x_i + 1 of n inputs (trace+produce)", fam_offsets, {500, 1000, 2000, 4000, 8000}},
        {"region of n inputs [4, d_i] joined by cat (trace+produce+minimize+sy_region_new)", fam_region, {300, 600, 1200, 2400, 4800}},
        {"region of n inputs [b_i, d_i], b_i tied by the cat (trace+produce+minimize+sy_region_new)", fam_region_tied,
         {300, 600, 1200, 2400, 4800}},
        {"Slice [1:2^62] + Concat chain widths (build+simplify under m >= 2)", fam_slicecat, {250, 500, 1000, 2000, 4000}},
        {"transformer encoder layers, symbolic B,S (trace+produce+minimize)", fam_encoder, {12, 24, 48, 96, 192}},
    };
    int nsz = quick ? 3 : 5, rc = 0, reps = quick ? 1 : 3;
    const char *only = getenv("SY_BENCH_FAMILY"); /* run only the families whose name contains it */
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        if (only && !strstr(fams[f].name, only)) continue;
        if (fams[f].fn == fam_onnx_inputs && !onnx_built()) {
            printf("\n%s\n%10s (built without ONNX support)\n", fams[f].name, "");
            continue;
        }
        printf("\n%s\n%10s %12s %12s\n", fams[f].name, "n", reps > 1 ? "min time ms" : "time ms", "peak RSS MB");
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int k = 0;
        for (int i = 0; i < nsz; i++) {
            long rss = 0;
            int failed = 0;
            double t = -1;
            for (int r = 0; r < reps; r++) { /* the fastest of reps runs: load on the machine only adds */
                long rr;
                int fl;
                double tt = run_child(fams[f].fn, fams[f].sizes[i], &rr, &fl);
                if (t < 0 || tt < t) t = tt;
                if (rr > rss) rss = rr;
                failed |= fl;
            }
            printf("%10ld %12.2f %12.1f%s\n", fams[f].sizes[i], t, (double)rss / 1024.0, failed ? "  FAILED" : "");
            if (failed) rc = 1;
            if (t > 0.5) { /* below 0.5 ms the clock and process noise dominate */
                double x = log((double)fams[f].sizes[i]), y = log(t);
                sx += x;
                sy += y;
                sxx += x * x;
                sxy += x * y;
                k++;
            }
        }
        if (k >= 2) printf("%10s %.2f\n", "slope", (k * sxy - sx * sy) / (k * sxx - sx * sx));
        else printf("%10s (too fast to fit)\n", "slope");
    }
    if (!only || strstr("backends", only)) rc |= backends_table(quick);
    return rc;
}
