/* Bytecode commands: check (run a guard file on sizes) and disasm. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "symshape/bc.h"

static int load_file(const char *cmd, sy_ctx *ctx, const char *path, sy_bc_program **out)
{
    char *data = NULL;
    size_t n = 0;
    int rc = cli_read_input(cmd, path, &data, &n);
    if (rc != EX_OK) return rc;
    sy_bc_load_err err;
    sy_status st = sy_bc_load(ctx, (const unsigned char *)data, n, out, &err);
    free(data);
    if (st != SY_OK) {
        fprintf(stderr, "symshape: error: %s: byte %zu: %s (%s)\n", cli_file_name(path), err.offset, err.msg,
                sy_status_name(err.code));
        return st == SY_ENOMEM ? EX_INTERNAL : EX_INPUT;
    }
    return EX_OK;
}

static const struct option disasm_opts[] = {CLI_COMMON_OPTIONS, {0}};

static int run_disasm(int argc, char **argv)
{
    int rc = EX_OK, o;
    while ((o = cli_getopt(&cmd_disasm, argc, argv, CLI_COMMON_SHORT, disasm_opts, &rc)) != -1)
        if (o == CLI_STOP) return rc;
    if (argc - optind != 1) return cli_usage_error("disasm", "expected one bytecode file ('-': stdin)");
    sy_ctx *ctx = cli_ctx();
    sy_bc_program *p = NULL;
    rc = load_file("disasm", ctx, argv[optind], &p);
    if (rc == EX_OK) {
        char *text = NULL;
        if (sy_bc_disassemble_str(p, &text) != SY_OK) rc = cli_lib_error(ctx, "disasm");
        else fputs(text, stdout);
        sy_str_free(ctx, text);
    }
    sy_bc_free(p);
    sy_ctx_free(ctx);
    return rc;
}

/* one input: name, sizes, dtype */
typedef struct {
    char *name;
    size_t rank; /* (size_t)-1: --dtype seen, --sizes not yet */
    int64_t *shape;
    int dtype; /* -1: default float32 */
} in_t;

static in_t *find_in(in_t *ins, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(ins[i].name) == len && !strncmp(ins[i].name, name, len)) return &ins[i];
    return NULL;
}

static const struct option check_opts[] = {
    {"sizes", required_argument, NULL, 's'}, {"dtype", required_argument, NULL, 'd'}, CLI_COMMON_OPTIONS, {0}};

static void free_ins(in_t *ins, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ins[i].name);
        free(ins[i].shape);
    }
    free(ins);
}

/* one --sizes or --dtype value */
static int check_option(int is_dtype, const char *v, in_t **ins, size_t *nin, size_t *cap)
{
    const char *opt = is_dtype ? "--dtype" : "--sizes";
    const char *eq = strrchr(v, '='); /* the last '=', as cli_parse_sizes: a name may hold '=' */
    if (!eq || eq == v) return cli_usage_error("check", "%s expects NAME=... (got '%s')", opt, v);
    in_t *in = find_in(*ins, *nin, v, (size_t)(eq - v));
    if (!in) {
        if (cli_reserve(ins, cap, *nin + 1, sizeof **ins)) return cli_oom();
        in = &(*ins)[(*nin)++];
        memset(in, 0, sizeof *in);
        in->dtype = -1;
        in->rank = (size_t)-1;
        if (!(in->name = strndup(v, (size_t)(eq - v)))) return cli_oom();
    }
    if (is_dtype) {
        sy_dtype d;
        if (sy_dtype_parse(eq + 1, &d) != SY_OK) return cli_usage_error("check", "unknown dtype '%s'", eq + 1);
        in->dtype = (int)d;
        return EX_OK;
    }
    if (in->rank != (size_t)-1) return cli_usage_error("check", "sizes of '%s' given twice", in->name);
    char *nm;
    int r = cli_parse_sizes(v, &nm, &in->shape, &in->rank);
    if (r == -2) return cli_oom();
    if (r) {
        in->rank = (size_t)-1;
        return cli_usage_error("check", "bad sizes '%s' (NAME=D,D,... with non-negative integers up to 2^63-1)", v);
    }
    free(nm);
    return EX_OK;
}

/* The reject line. A rank/dtype guard's text holds the dtype's code
 * ("x.dtype == 0", since guards are integer expressions); it is shown with the
 * dtype by name and the value that failed, as sy_gset_check's message is:
 * "x.dtype == float32 failed: x.dtype = float16 (code 2)". */
