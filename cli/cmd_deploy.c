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
        if (!(t->env = sy_env_new(t->ctx, eo))) return cli_lib_error(t->ctx, "env");
        sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
        if (sy_env_trace_onnx(t->env, t->om, &to, &t->ot) != SY_OK) return cli_lib_error(t->ctx, model);
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

enum { OPT_FORMAT = 0x100, OPT_WINDOW, OPT_DEFAULT_POLICY };
static const struct option region_opts[] = {{"format", required_argument, NULL, 'f'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"window", required_argument, NULL, OPT_WINDOW},
                                            {"default-policy", no_argument, NULL, OPT_DEFAULT_POLICY},
                                            CLI_COMMON_OPTIONS,
                                            {0}};

static const struct {
    const char *name;
    sy_region_fmt fmt;
} region_formats[] = {{"text", SY_REGION_TEXT}, {"torch", SY_REGION_TORCH}, {"jax", SY_REGION_JAX},
                      {"onnx", SY_REGION_ONNX}, {"spec", SY_REGION_SPEC},   {"json", SY_REGION_JSON}};
#define NFMT (sizeof region_formats / sizeof region_formats[0])

static int run_region(int argc, char **argv)
{
    const char *out = NULL;
    int fmts[NFMT] = {0}, nf = 0, rc = EX_OK;
    sy_region_options ro = SY_REGION_OPTIONS_INIT;
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0; /* the most relaxed policy: the guards, not the policy, shape the region */
    eo.specialize_zero_one = 0;
    int o;
    while ((o = cli_getopt(&cmd_region, argc, argv, "f:o:" CLI_COMMON_SHORT, region_opts, &rc)) != -1) {
        if (o == CLI_STOP) return rc;
        if (o == 'o') {
            out = optarg;
        } else if (o == 'f') {
            const char *names[NFMT];
            for (size_t k = 0; k < NFMT; k++) names[k] = region_formats[k].name;
            if (!pick_format(optarg, names, NFMT, fmts, &nf)) return cli_usage_error("region", "--format: unknown format '%s' (text, torch, jax, onnx, spec, json, all)", optarg);
        } else if (o == OPT_WINDOW) {
            char *end;
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            if (end == optarg || *end || errno || v < 1 || v > 1000000)
                return cli_usage_error("region", "--window: expected an integer in 1 .. 1000000 (got '%s')", optarg);
            ro.window = v;
        } else if (o == OPT_DEFAULT_POLICY) {
            eo.duck_sizing = 1;
            eo.specialize_zero_one = 1;
        }
    }
    if (optind + 1 != argc) return cli_usage_error("region", "expected one MODEL (graph .json or .onnx)");
    if (!nf) {
        fmts[0] = 1;
        nf = 1;
    }
    dtraced t;
    rc = dtrace("region", argv[optind], &eo, &t);
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

enum { OPT_HIST = 0x200, OPT_MAXSIZE };
static const struct option profile_opts[] = {{"format", required_argument, NULL, 'f'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"histogram", required_argument, NULL, OPT_HIST},
                                             {"profiles", required_argument, NULL, 'k'},
                                             {"max-size", required_argument, NULL, OPT_MAXSIZE},
                                             CLI_COMMON_OPTIONS,
                                             {0}};
static const struct {
    const char *name;
    sy_profile_fmt fmt;
} profile_formats[] = {{"text", SY_PROFILE_TEXT},   {"trtexec", SY_PROFILE_TRTEXEC},   {"ort", SY_PROFILE_ORT},
                       {"torch-trt", SY_PROFILE_TORCH_TRT}, {"openvino", SY_PROFILE_OPENVINO}, {"json", SY_PROFILE_JSON}};
#define NPFMT (sizeof profile_formats / sizeof profile_formats[0])

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

static int run_profile(int argc, char **argv)
{
    const char *out = NULL, *hist = NULL;
    int fmts[NPFMT] = {0}, nf = 0, rc = EX_OK;
    sy_profile_options po = SY_PROFILE_OPTIONS_INIT;
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    int o;
    long long x;
    while ((o = cli_getopt(&cmd_profile, argc, argv, "f:o:k:" CLI_COMMON_SHORT, profile_opts, &rc)) != -1) {
        if (o == CLI_STOP) return rc;
        if (o == 'o') out = optarg;
        else if (o == OPT_HIST) hist = optarg;
        else if (o == 'k') {
            if ((rc = parse_count("profile", "--profiles", optarg, 1, 64, &x)) != EX_OK) return rc;
            po.k = (size_t)x;
        } else if (o == OPT_MAXSIZE) {
            if ((rc = parse_count("profile", "--max-size", optarg, 1, INT64_MAX / 4, &x)) != EX_OK) return rc;
            po.max_size = x;
        } else if (o == 'f') {
            const char *names[NPFMT];
            for (size_t k = 0; k < NPFMT; k++) names[k] = profile_formats[k].name;
            if (!pick_format(optarg, names, NPFMT, fmts, &nf))
                return cli_usage_error("profile", "--format: unknown format '%s' (text, trtexec, ort, torch-trt, openvino, json, all)", optarg);
        }
    }
    if (optind + 1 != argc) return cli_usage_error("profile", "expected one MODEL (graph .json or .onnx)");
    if (!nf) {
        fmts[0] = 1;
        nf = 1;
    }
    dtraced t;
    rc = dtrace("profile", argv[optind], &eo, &t);
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

static const struct option corners_opts[] = {{"json", no_argument, NULL, 'j'}, {"output", required_argument, NULL, 'o'}, CLI_COMMON_OPTIONS, {0}};

static int run_corners(int argc, char **argv)
{
    const char *out = NULL;
    int json = 0, rc = EX_OK, o;
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    while ((o = cli_getopt(&cmd_corners, argc, argv, "jo:" CLI_COMMON_SHORT, corners_opts, &rc)) != -1) {
        if (o == CLI_STOP) return rc;
        if (o == 'j') json = 1;
        else if (o == 'o') out = optarg;
    }
    if (optind + 1 != argc) return cli_usage_error("corners", "expected one MODEL (graph .json or .onnx)");
    dtraced t;
    rc = dtrace("corners", argv[optind], &eo, &t);
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
            size_t n = strlen(line);
            if (cli_reserve(&text, &cap, len + n + 1, 1)) rc = cli_oom();
            else {
                memcpy(text + len, line, n + 1);
                len += n;
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
    "(docs/deploy.md). python3 -m symshape has no --run yet: run the model at the printed sizes\n"
    "(--json) to compare.\n\n"
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

enum { OPT_BYTES = 0x300, OPT_VAR, OPT_TOTAL, OPT_TOP, OPT_LIVE, OPT_RANGE };
static const struct option memory_opts[] = {{"bytes", required_argument, NULL, OPT_BYTES}, {"var", required_argument, NULL, OPT_VAR},
                                            {"total", no_argument, NULL, OPT_TOTAL},        {"top", required_argument, NULL, OPT_TOP},
                                            {"live", no_argument, NULL, OPT_LIVE},          {"range", required_argument, NULL, OPT_RANGE},
                                            CLI_COMMON_OPTIONS,                             {0}};

/* --range NAME=LO..HI ...: the peak over that box (the other variables at the example) */
static int print_peak(dtraced *t, const sy_region *r, const sy_memory *m, const int64_t *fixed, const char *const *ranges, size_t nr,
                      int total)
{
    size_t nv = sy_region_nvars(r);
    int64_t *lo = calloc(nv ? nv : 1, sizeof *lo), *hi = calloc(nv ? nv : 1, sizeof *hi);
    if (!lo || !hi) {
        free(lo);
        free(hi);
        return cli_oom();
    }
    memcpy(lo, fixed, nv * sizeof *lo);
    memcpy(hi, fixed, nv * sizeof *hi);
    int rc = EX_OK;
    for (size_t q = 0; rc == EX_OK && q < nr; q++) {
        const char *eq = strchr(ranges[q], '='), *dots = eq ? strstr(eq, "..") : NULL;
        long v = -1;
        for (size_t k = 0; eq && k < nv; k++)
            if (strlen(sy_region_var_at(r, k)->name) == (size_t)(eq - ranges[q]) && !strncmp(sy_region_var_at(r, k)->name, ranges[q], (size_t)(eq - ranges[q])))
                v = (long)k;
        char *e1 = NULL, *e2 = NULL;
        long long a = dots ? strtoll(eq + 1, &e1, 10) : 0, b = dots ? strtoll(dots + 2, &e2, 10) : 0;
        if (!eq || !dots || e1 != dots || !e2 || *e2 || e2 == dots + 2 || a < 0 || b < a)
            rc = cli_usage_error("memory", "--range: expected NAME=LO..HI with 0 <= LO <= HI (got '%s')", ranges[q]);
        else if (v < 0) rc = cli_usage_error("memory", "--range: the region has no variable '%.*s'", (int)(eq - ranges[q]), ranges[q]);
        else {
            lo[v] = a;
            hi[v] = b;
        }
    }
    uint64_t peak = 0;
    int proved = 0;
    sy_memory_what what = total == 2 ? SY_MEM_LIVE : total ? SY_MEM_TOTAL : SY_MEM_LARGEST;
    if (rc == EX_OK && sy_memory_peak(m, r, lo, hi, what, &peak, &proved) != SY_OK) rc = cli_lib_error(t->ctx, "memory");
    if (rc == EX_OK) {
        printf("peak of %s over", total == 2 ? "the activations live at one node" : total ? "all activations together" : "one activation");
        for (size_t k = 0; k < nv; k++)
            printf("%s %s in [%" PRId64 ", %" PRId64 "]", k ? "," : "", sy_region_var_at(r, k)->name, lo[k], hi[k]);
        printf(": %" PRIu64 " bytes (%s)\n", peak,
               proved ? "proved the largest over the range; at its upper corner" : "NOT proved: the value at the upper corner only");
    }
    free(lo);
    free(hi);
    return rc;
}

static int run_memory(int argc, char **argv)
{
    uint64_t budgets[8];
    size_t nb = 0;
    const char *varname = NULL, *ranges[8];
    size_t nr = 0;
    long long top = 5;
    int total = 0, rc = EX_OK, o;
    while ((o = cli_getopt(&cmd_memory, argc, argv, CLI_COMMON_SHORT, memory_opts, &rc)) != -1) {
        if (o == CLI_STOP) return rc;
        if (o == OPT_BYTES) {
            if (nb == 8) return cli_usage_error("memory", "--bytes: at most 8 budgets");
            if (parse_bytes(optarg, &budgets[nb++])) return cli_usage_error("memory", "--bytes: expected N, NkB, NM, NG or NT (got '%s')", optarg);
        } else if (o == OPT_VAR) varname = optarg;
        else if (o == OPT_RANGE) {
            if (nr == 8) return cli_usage_error("memory", "--range: at most 8");
            ranges[nr++] = optarg;
        }
        else if (o == OPT_TOTAL || o == OPT_LIVE) {
            if (total && total != (o == OPT_LIVE ? 2 : 1)) return cli_usage_error("memory", "--total and --live: choose one");
            total = o == OPT_LIVE ? 2 : 1;
        }
        else if (o == OPT_TOP && (rc = parse_count("memory", "--top", optarg, 0, 1000000, &top)) != EX_OK) return rc;
    }
    if (optind + 1 != argc) return cli_usage_error("memory", "expected one MODEL (a graph .json)");
    if (ends_with(argv[optind], ".onnx")) return cli_usage_error("memory", "memory reads a graph .json (ONNX models: not yet)");
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    dtraced t;
    rc = dtrace("memory", argv[optind], &eo, &t);
    sy_region *r = NULL;
    sy_memory *m = NULL;
    int64_t *fixed = NULL;
    if (rc == EX_OK && sy_region_new(t.gs, NULL, &r) != SY_OK) rc = cli_lib_error(t.ctx, "region");
    if (rc == EX_OK && sy_memory_new(t.env, t.g, t.tr, r, &m) != SY_OK) rc = cli_lib_error(t.ctx, "memory");
    size_t nv = r ? sy_region_nvars(r) : 0;
    if (rc == EX_OK && !(fixed = calloc(nv ? nv : 1, sizeof *fixed))) rc = cli_oom();
    long var = -1;
    for (size_t v = 0; rc == EX_OK && v < nv; v++) {
        fixed[v] = sy_region_var_at(r, v)->tmin;
        if (varname && !strcmp(sy_region_var_at(r, v)->name, varname)) var = (long)v;
    }
    /* the example's values; the default variable: the one of the first input's dim 0 */
    for (size_t k = 0; rc == EX_OK && k < sy_region_ndims(r); k++) {
        const sy_region_dim *d = sy_region_dim_at(r, k);
        if (d->is_static) continue;
        if (d->example >= 0 && (d->example - d->b) % d->a == 0) fixed[d->var] = (d->example - d->b) / d->a;
        if (!varname && var < 0 && d->dim == 0) var = (long)d->var;
    }
    if (rc == EX_OK && varname && var < 0) rc = cli_usage_error("memory", "--var: the region has no variable '%s'", varname);
    if (rc == EX_OK) {
        printf("memory of %s: %zu tensor values over the region's variables (%zu left out: sizes not over them)\n",
               sy_graph_name(t.g), sy_memory_size(m), sy_memory_nskipped(m));
        /* the largest activations at the example */
        size_t n = sy_memory_size(m), shown = 0;
        unsigned char *done = calloc(n ? n : 1, 1);
        const sy_expr **syms = calloc(nv ? nv : 1, sizeof *syms);
        if (!done || !syms) rc = cli_oom();
        for (size_t v = 0; rc == EX_OK && v < nv; v++) syms[v] = sy_expr_sym(t.ctx, sy_region_var_at(r, v)->name);
        if (rc == EX_OK && top > 0) printf("largest activations at the example:\n");
        while (rc == EX_OK && shown < (size_t)top) {
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
            printf("  %-24s %12" PRId64 " bytes = %s\n", mv->node, bb, e ? e : "?");
            sy_str_free(t.ctx, e);
        }
        free(done);
        free(syms);
        if (rc == EX_OK && nr) rc = print_peak(&t, r, m, fixed, ranges, nr, total);
        if (rc == EX_OK && nb && var < 0) printf("no dynamic dim: every size is static, nothing to maximize\n");
        for (size_t q = 0; rc == EX_OK && q < nb && var >= 0; q++) {
            int64_t best;
            int proved;
            sy_memory_what what = total == 2 ? SY_MEM_LIVE : total ? SY_MEM_TOTAL : SY_MEM_LARGEST;
            if (sy_memory_largest(m, r, (size_t)var, fixed, what, budgets[q], &best, &proved) != SY_OK) {
                rc = cli_lib_error(t.ctx, "memory");
                break;
            }
            printf("largest %s with %s <= %" PRIu64 " bytes (the others at the example): ", sy_region_var_at(r, (size_t)var)->name,
                   total == 2 ? "the activations live at each node (graph order)" : total ? "all activations together" : "every activation",
                   budgets[q]);
            if (best < 0) printf("none (its minimum does not fit)\n");
            else {
                /* where the search stopped: the range's end or the 2^40 cap of an unbounded
                 * variable is not "one more does not fit" (one more may fit) */
                const sy_region_var *rv = sy_region_var_at(r, (size_t)var);
                const char *end = rv->tmax != SY_REGION_UNBOUNDED && best == rv->tmax ? "; it is the end of the variable's range"
                                  : rv->tmax == SY_REGION_UNBOUNDED && best == ((int64_t)1 << 40)
                                      ? "; the search stops there (2^40): larger values may fit too"
                                      : "; one more does not fit";
                printf("%" PRId64 " (%s%s)\n", best, proved ? "proved for every value up to it" : "NOT proved", proved ? end : "");
            }
        }
    }
    free(fixed);
    sy_memory_free(m);
    sy_region_free(r);
    dtraced_free(&t);
    return rc;
}

const cli_cmd cmd_memory = {"memory", "bytes of every value as expressions, and the largest batch that fits",
    "usage: symshape memory [--bytes N]... [--range NAME=LO..HI]... [--var NAME] [--total | --live] [--top K] MODEL.json\n\n"
    "Memory envelopes over the model's region (symshape region): every tensor value's bytes as an\n"
    "expression of the region's variables (dtype sizes from the graph), the largest activations\n"
    "at the example, and for each --bytes budget the largest value of one variable (default: the\n"
    "first input's dim 0) such that every activation (--total: their sum; --live: the sum of the\n"
    "ones live at each node in graph order) fits, found by exact evaluation and proved with the\n"
    "decision procedure (docs/deploy.md).\n\n"
    "options:\n"
    "      --bytes N      a budget: N, or with k, M, G, T (powers of 1024), e.g. 1G, 16GiB\n"
    "      --range NAME=LO..HI  the peak (of --total, --live or one activation) over the box of\n"
    "                     these ranges, the other variables at the example; proved the largest\n"
    "      --var NAME     the region variable to maximize\n"
    "      --total        the sum of the activations, not the largest one\n"
    "      --live         the largest sum of the activations live at one node: a value lives\n"
    "                     from its node to the last node reading it (outputs: to the end)\n"
    "      --top K        largest activations shown (default 5)\n"
    "  -h, --help, -V, --version\n"
    CLI_EXIT_HEAD
    "  0  printed\n"
    CLI_EXIT_USAGE
    "  3  bad input (unreadable model, a trace error)\n"
    CLI_EXIT_INTERNAL,
    run_memory, 0};
