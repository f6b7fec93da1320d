/* symshape infer: every value's shape of an ONNX model as expressions, with
 * its guards; -o writes the model with value_info filled (docs/cli.md). */
#include "cli/model.h"

/* ------------------------------------------------------------------ infer */

static const struct option infer_opts[] = {{"output", required_argument, NULL, 'o'},
                                           {"json", no_argument, NULL, OPT_JSON},
                                           {"stats", no_argument, NULL, OPT_STATS},
                                           MODEL_OPTIONS,
                                           CLI_COMMON_OPTIONS,
                                           {0}};

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
            cli_put_text(stdout, sy_onnx_trace_value_name(t->ot, i)); /* an ONNX name may hold a newline */
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
                if (as_json && sy_str_is_utf8(e) != SY_TRUE) { /* a symbol named by a dim_param that is not UTF-8 */
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
    if (mn && sy_str_is_utf8(mn) != SY_TRUE) {
        escape_bytes(esc, sizeof esc, mn);
        return cli_input_error("%s: the model's name '%s' is not valid UTF-8, which JSON cannot carry (infer without --json prints it)",
                               cli_file_name(model), esc);
    }
    for (size_t i = 0; i < sy_onnx_trace_nvalues(t->ot); i++) {
        const char *nm = sy_onnx_trace_value_name(t->ot, i);
        if (sy_str_is_utf8(nm) == SY_TRUE) continue;
        escape_bytes(esc, sizeof esc, nm);
        return cli_input_error("%s: value '%s' has a name that is not valid UTF-8, which JSON cannot carry (infer without --json "
                               "prints it)", cli_file_name(model), esc);
    }
    for (size_t i = 0; i < sy_gset_size(t->gs); i++) {
        const sy_gset_guard *g = sy_gset_at(t->gs, i);
        for (size_t k = 0; k < g->norigins; k++) {
            const sy_guard_origin *o = &g->origins[k];
            if ((!o->node || sy_str_is_utf8(o->node) == SY_TRUE) && (!o->op || sy_str_is_utf8(o->op) == SY_TRUE) && (!o->reason || sy_str_is_utf8(o->reason) == SY_TRUE)) continue;
            escape_bytes(esc, sizeof esc, o->node ? o->node : "?");
            char eop[100];
            escape_bytes(eop, sizeof eop, o->op ? o->op : "?");
            return cli_input_error("%s: node '%s' (%s): its name, op or a name it reads is not valid UTF-8, which JSON cannot carry "
                                   "(infer without --json prints it)", cli_file_name(model), esc, eop);
        }
    }
    for (size_t i = 0; i < sy_gset_nviolations(t->gs); i++) { /* a Dim name of --dynamic */
        const sy_gset_violation *v = sy_gset_violation_at(t->gs, i);
        if ((!v->dims || sy_str_is_utf8(v->dims) == SY_TRUE) && (!v->message || sy_str_is_utf8(v->message) == SY_TRUE) && (!v->fix || sy_str_is_utf8(v->fix) == SY_TRUE)) continue;
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
            if (g->origins[k].limit) json_object_set_new(oj, "limit", json_true()); /* symshape's, not the model's */
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
        /* names, guards and messages carry ONNX names, any bytes: cli_put_text, never a raw newline */
        fputs("model ", stdout);
        cli_put_text(stdout, sy_onnx_name(t.om));
        printf(": %zu values, %zu guards\nvalues:\n", sy_onnx_trace_nvalues(t.ot), sy_gset_size(t.gs));
        rc = print_values(&t, 0);
        printf("guards:\n");
        for (size_t i = 0; i < json_array_size(guards); i++) {
            json_t *g = json_array_get(guards, i), *orig = json_object_get(g, "origins");
            /* numbered from 0 as run's report, probe's "guard" and the violations' "guard" index the set */
            printf("  %zu. ", i);
            cli_put_text(stdout, json_string_value(json_object_get(g, "guard")));
            fputs("   [", stdout);
            cli_put_text(stdout, json_string_value(json_object_get(g, "kind")));
            fputs("]", stdout);
            if (json_array_size(orig)) {
                json_t *o0 = json_array_get(orig, 0);
                fputs("  from node ", stdout);
                cli_put_text(stdout, json_string_value(json_object_get(o0, "node")));
                fputs(" (", stdout);
                cli_put_text(stdout, json_string_value(json_object_get(o0, "op")));
                printf(", %s): ", json_is_true(json_object_get(o0, "required")) ? "required"
                                  : json_is_true(json_object_get(o0, "limit"))  ? "a limit of symshape's formula, not of the model"
                                                                                : "a branch taken at the example");
                cli_put_text(stdout, json_string_value(json_object_get(o0, "reason")));
            } else if (json_string_value(json_object_get(g, "why"))) { /* derived: why, as run's report says it */
                fputs("  why: ", stdout);
                cli_put_text(stdout, json_string_value(json_object_get(g, "why")));
            }
            printf("\n");
        }
        if (json_array_size(viols)) printf("violations of the dynamic-dim spec:\n");
        for (size_t i = 0; i < json_array_size(viols); i++) {
            json_t *vi = json_array_get(viols, i);
            printf("  %zu. [", sy_gset_violation_at(t.gs, i)->guard); /* the guard's number above */
            cli_put_text(stdout, json_string_value(json_object_get(vi, "kind")));
            fputs("] ", stdout);
            cli_put_text(stdout, json_string_value(json_object_get(vi, "message")));
            fputs("\n     fix: ", stdout);
            cli_put_text(stdout, json_string_value(json_object_get(vi, "fix")));
            fputs("\n", stdout);
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
