/* The symshape command: shared helpers of the subcommands. */
#ifndef SY_CLI_H
#define SY_CLI_H
#include <stdio.h>
#include "symshape/symshape.h"

/* Exit statuses (docs/cli.md). */
enum { EX_OK = 0, EX_FALSE = 1, EX_USAGE = 2, EX_INPUT = 3, EX_INTERNAL = 4 };

typedef struct cli_cmd {
    const char *name;
    const char *summary;
    const char *usage; /* full --help text */
    int (*run)(int argc, char **argv);
} cli_cmd;

int cli_usage_error(const char *cmd, const char *fmt, ...);
int cli_input_error(const char *fmt, ...);
int cli_wants_help(int argc, char **argv, const cli_cmd *c);
/* report a library error from ctx as bad input (3) or internal (4) */
int cli_lib_error(sy_ctx *ctx, const char *what);
sy_ctx *cli_ctx(void);
/* parse an expression argument; prints error with a caret on failure */
const sy_expr *cli_parse(sy_ctx *ctx, const char *text, const char *what);

extern const cli_cmd cmd_simplify, cmd_eval, cmd_decide, cmd_bound, cmd_cases, cmd_run, cmd_probe, cmd_check, cmd_disasm;
#endif
