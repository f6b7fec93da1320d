/* Deployment commands (docs/deploy.md, issue 36): region. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"

/* a model traced under a policy: the guard set and what owns it */
typedef struct {
    sy_ctx *ctx;
    sy_graph *g;
    sy_onnx_model *om;
    sy_onnx_trace *ot;
    sy_env *env;
    sy_trace *tr;
    sy_gset *gs;
} dtraced;

static void dtraced_free(dtraced *t)
{
    sy_gset_free(t->gs);
    sy_trace_free(t->tr);
    sy_onnx_trace_free(t->ot);
    sy_env_free(t->env);
    sy_graph_free(t->g);
    sy_onnx_free(t->om);
    sy_ctx_free(t->ctx);
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n > k && !strcmp(s + n - k, suf);
}

/* trace MODEL (a graph JSON or an ONNX file) and produce its minimized guard set */
static int dtrace(const char *cmd, const char *model, const sy_env_options *eo, dtraced *t)
{
    memset(t, 0, sizeof *t);
    t->ctx = cli_ctx();
    if (ends_with(model, ".onnx")) {
        if (sy_onnx_load_file(t->ctx, model, &t->om) != SY_OK) return cli_lib_error(t->ctx, "cannot load model");
        sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
        if (sy_onnx_trace_relate(t->ctx, t->om, eo, &to, &t->env, &t->ot) != SY_OK) return cli_lib_error(t->ctx, model);
        if (sy_onnx_trace_related(t->ot))
            fprintf(stderr, "symshape: note: %s: the model does not run at the example (%d for every dim); traced at %s\n", model,
                    SY_ONNX_DEFAULT_EXAMPLE, sy_onnx_trace_related(t->ot));
        size_t nin;
        const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(t->ot, &nin);
        if (sy_gset_produce_inputs(t->env, sy_onnx_name(t->om), nin, ins, &t->gs) != SY_OK)
            return cli_lib_error(t->ctx, "produce guards");
    } else {
        char *text = NULL;
        size_t len = 0;
        int rc = cli_read_input(cmd, model, &text, &len);
        if (rc != EX_OK) return rc;
        sy_status st = sy_graph_load_text(t->ctx, text, len, cli_file_name(model), &t->g);
        free(text);
        if (st != SY_OK) return cli_lib_error(t->ctx, "cannot load model");
        if (!(t->env = sy_env_new(t->ctx, eo))) return cli_lib_error(t->ctx, "env");
        if (sy_env_trace(t->env, t->g, 0, NULL, &t->tr) != SY_OK) return cli_lib_error(t->ctx, cli_file_name(model));
        if (sy_gset_produce(t->env, t->g, &t->gs) != SY_OK) return cli_lib_error(t->ctx, "produce guards");
    }
    if (sy_gset_minimize(t->gs) != SY_OK) return cli_lib_error(t->ctx, "minimize guards");
    return EX_OK;
}

/* -f NAME (repeatable; 'all': every format but json) against a command's table of format
 * names: marks fmts[k] and counts the formats chosen in *nf; 0 when NAME is none of them */
static int pick_format(const char *arg, const char *const *names, size_t nfmt, int *fmts, int *nf)
{
    int all = !strcmp(arg, "all"), hit = all;
    for (size_t k = 0; k < nfmt; k++)
        if (all ? strcmp(names[k], "json") != 0 : !strcmp(arg, names[k])) {
            if (!fmts[k]) (*nf)++;
            fmts[k] = 1;
            hit = 1;
        }
    return hit;
}

/* append rendering s (GIVE, freed here) to the output *all, under '== NAME ==' when several
 * formats are printed (nf > 1), a blank line between them */
static int append_rendering(sy_ctx *ctx, char **all, size_t *alen, size_t *acap, int nf, const char *name, char *s)
{
    size_t n = strlen(s);
    char head[64] = "";
    if (nf > 1) snprintf(head, sizeof head, "%s== %s ==\n", *alen ? "\n" : "", name);
    size_t hl = strlen(head);
    if (cli_reserve(all, acap, *alen + hl + n + 1, 1)) {
        sy_str_free(ctx, s);
        return cli_oom();
    }
    memcpy(*all + *alen, head, hl);
    memcpy(*all + *alen + hl, s, n);
    *alen += hl + n;
    sy_str_free(ctx, s);
    return EX_OK;
}

/* ---- the options of the four commands: one table, one parser */

enum { D_REGION = 1, D_PROFILE = 2, D_CORNERS = 4, D_MEMORY = 8 };
enum {
    OPT_WINDOW = 0x100, OPT_DEFAULT_POLICY, OPT_HIST, OPT_MAXSIZE, OPT_BYTES, OPT_VAR, OPT_TOTAL, OPT_TOP, OPT_LIVE, OPT_RANGE,
    OPT_FIX, OPT_RELATION
};
static const struct {
    struct option o;
    unsigned cmds; /* the commands that take it */
} dopt_table[] = {
    {{"format", required_argument, NULL, 'f'}, D_REGION | D_PROFILE},
    {{"output", required_argument, NULL, 'o'}, D_REGION | D_PROFILE | D_CORNERS},
    {{"json", no_argument, NULL, 'j'}, D_CORNERS | D_MEMORY},
    {{"window", required_argument, NULL, OPT_WINDOW}, D_REGION},
    {{"default-policy", no_argument, NULL, OPT_DEFAULT_POLICY}, D_REGION},
    {{"histogram", required_argument, NULL, OPT_HIST}, D_PROFILE},
    {{"profiles", required_argument, NULL, 'k'}, D_PROFILE},
    {{"max-size", required_argument, NULL, OPT_MAXSIZE}, D_PROFILE},
    {{"bytes", required_argument, NULL, OPT_BYTES}, D_MEMORY},
    {{"var", required_argument, NULL, OPT_VAR}, D_MEMORY},
    {{"total", no_argument, NULL, OPT_TOTAL}, D_MEMORY},
    {{"live", no_argument, NULL, OPT_LIVE}, D_MEMORY},
    {{"top", required_argument, NULL, OPT_TOP}, D_MEMORY},
    {{"range", required_argument, NULL, OPT_RANGE}, D_MEMORY},
    {{"fix", required_argument, NULL, OPT_FIX}, D_MEMORY},
    {{"relation", required_argument, NULL, OPT_RELATION}, D_MEMORY},
};
#define NDOPT (sizeof dopt_table / sizeof dopt_table[0])
#define DMAX 8 /* --bytes, --range, --fix, --relation: at most this many each */

typedef struct {
    const char *model, *out, *hist, *var;
    int fmts[8], nf, json, what; /* what: 0 every activation, 1 --total, 2 --live */
    sy_env_options eo;
    long long window, k, max_size, top;
    uint64_t budgets[DMAX];
    const char *ranges[DMAX], *fixes[DMAX], *rels[DMAX];
    size_t nb, nr, nfix, nrel;
} dopts;

