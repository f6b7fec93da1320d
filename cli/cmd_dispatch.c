/* symshape dispatch G1 G2 ...: N guard sets of one model (their JSON form,
 * symshape run -b json) in one decision structure (symshape/dispatch.h);
 * for each --sizes point, the first entry that accepts it. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "symshape/bc.h"
#include "symshape/dispatch.h"

enum { OPT_SIZES = 0x300, OPT_DTYPE };

static const struct option dispatch_opts[] = {{"sizes", required_argument, NULL, 's'},
                                              {"dtype", required_argument, NULL, 'd'},
                                              {"backend", required_argument, NULL, 'b'},
                                              {"output", required_argument, NULL, 'o'},
                                              {"prefix", required_argument, NULL, 'p'},
                                              CLI_COMMON_OPTIONS,
                                              {0}};

typedef struct point {
    char *name;
    int64_t *shape;
    size_t rank;
} point;

static int run_dispatch(int argc, char **argv)
{
    int rc = EX_OK, o;
    const char *backend = NULL, *out = NULL, *prefix = "dispatch";
    point *pts = NULL;
    size_t npts = 0, cap = 0;
    char **dnames = calloc((size_t)argc + 1, sizeof *dnames);
    sy_dtype *dts = calloc((size_t)argc + 1, sizeof *dts);
    size_t ndt = 0;
    if (!dnames || !dts) {
        free(dnames);
        free(dts);
        return cli_oom();
    }
    while ((o = cli_getopt(&cmd_dispatch, argc, argv, "s:d:b:o:p:" CLI_COMMON_SHORT, dispatch_opts, &rc)) != -1) {
        if (o == CLI_STOP) goto done;
        if (o == 'b') {
            if (strcmp(optarg, "c") && strcmp(optarg, "bytecode")) {
                rc = cli_usage_error("dispatch", "backend '%s': 'c' or 'bytecode'", optarg);
                goto done;
            }
            backend = optarg;
            continue;
        }
        if (o == 'o') {
            out = optarg;
            continue;
        }
        if (o == 'p') {
            prefix = optarg;
            continue;
        }
        if (o == 's') {
            if (cli_reserve(&pts, &cap, npts + 1, sizeof *pts)) {
                rc = cli_oom();
                goto done;
            }
            int pr = cli_parse_sizes(optarg, &pts[npts].name, &pts[npts].shape, &pts[npts].rank);
            if (pr == -2) {
                rc = cli_oom();
                goto done;
            }
            if (pr) {
                rc = cli_usage_error("dispatch", "--sizes expects NAME=D,D,... with non-negative integers (got '%s')", optarg);
                goto done;
            }
            npts++;
        } else if (o == 'd') {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || sy_dtype_parse(eq + 1, &dts[ndt]) != SY_OK) {
                rc = cli_usage_error("dispatch", "--dtype expects NAME=DTYPE (got '%s')", optarg);
                goto done;
            }
            dnames[ndt++] = optarg;
        }
    }
    size_t n = (size_t)(argc - optind);
    if (!n) {
        rc = cli_usage_error("dispatch", "expects one or more guard sets (JSON: symshape run -b json)");
        goto done;
    }
    char **texts = calloc(n, sizeof *texts);
    size_t *lens = calloc(n, sizeof *lens);
    if (!texts || !lens) rc = cli_oom();
    for (size_t i = 0; rc == EX_OK && i < n; i++) rc = cli_read_input("dispatch", argv[optind + (int)i], &texts[i], &lens[i]);
    sy_ctx *ctx = cli_ctx();
    sy_dispatch *d = NULL;
    if (rc == EX_OK && sy_dispatch_new_json(ctx, n, (const char *const *)texts, lens, &d) != SY_OK) rc = cli_lib_error(ctx, "dispatch");
    int64_t *frame = NULL, *vals = NULL;
    if (rc == EX_OK) {
        size_t ng, nn, ntn, depth, nsplit, maxleaf;
        sy_dispatch_stats(d, &ng, &nn, &ntn, &depth, &nsplit, &maxleaf);
        fprintf(backend && (!out || !strcmp(out, "-")) ? stderr : stdout,
                "%zu entries: %zu distinct guards, %zu nodes; tree of %zu nodes, depth %zu over %zu sources, at most %zu "
                "entries per leaf\n",
                n, ng, nn, ntn, depth, nsplit, maxleaf);
        frame = calloc(sy_dispatch_frame_len(d), sizeof *frame);
        vals = calloc(sy_dispatch_nsources(d) + 1, sizeof *vals);
        if (!frame || !vals) rc = cli_oom();
    }
    sy_bc_program *prog = NULL;
    if (rc == EX_OK && backend && !strcmp(backend, "c")) {
        char *code = sy_dispatch_to_c(d, prefix);
        if (!code) rc = cli_lib_error(ctx, "dispatch");
        else rc = cli_write_output(out, code, strlen(code));
        sy_str_free(ctx, code);
    } else if (rc == EX_OK && backend) { /* bytecode, format 2.2 */
        unsigned char *bytes = NULL;
        size_t nb = 0;
        if (sy_bc_dispatch_compile(d, &prog) != SY_OK || sy_bc_encode(prog, &bytes, &nb) != SY_OK) rc = cli_lib_error(ctx, "dispatch");
        else rc = cli_write_output(out, (const char *)bytes, nb);
        if (bytes) sy_mem_free(ctx, bytes);
    }
    /* all --sizes together are one point (one per input), as `symshape check` */
    if (rc == EX_OK && npts) {
        for (size_t s = 0; rc == EX_OK && s < sy_dispatch_nsources(d); s++) {
            const char *src = sy_dispatch_source(d, s);
            size_t nl = 0, dim = 0;
            int kind = sy_gset_source_parse(src, &nl, &dim);
            const point *p = NULL;
            for (size_t k = 0; k < npts; k++)
                if (strlen(pts[k].name) == nl && !strncmp(pts[k].name, src, nl)) p = &pts[k];
            if (kind < 0 || kind == SY_SOURCE_STRIDE) {
                rc = cli_input_error("dispatch: source %s is not a rank, dtype or size", src);
                break;
            }
            if (!p) {
                rc = cli_usage_error("dispatch", "no --sizes for input %.*s", (int)nl, src);
                break;
            }
            if (kind == SY_SOURCE_DIM) vals[s] = (int64_t)p->rank;
            else if (kind == SY_SOURCE_SIZE) vals[s] = dim < p->rank ? p->shape[dim] : 0;
            else {
                vals[s] = SY_DT_FLOAT32;
                for (size_t k = 0; k < ndt; k++)
                    if (!strncmp(dnames[k], src, nl) && dnames[k][nl] == '=') vals[s] = dts[k];
            }
        }
        /* the reference's other rule first, as `symshape check`: an input whose numel is past
         * int64 cannot exist, and the dispatcher checks the guards only (attack47n: it answered
         * entry 0 at x1 = [2**32, 2**62], which every entry's sy_gset_check rejects) */
        const char **srcs = rc == EX_OK ? calloc(sy_dispatch_nsources(d) + 1, sizeof *srcs) : NULL;
        if (rc == EX_OK && !srcs) rc = cli_oom();
        if (rc == EX_OK) {
            for (size_t s = 0; s < sy_dispatch_nsources(d); s++) srcs[s] = sy_dispatch_source(d, s);
            sy_gset_result res = SY_GSET_RESULT_INIT;
            if (sy_gset_numel_check_si(srcs, vals, sy_dispatch_nsources(d), &res) == 1) {
                printf("no entry accepts: %s\n", res.message);
                rc = EX_FALSE;
            }
        }
        free(srcs);
        if (rc == EX_OK) {
            long r = sy_dispatch_run(d, vals, sy_dispatch_nsources(d), frame);
            if (prog && sy_bc_dispatch(prog, vals, sy_dispatch_nsources(d)) != r) {
                fprintf(stderr, "symshape: internal error: dispatch: the bytecode form answers %ld, the dispatcher %ld\n",
                        sy_bc_dispatch(prog, vals, sy_dispatch_nsources(d)), r);
                rc = EX_INTERNAL;
                goto out;
            }
            char why[512];
            long w = r == -1 ? sy_dispatch_why(d, vals, sy_dispatch_nsources(d), frame, why, sizeof why) : -1;
            if (r >= 0) printf("entry %ld: %s\n", r, argv[optind + (int)r]);
            else if (w < -2) printf("no entry accepts (fail closed: %s)\n", why); /* as symshape check */
            else printf("no entry accepts\n");
            rc = r >= 0 ? EX_OK : EX_FALSE;
        }
    }
