/* symshape: command-line front end. See docs/cli.md. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const cli_cmd *const commands[] = {&cmd_run, &cmd_probe, &cmd_check, &cmd_disasm, &cmd_simplify, &cmd_eval, &cmd_decide, &cmd_bound, &cmd_cases, NULL};

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "symshape%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'symshape %s%s--help')\n", cmd ? cmd : "", cmd ? " " : "");
    va_end(ap);
    return EX_USAGE;
}

int cli_input_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "symshape: error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EX_INPUT;
}

int cli_lib_error(sy_ctx *ctx, const char *what)
{
    sy_status st = sy_ctx_last_error(ctx);
    fprintf(stderr, "symshape: error: %s: %s\n", what, sy_ctx_last_error_msg(ctx));
    if (st == SY_ENOMEM || st == SY_ERROR) return EX_INTERNAL;
    return EX_INPUT;
}

int cli_wants_help(int argc, char **argv, const cli_cmd *c)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(c->usage, stdout);
            return 1;
        }
    return 0;
}

sy_ctx *cli_ctx(void)
{
    sy_ctx *ctx = NULL;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) {
        fprintf(stderr, "symshape: cannot create a context (out of memory)\n");
        exit(EX_INTERNAL);
    }
    return ctx;
}

const sy_expr *cli_parse(sy_ctx *ctx, const char *text, const char *what)
{
    const sy_expr *e = NULL;
    if (sy_expr_parse(ctx, text, (size_t)-1, &e) == SY_OK) return e;
    fprintf(stderr, "symshape: error: cannot parse %s: %s\n", what, sy_ctx_last_error_msg(ctx));
    long off = sy_ctx_last_error_offset(ctx);
    if (off >= 0 && strlen(text) < 200) {
        fprintf(stderr, "  %s\n  %*s^\n", text, (int)off, "");
    }
    return NULL;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: symshape <command> [args]\n\nsymbolic tensor shapes: canonical size expressions, decisions, guards\n\ncommands:\n");
    for (int i = 0; commands[i]; i++) fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "\n  symshape <command> --help   details of one command\n  symshape --version\n\nexit status: 0 success/accept/true, 1 reject/false (probe: a soundness violation; see each command), 2 usage error, 3 bad input, 4 internal error\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EX_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EX_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("symshape %s (library %s)\n", SY_VERSION_STRING, sy_version_string());
        return EX_OK;
    }
    for (int i = 0; commands[i]; i++) {
        if (!strcmp(argv[1], commands[i]->name)) {
            if (cli_wants_help(argc - 1, argv + 1, commands[i])) return EX_OK;
            return commands[i]->run(argc - 1, argv + 1);
        }
    }
    return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