static void print_reject(const sy_bc_program *p, size_t failed, const char *t, const int64_t *vals, size_t ns)
{
    const char *eq = t ? strstr(t, " == ") : NULL;
    char src[256];
    size_t namelen = 0, dim = 0;
    char *end = NULL;
    long long code = eq ? strtoll(eq + 4, &end, 10) : -1;
    if (eq && (size_t)(eq - t) < sizeof src && end && !*end && code >= 0 && code < SY_DT_COUNT) {
        memcpy(src, t, (size_t)(eq - t));
        src[eq - t] = '\0';
        if (sy_gset_source_parse(src, &namelen, &dim) == SY_SOURCE_DTYPE) {
            for (size_t s = 0; s < ns; s++) {
                const char *name = sy_bc_slot_name(p, s);
                if (!name || strcmp(name, src)) continue;
                const char *got = vals[s] >= 0 && vals[s] < SY_DT_COUNT ? sy_dtype_name((sy_dtype)vals[s]) : "?";
                printf("reject: guard %zu: %s == %s failed: %s = %s (code %lld)\n", failed, src,
                       sy_dtype_name((sy_dtype)code), src, got, (long long)vals[s]);
                return;
            }
        }
    }
    char *e = sy_bc_escape(sy_bc_ctx(p), t, SIZE_MAX); /* a corrupt file writes no control bytes */
    printf("reject: guard %zu: %s failed\n", failed, e ? e : "?");
    sy_str_free(sy_bc_ctx(p), e);
}

/* the library's numel rule (sy_gset_numel_check_si) over every --sizes input: EX_FALSE with the
 * reject line printed when one cannot exist */
static int numel_reject(const in_t *ins, size_t nin)
{
    size_t n = 0;
    for (size_t i = 0; i < nin; i++) n += ins[i].rank;
    char **src = calloc(n ? n : 1, sizeof *src);
    int64_t *val = calloc(n ? n : 1, sizeof *val);
    int rc = src && val ? EX_OK : cli_oom();
    size_t k = 0;
    for (size_t i = 0; i < nin && rc == EX_OK; i++)
        for (size_t d = 0; d < ins[i].rank && rc == EX_OK; d++, k++) {
            size_t len = strlen(ins[i].name) + 32;
            if (!(src[k] = malloc(len))) rc = cli_oom();
            else snprintf(src[k], len, "%s.size()[%zu]", ins[i].name, d);
            val[k] = ins[i].shape[d];
        }
    sy_gset_result res = SY_GSET_RESULT_INIT;
    if (rc == EX_OK && sy_gset_numel_check_si((const char *const *)src, val, n, &res) == 1) {
        printf("reject: %s\n", res.message);
        rc = EX_FALSE;
    }
    for (size_t j = 0; src && j < k; j++) free(src[j]);
    free(src);
    free(val);
    return rc;
}

