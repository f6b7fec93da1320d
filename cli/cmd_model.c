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
}

const char *cli_argv0;

/* The bundled resnet18.json: relative to the executable (installed:
 * BINDIR/SY_BIN_TO_DATA/symshape/examples), else the source tree's
 * examples/ (the uninstalled binary in the build tree). */
static char *default_model(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 && cli_argv0 && strchr(cli_argv0, '/') && strlen(cli_argv0) < sizeof exe) {
        n = (ssize_t)strlen(cli_argv0);
        memcpy(exe, cli_argv0, (size_t)n);
    }
    if (n > 0 && (size_t)n < sizeof exe) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            size_t len = strlen(exe) + sizeof "/" SY_BIN_TO_DATA "/symshape/examples/resnet18.json";
            char *path = malloc(len);
            if (path) {
                snprintf(path, len, "%s/%s/symshape/examples/resnet18.json", exe, SY_BIN_TO_DATA);
                if (access(path, R_OK) == 0) return path;
                free(path);
            }
        }
    }
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
    OPT_FAIL_ON_REJECT
};
#define MODEL_OPTIONS                                                                                                \
    {"dynamic", required_argument, NULL, OPT_DYNAMIC}, {"static", required_argument, NULL, OPT_STATIC},              \
        {"no-duck-sizing", no_argument, NULL, OPT_NO_DUCK}, {"no-specialize-01", no_argument, NULL, OPT_NO_01}

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

typedef struct {
    sy_ctx *ctx;
    sy_graph *g;
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
    sy_env_free(t->env);
    sy_graph_free(t->g);
    sy_ctx_free(t->ctx);
}

static int trace_model(const char *cmd, model_opts *m, traced *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = cli_ctx();
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
    if (sy_env_trace(t->env, t->g, m->nov, m->ov, &t->tr) != SY_OK) {
        st = sy_ctx_last_error(t->ctx);
        fprintf(stderr, "symshape: error: %s: %s\n", cli_file_name(m->model), sy_ctx_last_error_msg(t->ctx));
        return st == SY_ENOMEM ? EX_INTERNAL : EX_INPUT;
    }
    double t2 = now();
    if (sy_gset_produce(t->env, t->g, &t->gs) != SY_OK) return cli_lib_error(t->ctx, "produce guards");
    t->produced = sy_gset_size(t->gs);
    double t3 = now();
    if (sy_gset_minimize(t->gs) != SY_OK) return cli_lib_error(t->ctx, "minimize guards");
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
        size_t rec, dedup, kept;
        sy_gset_counts(t.gs, &rec, &dedup, &kept);
        fprintf(stderr,
                "model %s: %zu nodes, %zu symbols\n"
                "time: parse %.3f ms, trace %.3f ms, produce %.3f ms, minimize %.3f ms, render %.3f ms\n"
                "guards: %zu recorded, %zu deduplicated, %zu produced over sources, %zu kept after minimization\n",
                sy_graph_name(t.g), sy_graph_nnodes(t.g), sy_env_nsymbols(t.env), t.t_parse * 1e3, t.t_trace * 1e3,
                t.t_produce * 1e3, t.t_minimize * 1e3, (t6 - t5) * 1e3, rec, dedup, t.produced, kept);
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

/* ------------------------------------------------------------------ probe */

/* one input of a point */
typedef struct {
    const char *name;
    size_t rank;
    int64_t *shape;
} point_in;

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

static const struct option probe_opts[] = {{"sizes", required_argument, NULL, 's'},
                                           {"points", required_argument, NULL, OPT_POINTS},
                                           {"json", no_argument, NULL, OPT_JSON},
                                           {"fail-on-reject", no_argument, NULL, OPT_FAIL_ON_REJECT},
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
        }
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
        model_opts_free(&m);
        return rc;
    }
    traced t;
    rc = trace_model("probe", &m, &t);
    sy_realvals *rv = rc == EX_OK ? sy_realvals_new(t.ctx, t.g) : NULL;
    size_t ns = rc == EX_OK ? sy_gset_nsources(t.gs) : 0;
    int64_t *vals = calloc(ns ? ns : 1, sizeof *vals);
    if (rc == EX_OK && (!rv || !vals)) rc = cli_oom();
    size_t npts = points ? json_array_size(points) : 1;
    long accepted = 0, violations = 0, truth = 0;
    int tty = isatty(2) && npts > 20;
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
        for (size_t k = 0; k < cur->n; k++) {
            point_in *in = &cur->in[k];
            cur->names[k] = in->name;
            cur->ranks[k] = in->rank;
            cur->shapes[k] = in->shape;
            long gi = -1;
            for (size_t q = 0; q < sy_graph_ninputs(t.g); q++)
                if (!strcmp(sy_graph_input_at(t.g, q)->name, in->name)) gi = (long)q;
            if (gi < 0) {
                if (points) rc = cli_input_error("%s: point %zu: the model has no input named '%s'", pname, pi, in->name);
                else rc = cli_input_error("the model has no input named '%s'", in->name);
                break;
            }
            cur->dts[k] = sy_graph_input_at(t.g, (size_t)gi)->dtype;
            if (!bind_err[0] && sy_realvals_bind(rv, in->name, in->rank, in->shape) != SY_OK) {
                /* a rank mismatch: the guard set rejects it; real values are not available (never
                 * the previous point's) */
                snprintf(bind_err, sizeof bind_err, "%s", sy_ctx_last_error_msg(t.ctx));
                sy_ctx_reset_error(t.ctx);
            }
        }
        if (rc != EX_OK) break;
        sy_gset_result res;
        if (sy_gset_values_from_shapes(t.gs, cur->n, cur->names, cur->ranks, cur->shapes, cur->dts, vals) != SY_OK) {
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
        for (size_t oi = 0; oi < sy_realvals_noutputs(rv) && !st; oi++) {
            const sy_value *val;
            st = sy_realvals_output(rv, oi, &val);
            if (st) snprintf(err, sizeof err, "%s", sy_ctx_last_error_msg(t.ctx));
            else st = flat_shapes(t.ctx, val, outs, err, sizeof err);
        }
        if (res.accept) accepted++;
        int violation = 0;
        if (p && json_object_get(p, "ok")) {
            json_t *okv = json_object_get(p, "ok"), *want = json_object_get(p, "outputs");
            if (!json_is_boolean(okv) || (json_is_true(okv) && !json_is_array(want))) {
                rc = cli_input_error("%s: point %zu: \"ok\" must be true or false, and \"outputs\" an array when ok",
                                     pname, pi);
                json_decref(outs);
                break;
            }
            truth++;
            violation = res.accept && (!json_is_true(okv) || st || !json_equal(outs, want));
            violations += violation;
        }
        json_t *sz = json_object();
        for (size_t k = 0; k < cur->n; k++) {
            json_t *a = json_array();
            for (size_t d = 0; d < cur->in[k].rank; d++) json_array_append_new(a, json_integer(cur->in[k].shape[d]));
            json_object_set_new(sz, cur->in[k].name, a);
        }
        if (as_json) {
            json_t *jo = json_pack("{s:o, s:b, s:s?, s:o, s:s?}", "sizes", sz, "accept", res.accept, "failed_guard",
                                   res.accept ? NULL : res.message, "outputs", st ? json_null() : json_incref(outs),
                                   "error", st ? err : NULL);
            if (violation) json_object_set_new(jo, "soundness_violation", json_true());
            char *line = json_dumps(jo, JSON_COMPACT | JSON_PRESERVE_ORDER);
            printf("%s\n", line);
            free(line);
            json_decref(jo);
        } else {
            char *szs = json_dumps(sz, JSON_COMPACT | JSON_PRESERVE_ORDER), *os = json_dumps(outs, JSON_COMPACT);
            printf("%s: %s%s%s; outputs %s%s\n", szs, res.accept ? "accept" : "reject (", res.accept ? "" : res.message,
                   res.accept ? "" : ")", st ? err : os,
                   violation ? "; SOUNDNESS VIOLATION: accepted, but PyTorch's outcome differs" : "");
            free(szs);
            free(os);
            json_decref(sz);
        }
        json_decref(outs);
        if (tty) fprintf(stderr, "\r[%zu/%zu]", pi + 1, npts);
    }
    if (tty) fprintf(stderr, "\r\033[K");
    if (rc == EX_OK && truth) fprintf(stderr, "%zu points: %ld accepted, %ld soundness violations\n", npts, accepted, violations);
    if (rc == EX_OK && violations) rc = EX_FALSE;
    if (rc == EX_OK && fail_on_reject && (size_t)accepted < npts) rc = EX_FALSE;
    free(vals);
    sy_realvals_free(rv);
    json_decref(points);
    point_free(&pt, 0);
    point_free(&cmdline, 1);
    traced_free(&t);
    model_opts_free(&m);
    return rc;
}

