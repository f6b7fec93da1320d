/* symshape: command-line front end. See docs/cli.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const cli_cmd *const commands[] = {&cmd_run, &cmd_probe, &cmd_infer, &cmd_check, &cmd_disasm, &cmd_simplify, &cmd_eval, &cmd_decide, &cmd_bound, &cmd_cases, &cmd_verify, &cmd_region, &cmd_profile, &cmd_corners, &cmd_memory, &cmd_diff, &cmd_dispatch, NULL};

static void verror(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "symshape: error: ");
    if (cmd) fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "(see 'symshape %s%s--help')\n", cmd ? cmd : "", cmd ? " " : "");
    return EX_USAGE;
}

int cli_input_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(NULL, fmt, ap);
    va_end(ap);
    return EX_INPUT;
}

int cli_oom(void)
{
    fprintf(stderr, "symshape: error: out of memory\n");
    return EX_INTERNAL;
}

int cli_lib_error(sy_ctx *ctx, const char *what)
{
    sy_status st = sy_ctx_last_error(ctx);
    const char *msg = sy_ctx_last_error_msg(ctx);
    size_t n = strlen(what);
    /* a library message that names the module already ("diff: map ...") is not prefixed twice */
    if (!strncmp(msg, what, n) && msg[n] == ':' && msg[n + 1] == ' ')
        fprintf(stderr, "symshape: error: %s\n", msg);
    else
        fprintf(stderr, "symshape: error: %s: %s\n", what, msg);
    if (st == SY_ENOMEM || st == SY_ERROR) return EX_INTERNAL;
    return EX_INPUT;
}

/* has_word("onnx html", "html"): whether w is one of the space-separated words of list */
static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
    return 0;
}

/* The version, then the optional parts of the linked library (sy_version_features) and those
 * it was built without, each with what it brings: "features: onnx html z3". */
void cli_print_version(void)
{
    static const char *const opt[][2] = {{"onnx", "infer and .onnx models"},
                                         {"html", "--backend html"},
                                         {"z3", "verify"}};
    printf("symshape %s (library %s)\n", SY_VERSION_STRING, sy_version_string());
    const char *f = sy_version_features();
    printf("features: %s\n", *f ? f : "none");
    for (size_t i = 0; i < sizeof opt / sizeof *opt; i++)
        if (!has_word(f, opt[i][0])) printf("built without %s (no %s)\n", opt[i][0], opt[i][1]);
}