static int parse_count(const char *cmd, const char *opt, const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi)
        return cli_usage_error(cmd, "%s: expected an integer in %lld .. %lld (got '%s')", opt, lo, hi, v);
    *out = x;
    return EX_OK;
}

static int parse_bytes(const char *v, uint64_t *out);

/* --range NAME=LO..HI: its bounds (*namelen: the length of NAME); -1 when malformed */
static int parse_range(const char *arg, size_t *namelen, long long *lo, long long *hi)
{
    const char *eq = strchr(arg, '='), *dots = eq ? strstr(eq, "..") : NULL;
    if (!eq || eq == arg || !dots) return -1;
    char *e1 = NULL, *e2 = NULL;
    errno = 0;
    long long a = strtoll(eq + 1, &e1, 10), b = strtoll(dots + 2, &e2, 10);
    if (errno || e1 != dots || e1 == eq + 1 || !e2 || *e2 || e2 == dots + 2 || a < 0 || b < a || b > INT64_MAX / 4) return -1;
    *namelen = (size_t)(eq - arg);
    *lo = a;
    *hi = b;
    return 0;
}

/* the syntax of --range, --fix and --relation, checked while the options are parsed so that a
 * bad one is a usage error before anything is printed (the names are checked against the
 * region before any output too: run_memory) */
static int check_tie_syntax(const char *cmd, int v, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t nl;
    long long a, b;
    if (v == OPT_RANGE)
        return parse_range(arg, &nl, &a, &b) ? cli_usage_error(cmd, "--range: expected NAME=LO..HI with 0 <= LO <= HI (got '%s')", arg)
                                              : EX_OK;
    if (!eq || eq == arg || !eq[1])
        return cli_usage_error(cmd, "%s: expected NAME=%s (got '%s')", v == OPT_FIX ? "--fix" : "--relation",
                               v == OPT_FIX ? "V" : "EXPR", arg);
    if (v == OPT_FIX) {
        long long x;
        return parse_count(cmd, "--fix", eq + 1, 0, INT64_MAX / 4, &x);
    }
    return EX_OK;
}

/* the options of command c (one of D_*), its formats names[0..nfmt) for -f, and its one MODEL
 * operand; every command traces under the most relaxed policy unless --default-policy */
static int dparse(const cli_cmd *c, unsigned which, const char *const *names, size_t nfmt, int argc, char **argv, dopts *o)
{
    memset(o, 0, sizeof *o);
    o->eo = (sy_env_options)SY_ENV_OPTIONS_INIT;
    o->eo.duck_sizing = 0; /* the most relaxed policy: the guards, not the policy, shape the region */
    o->eo.specialize_zero_one = 0;
    o->top = 5;
    struct option lo[NDOPT + 3];
    char so[2 * NDOPT + sizeof CLI_COMMON_SHORT] = "";
    size_t n = 0, ns = 0;
    for (size_t i = 0; i < NDOPT; i++) {
        if (!(dopt_table[i].cmds & which)) continue;
        lo[n++] = dopt_table[i].o;
        if (dopt_table[i].o.val < 0x100) {
            so[ns++] = (char)dopt_table[i].o.val;
            if (dopt_table[i].o.has_arg == required_argument) so[ns++] = ':';
        }
    }
    memcpy(so + ns, CLI_COMMON_SHORT, sizeof CLI_COMMON_SHORT);
    lo[n++] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n++] = (struct option){"version", no_argument, NULL, 'V'};
    lo[n] = (struct option){0};
    int rc = EX_OK, v;
    const char *cmd = c->name;
    while ((v = cli_getopt(c, argc, argv, so, lo, &rc)) != -1) {
        if (v == CLI_STOP) return rc;
        switch (v) {
        case 'o': o->out = optarg; break;
        case 'j': o->json = 1; break;
        case 'f': {
            int hit = pick_format(optarg, names, nfmt, o->fmts, &o->nf);
            if (!hit) {
                char list[256] = "";
                for (size_t k = 0; k < nfmt; k++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s, ", names[k]);
                return cli_usage_error(cmd, "--format: unknown format '%s' (%sall)", optarg, list);
            }
            break;
        }
        case OPT_WINDOW: rc = parse_count(cmd, "--window", optarg, 1, 1000000, &o->window); break;
        case OPT_DEFAULT_POLICY: o->eo.duck_sizing = 1, o->eo.specialize_zero_one = 1; break;
        case OPT_HIST: o->hist = optarg; break;
        case 'k': rc = parse_count(cmd, "--profiles", optarg, 1, 64, &o->k); break;
        case OPT_MAXSIZE: rc = parse_count(cmd, "--max-size", optarg, 1, INT64_MAX / 4, &o->max_size); break;
        case OPT_TOP: rc = parse_count(cmd, "--top", optarg, 0, 1000000, &o->top); break;
        case OPT_VAR: o->var = optarg; break;
        case OPT_BYTES:
            if (o->nb == DMAX) return cli_usage_error(cmd, "--bytes: at most %d budgets", DMAX);
            if (parse_bytes(optarg, &o->budgets[o->nb++]))
                return cli_usage_error(cmd, "--bytes: expected N, NkB, NM, NG or NT (got '%s')", optarg);
            break;
        case OPT_RANGE: case OPT_FIX: case OPT_RELATION: {
            const char **arr = v == OPT_RANGE ? o->ranges : v == OPT_FIX ? o->fixes : o->rels;
            size_t *cnt = v == OPT_RANGE ? &o->nr : v == OPT_FIX ? &o->nfix : &o->nrel;
            if (*cnt == DMAX)
                return cli_usage_error(cmd, "--%s: at most %d", v == OPT_RANGE ? "range" : v == OPT_FIX ? "fix" : "relation", DMAX);
            arr[(*cnt)++] = optarg;
            rc = check_tie_syntax(cmd, v, optarg); /* every option checked before any output */
            break;
        }
        case OPT_TOTAL: case OPT_LIVE:
            if (o->what && o->what != (v == OPT_LIVE ? 2 : 1)) return cli_usage_error(cmd, "--total and --live: choose one");
            o->what = v == OPT_LIVE ? 2 : 1;
            break;
        default: break;
        }
        if (rc != EX_OK) return rc;
    }
    if (optind + 1 != argc) return cli_usage_error(cmd, "expected one MODEL (graph .json or .onnx)");
    o->model = argv[optind];
    if (nfmt && !o->nf) {
        o->fmts[0] = 1;
        o->nf = 1;
    }
    return EX_OK;
}

static const struct {
    const char *name;
    sy_region_fmt fmt;
} region_formats[] = {{"text", SY_REGION_TEXT}, {"torch", SY_REGION_TORCH}, {"jax", SY_REGION_JAX},
                      {"onnx", SY_REGION_ONNX}, {"spec", SY_REGION_SPEC},   {"json", SY_REGION_JSON}};
