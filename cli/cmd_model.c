/* Model commands: run (trace + guard set + backend) and probe (accept/reject
 * and real output shapes at given sizes). */
#include <errno.h>
#include <jansson.h>
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
    sy_trace_override ov[16];
    int dims[16][16];
    char names[16][128];
    size_t nov;
} model_opts;

static const char *default_model(void)
{
    static char path[1024];
    const char *dirs[2] = {SY_EXAMPLES_DIR, SY_INSTALLED_EXAMPLES_DIR};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/resnet18.json", dirs[i]);
        if (access(path, R_OK) == 0) return path;
    }
    return NULL;
}

/* parse --dynamic NAME=D,D / --static NAME / --no-duck-sizing / --no-specialize-01;
 * returns 1 if argv[*i] was consumed, 0 if not ours, or -EX_USAGE on error */
static int model_option(const char *cmd, model_opts *m, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--no-duck-sizing")) {
        m->eo.duck_sizing = 0;
        return 1;
    }
    if (!strcmp(a, "--no-specialize-01")) {
        m->eo.specialize_zero_one = 0;
        return 1;
    }
    if (!strcmp(a, "--dynamic") || !strcmp(a, "--static")) {
        if (*i + 1 >= argc) return -cli_usage_error(cmd, "%s needs an argument", a);
        if (m->nov == 16) return -cli_usage_error(cmd, "too many overrides");
        const char *v = argv[++*i];
        sy_trace_override *o = &m->ov[m->nov];
        memset(o, 0, sizeof *o);
        if (!strcmp(a, "--static")) {
            o->input = v;
            o->make_static = 1;
        } else {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) return -cli_usage_error(cmd, "--dynamic expects NAME=D,D,... (got '%s')", v);
            snprintf(m->names[m->nov], sizeof m->names[0], "%.*s", (int)(eq - v), v);
            o->input = m->names[m->nov];
            size_t n = 0;
            const char *p = eq + 1;
            while (*p) {
                char *end;
                long d = strtol(p, &end, 10);
                if (end == p || d < 0 || d > 63 || n == 16) return -cli_usage_error(cmd, "bad dim list in '%s'", v);
                m->dims[m->nov][n++] = (int)d;
                p = end;
                if (*p == ',') p++;
                else if (*p) return -cli_usage_error(cmd, "bad dim list in '%s'", v);
            }
            o->dims = m->dims[m->nov];
            o->ndims = n;
        }
        m->nov++;
        return 1;
    }
    return 0;
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