int cli_getopt(const cli_cmd *c, int argc, char **argv, const char *shortopts, const struct option *longopts, int *rc)
{
    char opts[64];
    snprintf(opts, sizeof opts, ":%s", shortopts);
    opterr = 0;
    int longi = -1;
    int o = getopt_long(argc, argv, opts, longopts, &longi);
    if (o == 'h') {
        fputs(c->usage, stdout);
        *rc = EX_DONE;
        return CLI_STOP;
    }
    if (o == 'V') {
        cli_print_version();
        *rc = EX_DONE;
        return CLI_STOP;
    }
    if (o != '?' && o != ':') return o;
    const char *arg = argv[optind - 1];
    char shortname[3] = {'-', (char)optopt, '\0'};
    int is_long = !strncmp(arg, "--", 2);
    if (o == ':') {
        *rc = cli_usage_error(c->name, "option '%s' needs an argument", is_long ? arg : shortname);
        return CLI_STOP;
    }
    if (is_long) {
        /* --flag=value for a flag without a value, or an unknown/ambiguous name */
        const char *eq = strchr(arg, '=');
        size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        int matches = 0;
        const struct option *m = NULL;
        for (const struct option *l = longopts; l->name; l++)
            if (!strncmp(l->name, arg + 2, n)) {
                if (strlen(l->name) == n) {
                    matches = 1;
                    m = l;
                    break;
                }
                matches++;
                m = l;
            }
        if (matches == 1 && eq && m->has_arg == no_argument) {
            *rc = cli_usage_error(c->name, "option '--%s' takes no value (got '%s')", m->name, arg);
            return CLI_STOP;
        }
        if (matches > 1) {
            *rc = cli_usage_error(c->name, "option '%.*s' is ambiguous", (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
            return CLI_STOP;
        }
    }
    const char *shown = is_long || !optopt ? arg : shortname;
    if (c->operands_may_start_with_dash)
        *rc = cli_usage_error(c->name, "unknown option '%s' (an expression starting with '-' goes after '--')", shown);
    else
        *rc = cli_usage_error(c->name, "unknown option '%s'", shown);
    return CLI_STOP;
}

/* Context options of every command: the defaults, with --budget applied. */
static sy_ctx_options cli_opts = SY_CTX_OPTIONS_INIT;

sy_ctx *cli_ctx(void)
{
    sy_ctx *ctx = NULL;
    if (sy_ctx_new(&cli_opts, &ctx) != SY_OK) exit(cli_oom());
    return ctx;
}

/* --budget steps=N,terms=N,bytes=N (any subset; bytes may end in k, M or G,
 * powers of 1024): the work budgets of one operation (symshape/ctx.h). */
static int parse_budget(const char *cmd, const char *spec)
{
    const char *p = spec;
    if (!*p) return cli_usage_error(cmd, "--budget needs steps=N, terms=N or bytes=N (comma-separated)");
    while (*p) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        if (!eq || eq > end)
            return cli_usage_error(cmd, "--budget: expected NAME=N in '%.*s' (names: steps, terms, bytes)", (int)(end - p), p);
        size_t n = (size_t)(eq - p);
        uint64_t *field = n == 5 && !strncmp(p, "steps", 5) ? &cli_opts.max_steps
                          : n == 5 && !strncmp(p, "terms", 5) ? &cli_opts.max_work_terms
                          : n == 5 && !strncmp(p, "bytes", 5) ? &cli_opts.max_work_bytes : NULL;
        if (!field) return cli_usage_error(cmd, "--budget: unknown budget '%.*s' (names: steps, terms, bytes)", (int)n, p);
        char *num_end;
        errno = 0;
        if (!(eq[1] >= '0' && eq[1] <= '9')) goto bad;
        unsigned long long v = strtoull(eq + 1, &num_end, 10);
        if (errno == ERANGE) goto bad;
        unsigned shift = 0;
        if (field == &cli_opts.max_work_bytes && num_end < end && num_end + 1 == end) {
            shift = *num_end == 'k' || *num_end == 'K' ? 10 : *num_end == 'M' ? 20 : *num_end == 'G' ? 30 : 0;
            if (shift) num_end++;
        }
        if (num_end != end || v == 0 || (shift && v > (UINT64_MAX >> shift))) goto bad;
        *field = (uint64_t)v << shift;
        p = *end ? end + 1 : end;
        continue;
    bad:
        return cli_usage_error(cmd, "--budget: '%.*s' is not a positive integer%s", (int)(end - eq - 1), eq + 1,
                               field == &cli_opts.max_work_bytes ? " (bytes may end in k, M or G)" : "");
    }
    return EX_OK;
}

/* --budget is accepted by every command, anywhere before '--': taken out of
 * argv before the command parses its own options. */
static int take_budget(int *argc, char **argv)
{
    const char *cmd = *argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        const char *spec = NULL;
        int take = 0;
        if (!strncmp(argv[i], "--budget=", 9)) {
            spec = argv[i] + 9;
            take = 1;
        } else if (!strcmp(argv[i], "--budget")) {
            if (i + 1 >= *argc) return cli_usage_error(cmd, "option '--budget' needs an argument");
            spec = argv[i + 1];
            take = 2;
        } else {
            continue;
        }
        int rc = parse_budget(cmd, spec);
        if (rc != EX_OK) return rc;
        for (int k = i; k + take <= *argc; k++) argv[k] = argv[k + take]; /* argv[argc] is NULL */
        *argc -= take;
        i--;
    }
    return EX_OK;
}

const sy_expr *cli_parse_n(sy_ctx *ctx, const char *text, size_t len, const char *what)
{
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        fprintf(stderr, "symshape: error: cannot parse %s: NUL byte at byte %zu\n", what, (size_t)(nul - text));
        return NULL;
    }
    const sy_expr *e = NULL;
    if (sy_expr_parse(ctx, text, len, &e) == SY_OK) return e;
    fprintf(stderr, "symshape: error: cannot parse %s: %s\n", what, sy_ctx_last_error_msg(ctx));
    long off = sy_ctx_last_error_offset(ctx);
    if (off >= 0 && len < 200 && !memchr(text, '\n', len)) fprintf(stderr, "  %.*s\n  %*s^\n", (int)len, text, (int)off, "");
    return NULL;
}

const sy_expr *cli_parse(sy_ctx *ctx, const char *text, const char *what)
{
    return cli_parse_n(ctx, text, strlen(text), what);
}

void cli_put_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
        else putc(*p, f);
    }
}

const char *cli_file_name(const char *path) { return !path || !strcmp(path, "-") ? "<stdin>" : path; }

int cli_reserve(void *pp, size_t *cap, size_t n, size_t el)
{
    void **p = pp;
    if (n <= *cap) return 0;
    size_t nc = *cap ? *cap : 8;
    while (nc < n) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    if (nc > SIZE_MAX / el) return -1;
    void *q = realloc(*p, nc * el);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* the largest text or bytecode input read whole (ONNX models are read by the library, without it) */
#define CLI_MAX_INPUT (64 << 20)

int cli_read_input(const char *cmd, const char *path, char **data, size_t *len)
{
    static int stdin_used;
    *data = NULL;
    *len = 0;
    int is_stdin = !strcmp(path, "-");
    if (is_stdin && stdin_used++) return cli_usage_error(cmd, "standard input ('-') can be read only once");
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp) return cli_input_error("cannot open %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cli_reserve(&buf, &cap, n + 65537, 1)) {
            free(buf);
            if (!is_stdin) fclose(fp);
            return cli_oom();
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (!got) break;
        if (n > CLI_MAX_INPUT) { /* /dev/zero, a stream that never ends: read until memory ran out */
            free(buf);
            if (!is_stdin) fclose(fp);
            return cli_input_error("cannot read %s: more than %d MiB (graphs, guard sets, bytecode and .cases files are "
                                   "smaller; the largest corpus graph is 0.6 MB)", cli_file_name(path), CLI_MAX_INPUT >> 20);
        }
    }
    if (ferror(fp)) { /* e.g. a directory: EISDIR */
        int e = errno;
        free(buf);
        if (!is_stdin) fclose(fp);
        return cli_input_error("cannot read %s: %s", cli_file_name(path), strerror(e));
    }
    if (!is_stdin) fclose(fp);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return EX_OK;
}