static int run_check(int argc, char **argv)
{
    in_t *ins = NULL;
    size_t nin = 0, cap = 0;
    int rc = EX_OK, o;
    while (rc == EX_OK && (o = cli_getopt(&cmd_check, argc, argv, "s:d:" CLI_COMMON_SHORT, check_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        if (o == 's' || o == 'd') rc = check_option(o == 'd', optarg, &ins, &nin, &cap);
    }
    const char *file = optind < argc ? argv[optind] : NULL;
    if (rc == EX_OK && argc - optind > 1) rc = cli_usage_error("check", "expected one bytecode file");
    if (rc == EX_OK && !file) rc = cli_usage_error("check", "expected a bytecode file ('-': stdin)");
    if (rc == EX_OK && !nin) rc = cli_usage_error("check", "expected --sizes NAME=D,D,...");
    for (size_t i = 0; i < nin && rc == EX_OK; i++)
        if (ins[i].rank == (size_t)-1) rc = cli_usage_error("check", "--dtype of '%s' without its --sizes", ins[i].name);
    if (rc != EX_OK) {
        free_ins(ins, nin);
        return rc;
    }
    sy_ctx *ctx = cli_ctx();
    sy_bc_program *p = NULL;
    rc = load_file("check", ctx, file, &p);
    if (rc != EX_OK) {
        free_ins(ins, nin);
        sy_ctx_free(ctx);
        return rc;
    }
    size_t ns = sy_bc_nslots(p);
    int64_t *vals = calloc(ns ? ns : 1, sizeof *vals);
    if (!vals) rc = cli_oom();
    for (size_t s = 0; s < ns && rc == EX_OK; s++) {
        const char *src = sy_bc_slot_name(p, s);
        size_t namelen = 0, dim = 0;
        int kind = sy_gset_source_parse(src, &namelen, &dim);
        if (kind < 0) {
            char *e = sy_bc_escape(ctx, src, SIZE_MAX);
            rc = cli_input_error("%s: unsupported source '%s' in slot %zu (expected NAME.dim(), NAME.dtype, "
                                 "NAME.size()[I] or NAME.stride()[I])", cli_file_name(file), e ? e : "?", s);
            sy_str_free(ctx, e);
            break;
        }
        in_t *in = find_in(ins, nin, src, namelen);
        if (!in) {
            char *e = sy_bc_escape(ctx, src, namelen);
            rc = cli_usage_error("check", "the guards read input '%s': give --sizes %s=...", e ? e : "?", e ? e : "?");
            sy_str_free(ctx, e);
            break;
        }
        if (kind == SY_SOURCE_DIM) vals[s] = (int64_t)in->rank;
        else if (kind == SY_SOURCE_DTYPE) vals[s] = in->dtype < 0 ? SY_DT_FLOAT32 : in->dtype;
        else if (kind == SY_SOURCE_SIZE) vals[s] = dim < in->rank ? in->shape[dim] : 0; /* the rank guard fails first */
        else { /* a stride: the contiguous one (check takes sizes only) */
            int64_t acc = 1;
            for (size_t k = dim + 1; k < in->rank; k++) acc = in->shape[k] && acc > INT64_MAX / in->shape[k] ? INT64_MAX : acc * in->shape[k];
            vals[s] = dim < in->rank ? acc : 0;
        }
    }
    /* an input whose numel is past int64 cannot exist (torch's safe_compute_numel, onnxruntime's
     * TensorShape::Size): rejected whatever the guards say, by the library's rule (sy_gset_check's) */
    if (rc == EX_OK) rc = numel_reject(ins, nin);
    if (rc == EX_FALSE) goto done;
    if (rc == EX_OK && (sy_bc_flags(p) & SY_BC_FLAG_DISPATCH)) { /* a dispatcher (symshape dispatch -b bytecode) */
        long r = sy_bc_dispatch(p, vals, ns);
        if (r >= 0) printf("entry %ld\n", r);
        else if (r == -1) printf("no entry accepts\n");
        else printf("no entry (fail closed: %s)\n", sy_status_name((sy_status)r));
        rc = r >= 0 ? EX_OK : EX_FALSE;
    } else if (rc == EX_OK) {
        int32_t failed = -1;
        int r = sy_bc_check(p, vals, ns, &failed);
        if (r == SY_BC_ACCEPT) {
            printf("accept\n");
        } else if (r == SY_BC_REJECT) {
            const char *t = sy_bc_guard_text(p, (size_t)failed);
            print_reject(p, (size_t)failed, t, vals, ns);
            rc = EX_FALSE;
        } else {
            printf("reject (fail closed: %s in guard %d)\n", sy_status_name((sy_status)r), (int)failed);
            rc = EX_FALSE;
        }
    }
done:
    free(vals);
    free_ins(ins, nin);
    sy_bc_free(p);
    sy_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_check = {"check", "run a bytecode guard file on input sizes",
    "usage: symshape check [--sizes NAME=D,D,...]... [--dtype NAME=DTYPE]... GUARDS.sybc\n\n"
    "Loads and verifies the program GUARDS.sybc ('-': stdin; a corrupt file is\n"
    "rejected with the byte offset), fills its slots (NAME.dim(), NAME.dtype,\n"
    "NAME.size()[i]) from the given sizes (dtype float32 unless --dtype) and runs\n"
    "it in the VM. Prints 'accept', or 'reject: guard N: TEXT failed', or 'reject:\n"
    "input NAME cannot exist: ...' when an input's numel is past int64. A dispatcher\n"
    "(symshape dispatch -b bytecode) prints the first entry that accepts, 'entry N',\n"
    "or 'no entry accepts'.\n\n"
    "  -s, --sizes NAME=D,D,...  the sizes of input NAME (one per input; any rank)\n"
    "  -d, --dtype NAME=DTYPE    the dtype of input NAME (default float32)\n"
    "  -h, --help                this help;  -V, --version  the version\n"
    CLI_EXIT_HEAD
    "  0  accept (a dispatcher: an entry accepts)\n"
    "  1  reject (also fail-closed on overflow; a dispatcher: no entry accepts)\n" CLI_EXIT_USAGE
    "  3  unreadable or corrupt file, or a slot whose source is not supported\n" CLI_EXIT_INTERNAL,
    run_check, 0};
const cli_cmd cmd_disasm = {"disasm", "disassemble a bytecode guard file",
    "usage: symshape disasm GUARDS.sybc\n\n"
    "Prints the header (version, counts, slots, constants, guards) and one line\n"
    "per instruction: pc, opcode, operands and synopsis. GUARDS.sybc '-' reads stdin.\n\n"
    "  -h, --help        this help;  -V, --version  the version\n"
    CLI_EXIT_HEAD
    "  0  printed the listing\n" CLI_EXIT_USAGE
    "  3  unreadable or corrupt file (byte offset in the message)\n" CLI_EXIT_INTERNAL,
    run_disasm, 0};
