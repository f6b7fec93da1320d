/* symshape probe: accept or reject sizes with the guard set, and the real
 * output shapes at them, against the points' ground truth (docs/cli.md). */
#include "cli/model.h"

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
 * exact value in err. A size that is still symbolic at the point's sizes is
 * data-dependent (an unbacked symbol: an ONNX If on tensor data, NonZero):
 * null, which matches any size of the ground truth (shapes_match); before,
 * it was "output size u0 does not fit int64" and a soundness violation. */
static sy_status flat_shapes(sy_ctx *ctx, const sy_value *v, json_t *arr, char *err, size_t errlen)
{
    if (v->kind == SY_V_TENSOR) {
        json_t *s = json_array();
        json_array_append_new(arr, s);
        for (size_t k = 0; k < v->u.t->ndim; k++) {
            int64_t x;
            if (sy_expr_get_si(v->u.t->sizes[k], &x) != SY_OK) {
                sy_ctx_reset_error(ctx);
                if (!sy_expr_is_int(v->u.t->sizes[k])) {
                    json_array_append_new(s, json_null());
                    continue;
                }
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

/* 1 when the output shapes got (flat_shapes) are the ground truth's want: the same lists, each
 * size equal or null in got (data-dependent: any size) */
static int shapes_match(const json_t *got, const json_t *want)
{
    if (!json_is_array(got) || !json_is_array(want) || json_array_size(got) != json_array_size(want)) return 0;
    for (size_t i = 0; i < json_array_size(got); i++) {
        const json_t *g = json_array_get(got, i), *w = json_array_get(want, i);
        if (!json_is_array(g) || !json_is_array(w) || json_array_size(g) != json_array_size(w)) return 0;
        for (size_t k = 0; k < json_array_size(g); k++)
            if (!json_is_null(json_array_get(g, k)) && !json_equal(json_array_get(g, k), json_array_get(w, k))) return 0;
    }
    return 1;
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

/* The slot of the source a backed symbol takes its value from at a point: the one the guard set
 * represents it by (guards/gset_produce.c dim_sources), the first of its sources on an input some
 * node reads, else its first source. An input no node reads gets no duck equality (PyTorch
 * #106067), so its size may differ from the symbol's: reading the symbol from it evaluated the
 * outputs of a model with an unread input x0 [3, 1, 2] and t0 = x1 * x1, x1 [2, 3, 0], at
 * x0 [0, 3, 3], x1 [2, 2, 0] to [3, 0, 0] (s1 = x0.size()[0] = 0) where torch gives [2, 2, 0]. */
static long symbol_source(const traced *t, const sy_symbol_info *si)
{
    for (size_t k = 0; t->g && k < si->nsources; k++) {
        size_t nl;
        if (sy_gset_source_parse(si->sources[k], &nl, NULL) != SY_SOURCE_SIZE) continue;
        char *name = malloc(nl + 1);
        if (!name) return -1;
        memcpy(name, si->sources[k], nl);
        name[nl] = '\0';
        long node = sy_graph_find(t->g, name);
        free(name);
        if (node >= 0 && !sy_graph_node_read(t->g, (size_t)node)) continue;
        long sl = sy_gset_find_source(t->gs, si->sources[k]);
        if (sl >= 0) return sl;
    }
    return si->nsources ? sy_gset_find_source(t->gs, si->sources[0]) : -1;
}

/* The traced model's output shapes, as inferred (expressions over the symbols), evaluated at
 * the point whose source values are vals (sy_gset_source order): each backed symbol takes the
 * value of the source the guard set represents it by (symbol_source). NULL when some size cannot be evaluated there (eval_shapes) or
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
        long sl = si->unbacked || !si->nsources ? -1 : symbol_source(t, si);
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
        sy_gset_result res = SY_GSET_RESULT_INIT;
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
        /* the guard and the label carry the model's names, any bytes: never a raw newline (issue 38, fix38f) */
        fprintf(stderr, "  [%zu] ", i);
        cli_put_text(stderr, g->display);
        fprintf(stderr, ": %zu of %zu \xe2\x80\x94 ", rejected[i], npts);
        cli_put_text(stderr, label);
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
        sy_gset_result res = SY_GSET_RESULT_INIT;
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
        res = (sy_gset_result)SY_GSET_RESULT_INIT;
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
            violation = res.accept && (!json_is_true(okv) || st || !shapes_match(outs, want));
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
            /* the failed guard and an error carry the model's names: never a raw newline (issue 38, fix38f) */
            printf("%s: %s", szs, res.accept ? "accept" : "reject (");
            if (!res.accept) cli_put_text(stdout, res.message);
            printf("%s; outputs ", res.accept ? "" : ")");
            if (st) cli_put_text(stdout, err);
            printf("%s%s%s%s\n", st ? "" : os,
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
    "                            \"outputs\": [[...], ...]|null (a data-dependent size: null),\n"
    "                            \"error\": \"...\"|null}, plus\n"
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