static int trace_model(model_opts *m, traced *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = cli_ctx();
    double t0 = now();
    if (sy_graph_load_file(t->ctx, m->model, &t->g) != SY_OK) return cli_lib_error(t->ctx, "cannot load model");
    double t1 = now();
    t->env = sy_env_new(t->ctx, &m->eo);
    if (!t->env) return cli_lib_error(t->ctx, "env");
    if (sy_env_trace(t->env, t->g, m->nov, m->ov, &t->tr) != SY_OK) {
        sy_status st = sy_ctx_last_error(t->ctx);
        fprintf(stderr, "symshape: error: %s: %s\n", m->model, sy_ctx_last_error_msg(t->ctx));
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

static int run_run(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    const char *backend = "report", *outpath = NULL, *prefix = NULL;
    int stats = 0;
    for (int i = 1; i < argc; i++) {
        int r = model_option("run", &m, argc, argv, &i);
        if (r < 0) return -r;
        if (r) continue;
        if (!strcmp(argv[i], "--backend") || !strcmp(argv[i], "-b")) {
            if (i + 1 >= argc) return cli_usage_error("run", "--backend needs a name");
            backend = argv[++i];
        } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (i + 1 >= argc) return cli_usage_error("run", "-o needs a file name");
            outpath = argv[++i];
        } else if (!strcmp(argv[i], "--prefix")) {
            if (i + 1 >= argc) return cli_usage_error("run", "--prefix needs a name");
            prefix = argv[++i];
        } else if (!strcmp(argv[i], "--stats")) {
            stats = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("run", "unknown option '%s'", argv[i]);
        } else if (!m.model) {
            m.model = argv[i];
        } else {
            return cli_usage_error("run", "expected one model file");
        }
    }
    if (!m.model && !(m.model = default_model())) return cli_input_error("no model given and no bundled example found");
    if (!outpath && !strcmp(backend, "bytecode") && isatty(1))
        return cli_usage_error("run", "the bytecode backend writes binary: give -o FILE (or redirect stdout)");
    if (!sy_backend_find(backend)) {
        fprintf(stderr, "symshape run: unknown backend '%s'; known:", backend);
        for (size_t i = 0; i < sy_backend_count(); i++) fprintf(stderr, " %s", sy_backend_at(i)->name);
        fprintf(stderr, "\n");
        return EX_USAGE;
    }
    traced t;
    int rc = trace_model(&m, &t);
    if (rc != EX_OK) {
        traced_free(&t);
        return rc;
    }
    sy_backend_options bo = SY_BACKEND_OPTIONS_INIT;
    bo.env = t.env;
    bo.graph = t.g;
    bo.prefix = prefix;
    unsigned char *data;
    size_t len;
    double t5 = now();
    if (sy_backend_render(backend, t.gs, &bo, &data, &len) != SY_OK) {
        rc = cli_lib_error(t.ctx, "render");
        traced_free(&t);
        return rc;
    }
    double t6 = now();
    FILE *out = stdout;
    if (outpath && !(out = fopen(outpath, "wb"))) {
        sy_mem_free(t.ctx, data);
        traced_free(&t);
        return cli_input_error("cannot write %s", outpath);
    }
    if (fwrite(data, 1, len, out) != len) rc = cli_input_error("write failed");
    if (outpath) fclose(out);
    sy_mem_free(t.ctx, data);
    if (stats) {
        size_t rec, dedup, kept;
        sy_gset_counts(t.gs, &rec, &dedup, &kept);
        fprintf(stderr,
                "model %s: %zu nodes, %zu symbols\n"
                "time: parse %.3f ms, trace %.3f ms, produce %.3f ms, minimize %.3f ms, render %.3f ms\n"
                "guards: %zu recorded, %zu deduplicated, %zu produced over sources, %zu kept after minimization\n",
                sy_graph_name(t.g), sy_graph_nnodes(t.g), sy_env_nsymbols(t.env), t.t_parse * 1e3, t.t_trace * 1e3,
                t.t_produce * 1e3, t.t_minimize * 1e3, (t6 - t5) * 1e3, rec, dedup, t.produced, kept);
    }
    traced_free(&t);
    return rc;
}

/* ------------------------------------------------------------------ probe */

typedef struct {
    const char *name;
    size_t rank;
    int64_t shape[16];
} point_in;

static int parse_sizes_arg(const char *v, point_in *p)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v) return -1;
    static char names[64][128];
    static int next;
    snprintf(names[next % 64], sizeof names[0], "%.*s", (int)(eq - v), v);
    p->name = names[next++ % 64];
    p->rank = 0;
    const char *s = eq + 1;
    while (*s) {
        char *end;
        errno = 0;
        long long d = strtoll(s, &end, 10);
        if (end == s || errno == ERANGE || d < 0 || p->rank == 16) return -1; /* past int64: never clamp */
        p->shape[p->rank++] = d;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return 0;
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

static int run_probe(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    const char *points_file = NULL;
    int as_json = 0;
    point_in cmdline[16];
    size_t ncmd = 0;
    for (int i = 1; i < argc; i++) {
        int r = model_option("probe", &m, argc, argv, &i);
        if (r < 0) return -r;
        if (r) continue;
        if (!strcmp(argv[i], "--sizes")) {
            if (i + 1 >= argc) return cli_usage_error("probe", "--sizes needs NAME=D,D,...");
            if (ncmd == 16) return cli_usage_error("probe", "too many --sizes");
            if (parse_sizes_arg(argv[++i], &cmdline[ncmd]))
                return cli_usage_error("probe", "--sizes expects NAME=D,D,... with non-negative integers (got '%s')", argv[i]);
            for (size_t k = 0; k < ncmd; k++)
                if (!strcmp(cmdline[k].name, cmdline[ncmd].name))
                    return cli_usage_error("probe", "input '%s' given twice (one point per call; use --points for several)",
                                           cmdline[ncmd].name);
            ncmd++;
        } else if (!strcmp(argv[i], "--points")) {
            if (i + 1 >= argc) return cli_usage_error("probe", "--points needs a file");
            points_file = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            as_json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("probe", "unknown option '%s'", argv[i]);
        } else if (!m.model) {
            m.model = argv[i];
        } else {
            return cli_usage_error("probe", "expected one model file");
        }
    }
    if (!m.model) return cli_usage_error("probe", "expected a model file");
    if (!points_file && !ncmd) return cli_usage_error("probe", "expected --sizes NAME=D,... or --points FILE");
    if (points_file && ncmd) return cli_usage_error("probe", "use either --sizes or --points, not both");
    json_t *points = NULL;
    if (points_file) {
        json_error_t err;
        json_t *root = json_load_file(points_file, 0, &err);
        if (!root && err.line < 0) return cli_input_error("%s: %s", points_file, err.text); /* could not open or read */
        if (!root) return cli_input_error("%s: line %d, column %d: %s", points_file, err.line, err.column, err.text);
        points = json_incref(json_object_get(root, "points"));
        json_decref(root);
        if (!json_is_array(points)) {
            json_decref(points);
            return cli_input_error("%s: expected an object with a \"points\" list", points_file);
        }
    }
    traced t;
    int rc = trace_model(&m, &t);
    if (rc != EX_OK) {
        traced_free(&t);
        json_decref(points);
        return rc;
    }
    sy_realvals *rv = sy_realvals_new(t.ctx, t.g);
    size_t ns = sy_gset_nsources(t.gs);
    int64_t *vals = calloc(ns ? ns : 1, sizeof *vals);
    size_t npts = points ? json_array_size(points) : 1;
    long accepted = 0, violations = 0, truth = 0;
    int tty = isatty(2) && npts > 20;
    for (size_t pi = 0; pi < npts && rc == EX_OK; pi++) {
        point_in pin[16];
        size_t nin = 0;
        json_t *p = points ? json_array_get(points, pi) : NULL;
        if (points && (!json_is_object(p) || !json_is_object(json_object_get(p, "sizes")))) {
            rc = cli_input_error("%s: point %zu: expected an object {\"sizes\": {\"INPUT\": [D, ...], ...}, ...}",
                                 points_file, pi);
            break;
        }
        if (p) {
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(p, "sizes"), k, v) {
                if (nin == 16 || !json_is_array(v) || json_array_size(v) > 16) {
                    rc = cli_input_error("%s: point %zu: bad sizes", points_file, pi);
                    break;
                }
                pin[nin].name = k;
                pin[nin].rank = json_array_size(v);
                for (size_t d = 0; d < pin[nin].rank; d++) {
                    json_t *x = json_array_get(v, d);
                    if (!json_is_integer(x) || json_integer_value(x) < 0) {
                        rc = cli_input_error("%s: point %zu: sizes must be non-negative integers", points_file, pi);
                        break;
                    }
                    pin[nin].shape[d] = json_integer_value(x);
                }
                nin++;
            }
            if (rc != EX_OK) break;
        } else {
            memcpy(pin, cmdline, ncmd * sizeof *pin);
            nin = ncmd;
        }
        const char *names[16];
        size_t ranks[16];
        const int64_t *shapes[16];
        sy_dtype dts[16];
        for (size_t k = 0; k < nin; k++) {
            names[k] = pin[k].name;
            ranks[k] = pin[k].rank;
            shapes[k] = pin[k].shape;
            long gi = -1;
            for (size_t q = 0; q < sy_graph_ninputs(t.g); q++)
                if (!strcmp(sy_graph_input_at(t.g, q)->name, pin[k].name)) gi = (long)q;
            if (gi < 0) {
                if (points) rc = cli_input_error("%s: point %zu: the model has no input named '%s'", points_file, pi, pin[k].name);
                else rc = cli_input_error("the model has no input named '%s'", pin[k].name);
                break;
            }
            dts[k] = sy_graph_input_at(t.g, (size_t)gi)->dtype;
            if (sy_realvals_bind(rv, pin[k].name, pin[k].rank, pin[k].shape) != SY_OK) {
                /* a rank mismatch: the guard set rejects it; real values are not available */
            }
        }
        if (rc != EX_OK) break;
        sy_gset_result res;
        if (sy_gset_values_from_shapes(t.gs, nin, names, ranks, shapes, dts, vals) != SY_OK) {
            if (points) rc = cli_input_error("%s: point %zu: %s", points_file, pi, sy_ctx_last_error_msg(t.ctx));
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
        for (size_t o = 0; o < sy_realvals_noutputs(rv) && !st; o++) {
            const sy_value *val;
            st = sy_realvals_output(rv, o, &val);
            if (st) snprintf(err, sizeof err, "%s", sy_ctx_last_error_msg(t.ctx));
            else st = flat_shapes(t.ctx, val, outs, err, sizeof err);
        }
        if (res.accept) accepted++;
        int violation = 0;
        if (p && json_object_get(p, "ok")) {
            json_t *okv = json_object_get(p, "ok"), *want = json_object_get(p, "outputs");
            if (!json_is_boolean(okv) || (json_is_true(okv) && !json_is_array(want))) {
                rc = cli_input_error("%s: point %zu: \"ok\" must be true or false, and \"outputs\" an array when ok",
                                     points_file, pi);
                json_decref(outs);
                break;
            }
            truth++;
            violation = res.accept && (!json_is_true(okv) || st || !json_equal(outs, want));
            violations += violation;
        }
        json_t *sz = json_object();
        for (size_t k = 0; k < nin; k++) {
            json_t *a = json_array();
            for (size_t d = 0; d < pin[k].rank; d++) json_array_append_new(a, json_integer(pin[k].shape[d]));
            json_object_set_new(sz, pin[k].name, a);
        }
        if (as_json) {
            json_t *o = json_pack("{s:o, s:b, s:s?, s:o, s:s?}", "sizes", sz, "accept", res.accept, "failed_guard",
                                  res.accept ? NULL : res.message, "outputs", st ? json_null() : json_incref(outs), "error",
                                  st ? err : NULL);
            if (violation) json_object_set_new(o, "soundness_violation", json_true());
            char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
            printf("%s\n", line);
            free(line);
            json_decref(o);
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
    if (rc == EX_OK && truth) {
        fprintf(stderr, "%zu points: %ld accepted, %ld soundness violations\n", npts, accepted, violations);
        if (violations) rc = EX_FALSE;
    }
    free(vals);
    sy_realvals_free(rv);
    json_decref(points);
    traced_free(&t);
    return rc;
}

const cli_cmd cmd_run = {"run", "trace a model and render its minimized guard set",
    "usage: symshape run [MODEL.json] [--backend NAME] [-o FILE] [--prefix NAME]\n"
    "                    [--dynamic NAME=D,D,...] [--static NAME] [--no-duck-sizing]\n"
    "                    [--no-specialize-01] [--stats]\n\n"
    "Traces MODEL (default: the bundled examples/resnet18.json) with symbolic sizes,\n"
    "produces and minimizes its guard set and renders it with a backend:\n"
    "report (default, text), markdown, json, c, bytecode (see 'symshape --help').\n"
    "  --dynamic NAME=D,..  the dims of input NAME that get symbols (replaces the graph's list)\n"
    "  --static NAME        every dim of input NAME is static\n"
    "  --no-duck-sizing     equal example sizes do not share a symbol\n"
    "  --no-specialize-01   example sizes 0 and 1 stay symbolic (range [0, oo))\n"
    "  --prefix NAME        symbol prefix of the C backend (default guards)\n"
    "  --stats              phase timings and guard counts on stderr\n"
    "exit: 0 ok, 2 usage, 3 bad model (message names the file, node or line/column), 4 internal\n",
    run_run};

const cli_cmd cmd_probe = {"probe", "check sizes against the guard set and compute the real output shapes",
    "usage: symshape probe MODEL.json (--sizes NAME=D,D,... ... | --points PROBES.json) [--json]\n"
    "                      [--dynamic ...] [--static NAME] [--no-duck-sizing] [--no-specialize-01]\n\n"
    "For each point: whether the guard set accepts it (and the first failing guard\n"
    "with the values it read), and the model's output shapes there computed with\n"
    "get_real_value (or the error where the model cannot run). --points reads the\n"
    "probes format (docs/graph-format.md); with ground truth (ok/outputs) a summary of soundness\n"
    "violations is printed on stderr. --json prints one JSON object per line:\n"
    "{\"sizes\": {...}, \"accept\": true|false, \"failed_guard\": \"...\"|null,\n"
    " \"outputs\": [[...], ...]|null, \"error\": \"...\"|null}, plus \"soundness_violation\": true\n"
    "on a point the guards accept where the ground truth differs.\n"
    "exit: 0 ok, 1 a soundness violation against the points' ground truth, 2 usage, 3 bad input\n",
    run_probe};