#define NFMT (sizeof region_formats / sizeof region_formats[0])

static int run_region(int argc, char **argv)
{
    const char *names[NFMT];
    for (size_t k = 0; k < NFMT; k++) names[k] = region_formats[k].name;
    dopts op;
    int rc = dparse(&cmd_region, D_REGION, names, NFMT, argc, argv, &op);
    if (rc != EX_OK) return rc;
    sy_region_options ro = SY_REGION_OPTIONS_INIT;
    if (op.window) ro.window = op.window;
    const int *fmts = op.fmts, nf = op.nf;
    const char *out = op.out;
    dtraced t;
    rc = dtrace("region", op.model, &op.eo, &t);
    sy_region *r = NULL;
    char *all = NULL;
    size_t alen = 0, acap = 0;
    if (rc == EX_OK && sy_region_new(t.gs, &ro, &r) != SY_OK) rc = cli_lib_error(t.ctx, "region");
    for (size_t k = 0; rc == EX_OK && k < NFMT; k++) {
        if (!fmts[k]) continue;
        char *s = sy_region_format(r, region_formats[k].fmt);
        rc = s ? append_rendering(t.ctx, &all, &alen, &acap, nf, region_formats[k].name, s) : cli_lib_error(t.ctx, "region");
    }
    if (rc == EX_OK) rc = cli_write_output(out, all ? all : "", alen);
    if (rc == EX_OK && !sy_region_proved(r, NULL)) rc = EX_FALSE;
    free(all);
    sy_region_free(r);
    dtraced_free(&t);
    return rc;
}

const cli_cmd cmd_region = {"region", "the largest valid region of a model's guards, as torch.export/JAX/ONNX specs",
    "usage: symshape region [options] MODEL.json | MODEL.onnx\n\n"
    "Trace the model under the most relaxed policy (no duck sizing, no 0/1 specialization),\n"
    "and print the region its guards accept: per dynamic dim a range and a progression\n"
    "(H = 32*h + 1), the linear relations between dims (derived dims), static dims; guards\n"
    "the region cannot express are listed as kept runtime checks. Every other guard is\n"
    "proved, with the decision procedure, to hold at every point of the region\n"
    "(docs/deploy.md).\n\n"
    "options:\n"
    "  -f, --format FMT   text (default), torch (torch.export dynamic_shapes), jax\n"
    "                     (jax.export symbolic shapes), onnx (dim_params and metadata, JSON),\n"
    "                     spec (symshape --dynamic), json, all (every one but json);\n"
    "                     repeat for several\n"
    "  -o, --output FILE  write there instead of stdout\n"
    "      --window N     sizes evaluated per dim to find its progression (default 2048)\n"
    "      --default-policy  trace with duck sizing and 0/1 specialization (a smaller region)\n"
    "  -h, --help, -V, --version\n"
    CLI_EXIT_HEAD
    "  0  the region is proved\n"
    "  1  printed, but NOT proved (do not use it without the whole guard set)\n"
    CLI_EXIT_USAGE
    "  3  bad input (unreadable model, a trace error)\n"
    CLI_EXIT_INTERNAL,
    run_region, 0};

/* ---- profile */

/* the histogram: a JSON list of {"sizes": {INPUT: [D, ...]}, "count": N} (or {"points": [...]},
 * a probes file: count 1 each); *vals gets npoints rows of the set's sources */
static int read_histogram(const char *path, const sy_gset *gs, int64_t **vals, uint64_t **counts, size_t *npoints)
{
    char *text = NULL;
    size_t len = 0;
    *vals = NULL;
    *counts = NULL;
    *npoints = 0;
    int rc = cli_read_input("profile", path, &text, &len);
    if (rc != EX_OK) return rc;
    json_error_t err;
    json_t *doc = json_loadb(text, len, 0, &err);
    free(text);
    if (!doc) return cli_input_error("%s:%d:%d: %s", cli_file_name(path), err.line, err.column, err.text);
    json_t *arr = json_is_array(doc) ? doc : json_object_get(doc, "points");
    if (!json_is_array(arr)) {
        json_decref(doc);
        return cli_input_error("%s: expected a list of {\"sizes\": {INPUT: [D, ...]}, \"count\": N} (or {\"points\": [...]})",
                               cli_file_name(path));
    }
    size_t n = sy_gset_nsources(gs), np = json_array_size(arr);
    int64_t *v = calloc((np ? np : 1) * (n ? n : 1), sizeof *v);
    uint64_t *c = calloc(np ? np : 1, sizeof *c);
    if (!v || !c) {
        free(v);
        free(c);
        json_decref(doc);
        return cli_oom();
    }
    /* the inputs, looked up once: per input its rank source and its size sources (10^6 entries
     * would otherwise format and search the source names per entry and per dim) */
    typedef struct {
        char name[512];
        long sd;
        long *sl;
        size_t rank;
    } hin;
    hin *ins = calloc(n ? n : 1, sizeof *ins);
    size_t nins = 0;
    if (!ins) rc = cli_oom();
    for (size_t q = 0; rc == EX_OK && q < n; q++) {
        size_t nl = 0;
        const char *src = sy_gset_source(gs, q);
        int64_t rank;
        if (sy_gset_source_parse(src, &nl, NULL) != SY_SOURCE_DIM || !sy_gset_source_example(gs, q, &rank) || rank < 0) continue;
        hin *h = &ins[nins++];
        snprintf(h->name, sizeof h->name, "%.*s", (int)(nl < 500 ? nl : 500), src);
        h->sd = (long)q;
        h->rank = (size_t)rank;
        if (!(h->sl = calloc(h->rank ? h->rank : 1, sizeof *h->sl))) {
            rc = cli_oom();
            break;
        }
        for (size_t d = 0; d < h->rank; d++) {
            char sz[560];
            snprintf(sz, sizeof sz, "%s.size()[%zu]", h->name, d);
            h->sl[d] = sy_gset_find_source(gs, sz);
        }
    }
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (rc != EX_OK) break;
        int64_t *row = v + i * n;
        for (size_t q = 0; q < n; q++)
            if (!sy_gset_source_example(gs, q, &row[q])) row[q] = 0;
        json_t *sizes = json_object_get(e, "sizes"), *cnt = json_object_get(e, "count");
        if (!json_is_object(sizes) || (cnt && (!json_is_integer(cnt) || json_integer_value(cnt) < 0))) {
            rc = cli_input_error("%s: entry %zu: expected {\"sizes\": {INPUT: [D, ...]}, \"count\": N >= 0}", cli_file_name(path), i);
            break;
        }
        c[i] = cnt ? (uint64_t)json_integer_value(cnt) : 1;
        const char *k;
        json_t *shape;
        json_object_foreach(sizes, k, shape) {
            const hin *h = NULL;
            for (size_t q = 0; q < nins && !h; q++)
                if (!strcmp(ins[q].name, k)) h = &ins[q];
            if (!h) {
                rc = cli_input_error("%s: entry %zu: the model has no input '%s'", cli_file_name(path), i, k);
                break;
            }
            if (!json_is_array(shape) || json_array_size(shape) != h->rank) {
                rc = cli_input_error("%s: entry %zu: input '%s' has rank %zu, the entry gives %zu sizes", cli_file_name(path), i, k,
                                     h->rank, json_array_size(shape));
                break;
            }
            for (size_t d = 0; d < h->rank; d++) {
                json_t *x = json_array_get(shape, d);
                if (!json_is_integer(x) || json_integer_value(x) < 0) {
                    rc = cli_input_error("%s: entry %zu: %s[%zu] is not a size", cli_file_name(path), i, k, d);
                    break;
                }
                if (h->sl[d] >= 0) row[h->sl[d]] = (int64_t)json_integer_value(x);
            }
            if (rc != EX_OK) break;
        }
        /* every input of the model named: a missing one is not filled in with its example */
        for (size_t q = 0; rc == EX_OK && q < nins; q++)
            if (!json_object_get(sizes, ins[q].name))
                rc = cli_input_error("%s: entry %zu: input '%s' is missing", cli_file_name(path), i, ins[q].name);
    }
    for (size_t q = 0; ins && q < nins; q++) free(ins[q].sl);
    free(ins);
    json_decref(doc);
    if (rc != EX_OK) {
        free(v);
        free(c);
        return rc;
    }
    *vals = v;
    *counts = c;
    *npoints = np;
    return EX_OK;
}

