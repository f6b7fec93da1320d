/* Model commands: run (trace + guard set + backend) and probe (accept/reject
 * and real output shapes at given sizes). */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* options shared by run and probe */
typedef struct {
    const char *model;
    sy_env_options eo;
    sy_trace_override *ov; /* input malloc'ed, spec parsed in pctx */
    size_t nov, cap;
    sy_ctx *pctx; /* owns the parsed --dynamic specs */
    sy_onnx_example *ex;   /* --example (ONNX): input and shape malloc'ed */
    size_t nex, excap;
    json_t *exnames;       /* the --example inputs (a set: one lookup per --example, not a scan) */
} model_opts;

static void model_opts_free(model_opts *m)
{
    for (size_t i = 0; i < m->nov; i++) {
        free((void *)m->ov[i].input);
        free((void *)m->ov[i].dims);
        sy_input_spec_free(m->pctx, (sy_input_spec *)m->ov[i].spec);
    }
    free(m->ov);
    sy_ctx_free(m->pctx);
    for (size_t i = 0; i < m->nex; i++) {
        free((void *)m->ex[i].input);
        free((void *)m->ex[i].shape);
    }
    free(m->ex);
    json_decref(m->exnames);
}

/* an ONNX model: the file name ends in .onnx */
static int is_onnx(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 5 && !strcmp(path + n - 5, ".onnx");
}

const char *cli_argv0;

/* REL (a path relative to the executable's directory) when it exists, as a
 * malloc'ed absolute path; else NULL. The executable is /proc/self/exe, or
 * argv[0] when that cannot be read. */
static char *beside_exe(const char *rel, int mode)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 && cli_argv0 && strchr(cli_argv0, '/') && strlen(cli_argv0) < sizeof exe) {
        n = (ssize_t)strlen(cli_argv0);
        memcpy(exe, cli_argv0, (size_t)n);
    }
    if (n <= 0 || (size_t)n >= sizeof exe) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = '\0';
    size_t len = strlen(exe) + 1 + strlen(rel) + 1;
    char *path = malloc(len);
    if (!path) return NULL;
    snprintf(path, len, "%s/%s", exe, rel);
    if (access(path, mode) == 0) return path;
    free(path);
    return NULL;
}

/* The bundled resnet18.json: relative to the executable (installed:
 * BINDIR/SY_BIN_TO_DATA/symshape/examples), else the source tree's
 * examples/ (the uninstalled binary in the build tree). */
static char *default_model(void)
{
    char *path = beside_exe(SY_BIN_TO_DATA "/symshape/examples/resnet18.json", R_OK);
    if (path) return path;
#ifdef SY_SOURCE_EXAMPLES_DIR
    if (access(SY_SOURCE_EXAMPLES_DIR "/resnet18.json", R_OK) == 0) return strdup(SY_SOURCE_EXAMPLES_DIR "/resnet18.json");
#endif
    return NULL;
}

/* the long-only options (values past any char) */
enum {
    OPT_DYNAMIC = 0x100,
    OPT_STATIC,
    OPT_NO_DUCK,
    OPT_NO_01,
    OPT_PREFIX,
    OPT_STATS,
    OPT_LIST_UNSUPPORTED,
    OPT_POINTS,
    OPT_JSON,
    OPT_FAIL_ON_REJECT,
    OPT_STRIDES,
    OPT_TIMEOUT,
    OPT_EXAMPLE,
    OPT_MAX_CASES
};
#define MODEL_OPTIONS                                                                                                \
    {"dynamic", required_argument, NULL, OPT_DYNAMIC}, {"static", required_argument, NULL, OPT_STATIC},              \
        {"no-duck-sizing", no_argument, NULL, OPT_NO_DUCK}, {"no-specialize-01", no_argument, NULL, OPT_NO_01},     \
        {"example", required_argument, NULL, OPT_EXAMPLE}

/* --dynamic SPEC (sy_input_spec_parse: NAME=D[:DIM][@MIN..MAX],...) / --static NAME / --no-duck-sizing / --no-specialize-01:
 * returns 1 if option o was ours, 0 if not, or -EX_* on error */
static int model_option(const char *cmd, model_opts *m, int o, const char *v)
{
    if (o == OPT_NO_DUCK) {
        m->eo.duck_sizing = 0;
        return 1;
    }
    if (o == OPT_NO_01) {
        m->eo.specialize_zero_one = 0;
        return 1;
    }
    if (o == OPT_EXAMPLE) {
        char *name;
        int64_t *shape;
        size_t rank;
        int pr = cli_parse_sizes(v, &name, &shape, &rank);
        if (pr == -2) return -cli_oom();
        if (pr) return -cli_usage_error(cmd, "--example expects NAME=D,D,... with non-negative integers (got '%s')", v);
        if (!m->exnames && !(m->exnames = json_object())) {
            free(name);
            free(shape);
            return -cli_oom();
        }
        if (json_object_get(m->exnames, name)) {
            int r = -cli_usage_error(cmd, "--example: input '%s' given twice", name);
            free(name);
            free(shape);
            return r;
        }
        if (json_object_set_new_nocheck(m->exnames, name, json_true()) || cli_reserve(&m->ex, &m->excap, m->nex + 1, sizeof *m->ex)) {
            free(name);
            free(shape);
            return -cli_oom();
        }
        m->ex[m->nex].input = name;
        m->ex[m->nex].shape = shape;
        m->ex[m->nex++].ndim = rank;
        return 1;
    }
    if (o != OPT_DYNAMIC && o != OPT_STATIC) return 0;
    const char *opt = o == OPT_STATIC ? "--static" : "--dynamic";
    const char *eq = o == OPT_STATIC ? v + strlen(v) : strchr(v, '=');
    if (o == OPT_DYNAMIC && (!eq || eq == v)) return -cli_usage_error(cmd, "--dynamic expects NAME=D[:DIM][@MIN..MAX],... (got '%s')", v);
    if (eq == v) return -cli_usage_error(cmd, "--static expects an input NAME");
    for (size_t i = 0; i < m->nov; i++)
        if (strlen(m->ov[i].input) == (size_t)(eq - v) && !strncmp(m->ov[i].input, v, (size_t)(eq - v)))
            return -cli_usage_error(cmd, "%s %s: input '%.*s' already has a --dynamic or --static", opt, v, (int)(eq - v), v);
    if (cli_reserve(&m->ov, &m->cap, m->nov + 1, sizeof *m->ov)) return -cli_oom();
    sy_trace_override *ov = &m->ov[m->nov];
    memset(ov, 0, sizeof *ov);
    char *name = strndup(v, (size_t)(eq - v));
    if (!name) return -cli_oom();
    ov->input = name;
    m->nov++;
    if (o == OPT_STATIC) {
        ov->make_static = 1;
        return 1;
    }
    if (!m->pctx) m->pctx = cli_ctx();
    sy_input_spec *sp;
    if (sy_input_spec_parse(m->pctx, v, (size_t)-1, &sp) != SY_OK) {
        if (sy_ctx_last_error(m->pctx) == SY_ENOMEM) return -cli_oom();
        return -cli_usage_error(cmd, "--dynamic: %s", sy_ctx_last_error_msg(m->pctx));
    }
    ov->spec = sp;
    return 1;
}

/* Every --dynamic/--static names an input of g, and every dim exists: a
 * usage error otherwise (the command line is wrong, not the model). */
static int check_overrides(const char *cmd, const model_opts *m, const sy_graph *g)
{
    for (size_t i = 0; i < m->nov; i++) {
        const sy_trace_override *o = &m->ov[i];
        const sy_graph_input *in = NULL;
        for (size_t k = 0; k < sy_graph_ninputs(g); k++)
            if (!strcmp(sy_graph_input_at(g, k)->name, o->input)) in = sy_graph_input_at(g, k);
        if (!in) {
            fprintf(stderr, "symshape: error: %s: %s %s: the model has no input named '%s' (inputs:", cmd,
                    o->make_static ? "--static" : "--dynamic", o->input, o->input);
            for (size_t k = 0; k < sy_graph_ninputs(g); k++) fprintf(stderr, " %s", sy_graph_input_at(g, k)->name);
            fprintf(stderr, ")\n(see 'symshape %s --help')\n", cmd);
            return EX_USAGE;
        }
        for (size_t k = 0; k < o->ndims; k++)
            if ((size_t)o->dims[k] >= in->ndim)
                return cli_usage_error(cmd, "--dynamic %s=...: input '%s' has no dim %d (rank %zu)", o->input, o->input,
                                       o->dims[k], in->ndim);
        for (size_t k = 0; o->spec && k < o->spec->ndims; k++)
            if (o->spec->dims[k].dim >= in->ndim)
                return cli_usage_error(cmd, "--dynamic %s=...: input '%s' has no dim %zu (rank %zu)", o->input, o->input,
                                       o->spec->dims[k].dim, in->ndim);
    }
    return EX_OK;
}

/* the same for an ONNX model's inputs, and --example ranks */
static int check_onnx_overrides1(const char *cmd, const model_opts *m, const sy_onnx_model *om, json_t *byname)
{
    for (size_t i = 0; i < m->nov + m->nex; i++) {
        const char *name = i < m->nov ? m->ov[i].input : m->ex[i - m->nov].input;
        json_t *kj = json_object_get(byname, name);
        const sy_onnx_input *in = kj ? sy_onnx_input_at(om, (size_t)json_integer_value(kj)) : NULL;
        if (!in) {
            fprintf(stderr, "symshape: error: %s: %s %s: the model has no input named '%s' (inputs:", cmd,
                    i >= m->nov ? "--example" : m->ov[i].make_static ? "--static" : "--dynamic", name, name);
            for (size_t k = 0; k < sy_onnx_ninputs(om); k++) fprintf(stderr, " %s", sy_onnx_input_at(om, k)->name);
            fprintf(stderr, ")\n(see 'symshape %s --help')\n", cmd);
            return EX_USAGE;
        }
        if (i >= m->nov && m->ex[i - m->nov].ndim != in->ndim)
            return cli_usage_error(cmd, "--example %s=...: input '%s' has rank %zu, the example %zu sizes", name, name,
                                   in->ndim, m->ex[i - m->nov].ndim);
        for (size_t k = 0; i < m->nov && k < m->ov[i].ndims; k++)
            if ((size_t)m->ov[i].dims[k] >= in->ndim)
                return cli_usage_error(cmd, "--dynamic %s=...: input '%s' has no dim %d (rank %zu)", name, name,
                                       m->ov[i].dims[k], in->ndim);
        for (size_t k = 0; i < m->nov && m->ov[i].spec && k < m->ov[i].spec->ndims; k++)
            if (m->ov[i].spec->dims[k].dim >= in->ndim)
                return cli_usage_error(cmd, "--dynamic %s=...: input '%s' has no dim %zu (rank %zu)", name, name,
                                       m->ov[i].spec->dims[k].dim, in->ndim);
    }
    return EX_OK;
}