int cli_write_output(const char *path, const void *data, size_t len)
{
    int to_stdout = !path || !strcmp(path, "-");
    const char *name = to_stdout ? "<stdout>" : path;
    FILE *fp = to_stdout ? stdout : fopen(path, "wb");
    if (!fp) return cli_input_error("cannot write %s: %s", name, strerror(errno));
    errno = 0;
    int bad = fwrite(data, 1, len, fp) != len;
    bad |= to_stdout ? fflush(fp) != 0 : fclose(fp) != 0;
    if (bad) return cli_input_error("cannot write %s: %s", name, strerror(errno ? errno : EIO));
    return EX_OK;
}

int cli_parse_sizes(const char *v, char **name, int64_t **shape, size_t *rank)
{
    *name = NULL;
    *shape = NULL;
    *rank = 0;
    /* the last '=': the sizes hold none, so an input whose name has '=' ("a=b") can be given */
    const char *eq = strrchr(v, '=');
    if (!eq || eq == v) return -1;
    size_t cap = 0;
    const char *s = eq + 1;
    while (*s) {
        char *end;
        errno = 0;
        if (*s == '-' || *s == '+' || *s == ' ') goto bad; /* strtoll would accept a sign or blanks */
        long long d = strtoll(s, &end, 10);
        if (end == s || errno == ERANGE) goto bad; /* past int64: never clamp */
        if (cli_reserve(shape, &cap, *rank + 1, sizeof **shape)) goto oom;
        (*shape)[(*rank)++] = d;
        s = end;
        if (*s == ',' && s[1]) s++;
        else if (*s) goto bad;
    }
    if (!(*name = malloc((size_t)(eq - v) + 1))) goto oom;
    memcpy(*name, v, (size_t)(eq - v));
    (*name)[eq - v] = '\0';
    return 0;
bad:
    free(*shape);
    *shape = NULL;
    return -1;
oom:
    free(*shape);
    *shape = NULL;
    return -2;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: symshape <command> [options] [operands]\n\nsymbolic tensor shapes: canonical size expressions, decisions, guards\n\ncommands:\n");
    for (int i = 0; commands[i]; i++) fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out,
            "\n  symshape <command> --help   options and exit status of one command\n"
            "  symshape --version          (also: symshape <command> --version)\n"
            "\nconventions: --opt=value or --opt value; '--' ends the options; '-' as a file\n"
            "reads stdin, '-o -' writes stdout; errors are 'symshape: error: ...' on stderr.\n"
            "\nevery command: --budget steps=N,terms=N,bytes=N  the work budgets of one operation\n"
            "(defaults 20000000 steps, 20000000 intermediate terms, 256M bytes); past one the\n"
            "command fails with exit status 3 naming the budget.\n"
            "every command: --quiet  no progress line on stderr (long work shows one when stderr\n"
            "is a terminal: verify, probe --points, infer)\n"
            "\nexit status:\n"
            "  0  success, accept, true\n"
            "  1  reject, false, failed cases, soundness violation (see each command)\n"
            "  2  usage error (unknown command or option, missing or malformed argument)\n"
            "  3  bad input (unreadable or malformed file, unparsable expression, ...)\n"
            "  4  internal error (out of memory)\n"
            "  5  unknown (decide, diff)\n"
            "  6  diff: B only widens A\n");
}

int main(int argc, char **argv)
{
    cli_argv0 = argv[0];
    cli_take_quiet(&argc, argv);
    int brc = take_budget(&argc, argv);
    if (brc != EX_OK) return brc;
    if (argc < 2) {
        usage(stderr);
        return EX_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc > 2 && !strcmp(argv[1], "help")) {
            for (int i = 0; commands[i]; i++)
                if (!strcmp(argv[2], commands[i]->name)) {
                    fputs(commands[i]->usage, stdout);
                    return EX_OK;
                }
            return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
        }
        usage(stdout);
        return EX_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        cli_print_version();
        return EX_OK;
    }
    for (int i = 0; commands[i]; i++) {
        if (!strcmp(argv[1], commands[i]->name)) {
            int rc = commands[i]->run(argc - 1, argv + 1);
            if (rc == EX_DONE) rc = EX_OK;
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "symshape: error: cannot write <stdout>: %s\n", strerror(errno ? errno : EIO));
                if (rc == EX_OK || rc == EX_FALSE || rc == EX_UNKNOWN) rc = EX_INPUT;
            }
            return rc;
        }
    }
    if (argv[1][0] == '-') return cli_usage_error(NULL, "unknown option '%s'", argv[1]);
    return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