static const struct {
    const char *name;
    sy_profile_fmt fmt;
} profile_formats[] = {{"text", SY_PROFILE_TEXT},   {"trtexec", SY_PROFILE_TRTEXEC},   {"ort", SY_PROFILE_ORT},
                       {"torch-trt", SY_PROFILE_TORCH_TRT}, {"openvino", SY_PROFILE_OPENVINO}, {"json", SY_PROFILE_JSON}};
#define NPFMT (sizeof profile_formats / sizeof profile_formats[0])

static int run_profile(int argc, char **argv)
{
    const char *names[NPFMT];
    for (size_t k = 0; k < NPFMT; k++) names[k] = profile_formats[k].name;
    dopts op;
    int rc = dparse(&cmd_profile, D_PROFILE, names, NPFMT, argc, argv, &op);
    if (rc != EX_OK) return rc;
    sy_profile_options po = SY_PROFILE_OPTIONS_INIT;
    if (op.k) po.k = (size_t)op.k;
    if (op.max_size) po.max_size = op.max_size;
    const int *fmts = op.fmts, nf = op.nf;
    const char *out = op.out, *hist = op.hist;
    dtraced t;
    rc = dtrace("profile", op.model, &op.eo, &t);
    sy_region *r = NULL;
    sy_profiles *p = NULL;
    int64_t *vals = NULL;
    uint64_t *counts = NULL;
    size_t np = 0;
    char *all = NULL;
    size_t alen = 0, acap = 0;
    if (rc == EX_OK && sy_region_new(t.gs, NULL, &r) != SY_OK) rc = cli_lib_error(t.ctx, "region");
    if (rc == EX_OK && hist) rc = read_histogram(hist, t.gs, &vals, &counts, &np);
    if (rc == EX_OK && sy_profiles_new(t.gs, r, &po, np, vals, counts, &p) != SY_OK) rc = cli_lib_error(t.ctx, "profile");
    for (size_t k = 0; rc == EX_OK && k < NPFMT; k++) {
        if (!fmts[k]) continue;
        char *s = sy_profiles_format(p, profile_formats[k].fmt);
        rc = s ? append_rendering(t.ctx, &all, &alen, &acap, nf, profile_formats[k].name, s) : cli_lib_error(t.ctx, "profile");
    }
    if (rc == EX_OK) rc = cli_write_output(out, all ? all : "", alen);
    if (rc == EX_OK && !sy_profiles_size(p)) rc = EX_FALSE;
    free(all);
    free(vals);
    free(counts);
    sy_profiles_free(p);
    sy_region_free(r);
    dtraced_free(&t);
    return rc;
}

const cli_cmd cmd_profile = {"profile", "min/opt/max optimization profiles inside the valid region",
    "usage: symshape profile [options] MODEL.json | MODEL.onnx\n\n"
    "Boxes of input shapes (min/opt/max per dim) for TensorRT, onnxruntime's TensorRT provider,\n"
    "Torch-TensorRT and OpenVINO, inside the model's region (symshape region): each box is\n"
    "proved, with the decision procedure, to hold only sizes every guard accepts. A dim that is\n"
    "a progression (4*k) or tied to another dim is pinned in each box. With a histogram of\n"
    "observed sizes, opt is each box's most frequent point and each box reports its share\n"
    "(docs/deploy.md).\n\n"
    "options:\n"
    "      --histogram FILE  JSON list of {\"sizes\": {INPUT: [D, ...]}, \"count\": N} (or a probes\n"
    "                     file: {\"points\": [{\"sizes\": ...}]}, count 1 each)\n"
    "  -k, --profiles K   boxes wanted, 1 .. 64 (default: one per group of pinned sizes, <= 4)\n"
    "      --max-size N   without a histogram: the largest size of an unbounded dim\n"
    "                     (default 4 times the example)\n"
    "  -f, --format FMT   text (default), trtexec, ort, torch-trt, openvino, json, all\n"
    "  -o, --output FILE  write there instead of stdout\n"
    "  -h, --help, -V, --version\n"
    CLI_EXIT_HEAD
    "  0  profiles printed\n"
    "  1  no box could be proved (nothing printed but the counts)\n"
    CLI_EXIT_USAGE
    "  3  bad input (unreadable model or histogram, a trace error)\n"
    CLI_EXIT_INTERNAL,
    run_profile, 0};

/* ---- corners */