static int check_onnx_overrides(const char *cmd, const model_opts *m, const sy_onnx_model *om)
{
    /* the inputs by name, the last of a name (one lookup per option, not a scan: issue 14) */
    json_t *byname = m->nov + m->nex ? json_object() : NULL;
    if (m->nov + m->nex && !byname) return cli_oom();
    for (size_t k = 0; byname && k < sy_onnx_ninputs(om); k++)
        if (json_object_set_new_nocheck(byname, sy_onnx_input_at(om, k)->name, json_integer((json_int_t)k))) {
            json_decref(byname);
            return cli_oom();
        }
    int rc = check_onnx_overrides1(cmd, m, om, byname);
    json_decref(byname);
    return rc;
}

typedef struct {
    sy_ctx *ctx;
    sy_graph *g;
    sy_onnx_model *om; /* an ONNX model instead of g */
    sy_onnx_trace *ot;
    sy_env *env;
    sy_trace *tr;
    sy_gset *gs;
    double t_parse, t_trace, t_produce, t_minimize;
    size_t produced;
} traced;

static void traced_free(traced *t)
{
    sy_gset_free(t->gs);
    sy_trace_free(t->tr);
    sy_onnx_trace_free(t->ot);
    sy_env_free(t->env);
    sy_graph_free(t->g);
    sy_onnx_free(t->om);
    sy_ctx_free(t->ctx);
}

static int trace_onnx(const char *cmd, model_opts *m, traced *t)
{
    double t0 = now();
    cli_stage(cmd, "reading %s", m->model);
    sy_status lst = sy_onnx_load_file(t->ctx, m->model, &t->om);
    cli_stage_end();
    if (lst != SY_OK) return cli_lib_error(t->ctx, "cannot load model");
    int rc = check_onnx_overrides(cmd, m, t->om);
    if (rc != EX_OK) return rc;
    double t1 = now();
    t->env = sy_env_new(t->ctx, &m->eo);
    if (!t->env) return cli_lib_error(t->ctx, "env");
    sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
    to.nexamples = m->nex;
    to.examples = m->ex;
    to.nov = m->nov;
    to.ov = m->ov;
    cli_stage(cmd, "tracing %zu nodes", sy_onnx_nnodes(t->om));
    sy_status tst = sy_env_trace_onnx(t->env, t->om, &to, &t->ot);
    cli_stage_end();
    if (tst != SY_OK) {
        sy_status st = sy_ctx_last_error(t->ctx);
        fprintf(stderr, "symshape: error: %s: %s\n", m->model, sy_ctx_last_error_msg(t->ctx));
        return st == SY_ENOMEM ? EX_INTERNAL : EX_INPUT;
    }
    double t2 = now();
    size_t nin;
    const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(t->ot, &nin);
    if (sy_gset_produce_inputs(t->env, sy_onnx_name(t->om), nin, ins, &t->gs) != SY_OK)
        return cli_lib_error(t->ctx, "produce guards");
    t->produced = sy_gset_size(t->gs);
    double t3 = now();
    cli_stage(cmd, "minimizing %zu guards", t->produced);
    sy_status mst = sy_gset_minimize(t->gs);
    cli_stage_end();
    if (mst != SY_OK) return cli_lib_error(t->ctx, "minimize guards");
    double t4 = now();
    t->t_parse = t1 - t0;
    t->t_trace = t2 - t1;
    t->t_produce = t3 - t2;
    t->t_minimize = t4 - t3;
    return EX_OK;
}

static int trace_model(const char *cmd, model_opts *m, traced *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = cli_ctx();
    if (is_onnx(m->model)) return trace_onnx(cmd, m, t);
    if (m->nex) return cli_usage_error(cmd, "--example applies to ONNX models (a JSON graph carries its example sizes)");
    double t0 = now();
    char *text = NULL;
    size_t len = 0;
    int rc = cli_read_input(cmd, m->model, &text, &len);
    if (rc != EX_OK) return rc;
    sy_status st = sy_graph_load_text(t->ctx, text, len, cli_file_name(m->model), &t->g);
    free(text);
    if (st != SY_OK) return cli_lib_error(t->ctx, "cannot load model");
    if ((rc = check_overrides(cmd, m, t->g)) != EX_OK) return rc;
    double t1 = now();
    t->env = sy_env_new(t->ctx, &m->eo);
    if (!t->env) return cli_lib_error(t->ctx, "env");
    cli_stage(cmd, "tracing %zu nodes", sy_graph_nnodes(t->g));
    st = sy_env_trace(t->env, t->g, m->nov, m->ov, &t->tr);
    cli_stage_end();
    if (st != SY_OK) {
        st = sy_ctx_last_error(t->ctx);
        fprintf(stderr, "symshape: error: %s: %s\n", cli_file_name(m->model), sy_ctx_last_error_msg(t->ctx));
        return st == SY_ENOMEM ? EX_INTERNAL : EX_INPUT;
    }
    double t2 = now();
    if (sy_gset_produce(t->env, t->g, &t->gs) != SY_OK) return cli_lib_error(t->ctx, "produce guards");
    t->produced = sy_gset_size(t->gs);
    double t3 = now();
    cli_stage(cmd, "minimizing %zu guards", t->produced);
    sy_status mst = sy_gset_minimize(t->gs);
    cli_stage_end();
    if (mst != SY_OK) return cli_lib_error(t->ctx, "minimize guards");
    double t4 = now();
    t->t_parse = t1 - t0;
    t->t_trace = t2 - t1;
    t->t_produce = t3 - t2;
    t->t_minimize = t4 - t3;
    return EX_OK;
}

static const struct option run_opts[] = {{"backend", required_argument, NULL, 'b'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"prefix", required_argument, NULL, OPT_PREFIX},
                                         {"stats", no_argument, NULL, OPT_STATS},
                                         {"list-unsupported", no_argument, NULL, OPT_LIST_UNSUPPORTED},
                                         MODEL_OPTIONS,
                                         CLI_COMMON_OPTIONS,
                                         {0}};

/* run --list-unsupported: every call node whose op has no shape rule, all
 * at once (the trace stops at the first). One line per op: the op, how many
 * nodes call it, the first node (and its source location when recorded). */
static int list_unsupported(const char *model)
{
    sy_ctx *ctx = cli_ctx();
    char *text = NULL;
    size_t len = 0;
    int rc = cli_read_input("run", model, &text, &len);
    if (rc != EX_OK) {
        sy_ctx_free(ctx);
        return rc;
    }
    sy_graph *g = NULL;
    sy_status st = sy_graph_load_text(ctx, text, len, cli_file_name(model), &g);
    free(text);
    if (st != SY_OK) {
        rc = cli_lib_error(ctx, "cannot load model");
        sy_ctx_free(ctx);
        return rc;
    }
    size_t n = sy_graph_nnodes(g), calls = 0, nops = 0, nnodes = 0;
    for (size_t i = 0; i < n; i++) {
        const char *op = sy_graph_node_op(g, i);
        if (!strcmp(op, "input") || !strcmp(op, "param") || !strcmp(op, "constant")) continue;
        calls++;
        if (sy_env_has_op(op)) continue;
        nnodes++;
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) seen = !strcmp(sy_graph_node_op(g, k), op);
        if (seen) continue;
        size_t count = 0;
        for (size_t k = i; k < n; k++) count += !strcmp(sy_graph_node_op(g, k), op);
        const sy_loc *loc = sy_graph_node_loc(g, i);
        printf("%s: %zu node%s (first: '%s'", op, count, count == 1 ? "" : "s", sy_graph_node_name(g, i));
        if (loc && loc->file) printf(" at %s:%ld", loc->file, loc->line);
        printf(")\n");
        nops++;
    }
    if (nops) fprintf(stderr, "%s: %zu unsupported op%s in %zu of %zu call nodes\n", cli_file_name(model), nops, nops == 1 ? "" : "s", nnodes, calls);
    else fprintf(stderr, "%s: every op is supported (%zu call nodes)\n", cli_file_name(model), calls);
    sy_graph_free(g);
    sy_ctx_free(ctx);
    return nops ? EX_FALSE : EX_OK;
}

