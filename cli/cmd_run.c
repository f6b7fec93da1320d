/* symshape run: trace a model, produce and minimize its guard set, render it
 * with a backend; --list-unsupported (docs/cli.md). */
#include "cli/model.h"

static const struct option run_opts[] = {{"backend", required_argument, NULL, 'b'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"prefix", required_argument, NULL, OPT_PREFIX},
                                         {"stats", no_argument, NULL, OPT_STATS},
                                         {"list-unsupported", no_argument, NULL, OPT_LIST_UNSUPPORTED},
                                         {"certify", no_argument, NULL, OPT_CERTIFY},
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
        cli_put_text(stdout, op); /* the graph's names, any bytes: never a raw newline (issue 38, fix38f) */
        printf(": %zu node%s (first: '", count, count == 1 ? "" : "s");
        cli_put_text(stdout, sy_graph_node_name(g, i));
        printf("'");
        if (loc && loc->file) {
            printf(" at ");
            cli_put_text(stdout, loc->file);
            printf(":%ld", loc->line);
        }
        printf(")\n");
        nops++;
    }
    if (nops) fprintf(stderr, "%s: %zu unsupported op%s in %zu of %zu call nodes\n", cli_file_name(model), nops, nops == 1 ? "" : "s", nnodes, calls);
    else fprintf(stderr, "%s: every op is supported (%zu call nodes)\n", cli_file_name(model), calls);
    sy_graph_free(g);
    sy_ctx_free(ctx);
    return nops ? EX_FALSE : EX_OK;
}

/* run -b c --certify: the C code after a header comment carrying the certificate (docs/bytecode.md
 * section 10): the SHA-256 of the code after the comment, that of the code followed by the
 * obligation, and the obligation (SMT-LIB 2.6, which never contains the comment's end). */
static int certify_c(traced *t, const sy_backend_options *bo, const char *outpath)
{
    sy_gset *rec = NULL;
    const sy_graph_input **owned = NULL;
    unsigned char *code = NULL;
    size_t n = 0;
    char *ob = NULL;
    int rc = produce_recorded("certify", t, &rec, NULL, NULL, &owned);
    if (rc == EX_OK && (sy_backend_render("c", t->gs, bo, &code, &n) != SY_OK || !(ob = sy_bc_certificate_obligation(t->gs, rec))))
        rc = cli_lib_error(t->ctx, "certify");
    if (rc == EX_OK && strstr(ob, "*/")) rc = cli_input_error("certify: the obligation contains '*/': it cannot stand in a C comment");
    size_t ol = ob ? strlen(ob) : 0;
    unsigned char *cat = rc == EX_OK ? malloc(n + ol + 1) : NULL, h1[32], h2[32];
    if (rc == EX_OK && !cat) rc = cli_oom();
    if (rc == EX_OK) {
        memcpy(cat, code, n);
        memcpy(cat + n, ob, ol);
        sy_bc_sha256(code, n, h1);
        sy_bc_sha256(cat, n + ol, h2);
        size_t cap = n + ol + 512;
        char *out = malloc(cap);
        if (!out) rc = cli_oom();
        else {
            int k = snprintf(out, cap, "/* symshape certificate (docs/bytecode.md section 10): check with symshape verify --artifact\n"
                                       " * sha256 of the code after this comment: ");
            for (int i = 0; i < 32; i++) k += snprintf(out + k, cap - (size_t)k, "%02x", h1[i]);
            k += snprintf(out + k, cap - (size_t)k, "\n * sha256 of that code followed by the obligation: ");
            for (int i = 0; i < 32; i++) k += snprintf(out + k, cap - (size_t)k, "%02x", h2[i]);
            k += snprintf(out + k, cap - (size_t)k, "\n * obligation:\n");
            memcpy(out + k, ob, ol);
            k += (int)ol;
            k += snprintf(out + k, cap - (size_t)k, "*/\n");
            memcpy(out + k, code, n);
            rc = cli_write_output(outpath, out, (size_t)k + n);
            free(out);
        }
    }
    free(cat);
    if (code) sy_mem_free(t->ctx, code);
    sy_str_free(t->ctx, ob);
    sy_gset_free(rec);
    free(owned);
    return rc;
}

static int run_run(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    const char *backend = "report", *outpath = NULL, *prefix = NULL;
    int stats = 0, rc = EX_OK, o, list = 0, certify = 0;
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
        else if (o == OPT_CERTIFY) certify = 1;
    }
    if (rc == EX_OK && certify && strcmp(backend, "bytecode") && strcmp(backend, "c"))
        rc = cli_usage_error("run", "--certify applies to the bytecode and C backends (-b bytecode, -b c)");
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
    int written = 0;
    if (rc == EX_OK && certify && !strcmp(backend, "c")) {
        rc = certify_c(&t, &bo, outpath);
        written = 1;
    } else if (rc == EX_OK && certify) { /* the program with its certificate (bc.h, docs/bytecode.md section 10) */
        sy_gset *rec = NULL;
        const sy_graph_input **owned = NULL;
        sy_bc_program *p = NULL;
        char *ob = NULL;
        rc = produce_recorded("certify", &t, &rec, NULL, NULL, &owned);
        if (rc == EX_OK && (sy_bc_compile(t.gs, &p) != SY_OK || !(ob = sy_bc_certificate_obligation(t.gs, rec)) ||
                            sy_bc_encode_certified(p, ob, &data, &len) != SY_OK))
            rc = cli_lib_error(t.ctx, "certify");
        sy_str_free(t.ctx, ob);
        sy_bc_free(p);
        sy_gset_free(rec);
        free(owned);
    } else if (rc == EX_OK && sy_backend_render(backend, t.gs, &bo, &data, &len) != SY_OK) {
        rc = cli_lib_error(t.ctx, "render");
    }
    double t6 = now();
    if (rc == EX_OK && !written) rc = cli_write_output(outpath, data, len);
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
    "      --certify            with -b bytecode: embed a certificate (format 2.2): the SMT-LIB 2\n"
    "                           obligation that the minimized set equals the recorded guards, and\n"
    "                           the SHA-256 of the program's bytes; with -b c: the same in a header\n"
    "                           comment; check either with symshape verify --artifact FILE\n"
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