static int run_corners(int argc, char **argv)
{
    dopts op;
    int rc = dparse(&cmd_corners, D_CORNERS, NULL, 0, argc, argv, &op);
    if (rc != EX_OK) return rc;
    const char *out = op.out;
    int json = op.json;
    dtraced t;
    rc = dtrace("corners", op.model, &op.eo, &t);
    sy_region *r = NULL;
    sy_corners *c = NULL;
    char *text = NULL;
    if (rc == EX_OK && sy_region_new(t.gs, NULL, &r) != SY_OK) rc = cli_lib_error(t.ctx, "region");
    if (rc == EX_OK && sy_corners_new(t.gs, r, &c) != SY_OK) rc = cli_lib_error(t.ctx, "corners");
    if (rc == EX_OK && json) {
        char *s = sy_corners_to_json(c);
        if (!s) rc = cli_lib_error(t.ctx, "corners");
        else {
            rc = cli_write_output(out, s, strlen(s));
            sy_str_free(t.ctx, s);
        }
    } else if (rc == EX_OK) {
        size_t len = 0, cap = 0;
        for (size_t i = 0; rc == EX_OK && i < sy_corners_size(c); i++) {
            const sy_corner *k = sy_corners_at(c, i);
            char line[2048];
            int m = snprintf(line, sizeof line, "%-48s ", k->label);
            for (size_t d = 0; d < sy_region_ndims(r) && m < (int)sizeof line; d++) {
                const sy_region_dim *rd = sy_region_dim_at(r, d);
                int first = d == 0 || strcmp(sy_region_dim_at(r, d - 1)->input, rd->input);
                m += snprintf(line + m, sizeof line - (size_t)m, "%s%s%s%" PRId64, first && d ? "] " : "", first ? rd->input : ",",
                              first ? "=[" : "", k->values[rd->source]);
            }
            if (m < (int)sizeof line)
                snprintf(line + m, sizeof line - (size_t)m, "]  %s, %s%s%s\n", k->in_region ? "in region" : "outside",
                         k->accept ? "accepted" : "rejected: ", k->guard ? k->guard : "", "");
            /* the label, the input names and the guard come from the model: every control byte
             * but the line's own newline as \xHH (issue 38, fourth pass: a raw newline forged a line) */
            size_t n = strlen(line), body = n && line[n - 1] == '\n' ? n - 1 : n;
            if (cli_reserve(&text, &cap, len + 4 * n + 1, 1)) rc = cli_oom();
            else {
                for (size_t q = 0; q < n; q++) {
                    unsigned char ch = (unsigned char)line[q];
                    if (q < body && (ch < 0x20 || ch == 0x7f)) len += (size_t)snprintf(text + len, 5, "\\x%02x", ch);
                    else text[len++] = (char)ch;
                }
                text[len] = '\0';
            }
        }
        if (rc == EX_OK) rc = cli_write_output(out, text ? text : "", len);
    }
    free(text);
    sy_corners_free(c);
    sy_region_free(r);
    dtraced_free(&t);
    return rc;
}

const cli_cmd cmd_corners = {"corners", "the sizes where the guards change their mind, each with the guard it tests",
    "usage: symshape corners [--json] [-o FILE] MODEL.json | MODEL.onnx\n\n"
    "Corner tests of the model's region (symshape region): the example, each variable's range\n"
    "ends and one past them, sizes 0, 1 and 2, one off each progression, each tied dim alone\n"
    "+ 1; each checked with the guard set, a rejected one with the guard that rejects it\n"
    "(docs/deploy.md). python3 -m symshape corners --run runs a PyTorch model at each corner.\n\n"
    "options:\n"
    "      --json         JSON \"symshape.corners\" (label, sizes, in_region, accept, guard)\n"
    "  -o, --output FILE  write there instead of stdout\n"
    "  -h, --help, -V, --version\n"
    CLI_EXIT_HEAD
    "  0  printed\n"
    CLI_EXIT_USAGE
    "  3  bad input (unreadable model, a trace error)\n"
    CLI_EXIT_INTERNAL,
    run_corners, 0};

/* ---- memory */

/* "1G", "16GiB", "512M", "1000" -> bytes (k/M/G/T: powers of 1024) */
static int parse_bytes(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!(*v >= '0' && *v <= '9')) return -1;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno) return -1;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K') shift = 10;
    else if (*end == 'M') shift = 20;
    else if (*end == 'G') shift = 30;
    else if (*end == 'T') shift = 40;
    if (shift) end++;
    if (shift && (!strcmp(end, "iB") || !strcmp(end, "B"))) end += strlen(end);
    if (*end || (shift && x > (UINT64_MAX >> shift))) return -1;
    *out = (uint64_t)x << shift;
    return 0;
}

/* the memory envelopes of a traced model: a graph's trace, or the ONNX trace's values (element
 * sizes from the ONNX element types; a string tensor is left out and counted) */
static int memory_of(dtraced *t, const sy_region *r, sy_memory **m, size_t *nstring)
{
    *nstring = 0;
    if (!t->ot) return sy_memory_new(t->env, t->g, t->tr, r, m) == SY_OK ? EX_OK : cli_lib_error(t->ctx, "memory");
    size_t n = sy_onnx_trace_nvalues(t->ot), k = 0, nn = sy_onnx_nnodes(t->om);
    sy_memory_input *in = calloc(n ? n : 1, sizeof *in);
    if (!in) return cli_oom();
    for (size_t i = 0; i < n; i++) {
        const sy_tensor *x = sy_onnx_trace_value(t->ot, i);
        size_t eb = sy_onnx_trace_value_elem_bytes(t->ot, i), born = 0, last = 0;
        if (!x || !sy_onnx_trace_value_life(t->ot, i, &born, &last)) continue;
        if (!eb) {
            (*nstring)++;
            continue;
        }
        int role = sy_onnx_trace_value_role(t->ot, i);
        in[k++] = (sy_memory_input){sy_onnx_trace_value_name(t->ot, i), role == 2 ? "param" : role == 1 ? "input" : "onnx", x,
                                    (int64_t)eb, born, last};
    }
    sy_status st = sy_memory_new_values(t->env, nn ? nn : 1, k, in, r, m);
    free(in);
    return st == SY_OK ? EX_OK : cli_lib_error(t->ctx, "memory");
}

/* --range NAME=LO..HI ...: the box lo[], hi[] (the other variables at fixed[]); checked before
 * any output */
static int range_box(const sy_region *r, const int64_t *fixed, const char *const *ranges, size_t nr, int64_t **plo, int64_t **phi)
{
    size_t nv = sy_region_nvars(r);
    int64_t *lo = calloc(nv ? nv : 1, sizeof *lo), *hi = calloc(nv ? nv : 1, sizeof *hi);
    *plo = lo;
    *phi = hi;
    if (!lo || !hi) return cli_oom();
    memcpy(lo, fixed, nv * sizeof *lo);
    memcpy(hi, fixed, nv * sizeof *hi);
    for (size_t q = 0; q < nr; q++) {
        size_t nl = 0;
        long long a = 0, b = 0;
        if (parse_range(ranges[q], &nl, &a, &b))
            return cli_usage_error("memory", "--range: expected NAME=LO..HI with 0 <= LO <= HI (got '%s')", ranges[q]);
        long v = -1;
        for (size_t k = 0; k < nv; k++)
            if (strlen(sy_region_var_at(r, k)->name) == nl && !strncmp(sy_region_var_at(r, k)->name, ranges[q], nl)) v = (long)k;
        if (v < 0) return cli_usage_error("memory", "--range: the region has no variable '%.*s'", (int)nl, ranges[q]);
        /* a second range of one variable silently replaced the first (attack38e); --fix and
         * --relation refuse a name given twice */
        for (size_t p = 0; p < q; p++)
            if (!strncmp(ranges[p], ranges[q], nl) && ranges[p][nl] == '=')
                return cli_usage_error("memory", "--range: '%.*s' is given twice", (int)nl, ranges[q]);
        lo[v] = a;
        hi[v] = b;
    }
    return EX_OK;
}