out:
    free(frame);
    free(vals);
    sy_bc_free(prog);
    sy_dispatch_free(d);
    sy_ctx_free(ctx);
    for (size_t i = 0; texts && i < n; i++) free(texts[i]);
    free(texts);
    free(lens);
done:
    for (size_t i = 0; i < npts; i++) {
        free(pts[i].name);
        free(pts[i].shape);
    }
    free(pts);
    free(dnames);
    free(dts);
    return rc;
}

const cli_cmd cmd_dispatch = {"dispatch", "one decision structure for N guard sets of one model",
    "usage: symshape dispatch [--sizes NAME=D,D,... ...] [--dtype NAME=DT ...] [-b c|bytecode [-o FILE] [--prefix P]]\n"
    "                         G1.json G2.json ...\n\n"
    "Builds the dispatcher of the guard sets G1, G2, ... (their JSON form: symshape\n"
    "run -b json; one model, the same sources) and prints its shape. With --sizes\n"
    "(one per input; all together are one point; dtype float32 unless --dtype),\n"
    "prints the first entry that accepts the point.\n\n"
    "  -s, --sizes NAME=D,...   the sizes of input NAME\n"
    "  -d, --dtype NAME=DT      its dtype (float32, int64, ...)\n"
    "  -b, --backend c          write the dispatcher as C99: long PREFIX_dispatch(const int64_t *v)\n"
    "  -b, --backend bytecode   write it as a verified bytecode program (format 2.2; run it with\n"
    "                           symshape check, or sy_bc_dispatch); with --sizes, the VM's answer\n"
    "                           is checked against the dispatcher's\n"
    "  -o, --output FILE        where -b writes ('-' or none: stdout; the summary then goes to stderr)\n"
    "      --prefix P           the C prefix (default dispatch)\n"
    CLI_EXIT_HEAD
    "  0  built (with --sizes: an entry accepts)\n"
    "  1  with --sizes: no entry accepts ('(fail closed: SY_EOVERFLOW in guard G of entry E: EXPR)'\n"
    "     when an entry's guard overflowed int64 or divided by zero)\n"
    CLI_EXIT_USAGE
    "  3  bad input (unreadable file, malformed guard set, sets of different sources)\n"
    CLI_EXIT_INTERNAL,
    run_dispatch, 0};
