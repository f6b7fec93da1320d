/* The model commands' shared part (cli/model.h): the trace options (--dynamic,
 * --static, --no-duck-sizing, --no-specialize-01, --example), the default
 * model, tracing a JSON graph or an ONNX model, and source values. The
 * commands: cmd_run.c, cmd_probe.c, cmd_verify.c, cmd_infer.c. */
#include "cli/model.h"

double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void model_opts_free(model_opts *m)
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
int is_onnx(const char *path)
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
char *default_model(void)
{
    char *path = beside_exe(SY_BIN_TO_DATA "/symshape/examples/resnet18.json", R_OK);
    if (path) return path;
#ifdef SY_SOURCE_EXAMPLES_DIR
    if (access(SY_SOURCE_EXAMPLES_DIR "/resnet18.json", R_OK) == 0) return strdup(SY_SOURCE_EXAMPLES_DIR "/resnet18.json");
#endif
    return NULL;
}

/* --dynamic SPEC (sy_input_spec_parse: NAME=D[:DIM][@MIN..MAX],...) / --static NAME / --no-duck-sizing / --no-specialize-01:
 * returns 1 if option o was ours, 0 if not, or -EX_* on error */
int model_option(const char *cmd, model_opts *m, int o, const char *v)
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

void traced_free(traced *t)
{
    sy_gset_free(t->gs);
    sy_trace_free(t->tr);
    sy_onnx_trace_free(t->ot);
    sy_env_free(t->env);
    sy_graph_free(t->g);
    sy_onnx_free(t->om);
    sy_ctx_free(t->ctx);
}

/* the common end of trace_onnx and trace_model: minimize the produced set (t->gs) with its
 * progress stage, and record the times of the steps (read at t0, traced at t1, traced and
 * produced at t2 and now) */
static int minimize_timed(const char *cmd, traced *t, double t0, double t1, double t2)
{
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

/* Read and trace an ONNX model; where it does not run at the example (related inputs, issue 32) the
 * library traces again at one it chooses (sy_onnx_trace_relate), named here on stderr. */
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
    sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
    to.nexamples = m->nex;
    to.examples = m->ex;
    to.nov = m->nov;
    to.ov = m->ov;
    cli_stage(cmd, "tracing %zu nodes", sy_onnx_nnodes(t->om));
    sy_status tst = sy_onnx_trace_relate(t->ctx, t->om, &m->eo, &to, &t->env, &t->ot);
    cli_stage_end();
    if (tst != SY_OK) {
        sy_status st = sy_ctx_last_error(t->ctx);
        fprintf(stderr, "symshape: error: %s: %s\n", m->model, sy_ctx_last_error_msg(t->ctx));
        return st == SY_ENOMEM ? EX_INTERNAL : EX_INPUT;
    }
    const char *rel = sy_onnx_trace_related(t->ot);
    if (rel)
        fprintf(stderr, "symshape: note: %s: the model does not run at the example (%d for every dim without --example); traced at %s\n",
                m->model, SY_ONNX_DEFAULT_EXAMPLE, rel);
    double t2 = now();
    size_t nin;
    const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(t->ot, &nin);
    if (sy_gset_produce_inputs(t->env, sy_onnx_name(t->om), nin, ins, &t->gs) != SY_OK)
        return cli_lib_error(t->ctx, "produce guards");
    return minimize_timed(cmd, t, t0, t1, t2);
}

int trace_model(const char *cmd, model_opts *m, traced *t)
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
    return minimize_timed(cmd, t, t0, t1, t2);
}

/* ------------------------------------------------------------------ source values */

/* The guard set's source values at the n input shapes (names, ranks, shapes;
 * dts receives each input's dtype, taken from the model's input of that name,
 * JSON graph or ONNX). where: "FILE: point N" for a message, or NULL (the
 * command line). EX_OK, or the error's exit status after its message. */
int shape_values(const traced *t, size_t n, const char *const *names, const size_t *ranks,
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

/* The kernel fails otherwise (sy_env_require: an op's validity check or an `_assert`), not a branch the trace
 * chose (a guard_bool/guard_int capture, an op's decision such as a Slice end's sign or a broadcast of a 1) */
int origin_required(const sy_guard_origin *o)
{
    return o->required && !(o->op && !strncmp(o->op, "guard_", 6));
}

int produce_recorded(const char *cmd, traced *t, sy_gset **out, const sy_graph_input *const **ins, size_t *ni,
                     const sy_graph_input ***owned)
{
    size_t n = 0;
    const sy_graph_input *const *in = NULL;
    *owned = NULL;
    *out = NULL;
    if (t->ot) {
        in = sy_onnx_trace_gset_inputs(t->ot, &n);
        if (sy_gset_produce_inputs(t->env, sy_onnx_name(t->om), n, in, out) != SY_OK) return cli_lib_error(t->ctx, cmd);
    } else {
        n = sy_graph_ninputs(t->g);
        const sy_graph_input **g = calloc(n + 1, sizeof *g);
        if (!g) return cli_oom();
        for (size_t i = 0; i < n; i++) g[i] = sy_graph_input_at(t->g, i);
        *owned = g;
        in = g;
        if (sy_gset_produce(t->env, t->g, out) != SY_OK) return cli_lib_error(t->ctx, cmd);
    }
    if (ins) *ins = in;
    if (ni) *ni = n;
    return EX_OK;
}