#define MODEL_HELP                                                                                                  \
    "      --dynamic 'NAME=D[:DIM][@MIN..MAX],...'\n"                                                             \
    "                           the dims of input NAME that get symbols (replaces the graph's\n"               \
    "                           list); :DIM names a Dim (one name on several dims declares them\n"            \
    "                           equal), @MIN..MAX its range (either bound may be left out)\n"                 \
    "      --static NAME        every dim of input NAME is static\n"                                            \
    "      --no-duck-sizing     equal example sizes do not share a symbol\n"                                    \
    "      --no-specialize-01   example sizes 0 and 1 stay symbolic (range [0, oo))\n"                          \
    "  -h, --help               this help;  -V, --version  the version\n"

const cli_cmd cmd_run = {"run", "trace a model and render its minimized guard set",
    "usage: symshape run [options] [MODEL.json]\n\n"
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
    "usage: symshape probe [options] (--sizes NAME=D,D,... ... | --points PROBES.json) MODEL.json\n\n"
    "For each point: whether the guard set accepts it (and the first failing guard\n"
    "with the values it read), and the model's output shapes there computed with\n"
    "get_real_value (or the error where the model cannot run). MODEL '-' reads stdin.\n\n"
    "  -s, --sizes NAME=D,...   the sizes of input NAME at the one point (one per input)\n"
    "      --points FILE        the points of a probes file (docs/graph-format.md; '-': stdin);\n"
    "                           with ground truth (ok/outputs) a summary of soundness violations\n"
    "                           is printed on stderr\n"
    "      --json               one JSON object per point:\n"
    "                           {\"sizes\": {...}, \"accept\": true|false, \"failed_guard\": \"...\"|null,\n"
    "                            \"outputs\": [[...], ...]|null, \"error\": \"...\"|null}, plus\n"
    "                            \"soundness_violation\": true where the ground truth differs\n"
    "      --fail-on-reject     exit 1 when the guards reject a point\n"
    MODEL_HELP
    CLI_EXIT_HEAD
    "  0  every point was checked (no soundness violation)\n"
    "  1  a soundness violation against the points' ground truth, or (--fail-on-reject) a\n"
    "     rejected point\n" CLI_EXIT_USAGE
    "  3  bad model or points file\n" CLI_EXIT_INTERNAL,
    run_probe, 0};