static int run_run(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    const char *backend = "report", *outpath = NULL, *prefix = NULL;
    int stats = 0, rc = EX_OK, o, list = 0;
    char *dflt = NULL;
    while (rc == EX_OK && (o = cli_getopt(&cmd_run, argc, argv, "b:o:" CLI_COMMON_SHORT, run_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        int r = model_option("run", &m, o, optarg);
        if (r < 0) rc = -r;
        else if (r) continue;
        else if (o == 'b') backend = optarg;
        else if (o == 'o') outpath = optarg;
        else if (o == OPT_PREFIX) prefix = optarg;
        else if (o == OPT_STATS) stats = 1;
        else if (o == OPT_LIST_UNSUPPORTED) list = 1;
    }
    if (rc == EX_OK && argc - optind > 1) rc = cli_usage_error("run", "expected one model file");
    if (rc == EX_OK) m.model = optind < argc ? argv[optind] : (dflt = default_model());
    if (rc == EX_OK && !m.model) rc = cli_input_error("no model given and no bundled example found");
    if (rc == EX_OK && list) {
        rc = list_unsupported(m.model);
        model_opts_free(&m);
        free(dflt);
        return rc;
    }
    if (rc == EX_OK && (!outpath || !strcmp(outpath, "-")) && !strcmp(backend, "bytecode") && isatty(1))
        rc = cli_usage_error("run", "the bytecode backend writes binary: give -o FILE (or redirect stdout)");
    if (rc == EX_OK && !sy_backend_find(backend)) {
        fprintf(stderr, "symshape: error: run: unknown backend '%s'; known:", backend);
        for (size_t i = 0; i < sy_backend_count(); i++) fprintf(stderr, " %s", sy_backend_at(i)->name);
        fprintf(stderr, "\n(see 'symshape run --help')\n");
        rc = EX_USAGE;
    }
    if (rc != EX_OK) {
        model_opts_free(&m);
        free(dflt);
        return rc;
    }
    traced t;
    rc = trace_model("run", &m, &t);
    sy_backend_options bo = SY_BACKEND_OPTIONS_INIT;
    bo.env = t.env;
    bo.graph = t.g;
    bo.prefix = prefix;
    unsigned char *data = NULL;
    size_t len = 0;
    double t5 = now();
    if (rc == EX_OK && sy_backend_render(backend, t.gs, &bo, &data, &len) != SY_OK) rc = cli_lib_error(t.ctx, "render");
    double t6 = now();
    if (rc == EX_OK) rc = cli_write_output(outpath, data, len);
    if (data) sy_mem_free(t.ctx, data);
    if (rc == EX_OK && stats) {
        size_t rec, dedup, kept, nfrom, ninto;
        sy_gset_counts(t.gs, &rec, &dedup, &kept);
        sy_gset_normalized(t.gs, &nfrom, &ninto);
        fprintf(stderr,
                "model %s: %zu nodes, %zu symbols\n"
                "time: parse %.3f ms, trace %.3f ms, produce %.3f ms, minimize %.3f ms, render %.3f ms\n"
                "guards: %zu recorded, %zu deduplicated, %zu produced over sources, %zu kept after minimization"
                " (%zu before normalization: %zu on one source became %zu exact ranges)\n",
                t.om ? sy_onnx_name(t.om) : sy_graph_name(t.g), t.om ? sy_onnx_nnodes(t.om) : sy_graph_nnodes(t.g),
                sy_env_nsymbols(t.env), t.t_parse * 1e3, t.t_trace * 1e3,
                t.t_produce * 1e3, t.t_minimize * 1e3, (t6 - t5) * 1e3, rec, dedup, t.produced, kept, kept + nfrom - ninto,
                nfrom, ninto);
    }
    /* after rendering everything: a violated dynamic-dim spec is exit 1 (torch.export raises) */
    if (rc == EX_OK && sy_gset_nviolations(t.gs)) {
        fprintf(stderr, "symshape: %zu violation%s of the dynamic-dim spec (see the report's \"Dynamic-dim spec\")\n",
                sy_gset_nviolations(t.gs), sy_gset_nviolations(t.gs) == 1 ? "" : "s");
        rc = EX_FALSE;
    }
    traced_free(&t);
    model_opts_free(&m);
    free(dflt);
    return rc;
}

/* ------------------------------------------------------------------ source values */

/* The guard set's source values at the n input shapes (names, ranks, shapes;
 * dts receives each input's dtype, taken from the model's input of that name,
 * JSON graph or ONNX). where: "FILE: point N" for a message, or NULL (the
 * command line). EX_OK, or the error's exit status after its message. */
static int shape_values(const traced *t, size_t n, const char *const *names, const size_t *ranks,
                        const int64_t *const *shapes, sy_dtype *dts, int64_t *vals, const char *where)
{
    size_t nin = t->om ? sy_onnx_ninputs(t->om) : sy_graph_ninputs(t->g);
    for (size_t k = 0; k < n; k++) {
        long gi = -1;
        for (size_t q = 0; q < nin && gi < 0; q++)
            if (!strcmp(t->om ? sy_onnx_input_at(t->om, q)->name : sy_graph_input_at(t->g, q)->name, names[k])) gi = (long)q;
        if (gi < 0) {
            if (where) return cli_input_error("%s: the model has no input named '%s'", where, names[k]);
            return cli_input_error("the model has no input named '%s'", names[k]);
        }
        dts[k] = t->om ? sy_onnx_input_at(t->om, (size_t)gi)->dtype : sy_graph_input_at(t->g, (size_t)gi)->dtype;
    }
    if (sy_gset_values_from_shapes(t->gs, n, names, ranks, shapes, dts, vals) != SY_OK)
        return where ? cli_input_error("%s: %s", where, sy_ctx_last_error_msg(t->ctx)) : cli_lib_error(t->ctx, "sizes");
    return EX_OK;
}

/* ------------------------------------------------------------------ probe */

/* one input of a point */
typedef struct {
    const char *name;
    size_t rank;
    int64_t *shape;
} point_in;

/* --strides NAME=S,... of the one command-line point */
typedef struct {
    char *name;
    int64_t *st;
    size_t n;
} strides_in;

/* the inputs of one point; owned arrays, reused from point to point */
typedef struct {
    point_in *in;
    size_t n, cap;
    const char **names;
    size_t *ranks;
    const int64_t **shapes;
    sy_dtype *dts;
    size_t cap_names, cap_ranks, cap_shapes, cap_dts;
} point;

static void point_clear(point *p, int owns_names)
{
    for (size_t i = 0; i < p->n; i++) {
        if (owns_names) free((void *)p->in[i].name);
        free(p->in[i].shape);
    }
    p->n = 0;
}

static void point_free(point *p, int owns_names)
{
    point_clear(p, owns_names);
    free(p->in);
    free(p->names);
    free(p->ranks);
    free(p->shapes);
    free(p->dts);
}

/* room for n inputs in the parallel arrays */
static int point_arrays(point *p, size_t n)
{
    return cli_reserve(&p->names, &p->cap_names, n, sizeof *p->names) ||
                   cli_reserve(&p->ranks, &p->cap_ranks, n, sizeof *p->ranks) ||
                   cli_reserve(&p->shapes, &p->cap_shapes, n, sizeof *p->shapes) ||
                   cli_reserve(&p->dts, &p->cap_dts, n, sizeof *p->dts)
               ? -1
               : 0;
}

/* the parallel arrays of the point's inputs (after point_arrays) */
static void point_names(point *p)
{
    for (size_t k = 0; k < p->n; k++) {
        p->names[k] = p->in[k].name;
        p->ranks[k] = p->in[k].rank;
        p->shapes[k] = p->in[k].shape;
    }
}

/* The sizes of every tensor in v (lists flattened) appended to arr as the
 * probes' "outputs" form. A size that is not an int64 constant (past int64
 * at huge inputs) is not printed as a wrong number: SY_EOVERFLOW, with the
 * exact value in err. */
static sy_status flat_shapes(sy_ctx *ctx, const sy_value *v, json_t *arr, char *err, size_t errlen)
{
    if (v->kind == SY_V_TENSOR) {
        json_t *s = json_array();
        json_array_append_new(arr, s);
        for (size_t k = 0; k < v->u.t->ndim; k++) {
            int64_t x;
            if (sy_expr_get_si(v->u.t->sizes[k], &x) != SY_OK) {
                sy_ctx_reset_error(ctx);
                char *e = sy_expr_print(ctx, v->u.t->sizes[k], SY_PRINT_CANONICAL);
                snprintf(err, errlen, "output size %s does not fit int64", e ? e : "?");
                sy_str_free(ctx, e);
                return SY_EOVERFLOW;
            }
            json_array_append_new(s, json_integer(x));
        }
    } else if (v->kind == SY_V_LIST) {
        for (size_t i = 0; i < v->u.list.n; i++) {
            sy_status st = flat_shapes(ctx, &v->u.list.items[i], arr, err, errlen);
            if (st) return st;
        }
    }
    return SY_OK;
}

/* The inferred (symbolic) shapes of v evaluated at the point (env symbol syms[k] = svals[k]),
 * flattened as flat_shapes does into arr. 1 when every size evaluates; 0 when one cannot be
 * (an unbacked or unbound symbol, a division by zero, past int64: no claim is made there) */
static int eval_shapes(sy_ctx *ctx, const sy_value *v, size_t n, const sy_expr *const *syms, const int64_t *svals,
                       json_t *arr)
{
    if (v->kind == SY_V_TENSOR) {
        json_t *s = json_array();
        json_array_append_new(arr, s);
        for (size_t k = 0; k < v->u.t->ndim; k++) {
            int64_t x;
            if (sy_expr_eval_si(ctx, v->u.t->sizes[k], n, syms, svals, &x) != SY_OK) {
                sy_ctx_reset_error(ctx);
                return 0;
            }
            json_array_append_new(s, json_integer(x));
        }
    } else if (v->kind == SY_V_LIST) {
        for (size_t i = 0; i < v->u.list.n; i++)
            if (!eval_shapes(ctx, &v->u.list.items[i], n, syms, svals, arr)) return 0;
    }
    return 1;
}

/* The traced model's output shapes, as inferred (expressions over the symbols), evaluated at
 * the point whose source values are vals (sy_gset_source order): each backed symbol takes the
 * value of its first source. NULL when some size cannot be evaluated there (eval_shapes) or
 * out of memory. A point the guard set accepts must give the real outputs: otherwise an
 * inferred shape is wrong at a size the guards let through. */
static json_t *inferred_outputs(const traced *t, const int64_t *vals)
{
    size_t nsym = sy_env_nsymbols(t->env), n = 0;
    const sy_expr **syms = malloc((nsym ? nsym : 1) * sizeof *syms);
    int64_t *sv = malloc((nsym ? nsym : 1) * sizeof *sv);
    json_t *arr = syms && sv ? json_array() : NULL;
    for (size_t i = 0; arr && i < nsym; i++) {
        const sy_symbol_info *si = sy_env_symbol(t->env, i);
        long sl = si->unbacked || !si->nsources ? -1 : sy_gset_find_source(t->gs, si->sources[0]);
        if (sl < 0) continue;
        syms[n] = si->sym;
        sv[n++] = vals[sl];
    }
    size_t no = !arr ? 0 : t->ot ? sy_onnx_trace_noutputs(t->ot) : sy_trace_noutputs(t->tr);
    for (size_t i = 0; arr && i < no; i++) {
        sy_value ov;
        const sy_value *v;
        if (t->ot) {
            ov = sy_value_tensor(sy_onnx_trace_value(t->ot, sy_onnx_trace_output(t->ot, i)));
            v = &ov;
        } else {
            v = sy_trace_output(t->tr, i);
        }
        if (!v || !eval_shapes(t->ctx, v, n, syms, sv, arr)) {
            json_decref(arr);
            arr = NULL;
        }
    }
    free(syms);
    free(sv);
    return arr;
}

/* The sizes of point pi of the points file into pt (names borrowed from the JSON). */
static int json_point(const char *file, size_t pi, json_t *p, point *pt)
{
    const char *fname = cli_file_name(file);
    if (!json_is_object(p) || !json_is_object(json_object_get(p, "sizes")))
        return cli_input_error("%s: point %zu: expected an object {\"sizes\": {\"INPUT\": [D, ...], ...}, ...}", fname, pi);
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(p, "sizes"), k, v) {
        if (!json_is_array(v))
            return cli_input_error("%s: point %zu: the sizes of '%s' must be a list of non-negative integers", fname, pi, k);
        if (cli_reserve(&pt->in, &pt->cap, pt->n + 1, sizeof *pt->in)) return cli_oom();
        point_in *in = &pt->in[pt->n++];
        in->name = k;
        in->rank = json_array_size(v);
        in->shape = malloc((in->rank ? in->rank : 1) * sizeof *in->shape);
        if (!in->shape) return cli_oom();
        for (size_t d = 0; d < in->rank; d++) {
            json_t *x = json_array_get(v, d);
            if (!json_is_integer(x) || json_integer_value(x) < 0)
                return cli_input_error("%s: point %zu: the sizes of '%s' must be a list of non-negative integers "
                                       "(item %zu is not)", fname, pi, k, d);
            in->shape[d] = json_integer_value(x);
        }
    }
    return EX_OK;
}

/* The output shapes of an ONNX model at a point: a concrete run (every dim
 * static at the point's sizes) in a fresh environment; an error where the
 * shape rules reject the sizes. */
static sy_status onnx_outputs(const sy_onnx_model *om, const point *pt, json_t *outs, char *err, size_t errlen)
{
    sy_ctx *ctx = cli_ctx();
    sy_env *env = sy_env_new(ctx, NULL);
    sy_onnx_example *ex = calloc(pt->n ? pt->n : 1, sizeof *ex);
    sy_status st = env && ex ? SY_OK : SY_ENOMEM;
    for (size_t k = 0; k < pt->n && !st; k++) {
        ex[k].input = pt->in[k].name;
        ex[k].ndim = pt->in[k].rank;
        ex[k].shape = pt->in[k].shape;
    }
    sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
    to.nexamples = pt->n;
    to.examples = ex;
    to.concrete = 1;
    sy_onnx_trace *ot = NULL;
    if (!st) st = sy_env_trace_onnx(env, om, &to, &ot);
    if (st) snprintf(err, errlen, "%s", sy_ctx_last_error(ctx) ? sy_ctx_last_error_msg(ctx) : "out of memory");
    for (size_t i = 0; !st && i < sy_onnx_trace_noutputs(ot); i++) {
        sy_value v = sy_value_tensor(sy_onnx_trace_value(ot, sy_onnx_trace_output(ot, i)));
        st = flat_shapes(ctx, &v, outs, err, errlen);
    }
    sy_onnx_trace_free(ot);
    sy_env_free(env);
    sy_ctx_free(ctx);
    free(ex);
    return st;
}

/* How many of the points the guard set traced under policy eo accepts
 * (the same model and spec; a model that does not trace under it: -1). */
static long accepted_under(const model_opts *m, sy_env_options eo, json_t *points, const char *points_file, long *unsound)
{
    *unsound = 0;
    model_opts m2 = *m;
    m2.eo = eo;
    traced t2;
    int rc = trace_model("probe", &m2, &t2);
    size_t ns = rc == EX_OK ? sy_gset_nsources(t2.gs) : 0;
    int64_t *vals = calloc(ns + 1, sizeof *vals);
    point pt;
    memset(&pt, 0, sizeof pt);
    long acc = rc == EX_OK && vals ? 0 : -1;
    for (size_t pi = 0; acc >= 0 && pi < json_array_size(points); pi++) {
        point_clear(&pt, 0);
        sy_gset_result res;
        if (json_point(points_file, pi, json_array_get(points, pi), &pt) != EX_OK || point_arrays(&pt, pt.n)) {
            acc = -1;
            break;
        }
        point_names(&pt);
        if (shape_values(&t2, pt.n, pt.names, pt.ranks, pt.shapes, pt.dts, vals, "re-run") != EX_OK ||
            sy_gset_check_si(t2.gs, vals, ns, &res) != SY_OK) {
            acc = -1;
            break;
        }
        acc += res.accept;
        /* accepted where the points file says PyTorch fails */
        *unsound += res.accept && json_is_false(json_object_get(json_array_get(points, pi), "ok"));
    }
    point_free(&pt, 0);
    free(vals);
    traced_free(&t2);
    return acc;
}

/* The head of a derived guard's why: up to its first ':', ';' or " (" outside a source's parentheses
 * ("exact range of x.size()[1] (proved equivalent): ..." -> "exact range of x.size()[1]") */
static size_t why_head(const char *why)
{
    int depth = 0;
    size_t i = 0;
    for (; why[i]; i++) {
        char c = why[i];
        if (!depth && (c == ':' || c == ';' || (c == '(' && i && why[i - 1] == ' '))) break;
        if (c == '(') depth++;
        else if (c == ')' && depth) depth--;
    }
    return i;
}

/* The kernel fails otherwise (sy_env_require: an op's validity check or an `_assert`), not a branch the trace
 * chose (a guard_bool/guard_int capture, an op's decision such as a Slice end's sign or a broadcast of a 1) */
static int origin_required(const sy_guard_origin *o)
{
    return o->required && !(o->op && !strncmp(o->op, "guard_", 6));
}

/* After several points: how many each guard rejected (the first failing
 * one), with what produced it and, where a policy flag avoids it (the why
 * names --no-duck-sizing or --no-specialize-01), how many points the guard
 * set traced under that flag accepts (the probe re-run under it). */
static int rejection_counts(const model_opts *m, traced *t, json_t *points, const char *points_file, const size_t *rejected,
                            size_t npts)
{
    static const char *const flags[2] = {"--no-duck-sizing", "--no-specialize-01"};
    long under[2] = {-2, -2}, unsound[2] = {0, 0}; /* -2: not run yet */
    size_t ng = sy_gset_size(t->gs), nrej = 0;
    for (size_t i = 0; i < ng; i++) nrej += rejected[i];
    fprintf(stderr, "rejections by guard (the first failing guard of each point): %zu of %zu points rejected\n", nrej, npts);
    for (size_t i = 0; i < ng; i++) {
        if (!rejected[i]) continue;
        const sy_gset_guard *g = sy_gset_at(t->gs, i);
        const char *why = g->why ? g->why : "";
        /* what produced it: the why up to its first ':' for a derived guard, the op for a recorded one */
        char label[320];
        const sy_guard_origin *req = NULL;
        for (size_t k = 0; k < g->norigins && !req; k++)
            if (origin_required(&g->origins[k])) req = &g->origins[k];
        if (req && req->op) snprintf(label, sizeof label, "required by %s at node '%s'", req->op, req->node ? req->node : "?");
        else if (g->norigins && g->origins[0].op) /* a branch: other sizes take another one, which this trace did not follow */
            snprintf(label, sizeof label,
                     "a branch %s at node '%s' took at the example (other sizes take another branch; the guard set is specialized "
                     "to this one)",
                     g->origins[0].op, g->origins[0].node ? g->origins[0].node : "?");
        else snprintf(label, sizeof label, "%.*s", (int)why_head(why), why);
        size_t ll = strlen(label);
        while (ll && label[ll - 1] == ' ') label[--ll] = 0;
        fprintf(stderr, "  [%zu] %s: %zu of %zu \xe2\x80\x94 %s", i, g->display, rejected[i], npts, label);
        for (int f = 0; f < 2; f++) {
            if (!strstr(why, flags[f])) continue;
            if (!strcmp(m->model, "-")) {
                fprintf(stderr, "; %s avoids it (not re-run: the model was read from stdin)", flags[f]);
                continue;
            }
            if (under[f] == -2) {
                sy_env_options eo = m->eo;
                if (f == 0) eo.duck_sizing = 0;
                else eo.specialize_zero_one = 0;
                under[f] = accepted_under(m, eo, points, points_file, &unsound[f]);
            }
            if (under[f] < 0) {
                fprintf(stderr, "; %s avoids it (the re-run under it failed)", flags[f]);
                continue;
            }
            fprintf(stderr, "; %s accepts %ld", flags[f], under[f]);
            if (unsound[f]) fprintf(stderr, " (SOUNDNESS: %ld of them where PyTorch fails)", unsound[f]);
        }
        fprintf(stderr, "\n");
    }
    return EX_OK;
}

static const struct option probe_opts[] = {{"sizes", required_argument, NULL, 's'},
                                           {"points", required_argument, NULL, OPT_POINTS},
                                           {"json", no_argument, NULL, OPT_JSON},
                                           {"fail-on-reject", no_argument, NULL, OPT_FAIL_ON_REJECT},
                                           {"strides", required_argument, NULL, OPT_STRIDES},
                                           MODEL_OPTIONS,
                                           CLI_COMMON_OPTIONS,
                                           {0}};

static int run_probe(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    const char *points_file = NULL;
    int as_json = 0, fail_on_reject = 0, rc = EX_OK, o;
    point cmdline, pt;
    memset(&cmdline, 0, sizeof cmdline);
    memset(&pt, 0, sizeof pt);
    json_t *points = NULL;
    strides_in strs[64];
    size_t nstrs = 0;
    while (rc == EX_OK && (o = cli_getopt(&cmd_probe, argc, argv, "s:" CLI_COMMON_SHORT, probe_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        int r = model_option("probe", &m, o, optarg);
        if (r < 0) {
            rc = -r;
        } else if (r) {
            continue;
        } else if (o == 's') {
            point_in in;
            char *name;
            int pr = cli_parse_sizes(optarg, &name, &in.shape, &in.rank);
            if (pr == -2) {
                rc = cli_oom();
                break;
            }
            if (pr) {
                rc = cli_usage_error("probe", "--sizes expects NAME=D,D,... with non-negative integers up to 2^63-1 "
                                     "(got '%s')", optarg);
                break;
            }
            in.name = name;
            for (size_t k = 0; k < cmdline.n && rc == EX_OK; k++)
                if (!strcmp(cmdline.in[k].name, name))
                    rc = cli_usage_error("probe", "input '%s' given twice (one point per call; use --points for several)",
                                         name);
            if (rc == EX_OK && cli_reserve(&cmdline.in, &cmdline.cap, cmdline.n + 1, sizeof *cmdline.in)) rc = cli_oom();
            if (rc != EX_OK) {
                free(name);
                free(in.shape);
                break;
            }
            cmdline.in[cmdline.n++] = in;
        } else if (o == OPT_POINTS) {
            points_file = optarg;
        } else if (o == OPT_JSON) {
            as_json = 1;
        } else if (o == OPT_FAIL_ON_REJECT) {
            fail_on_reject = 1;
        } else if (o == OPT_STRIDES) {
            if (nstrs == sizeof strs / sizeof strs[0]) {
                rc = cli_usage_error("probe", "--strides given for more than 64 inputs");
                break;
            }
            strides_in *si = &strs[nstrs];
            int pr = cli_parse_sizes(optarg, &si->name, &si->st, &si->n);
            if (pr == -2) {
                rc = cli_oom();
                break;
            }
            if (pr) {
                rc = cli_usage_error("probe", "--strides expects NAME=S,S,... with non-negative integers (got '%s')", optarg);
                break;
            }
            nstrs++;
        }
    }
    if (rc == EX_OK && nstrs && !cmdline.n) rc = cli_usage_error("probe", "--strides goes with --sizes (the one point)");
    for (size_t q = 0; q < nstrs && rc == EX_OK; q++) {
        size_t k = 0;
        while (k < cmdline.n && strcmp(cmdline.in[k].name, strs[q].name)) k++;
        if (k == cmdline.n) rc = cli_usage_error("probe", "--strides %s: no --sizes for input '%s'", strs[q].name, strs[q].name);
        else if (cmdline.in[k].rank != strs[q].n)
            rc = cli_usage_error("probe", "--strides %s: %zu strides for a %zu-D input", strs[q].name, strs[q].n, cmdline.in[k].rank);
    }
    if (rc == EX_OK && argc - optind > 1) rc = cli_usage_error("probe", "expected one model file");
    if (rc == EX_OK && argc - optind < 1) rc = cli_usage_error("probe", "expected a model file ('-': stdin)");
    if (rc == EX_OK) m.model = argv[optind];
    if (rc == EX_OK && !points_file && !cmdline.n) rc = cli_usage_error("probe", "expected --sizes NAME=D,... or --points FILE");
    if (rc == EX_OK && points_file && cmdline.n) rc = cli_usage_error("probe", "use either --sizes or --points, not both");
    if (rc == EX_OK && points_file) {
        char *text = NULL;
        size_t len = 0;
        rc = cli_read_input("probe", points_file, &text, &len);
        json_error_t err;
        json_t *root = rc == EX_OK ? json_loadb(text, len, 0, &err) : NULL;
        free(text);
        if (rc == EX_OK && !root)
            rc = cli_input_error("%s: line %d, column %d: %s", cli_file_name(points_file), err.line, err.column, err.text);
        if (rc == EX_OK) {
            points = json_incref(json_object_get(root, "points"));
            if (!json_is_array(points))
                rc = cli_input_error("%s: expected an object with a \"points\" list", cli_file_name(points_file));
        }
        json_decref(root);
    }
    if (rc != EX_OK) {
        json_decref(points);
        point_free(&cmdline, 1);
        for (size_t q = 0; q < nstrs; q++) free(strs[q].name), free(strs[q].st);
        model_opts_free(&m);
        return rc;
    }
    traced t;
    rc = trace_model("probe", &m, &t);
    sy_realvals *rv = rc == EX_OK && t.g ? sy_realvals_new(t.ctx, t.g) : NULL;
    size_t ns = rc == EX_OK ? sy_gset_nsources(t.gs) : 0;
    int64_t *vals = calloc(ns ? ns : 1, sizeof *vals);
    if (rc == EX_OK && ((t.g && !rv) || !vals)) rc = cli_oom();
    size_t npts = points ? json_array_size(points) : 1;
    long accepted = 0, violations = 0, truth = 0, mismatches = 0;
    size_t ng = rc == EX_OK ? sy_gset_size(t.gs) : 0;
    size_t *rejected = calloc(ng + 1, sizeof *rejected); /* points each guard rejected first */
    if (rc == EX_OK && !rejected) rc = cli_oom();
    cli_progress prog;
    cli_progress_start(&prog, "probe", "points", points ? npts : 0);
    const char *pname = cli_file_name(points_file);
    for (size_t pi = 0; pi < npts && rc == EX_OK; pi++) {
        json_t *p = points ? json_array_get(points, pi) : NULL;
        point *cur = &cmdline;
        char bind_err[1024] = "";
        if (points) {
            point_clear(&pt, 0);
            if ((rc = json_point(points_file, pi, p, &pt)) != EX_OK) break;
            cur = &pt;
        }
        if (point_arrays(cur, cur->n)) {
            rc = cli_oom();
            break;
        }
        char where[1100];
        snprintf(where, sizeof where, "%s: point %zu", pname, pi);
        point_names(cur);
        if ((rc = shape_values(&t, cur->n, cur->names, cur->ranks, cur->shapes, cur->dts, vals, points ? where : NULL)) !=
            EX_OK)
            break;
        for (size_t k = 0; k < cur->n && rv && !bind_err[0]; k++) {
            point_in *in = &cur->in[k];
            if (sy_realvals_bind(rv, in->name, in->rank, in->shape) != SY_OK) {
                /* a rank mismatch: the guard set rejects it; real values are not available (never
                 * the previous point's) */
                snprintf(bind_err, sizeof bind_err, "%s", sy_ctx_last_error_msg(t.ctx));
                sy_ctx_reset_error(t.ctx);
            }
        }
        sy_gset_result res;
        const int64_t *cstr[64] = {0};
        for (size_t k = 0; k < cur->n && k < 64 && !points; k++)
            for (size_t q = 0; q < nstrs; q++)
                if (!strcmp(strs[q].name, cur->in[k].name)) cstr[k] = strs[q].st;
        if (cur->n > 64 && nstrs) {
            rc = cli_usage_error("probe", "--strides with more than 64 inputs");
            break;
        }
        /* --strides: the stride sources from the given strides (shape_values took the contiguous ones) */
        if (nstrs && !points &&
            sy_gset_values_from_tensors(t.gs, cur->n, cur->names, cur->ranks, cur->shapes, cstr, cur->dts, vals) != SY_OK) {
            if (points) rc = cli_input_error("%s: point %zu: %s", pname, pi, sy_ctx_last_error_msg(t.ctx));
            else rc = cli_lib_error(t.ctx, "sizes");
            break;
        }
        memset(&res, 0, sizeof res);
        if (sy_gset_check_si(t.gs, vals, ns, &res) != SY_OK) {
            rc = cli_lib_error(t.ctx, "check");
            break;
        }
        json_t *outs = json_array();
        sy_status st = SY_OK;
        char err[1024] = "";
        if (bind_err[0]) {
            st = SY_EINVAL;
            snprintf(err, sizeof err, "%s", bind_err);
        }
        if (t.om && !st) st = onnx_outputs(t.om, cur, outs, err, sizeof err);
        for (size_t oi = 0; rv && oi < sy_realvals_noutputs(rv) && !st; oi++) {
            const sy_value *val;
            st = sy_realvals_output(rv, oi, &val);
            if (st) snprintf(err, sizeof err, "%s", sy_ctx_last_error_msg(t.ctx));
            else st = flat_shapes(t.ctx, val, outs, err, sizeof err);
        }
        if (res.accept) accepted++;
        else if (res.failed >= 0 && (size_t)res.failed < ng) rejected[res.failed]++;
        int violation = 0;
        /* the inferred shapes at an accepted point where the model runs: they must be its real outputs */
        json_t *inferred = res.accept && !st ? inferred_outputs(&t, vals) : NULL;
        int mismatch = inferred && !json_equal(inferred, outs);
        mismatches += mismatch;
        if (p && json_object_get(p, "ok")) {
            json_t *okv = json_object_get(p, "ok"), *want = json_object_get(p, "outputs");
            if (!json_is_boolean(okv) || (json_is_true(okv) && !json_is_array(want))) {
                rc = cli_input_error("%s: point %zu: \"ok\" must be true or false, and \"outputs\" an array when ok",
                                     pname, pi);
                json_decref(outs);
                json_decref(inferred);
                break;
            }
            truth++;
            violation = res.accept && (!json_is_true(okv) || st || !json_equal(outs, want));
        }
        violation |= mismatch;
        violations += violation;
        json_t *sz = json_object();
        for (size_t k = 0; k < cur->n; k++) {
            json_t *a = json_array();
            for (size_t d = 0; d < cur->in[k].rank; d++) json_array_append_new(a, json_integer(cur->in[k].shape[d]));
            json_object_set_new(sz, cur->in[k].name, a);
        }
        cli_progress_clear(&prog); /* the point's line, then the progress again */
        if (as_json) {
            json_t *jo = json_pack("{s:o, s:b, s:s?, s:o, s:s?}", "sizes", sz, "accept", res.accept, "failed_guard",
                                   res.accept ? NULL : res.message, "outputs", st ? json_null() : json_incref(outs),
                                   "error", st ? err : NULL);
            if (mismatch) json_object_set_new(jo, "inferred_outputs", json_incref(inferred));
            if (violation) json_object_set_new(jo, "soundness_violation", json_true());
            char *line = json_dumps(jo, JSON_COMPACT | JSON_PRESERVE_ORDER);
            printf("%s\n", line);
            free(line);
            json_decref(jo);
        } else {
            char *szs = json_dumps(sz, JSON_COMPACT | JSON_PRESERVE_ORDER), *os = json_dumps(outs, JSON_COMPACT);
            char *is = mismatch ? json_dumps(inferred, JSON_COMPACT) : NULL;
            printf("%s: %s%s%s; outputs %s%s%s%s\n", szs, res.accept ? "accept" : "reject (", res.accept ? "" : res.message,
                   res.accept ? "" : ")", st ? err : os,
                   mismatch ? "; SOUNDNESS VIOLATION: accepted, but the inferred output shapes give " : "", is ? is : "",
                   violation && !mismatch ? "; SOUNDNESS VIOLATION: accepted, but PyTorch's outcome differs" : "");
            free(szs);
            free(os);
            free(is);
            json_decref(sz);
        }
        json_decref(outs);
        json_decref(inferred);
        cli_progress_step(&prog, pi + 1);
    }
    cli_progress_done(&prog);
    if (rc == EX_OK && (truth || mismatches))
        fprintf(stderr, "%zu points: %ld accepted, %ld soundness violations%s\n", npts, accepted, violations,
                mismatches ? " (counting the accepted points where the inferred output shapes are not the real ones)" : "");
    if (rc == EX_OK && points && npts > 1) rc = rejection_counts(&m, &t, points, points_file, rejected, npts);
    /* the guards decide the points; a violated dynamic-dim spec is said (run/infer list each with its fix) */
    if (rc == EX_OK && sy_gset_nviolations(t.gs))
        fprintf(stderr, "symshape: note: the guards violate the dynamic-dim spec %zu time%s (see 'symshape run' or 'symshape infer')\n",
                sy_gset_nviolations(t.gs), sy_gset_nviolations(t.gs) == 1 ? "" : "s");
    if (rc == EX_OK && violations) rc = EX_FALSE;
    if (rc == EX_OK && fail_on_reject && (size_t)accepted < npts) rc = EX_FALSE;
    free(vals);
    free(rejected);
    sy_realvals_free(rv);
    json_decref(points);
    point_free(&pt, 0);
    point_free(&cmdline, 1);
    for (size_t q = 0; q < nstrs; q++) free(strs[q].name), free(strs[q].st);
    traced_free(&t);
    model_opts_free(&m);
    return rc;
}

/* ------------------------------------------------------------------ verify */

/* The model's example sizes (its graph's input shapes) as source values:
 * *vals (sy_gset_nsources entries, free with free()). */
static int example_values(const traced *t, int64_t **vals)
{
    size_t ni = sy_graph_ninputs(t->g), ns = sy_gset_nsources(t->gs);
    const char **names = calloc(ni + 1, sizeof *names);
    size_t *ranks = calloc(ni + 1, sizeof *ranks);
    const int64_t **shapes = calloc(ni + 1, sizeof *shapes);
    sy_dtype *dts = calloc(ni + 1, sizeof *dts);
    *vals = calloc(ns + 1, sizeof **vals);
    int rc = names && ranks && shapes && dts && *vals ? EX_OK : cli_oom();
    for (size_t i = 0; rc == EX_OK && i < ni; i++) {
        const sy_graph_input *in = sy_graph_input_at(t->g, i);
        names[i] = in->name;
        ranks[i] = in->ndim;
        shapes[i] = in->shape;
    }
    if (rc == EX_OK) rc = shape_values(t, ni, names, ranks, shapes, dts, *vals, "example sizes");
    free(names);
    free(ranks);
    free(shapes);
    free(dts);
    if (rc != EX_OK) {
        free(*vals);
        *vals = NULL;
    }
    return rc;
}

static const char *const verdict_names[] = {"proven", "refuted", "unknown"};
static const char obligation_letters[] = "abcd";

static void print_obligation(void *ud, const sy_verify_obligation *ob)
{
    cli_progress *prog = ud; /* "symshape: verify: N obligations" while Z3 works on the next */
    cli_progress_clear(prog);
    printf("(%c) %-7s %s [%.3f s]\n", obligation_letters[ob->kind], verdict_names[ob->verdict], ob->what, ob->seconds);
    if (ob->counterexample) printf("    counterexample: %s\n", ob->counterexample);
    if (ob->reason) printf("    reason: %s\n", ob->reason);
    fflush(stdout);
    cli_progress_tick(prog);
}

static const struct option verify_opts[] = {{"timeout", required_argument, NULL, OPT_TIMEOUT},
                                            {"rlimit", required_argument, NULL, OPT_JSON},
                                            {"cases", required_argument, NULL, OPT_POINTS},
                                            {"max-cases", required_argument, NULL, OPT_MAX_CASES},
                                            MODEL_OPTIONS,
                                            CLI_COMMON_OPTIONS,
                                            {0}};

static int run_verify(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    sy_verify_options vo = SY_VERIFY_OPTIONS_INIT;
    const char *cases = NULL;
    int rc = EX_OK, o;
    while (rc == EX_OK && (o = cli_getopt(&cmd_verify, argc, argv, CLI_COMMON_SHORT, verify_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        int r = model_option("verify", &m, o, optarg);
        if (r < 0) rc = -r;
        else if (r) continue;
        else if (o == OPT_TIMEOUT) {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!*optarg || *end || v == 0 || v > 3600000ul)
                rc = cli_usage_error("verify", "--timeout expects milliseconds in [1, 3600000] (got '%s')", optarg);
            vo.timeout_ms = (unsigned)v;
        } else if (o == OPT_JSON) {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!*optarg || *end || v == 0 || v > 4000000000ul)
                rc = cli_usage_error("verify", "--rlimit expects a Z3 resource limit in [1, 4000000000] (got '%s')", optarg);
            vo.rlimit = (unsigned)v;
        } else if (o == OPT_MAX_CASES) {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!*optarg || *end || v == 0 || v > SY_VERIFY_MAX_CASES_LIMIT)
                rc = cli_usage_error("verify", "--max-cases expects a number of cases in [1, %u] (got '%s')",
                                     SY_VERIFY_MAX_CASES_LIMIT, optarg);
            vo.max_cases = (unsigned)v;
        } else if (o == OPT_POINTS) cases = optarg;
    }
    if (rc == EX_OK && cases && (optind < argc || m.nov || !m.eo.duck_sizing || !m.eo.specialize_zero_one))
        rc = cli_usage_error("verify", "--cases takes no model and no model options");
    if (rc == EX_OK && !cases && argc - optind != 1) rc = cli_usage_error("verify", "expected one model file (or --cases FILE)");
    if (rc == EX_OK && !cases && is_onnx(argv[optind]))
        rc = cli_usage_error("verify", "verify reads JSON graphs; ONNX models are not supported by verify yet");
    /* Z3 is loaded here (symshape/verify.h): no other command loads it */
    if (rc == EX_OK && !sy_verify_available()) rc = cli_input_error("%s", sy_verify_unavailable_reason());
    if (rc != EX_OK) {
        model_opts_free(&m);
        return rc;
    }
    if (cases) {
        model_opts_free(&m);
        return cli_verify_cases(cases, &vo);
    }
    m.model = argv[optind];
    traced t;
    rc = trace_model("verify", &m, &t);
    sy_gset *produced = NULL;
    if (rc == EX_OK && sy_gset_produce(t.env, t.g, &produced) != SY_OK) rc = cli_lib_error(t.ctx, "produce guards");
    /* (d): the graph's example sizes */
    int64_t *example = NULL;
    if (rc == EX_OK) rc = example_values(&t, &example);
    sy_verify_summary sum;
    if (rc == EX_OK) {
        printf("verify %s: %zu guards (%zu produced), %zu recorded decisions\n", sy_graph_name(t.g), sy_gset_size(t.gs),
               sy_gset_size(produced), sy_env_nguards(t.env));
        fflush(stdout);
        cli_progress prog;
        cli_progress_start(&prog, "verify", "obligations done", 0);
        if (sy_verify_model(t.env, produced, t.gs, example, &vo, print_obligation, &prog, &sum) != SY_OK)
            rc = cli_lib_error(t.ctx, "verify");
        cli_progress_done(&prog);
    }
    if (rc == EX_OK) {
        printf("%zu obligations: %zu proven, %zu refuted, %zu unknown", sum.proven + sum.refuted + sum.unknown, sum.proven,
               sum.refuted, sum.unknown);
        if (sum.skipped_runtime) printf(" (%zu runtime asserts are checked at run time, not implied)", sum.skipped_runtime);
        printf("\n");
        rc = sum.refuted ? EX_FALSE : sum.unknown ? EX_UNKNOWN : EX_OK;
    }
    free(example);
    sy_gset_free(produced);
    traced_free(&t);
    model_opts_free(&m);
    return rc;
}

#define MODEL_HELP                                                                                                  \
    "      --dynamic 'NAME=D[:DIM][@MIN..MAX],...'\n"                                                             \
    "                           the dims of input NAME that get symbols (replaces the graph's\n"               \
    "                           list); :DIM names a Dim (one name on several dims declares them\n"            \
    "                           equal), @MIN..MAX its range (either bound may be left out); ONNX:\n"         \
    "                           a Dim on a dim with a dim_param declares every dim with it\n"                \
    "      --static NAME        every dim of input NAME is static\n"                                            \
    "      --no-duck-sizing     equal example sizes do not share a symbol\n"                                    \
    "      --no-specialize-01   example sizes 0 and 1 stay symbolic (range [0, oo))\n"                          \
    "      --example NAME=D,..  ONNX: the example sizes (hints) of input NAME's dims (default: its\n"           \
    "                           dim_value, 224 for a symbolic dim)\n"                                        \
    "  -h, --help               this help;  -V, --version  the version\n"

const cli_cmd cmd_run = {"run", "trace a model and render its minimized guard set",
    "usage: symshape run [options] [MODEL.json | MODEL.onnx]\n\n"
    "Traces MODEL ('-': stdin; default: the bundled examples/resnet18.json,\n"
    "installed in ../share/symshape/examples next to the executable) with symbolic\n"
    "sizes, produces and minimizes its guard set and renders it with a backend.\n\n"
    "  -b, --backend NAME       report (default, text), markdown, json, c, bytecode,\n"
    "                           or any registered backend\n"
    "  -o, --output FILE        write there instead of stdout ('-': stdout)\n"
    "      --prefix NAME        symbol prefix of the C backend (default guards)\n"
    "      --stats              phase timings and guard counts on stderr\n"
    "      --list-unsupported   list every op of MODEL without a shape rule (one line per op:\n"
    "                           node count, first node) instead of tracing\n"
    MODEL_HELP
    CLI_EXIT_HEAD
    "  0  rendered the guard set (--list-unsupported: every op is supported)\n"
    "  1  rendered, and the guard set violates the dynamic-dim spec (--dynamic names/ranges);\n"
    "     --list-unsupported: some ops are not supported (listed)\n"
    "  2  usage error (unknown option or backend, a --dynamic/--static naming no input or dim)\n"
    "  3  bad model (the message names the file and the node or line/column), unwritable output\n"
    CLI_EXIT_INTERNAL,
    run_run, 0};

const cli_cmd cmd_probe = {"probe", "check sizes against the guard set and compute the real output shapes",
    "usage: symshape probe [options] (--sizes NAME=D,D,... ... | --points PROBES.json) MODEL\n\n"
    "For each point: whether the guard set accepts it (and the first failing guard\n"
    "with the values it read), and the model's output shapes there computed with\n"
    "get_real_value (or the error where the model cannot run). MODEL '-' reads stdin.\n\n"
    "  -s, --sizes NAME=D,...   the sizes of input NAME at the one point (one per input)\n"
    "      --strides NAME=S,... the strides of input NAME at that point (elements, as\n"
    "                           Tensor.stride(); default: contiguous). Read by the stride\n"
    "                           guards (NAME.stride()[I]) of a graph that declares or reads strides\n"
    "      --points FILE        the points of a probes file (docs/graph-format.md; '-': stdin);\n"
    "                           with ground truth (ok/outputs) a summary of soundness violations\n"
    "                           is printed on stderr; with several points, then how many points\n"
    "                           each guard rejected first, what produced it, and, where a policy\n"
    "                           flag avoids it, how many the probe accepts re-run under that flag\n"
    "                           ([2] x.size()[2] == x.size()[3]: 150 of 151 \xe2\x80\x94 duck sizing;\n"
    "                           --no-duck-sizing accepts 137)\n"
    "      --json               one JSON object per point:\n"
    "                           {\"sizes\": {...}, \"accept\": true|false, \"failed_guard\": \"...\"|null,\n"
    "                            \"outputs\": [[...], ...]|null, \"error\": \"...\"|null}, plus\n"
    "                            \"soundness_violation\": true where the ground truth differs, or where\n"
    "                            the guards accept and the inferred output shapes evaluated at the point\n"
    "                            (then in \"inferred_outputs\") are not the real outputs\n"
    "      --fail-on-reject     exit 1 when the guards reject a point\n"
    MODEL_HELP
    CLI_EXIT_HEAD
    "  0  every point was checked (no soundness violation)\n"
    "  1  a soundness violation against the points' ground truth, or (--fail-on-reject) a\n"
    "     rejected point\n" CLI_EXIT_USAGE
    "  3  bad model or points file\n" CLI_EXIT_INTERNAL,
    run_probe, 0};

const cli_cmd cmd_verify = {"verify", "prove a model's guard set with Z3 (translation validation)",
    "usage: symshape verify [options] MODEL.json\n"
    "       symshape verify [--timeout MS] [--rlimit N] [--max-cases N] --cases FILE.cases\n\n"
    "Proves with Z3, over all integers (sizes and ranks >= 0), one line per obligation:\n"
    "  (a) the minimized guard set is equivalent to the produced one;\n"
    "  (b) the guard set implies every decision and requirement recorded while tracing\n"
    "      (translation validation, as PyTorch's fx/experimental/validator.py);\n"
    "  (c) it implies every replacement the env used;\n"
    "  (d) every guard holds at the model's example sizes.\n"
    "Each line says proven, refuted (with a counterexample point) or unknown (Z3's\n"
    "timeout); unknown is never counted as proven. With --cases: proves every simplify\n"
    "result equal to its input and every decide/bound answer, for all integer\n"
    "assignments that satisfy the case's assumptions (FILE '-': stdin).\n\n"
    "      --rlimit N           Z3's deterministic resource limit per obligation (default\n"
    "                           2000000): past it the verdict is unknown on every machine\n"
    "      --timeout MS         wall-clock limit per obligation (default 60000)\n"
    "      --max-cases N        the residue split's largest number of cases (default 4096):\n"
    "                           an obligation Z3 leaves unknown with Mod(p, c), FloorDiv(p, c)\n"
    "                           or CeilDiv(p, c) of a nonlinear polynomial p by a constant c is\n"
    "                           split on its symbols' residues modulo c (p(x) = p(x mod c) mod c);\n"
    "                           past N cases it stays unknown\n"
    "      --cases FILE         verify a .cases file instead of a model\n"
    MODEL_HELP
    CLI_EXIT_HEAD
    "  0  every obligation proven\n"
    "  1  an obligation refuted\n" CLI_EXIT_USAGE
    "  3  bad model or cases file, or Z3 not available (built without it, or libz3 cannot be loaded)\n" CLI_EXIT_INTERNAL
    "  5  no refutation, but an obligation unknown (timeout)\n",
    run_verify, 0};

/* ------------------------------------------------------------------ infer */

static const struct option infer_opts[] = {{"output", required_argument, NULL, 'o'},
                                           {"json", no_argument, NULL, OPT_JSON},
                                           {"stats", no_argument, NULL, OPT_STATS},
                                           MODEL_OPTIONS,
                                           CLI_COMMON_OPTIONS,
                                           {0}};

static int utf8_valid(const char *s);
static void escape_bytes(char *out, size_t cap, const char *s);

/* s (valid UTF-8) as a JSON string on stdout, escaped byte for byte as jansson's json_dumps
 * escapes it without JSON_ENSURE_ASCII / JSON_ESCAPE_SLASH (jansson 2.14 dump.c, dump_string):
 * '"' and '\\' and the controls \b \f \n \r \t get their short forms, every other byte below
 * 0x20 is \u00XX (upper-case hex), everything else (DEL, '/', non-ASCII) is copied.  This is the
 * per-value path of `infer --json` (2518 names on swin): jansson's json_string + json_dumps cost
 * about 6,000 instructions per name, this about 10 per byte. */
static void put_json_string(const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *run = p;
    putchar('"');
    for (;; p++) {
        unsigned c = *p;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        if (p > run) fwrite(run, 1, (size_t)(p - run), stdout);
        run = p + 1;
        if (!c) break;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                        : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
        if (esc) fputs(esc, stdout);
        else printf("\\u%04X", c);
    }
    putchar('"');
}

/* a signed 64-bit integer in decimal on stdout (printf's %lld, without its format parsing) */
static void put_i64(int64_t v)
{
    char b[24], *e = b + sizeof b, *q = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do *--q = (char)('0' + u % 10); while (u /= 10);
    if (v < 0) *--q = '-';
    fwrite(q, 1, (size_t)(e - q), stdout);
}

/* Every value's shape, streamed (one value at a time: JSON `"name": [dims]`
 * entries, or text lines `  name: [dims]`): a dim is an integer or the
 * printed expression over display names, the last few printed kept (sizes
 * repeat from value to value). */
static int print_values(traced *t, int as_json)
{
    enum { MEMO = 16 };
    const sy_expr *mk[MEMO] = {NULL};
    char *mv[MEMO] = {NULL};
    size_t next = 0;
    int rc = EX_OK;
    for (size_t i = 0; rc == EX_OK && i < sy_onnx_trace_nvalues(t->ot); i++) {
        const sy_tensor *v = sy_onnx_trace_value(t->ot, i);
        if (as_json) { /* the names are valid UTF-8 (infer_utf8_check) */
            fputs(i ? ",\n  " : "\n  ", stdout);
            put_json_string(sy_onnx_trace_value_name(t->ot, i));
            fputs(": [", stdout);
        } else {
            fputs("  ", stdout);
            fputs(sy_onnx_trace_value_name(t->ot, i), stdout);
            fputs(": [", stdout);
        }
        for (size_t k = 0; k < v->ndim; k++) {
            int64_t c;
            if (k) putchar(',');
            if (sy_expr_get_si(v->sizes[k], &c) == SY_OK) {
                put_i64(c);
                continue;
            }
            sy_ctx_reset_error(t->ctx);
            size_t q = 0;
            while (q < MEMO && mk[q] != v->sizes[k]) q++;
            if (q == MEMO) {
                char *e = sy_expr_print(t->ctx, sy_onnx_trace_display(t->ot, v->sizes[k]), SY_PRINT_CANONICAL);
                if (!e) {
                    rc = cli_lib_error(t->ctx, "print");
                    break;
                }
                if (as_json && !utf8_valid(e)) { /* a symbol named by a dim_param that is not UTF-8 */
                    char esc[400];
                    escape_bytes(esc, sizeof esc, e);
                    sy_str_free(t->ctx, e);
                    rc = cli_input_error("value '%s' dim %zu is '%s', which is not valid UTF-8 (a dim_param?) and JSON cannot "
                                         "carry (infer without --json prints it)", sy_onnx_trace_value_name(t->ot, i), k, esc);
                    break;
                }
                q = next++ % MEMO;
                sy_str_free(t->ctx, mv[q]);
                mk[q] = v->sizes[k];
                mv[q] = e;
            }
            put_json_string(mv[q]);
        }
        fputs(as_json ? "]" : "]\n", stdout);
    }
    for (size_t q = 0; q < MEMO; q++) sy_str_free(t->ctx, mv[q]);
    return rc;
}

/* s is valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF), as JSON text must be */
static int utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p, n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;
        if (n == 4 || (n == 1 && c < 0xc2) || (n == 3 && c > 0xf4)) return 0;
        uint32_t cp = n ? c & (0x3fu >> n) : c;
        for (unsigned k = 1; k <= n; k++) {
            if ((p[k] & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (p[k] & 0x3fu);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
        p += n + 1;
    }
    return 1;
}

/* s for an error message: printable ASCII as is, every other byte as \xHH (at most cap - 1 bytes) */
static void escape_bytes(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n + 5 < cap; p++) {
        if (*p >= 0x20 && *p < 0x7f && *p != '\\') out[n++] = (char)*p;
        else n += (size_t)snprintf(out + n, cap - n, "\\x%02x", *p);
    }
    out[n] = 0;
}

/* infer --json: a name that is not valid UTF-8 cannot be a JSON string: exit 3 naming it (before any output) */
static int infer_utf8_check(traced *t, const char *model)
{
    char esc[400];
    const char *mn = sy_onnx_name(t->om);
    if (mn && !utf8_valid(mn)) {
        escape_bytes(esc, sizeof esc, mn);
        return cli_input_error("%s: the model's name '%s' is not valid UTF-8, which JSON cannot carry (infer without --json prints it)",
                               cli_file_name(model), esc);
    }
    for (size_t i = 0; i < sy_onnx_trace_nvalues(t->ot); i++) {
        const char *nm = sy_onnx_trace_value_name(t->ot, i);
        if (utf8_valid(nm)) continue;
        escape_bytes(esc, sizeof esc, nm);
        return cli_input_error("%s: value '%s' has a name that is not valid UTF-8, which JSON cannot carry (infer without --json "
                               "prints it)", cli_file_name(model), esc);
    }
    for (size_t i = 0; i < sy_gset_size(t->gs); i++) {
        const sy_gset_guard *g = sy_gset_at(t->gs, i);
        for (size_t k = 0; k < g->norigins; k++) {
            const sy_guard_origin *o = &g->origins[k];
            if ((!o->node || utf8_valid(o->node)) && (!o->op || utf8_valid(o->op)) && (!o->reason || utf8_valid(o->reason))) continue;
            escape_bytes(esc, sizeof esc, o->node ? o->node : "?");
            char eop[100];
            escape_bytes(eop, sizeof eop, o->op ? o->op : "?");
            return cli_input_error("%s: node '%s' (%s): its name, op or a name it reads is not valid UTF-8, which JSON cannot carry "
                                   "(infer without --json prints it)", cli_file_name(model), esc, eop);
        }
    }
    for (size_t i = 0; i < sy_gset_nviolations(t->gs); i++) { /* a Dim name of --dynamic */
        const sy_gset_violation *v = sy_gset_violation_at(t->gs, i);
        if ((!v->dims || utf8_valid(v->dims)) && (!v->message || utf8_valid(v->message)) && (!v->fix || utf8_valid(v->fix))) continue;
        escape_bytes(esc, sizeof esc, v->message ? v->message : "?");
        return cli_input_error("%s: violation '%s' is not valid UTF-8, which JSON cannot carry (infer without --json prints it)",
                               cli_file_name(model), esc);
    }
    return EX_OK;
}

/* a JSON string of s, unchecked: infer's text output prints names as they are; --json has checked them (infer_utf8_check) */
static json_t *jstr(const char *s) { return s ? json_stringn_nocheck(s, strlen(s)) : json_null(); }

/* a substitution pair of infer's guards: a source's variable and its display
 * symbol; sorted by variable (then position: the first pair of a variable is
 * the one sy_expr_subs would use) */
typedef struct {
    const sy_expr *from, *to;
    size_t at;
} subs_pair;

static int subs_pair_cmp(const void *a, const void *b)
{
    const subs_pair *x = a, *y = b;
    uintptr_t p = (uintptr_t)x->from, q = (uintptr_t)y->from;
    return p < q ? -1 : p > q ? 1 : x->at < y->at ? -1 : x->at > y->at;
}

/* sy_expr_subs of every pair, done with only the pairs whose variable occurs
 * in e (issue 14: one pair per input dim, 3000 guards of 1000 inputs cost 59M
 * instructions over the whole table); NULL on error (recorded in ctx) */
static const sy_expr *subs_sorted(sy_ctx *ctx, const sy_expr *e, const subs_pair *p, size_t n)
{
    const sy_expr **fs = NULL;
    size_t nfs = 0;
    if (sy_expr_free_symbols(ctx, e, &fs, &nfs) != SY_OK) return NULL;
    const sy_expr **from = malloc((nfs ? nfs : 1) * sizeof *from), **to = malloc((nfs ? nfs : 1) * sizeof *to);
    const sy_expr *r = NULL;
    if (from && to) {
        size_t k = 0;
        for (size_t i = 0; i < nfs; i++) {
            size_t lo = 0, hi = n; /* the first pair of fs[i] */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if ((uintptr_t)p[mid].from < (uintptr_t)fs[i]) lo = mid + 1;
                else hi = mid;
            }
            if (lo < n && p[lo].from == fs[i]) {
                from[k] = p[lo].from;
                to[k++] = p[lo].to;
            }
        }
        r = sy_expr_subs(ctx, e, k, from, to);
    }
    free(from);
    free(to);
    sy_mem_free(ctx, fs);
    return r;
}

static int run_infer(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    const char *outpath = NULL;
    int as_json = 0, stats = 0, rc = EX_OK, o;
    while (rc == EX_OK && (o = cli_getopt(&cmd_infer, argc, argv, "o:" CLI_COMMON_SHORT, infer_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        int r = model_option("infer", &m, o, optarg);
        if (r < 0) rc = -r;
        else if (r) continue;
        else if (o == 'o') outpath = optarg;
        else if (o == OPT_JSON) as_json = 1;
        else if (o == OPT_STATS) stats = 1;
    }
    if (rc == EX_OK && argc - optind != 1) rc = cli_usage_error("infer", "expected one model file (MODEL.onnx)");
    if (rc == EX_OK) m.model = argv[optind];
    if (rc == EX_OK && !is_onnx(m.model)) rc = cli_usage_error("infer", "infer reads ONNX models (a file ending in .onnx)");
    if (rc != EX_OK) {
        model_opts_free(&m);
        return rc;
    }
    traced t;
    double t0 = now();
    rc = trace_model("infer", &m, &t);
    double t1 = now();
    if (rc == EX_OK && as_json) rc = infer_utf8_check(&t, m.model);
    json_t *guards = NULL, *syms = NULL;
    subs_pair *pairs = NULL;
    size_t nsub = 0, ns = 0;
    if (rc == EX_OK) {
        guards = json_array();
        syms = json_object();
        ns = sy_gset_nsources(t.gs);
        pairs = calloc(ns ? ns : 1, sizeof *pairs);
        if (!guards || !syms || !pairs) rc = cli_oom();
    }
    for (size_t i = 0; rc == EX_OK && i < ns; i++) {
        const sy_expr *d = sy_onnx_trace_source_symbol(t.ot, sy_gset_source(t.gs, i));
        if (!d || sy_expr_is_int(d)) continue;
        pairs[nsub].from = sy_gset_source_var(t.gs, i);
        pairs[nsub].to = d;
        pairs[nsub].at = nsub;
        nsub++;
        const char *nm = sy_expr_sym_name(d);
        if (nm && !json_object_get(syms, nm)) {
            json_t *sj = json_object();
            json_object_set_new(sj, "source", jstr(sy_gset_source(t.gs, i)));
            json_object_set_new(sj, "sources", json_array());
            json_object_set_new(syms, nm, sj);
        }
        if (nm) json_array_append_new(json_object_get(json_object_get(syms, nm), "sources"), jstr(sy_gset_source(t.gs, i)));
    }
    if (rc == EX_OK) qsort(pairs, nsub, sizeof *pairs, subs_pair_cmp);
    for (size_t i = 0; rc == EX_OK && i < sy_gset_size(t.gs); i++) {
        const sy_gset_guard *g = sy_gset_at(t.gs, i);
        const sy_expr *e = subs_sorted(t.ctx, g->expr, pairs, nsub);
        /* the equality of two sources of one symbol reads "true" over display names: keep the sources */
        int trivial = e && sy_expr_kind_of(e) == SY_EXPR_TRUE && sy_expr_kind_of(g->expr) != SY_EXPR_TRUE;
        char *es = e && !trivial ? sy_expr_print(t.ctx, e, SY_PRINT_CANONICAL) : NULL;
        if (!es && trivial) es = sy_expr_print(t.ctx, g->expr, SY_PRINT_CANONICAL);
        if (!es) {
            rc = cli_lib_error(t.ctx, "guard");
            break;
        }
        json_t *orig = json_array();
        for (size_t k = 0; k < g->norigins; k++) {
            json_t *oj = json_object();
            json_object_set_new(oj, "node", jstr(g->origins[k].node));
            json_object_set_new(oj, "op", jstr(g->origins[k].op));
            json_object_set_new(oj, "reason", jstr(g->origins[k].reason));
            json_object_set_new(oj, "required", json_boolean(origin_required(&g->origins[k])));
            json_array_append_new(orig, oj);
        }
        json_t *gj = json_object();
        json_object_set_new(gj, "guard", jstr(es));
        json_object_set_new(gj, "source", jstr(g->text));
        json_object_set_new(gj, "kind", jstr(sy_gset_kind_name(g->kind)));
        json_object_set_new(gj, "why", jstr(g->why));
        json_object_set_new(gj, "origins", orig);
        if (json_array_append_new(guards, gj)) rc = cli_oom();
        sy_str_free(t.ctx, es);
    }
    /* the violations of the dynamic-dim spec (--dynamic with names or ranges) */
    json_t *viols = rc == EX_OK ? json_array() : NULL;
    if (rc == EX_OK && !viols) rc = cli_oom();
    for (size_t i = 0; rc == EX_OK && i < sy_gset_nviolations(t.gs); i++) {
        const sy_gset_violation *v = sy_gset_violation_at(t.gs, i);
        json_t *g = json_array_get(guards, v->guard);
        json_t *vj = json_object(), *gg = json_object_get(g, "guard");
        json_object_set_new(vj, "guard", gg ? json_incref(gg) : json_null());
        json_object_set_new(vj, "kind", jstr(sy_violation_kind_name(v->kind)));
        json_object_set_new(vj, "dims", jstr(v->dims));
        json_object_set_new(vj, "message", jstr(v->message));
        json_object_set_new(vj, "fix", jstr(v->fix));
        json_object_set_new(vj, "model_requires", json_boolean(v->model_requires));
        if (json_array_append_new(viols, vj)) rc = cli_oom();
    }
    if (rc == EX_OK && outpath) {
        cli_stage("infer", "writing %s", outpath);
        sy_status wst = sy_onnx_write_value_info(t.ot, m.model, outpath);
        cli_stage_end();
        if (wst != SY_OK) rc = cli_lib_error(t.ctx, "write value_info");
    }
    if (rc == EX_OK && as_json) {
        /* streamed: the values are written one by one, never held as one JSON tree */
        json_t *mn = json_string(sy_onnx_name(t.om));
        char *ms = mn ? json_dumps(mn, JSON_ENCODE_ANY) : NULL, *ss = json_dumps(syms, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        json_decref(mn);
        if (!ms || !ss) rc = cli_oom();
        else printf("{\n \"model\": %s,\n \"symbols\": %s,\n \"values\": {", ms, ss);
        free(ms);
        free(ss);
        if (rc == EX_OK) rc = print_values(&t, 1);
        json_t *tail = rc == EX_OK ? json_pack("{s:O, s:O}", "guards", guards, "violations", viols) : NULL;
        char *ts = tail ? json_dumps(tail, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(tail);
        if (rc == EX_OK && !ts) rc = cli_oom();
        if (rc == EX_OK) printf("\n },\n%s\n", ts + 2); /* the tail object without its opening brace */
        free(ts);
    } else if (rc == EX_OK && !outpath) {
        printf("model %s: %zu values, %zu guards\nvalues:\n", sy_onnx_name(t.om), sy_onnx_trace_nvalues(t.ot),
               sy_gset_size(t.gs));
        rc = print_values(&t, 0);
        printf("guards:\n");
        for (size_t i = 0; i < json_array_size(guards); i++) {
            json_t *g = json_array_get(guards, i), *orig = json_object_get(g, "origins");
            /* numbered from 0 as run's report, probe's "guard" and the violations' "guard" index the set */
            printf("  %zu. %s   [%s]", i, json_string_value(json_object_get(g, "guard")),
                   json_string_value(json_object_get(g, "kind")));
            if (json_array_size(orig)) {
                json_t *o0 = json_array_get(orig, 0);
                printf("  from node %s (%s, %s): %s", json_string_value(json_object_get(o0, "node")),
                       json_string_value(json_object_get(o0, "op")),
                       json_is_true(json_object_get(o0, "required")) ? "required" : "a branch taken at the example",
                       json_string_value(json_object_get(o0, "reason")) ? json_string_value(json_object_get(o0, "reason")) : "");
            } else if (json_string_value(json_object_get(g, "why"))) { /* derived: why, as run's report says it */
                printf("  why: %s", json_string_value(json_object_get(g, "why")));
            }
            printf("\n");
        }
        if (json_array_size(viols)) printf("violations of the dynamic-dim spec:\n");
        for (size_t i = 0; i < json_array_size(viols); i++) {
            json_t *vi = json_array_get(viols, i);
            printf("  %zu. [%s] %s\n     fix: %s\n", sy_gset_violation_at(t.gs, i)->guard, /* the guard's number above */
                   json_string_value(json_object_get(vi, "kind")),
                   json_string_value(json_object_get(vi, "message")), json_string_value(json_object_get(vi, "fix")));
        }
    }
    if (rc == EX_OK && stats) {
        size_t kept, skipped;
        sy_onnx_sizes(t.om, &kept, &skipped);
        fprintf(stderr, "model %s: %zu nodes, %zu values, %zu symbols, %zu guards; read %.3f ms, trace %.3f ms, guards %.3f ms, "
                        "total %.3f ms; graph bytes kept %zu, payload bytes skipped %zu\n",
                sy_onnx_name(t.om), sy_onnx_nnodes(t.om), sy_onnx_trace_nvalues(t.ot), sy_env_nsymbols(t.env), sy_gset_size(t.gs),
                t.t_parse * 1e3, t.t_trace * 1e3, (t.t_produce + t.t_minimize) * 1e3, (t1 - t0) * 1e3, kept, skipped);
    }
    /* a violated dynamic-dim spec is exit 1, as for run (torch.export raises) */
    if (rc == EX_OK && json_array_size(viols)) {
        fprintf(stderr, "symshape: %zu violation%s of the dynamic-dim spec\n", json_array_size(viols),
                json_array_size(viols) == 1 ? "" : "s");
        rc = EX_FALSE;
    }
    json_decref(viols);
    free(pairs);
    json_decref(syms);
    json_decref(guards);
    traced_free(&t);
    model_opts_free(&m);
    return rc;
}

const cli_cmd cmd_infer = {"infer", "every value's shape of an ONNX model as expressions, with its guards",
    "usage: symshape infer [options] MODEL.onnx\n\n"
    "Traces MODEL (docs/onnx.md) and prints the shape of every value (inputs,\n"
    "initializers, node outputs) as expressions over the inputs' dims (named by\n"
    "their dim_param, or INPUT_dK), and the minimized guards under which these\n"
    "shapes hold.\n\n"
    "  -o, --output FILE        write a copy of the model with graph.value_info filled\n"
    "                           (dim_value where constant, dim_param = the expression) and\n"
    "                           the graph outputs' dims rewritten the same way; external\n"
    "                           data files are copied beside FILE (never overwriting another)\n"
    "      --json               {\"model\": ..., \"symbols\": {NAME: {\"source\": ...}},\n"
    "                            \"values\": {NAME: [dims as ints or strings]},\n"
    "                            \"guards\": [{\"guard\", \"source\", \"kind\", \"origins\"}],\n"
    "                            \"violations\": [{\"guard\", \"kind\", \"dims\", \"message\", \"fix\",\n"
    "                            \"model_requires\"}]}\n"
    "      --stats              sizes and timings on stderr\n"
    MODEL_HELP
    CLI_EXIT_HEAD
    "  0  inferred\n"
    "  1  inferred, but the guards violate the dynamic-dim spec (--dynamic with names or\n"
    "     ranges): each violation and its fix are printed (\"violations\" in --json)\n" CLI_EXIT_USAGE
    "  3  bad model (the message names the node), unwritable output\n" CLI_EXIT_INTERNAL,
    run_infer, 0};
