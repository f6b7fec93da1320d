/* Bytecode commands: check (run a guard file on sizes) and disasm. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "symshape/bc.h"

static int load_file(sy_ctx *ctx, const char *path, sy_bc_program **out)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return cli_input_error("cannot open %s: %s", path, strerror(errno));
    unsigned char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? cap * 2 : 65536;
            unsigned char *nd = realloc(data, cap);
            if (!nd) {
                free(data);
                fclose(fp);
                return EX_INTERNAL;
            }
            data = nd;
        }
        size_t got = fread(data + n, 1, cap - n, fp);
        n += got;
        if (!got) break;
    }
    if (ferror(fp)) { /* e.g. a directory: EISDIR */
        int e = errno;
        free(data);
        fclose(fp);
        return cli_input_error("cannot read %s: %s", path, strerror(e));
    }
    fclose(fp);
    sy_bc_load_err err;
    sy_status st = sy_bc_load(ctx, data, n, out, &err);
    free(data);
    if (st != SY_OK) {
        fprintf(stderr, "symshape: error: %s: byte %zu: %s (%s)\n", path, err.offset, err.msg, sy_status_name(err.code));
        return st == SY_ENOMEM ? EX_INTERNAL : EX_INPUT;
    }
    return EX_OK;
}

static int run_disasm(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') return cli_usage_error("disasm", "expected one bytecode file");
    sy_ctx *ctx = cli_ctx();
    sy_bc_program *p = NULL;
    int rc = load_file(ctx, argv[1], &p);
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
    char name[128];
    size_t rank;
    int64_t shape[16];
    int dtype; /* -1: default float32 */
} in_t;

static in_t *find_in(in_t *ins, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(ins[i].name) == len && !strncmp(ins[i].name, name, len)) return &ins[i];
    return NULL;
}

static int run_check(int argc, char **argv)
{
    const char *file = NULL;
    in_t ins[16];
    size_t nin = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") || !strcmp(argv[i], "--dtype")) {
            int is_dtype = !strcmp(argv[i], "--dtype");
            if (i + 1 >= argc) return cli_usage_error("check", "%s needs NAME=...", argv[i]);
            const char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || (size_t)(eq - v) >= sizeof ins[0].name)
                return cli_usage_error("check", "%s expects NAME=... (got '%s')", argv[i - 1], v);
            in_t *in = find_in(ins, nin, v, (size_t)(eq - v));
            if (!in) {
                if (nin == 16) return cli_usage_error("check", "too many inputs");
                in = &ins[nin++];
                memset(in, 0, sizeof *in);
                snprintf(in->name, sizeof in->name, "%.*s", (int)(eq - v), v);
                in->dtype = -1;
                in->rank = (size_t)-1;
            }
            if (is_dtype) {
                sy_dtype d;
                if (sy_dtype_parse(eq + 1, &d) != SY_OK) return cli_usage_error("check", "unknown dtype '%s'", eq + 1);
                in->dtype = (int)d;
            } else {
                if (in->rank != (size_t)-1) return cli_usage_error("check", "sizes of '%s' given twice", in->name);
                in->rank = 0;
                const char *s = eq + 1;
                while (*s) {
                    char *end;
                    errno = 0;
                    long long d = strtoll(s, &end, 10);
                    if (end == s || errno == ERANGE || d < 0 || in->rank == 16) /* past int64: never clamp */
                        return cli_usage_error("check", "bad sizes '%s' (non-negative integers up to 2^63-1, at most 16)", v);
                    in->shape[in->rank++] = d;
                    s = end;
                    if (*s == ',') s++;
                    else if (*s) return cli_usage_error("check", "bad sizes '%s'", v);
                }
            }
        } else if (argv[i][0] == '-') {
            return cli_usage_error("check", "unknown option '%s'", argv[i]);
        } else if (!file) {
            file = argv[i];
        } else {
            return cli_usage_error("check", "expected one bytecode file");
        }
    }
    if (!file) return cli_usage_error("check", "expected a bytecode file");
    if (!nin) return cli_usage_error("check", "expected --sizes NAME=D,D,...");
    for (size_t i = 0; i < nin; i++)
        if (ins[i].rank == (size_t)-1) return cli_usage_error("check", "--dtype of '%s' without its --sizes", ins[i].name);
    sy_ctx *ctx = cli_ctx();
    sy_bc_program *p = NULL;
    int rc = load_file(ctx, file, &p);
    if (rc != EX_OK) {
        sy_ctx_free(ctx);
        return rc;
    }
    size_t ns = sy_bc_nslots(p);
    int64_t *vals = calloc(ns ? ns : 1, sizeof *vals);
    for (size_t s = 0; s < ns && rc == EX_OK; s++) {
        const char *src = sy_bc_slot_name(p, s);
        const char *cut = strstr(src, ".size()[");
        if (!cut) cut = strstr(src, ".dim()");
        if (!cut) cut = strstr(src, ".dtype");
        if (!cut) {
            rc = cli_input_error("unsupported source '%s' in %s", src, file);
            break;
        }
        in_t *in = find_in(ins, nin, src, (size_t)(cut - src));
        if (!in) {
            rc = cli_usage_error("check", "the guards read input '%.*s': give --sizes %.*s=...", (int)(cut - src), src,
                                 (int)(cut - src), src);
            break;
        }
        if (!strcmp(cut, ".dim()")) vals[s] = (int64_t)in->rank;
        else if (!strcmp(cut, ".dtype")) vals[s] = in->dtype < 0 ? SY_DT_FLOAT32 : in->dtype;
        else {
            size_t d = (size_t)strtoull(cut + 8, NULL, 10);
            vals[s] = d < in->rank ? in->shape[d] : 0; /* the rank guard fails first */
        }
    }
    if (rc == EX_OK) {
        int32_t failed = -1;
        int r = sy_bc_check(p, vals, ns, &failed);
        if (r == SY_BC_ACCEPT) {
            printf("accept\n");
        } else if (r == SY_BC_REJECT) {
            const char *t = sy_bc_guard_text(p, (size_t)failed);
            printf("reject: guard %d: %s failed\n", (int)failed, t ? t : "?");
            rc = EX_FALSE;
        } else {
            printf("reject (fail closed: %s in guard %d)\n", sy_status_name((sy_status)r), (int)failed);
            rc = EX_FALSE;
        }
    }
    free(vals);
    sy_bc_free(p);
    sy_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_check = {"check", "run a bytecode guard file on input sizes",
    "usage: symshape check GUARDS.sybc --sizes NAME=D,D,... ... [--dtype NAME=DTYPE]...\n\n"
    "Loads and verifies the program (a corrupt file is rejected with the byte\n"
    "offset), fills its slots (NAME.dim(), NAME.dtype, NAME.size()[i]) from the\n"
    "given sizes (dtype float32 unless --dtype) and runs it in the VM.\n"
    "Prints 'accept', or 'reject: guard N: TEXT failed'.\n"
    "exit: 0 accept, 1 reject, 2 usage, 3 unreadable or corrupt file\n",
    run_check};
const cli_cmd cmd_disasm = {"disasm", "disassemble a bytecode guard file",
    "usage: symshape disasm GUARDS.sybc\n\n"
    "Prints the header (version, counts, slots, constants, guards) and one line\n"
    "per instruction: pc, opcode, operands and synopsis.\n"
    "exit: 0 ok, 2 usage, 3 unreadable or corrupt file (byte offset in the message)\n",
    run_disasm};