/* the peak over the box lo[], hi[] */
static int print_peak(dtraced *t, const sy_region *r, const sy_memory *m, const int64_t *lo, const int64_t *hi, int total,
                      json_t *jdoc)
{
    size_t nv = sy_region_nvars(r);
    int rc = EX_OK;
    uint64_t peak = 0;
    int proved = 0;
    sy_memory_what what = total == 2 ? SY_MEM_LIVE : total ? SY_MEM_TOTAL : SY_MEM_LARGEST;
    if (rc == EX_OK && sy_memory_peak(m, r, lo, hi, what, &peak, &proved) != SY_OK) rc = cli_lib_error(t->ctx, "memory");
    if (rc == EX_OK && jdoc) {
        json_t *box = json_object();
        for (size_t k = 0; k < nv; k++) json_object_set_new(box, sy_region_var_at(r, k)->name, json_pack("[II]", (json_int_t)lo[k], (json_int_t)hi[k]));
        json_object_set_new(jdoc, "peak", json_pack("{s:I, s:b, s:o}", "bytes", (json_int_t)peak, "proved", proved, "box", box));
    } else if (rc == EX_OK) {
        printf("peak of %s over", total == 2 ? "the activations live at one node" : total ? "all activations together" : "one activation");
        for (size_t k = 0; k < nv; k++)
            printf("%s %s in [%" PRId64 ", %" PRId64 "]", k ? "," : "", sy_region_var_at(r, k)->name, lo[k], hi[k]);
        printf(": %" PRIu64 " bytes (%s)\n", peak,
               proved ? "proved the largest over the range; at its upper corner" : "NOT proved: the value at the upper corner only");
    }
    return rc;
}

/* the variable named name[0..len) of r, or -1 */
static long var_index(const sy_region *r, const char *name, size_t len)
{
    for (size_t k = 0; k < sy_region_nvars(r); k++)
        if (strlen(sy_region_var_at(r, k)->name) == len && !strncmp(sy_region_var_at(r, k)->name, name, len)) return (long)k;
    return -1;
}

/* --fix NAME=V into fixed[]; --relation NAME=EXPR (EXPR affine in the maximized variable var:
 * A*var + B, A >= 1) into tie_a/tie_b */
static int parse_ties(dtraced *t, const sy_region *r, const dopts *op, long var, int64_t *fixed, int64_t *tie_a, int64_t *tie_b)
{
    for (size_t q = 0; q < op->nfix + op->nrel; q++) {
        int rel = q >= op->nfix;
        const char *arg = rel ? op->rels[q - op->nfix] : op->fixes[q], *eq = strchr(arg, '=');
        const char *what = rel ? "--relation" : "--fix";
        long v = eq ? var_index(r, arg, (size_t)(eq - arg)) : -1;
        if (!eq) return cli_usage_error("memory", "%s: expected NAME=%s (got '%s')", what, rel ? "EXPR" : "V", arg);
        if (v < 0) return cli_usage_error("memory", "%s: the region has no variable '%.*s'", what, (int)(eq - arg), arg);
        if (v == var) return cli_usage_error("memory", "%s: '%s' is the variable maximized (--var)", what, sy_region_var_at(r, (size_t)v)->name);
        for (size_t p = 0; p < q; p++) {
            const char *o = p < op->nfix ? op->fixes[p] : op->rels[p - op->nfix], *oe = strchr(o, '=');
            if (oe && oe - o == eq - arg && !strncmp(o, arg, (size_t)(eq - arg)))
                return cli_usage_error("memory", "%s: '%.*s' is given twice (--fix, --relation)", what, (int)(eq - arg), arg);
        }
        if (!rel) {
            long long x = 0; /* set on every path: GCC -O3 does not see parse_count set it */
            int rc = parse_count("memory", "--fix", eq + 1, 0, INT64_MAX / 4, &x);
            if (rc != EX_OK) return rc;
            fixed[v] = x;
            continue;
        }
        const sy_expr *e = NULL;
        if (sy_expr_parse(t->ctx, eq + 1, strlen(eq + 1), &e) != SY_OK)
            return cli_usage_error("memory", "--relation: cannot parse '%s': %s", eq + 1, sy_ctx_last_error_msg(t->ctx));
        const char *vn = sy_region_var_at(r, (size_t)var)->name;
        const sy_expr *x = sy_expr_sym(t->ctx, vn);
        int64_t b = 0, a1 = 0, zero = 0, one = 1;
        if (!x) return cli_lib_error(t->ctx, "memory");
        sy_status s0 = sy_expr_eval_si(t->ctx, e, 1, &x, &zero, &b), s1 = s0 == SY_OK ? sy_expr_eval_si(t->ctx, e, 1, &x, &one, &a1) : s0;
        int64_t a = 0; /* A = e(1) - e(0): past int64 (A = -2^63 - 1, B = 1: e(1) = -2^63) it is no A >= 1 */
        int afits = s1 == SY_OK && !__builtin_sub_overflow(a1, b, &a);
        const sy_expr *form = afits ? sy_expr_add_si(t->ctx, sy_expr_mul_si(t->ctx, x, a), b) : NULL;
        sy_ctx_reset_error(t->ctx);
        /* canonical forms: the same pointer when EXPR is exactly A*var + B */
        if (!form || form != e || a < 1)
            return cli_usage_error("memory", "--relation: '%s' is not A*%s + B with A >= 1 (the variable maximized, --var)", eq + 1, vn);
        tie_a[v] = a;
        tie_b[v] = b;
    }
    return EX_OK;
}

static int run_memory(int argc, char **argv)
{
    dopts op;
    int rc = dparse(&cmd_memory, D_MEMORY, NULL, 0, argc, argv, &op);
    if (rc != EX_OK) return rc;
    int total = op.what;
    dtraced t;
    rc = dtrace("memory", op.model, &op.eo, &t);
    sy_region *r = NULL;
    sy_memory *m = NULL;
    int64_t *fixed = NULL, *tie_a = NULL, *tie_b = NULL;
    json_t *jdoc = NULL, *jvals = NULL, *jlarge = NULL;
    if (rc == EX_OK && sy_region_new(t.gs, NULL, &r) != SY_OK) rc = cli_lib_error(t.ctx, "region");
    size_t nstring = 0;
    if (rc == EX_OK) rc = memory_of(&t, r, &m, &nstring);
    size_t nv = r ? sy_region_nvars(r) : 0;
    if (rc == EX_OK && (!(fixed = calloc(nv ? nv : 1, sizeof *fixed)) || !(tie_a = calloc(nv ? nv : 1, sizeof *tie_a)) ||
                        !(tie_b = calloc(nv ? nv : 1, sizeof *tie_b))))
        rc = cli_oom();
    long var = -1;
    for (size_t v = 0; rc == EX_OK && v < nv; v++) {
        fixed[v] = sy_region_var_at(r, v)->tmin;
        if (op.var && !strcmp(sy_region_var_at(r, v)->name, op.var)) var = (long)v;
    }
    /* the example's values; the default variable: the one of the first input's dim 0 */
    for (size_t k = 0; rc == EX_OK && k < sy_region_ndims(r); k++) {
        const sy_region_dim *d = sy_region_dim_at(r, k);
        if (d->is_static) continue;
        if (d->example >= 0 && (d->example - d->b) % d->a == 0) fixed[d->var] = (d->example - d->b) / d->a;
        if (!op.var && var < 0 && d->dim == 0) var = (long)d->var;
    }
    if (rc == EX_OK && op.var && var < 0) rc = cli_usage_error("memory", "--var: the region has no variable '%s'", op.var);
    if (rc == EX_OK && (op.nfix || op.nrel) && var < 0) rc = cli_usage_error("memory", "--fix, --relation: no variable to maximize");
    if (rc == EX_OK) rc = parse_ties(&t, r, &op, var, fixed, tie_a, tie_b);
    int64_t *box_lo = NULL, *box_hi = NULL;
    if (rc == EX_OK && op.nr) rc = range_box(r, fixed, op.ranges, op.nr, &box_lo, &box_hi);
    const char *model = t.om ? sy_onnx_name(t.om) : t.g ? sy_graph_name(t.g) : "?";
    if (rc == EX_OK && op.json) {
        /* JSON cannot carry a name that is not UTF-8 (an ONNX model's may hold any bytes): json_pack
         * gave NULL, reported as "out of memory" (attack38g); the text form prints such names */
        const char *bad = sy_str_is_utf8(model) != SY_TRUE ? "the model's name" : NULL;
        for (size_t v = 0; !bad && v < nv; v++)
            if (sy_str_is_utf8(sy_region_var_at(r, v)->name) != SY_TRUE) bad = "a variable's name";
        for (size_t i = 0; !bad && i < sy_memory_size(m); i++)
            if (sy_str_is_utf8(sy_memory_at(m, i)->node) != SY_TRUE || sy_str_is_utf8(sy_memory_at(m, i)->op) != SY_TRUE)
                bad = "a node's name";
        if (bad) rc = cli_input_error("memory: %s is not valid UTF-8, which JSON cannot carry (the text form prints it)", bad);
    }
    if (rc == EX_OK && op.json) {
        jdoc = json_pack("{s:s, s:i, s:s, s:I, s:I}", "format", "symshape.memory", "version", 1, "model", model, "left_out",
                         (json_int_t)sy_memory_nskipped(m), "strings_left_out", (json_int_t)nstring);
        json_t *jv = json_object();
        for (size_t v = 0; jdoc && jv && v < nv; v++)
            json_object_set_new(jv, sy_region_var_at(r, v)->name, json_integer((json_int_t)fixed[v]));
        if (jdoc) json_object_set_new(jdoc, "at", jv);
        if (jdoc) json_object_set_new(jdoc, "values", jvals = json_array());
        if (jdoc) json_object_set_new(jdoc, "largest", jlarge = json_array());
        if (!jdoc || !jvals || !jlarge) rc = cli_oom();
        for (size_t i = 0; rc == EX_OK && i < sy_memory_size(m); i++) {
            const sy_memory_value *mv = sy_memory_at(m, i);
            char *ne = sy_expr_print(t.ctx, mv->numel, SY_PRINT_CANONICAL), *be = sy_expr_print(t.ctx, mv->bytes, SY_PRINT_CANONICAL);
            if (!ne || !be || json_array_append_new(jvals, json_pack("{s:s, s:s, s:I, s:s, s:s}", "node", mv->node, "op", mv->op,
                                                                     "elem_bytes", (json_int_t)mv->elem_bytes, "numel", ne, "bytes", be)))
                rc = cli_oom();
            sy_str_free(t.ctx, ne);
            sy_str_free(t.ctx, be);
        }
    } else if (rc == EX_OK) {
        fputs("memory of ", stdout);
        cli_put_text(stdout, model); /* names from the model: never a raw newline (issue 38, fourth pass) */
        printf(": %zu tensor values over the region's variables (%zu left out: sizes not over them", sy_memory_size(m),
               sy_memory_nskipped(m));
        if (nstring) printf("; %zu string tensors left out", nstring);
        printf(")\n");
        /* the largest activations at the example */
        size_t n = sy_memory_size(m), shown = 0;
        unsigned char *done = calloc(n ? n : 1, 1);
        const sy_expr **syms = calloc(nv ? nv : 1, sizeof *syms);
        if (!done || !syms) rc = cli_oom();
        for (size_t v = 0; rc == EX_OK && v < nv; v++) syms[v] = sy_expr_sym(t.ctx, sy_region_var_at(r, v)->name);
        if (rc == EX_OK && op.top > 0) printf("largest activations at the example%s:\n", op.nfix ? " (--fix values held)" : "");
        while (rc == EX_OK && shown < (size_t)op.top) {
            long bi = -1;
            int64_t bb = -1;
            for (size_t i = 0; i < n; i++) {
                const sy_memory_value *mv = sy_memory_at(m, i);
                int64_t b;
                if (done[i] || !strcmp(mv->op, "param") || sy_expr_eval_si(t.ctx, mv->bytes, nv, syms, fixed, &b) != SY_OK) {
                    sy_ctx_reset_error(t.ctx);
                    continue;
                }
                if (b > bb) bb = b, bi = (long)i;
            }
            if (bi < 0) break;
            done[bi] = 1;
            shown++;
            const sy_memory_value *mv = sy_memory_at(m, (size_t)bi);
            char *e = sy_expr_print(t.ctx, mv->bytes, SY_PRINT_CANONICAL);
            fputs("  ", stdout);
            cli_put_text(stdout, mv->node);
            size_t w = 0; /* the printed width of the name, for the column */
            for (const unsigned char *c = (const unsigned char *)mv->node; *c; c++) w += *c < 0x20 || *c == 0x7f ? 4 : 1;
            printf("%*s %12" PRId64 " bytes = %s\n", w < 24 ? (int)(24 - w) : 0, "", bb, e ? e : "?");
            sy_str_free(t.ctx, e);
        }
        free(done);
        free(syms);
    }
    if (rc == EX_OK && op.nr) rc = print_peak(&t, r, m, box_lo, box_hi, total, jdoc);
    if (rc == EX_OK && op.nb && var < 0 && !jdoc) printf("no dynamic dim: every size is static, nothing to maximize\n");
    /* the condition printed: the relations and the fixed values */
    char cond[1024] = "";
    for (size_t v = 0; rc == EX_OK && var >= 0 && v < nv; v++) {
        size_t l = strlen(cond);
        const char *vn = sy_region_var_at(r, v)->name;
        if (!tie_a[v]) continue;
        char a[32] = "", b[32] = ""; /* "4*", "+3": A*VAR + B without a factor 1 or an offset 0 */
        if (tie_a[v] != 1) snprintf(a, sizeof a, "%" PRId64 "*", tie_a[v]);
        if (tie_b[v]) snprintf(b, sizeof b, "%+" PRId64, tie_b[v]);
        snprintf(cond + l, sizeof cond - l, "%s%s = %s%s%s", l ? ", " : "", vn, a, sy_region_var_at(r, (size_t)var)->name, b);
    }
    for (size_t q = 0; rc == EX_OK && q < op.nfix; q++) {
        size_t l = strlen(cond);
        snprintf(cond + l, sizeof cond - l, "%s%s", l ? ", " : "", op.fixes[q]);
    }
    if (*cond) {
        size_t l = strlen(cond);
        snprintf(cond + l, sizeof cond - l, "; ");
    }
    for (size_t q = 0; rc == EX_OK && q < op.nb && var >= 0; q++) {
        int64_t best;
        int proved, stop = 0;
        sy_memory_what what = total == 2 ? SY_MEM_LIVE : total ? SY_MEM_TOTAL : SY_MEM_LARGEST;
        if (sy_memory_largest_tied(m, r, (size_t)var, fixed, op.nrel ? tie_a : NULL, op.nrel ? tie_b : NULL, what, op.budgets[q], &best,
                                   &proved, &stop) != SY_OK) {
            rc = cli_lib_error(t.ctx, "memory");
            break;
        }
        const char *vn = sy_region_var_at(r, (size_t)var)->name;
        if (jdoc) {
            json_t *at = json_object();
            for (size_t v = 0; at && v < nv; v++)
                json_object_set_new(at, sy_region_var_at(r, v)->name,
                                    json_integer((json_int_t)(v == (size_t)var ? best : tie_a[v] ? tie_a[v] * best + tie_b[v] : fixed[v])));
            if (!at || json_array_append_new(jlarge, json_pack("{s:I, s:s, s:s, s:I, s:b, s:s, s:o}", "budget", (json_int_t)op.budgets[q],
                                                              "what", total == 2 ? "live" : total ? "total" : "largest", "var", vn,
                                                              "best", (json_int_t)best, "proved", proved, "stop",
                                                              best < 0 ? "none" : stop == 2 ? "cap" : stop ? "range_end" : "next_does_not_fit",
                                                              "at", at)))
                rc = cli_oom();
            continue;
        }
        printf("largest %s with %s <= %" PRIu64 " bytes (%sthe others at the example): ", vn,
               total == 2 ? "the activations live at each node (graph order)" : total ? "all activations together" : "every activation",
               op.budgets[q], cond);
        if (best < 0) printf("none (its minimum does not fit)\n");
        else {
            /* where the search stopped: the range's end or the 2^40 cap of an unbounded
             * variable is not "one more does not fit" (one more may fit) */
            const char *end = stop == 1 ? "; it is the end of the variable's range"
                              : stop == 2 ? "; the search stops there (2^40): larger values may fit too"
                                          : "; one more does not fit";
            printf("%" PRId64, best);
            for (size_t v = 0; v < nv; v++)
                if (tie_a[v]) printf(", %s = %" PRId64, sy_region_var_at(r, v)->name, tie_a[v] * best + tie_b[v]);
            printf(" (%s%s)\n", proved ? "proved for every value up to it" : "NOT proved", proved ? end : "");
        }
    }
    if (rc == EX_OK && jdoc) {
        char *js = json_dumps(jdoc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        if (!js) rc = cli_oom();
        else {
            rc = cli_write_output(NULL, js, strlen(js));
            if (rc == EX_OK) rc = cli_write_output(NULL, "\n", 1);
            free(js);
        }
    }
    json_decref(jdoc);
    free(box_lo);
    free(box_hi);
    free(fixed);
    free(tie_a);
    free(tie_b);
    sy_memory_free(m);
    sy_region_free(r);
    dtraced_free(&t);
    return rc;
}

const cli_cmd cmd_memory = {"memory", "bytes of every value as expressions, and the largest batch that fits",
    "usage: symshape memory [--bytes N]... [--range NAME=LO..HI]... [--var NAME] [--fix NAME=V]...\n"
    "                       [--relation NAME=A*VAR+B]... [--total | --live] [--top K] [--json] MODEL.json | MODEL.onnx\n\n"
    "Memory envelopes over the model's region (symshape region): every tensor value's bytes as an\n"
    "expression of the region's variables (dtype sizes from the graph or the ONNX element types;\n"
    "an ONNX model's values are its named values, initializers are weights), the largest activations\n"
    "at the example, and for each --bytes budget the largest value of one variable (default: the\n"
    "first input's dim 0) such that every activation (--total: their sum; --live: the sum of the\n"
    "ones live at each node in graph order) fits, found by exact evaluation and proved with the\n"
    "decision procedure (docs/deploy.md).\n\n"
    "options:\n"
    "      --bytes N      a budget: N, or with k, M, G, T (powers of 1024), e.g. 1G, 16GiB\n"
    "      --range NAME=LO..HI  the peak (of --total, --live or one activation) over the box of\n"
    "                     these ranges, the other variables at the example; proved the largest\n"
    "      --var NAME     the region variable to maximize\n"
    "      --fix NAME=V   hold region variable NAME at V (default: the example) while maximizing\n"
    "      --relation NAME=A*VAR+B  tie NAME to the variable maximized (A >= 1): the largest\n"
    "                     VAR (so VAR x NAME) with NAME = A*VAR + B, e.g. --relation x_1=4*x_0;\n"
    "                     searched and proved with the tie substituted (docs/deploy.md)\n"
    "      --total        the sum of the activations, not the largest one\n"
    "      --live         the largest sum of the activations live at one node: a value lives\n"
    "                     from its node to the last node reading it (outputs: to the end)\n"
    "      --top K        largest activations shown (default 5)\n"
    "      --json         JSON \"symshape.memory\": every value (node, op, elem_bytes, numel, bytes),\n"
    "                     the peak, each budget's answer (best, proved, stop, the point)\n"
    "  -h, --help, -V, --version\n"
    CLI_EXIT_HEAD
    "  0  printed\n"
    CLI_EXIT_USAGE
    "  3  bad input (unreadable model, a trace error)\n"
    CLI_EXIT_INTERNAL,
    run_memory, 0};
