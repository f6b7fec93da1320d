/* The symshape command: shared helpers of the subcommands (docs/cli.md).
 *
 * Every command parses its options with getopt_long (GNU conventions:
 * `--opt=value` and `--opt value`, `--` ends the options, options and
 * operands may be mixed, unambiguous prefixes of long options are accepted),
 * has -h/--help and -V/--version, reads stdin for a file operand `-`, and
 * writes stdout for `-o -`. Every error is one line on stderr starting with
 * `symshape: error: `. */
#ifndef SY_CLI_H
#define SY_CLI_H
#include <getopt.h>
#include <stdio.h>
#include "symshape/symshape.h"

/* Exit statuses (docs/cli.md, "Exit status"). */
enum {
    EX_OK = 0,       /* success, accept, true */
    EX_FALSE = 1,    /* reject, false, failed cases, soundness violation */
    EX_USAGE = 2,    /* bad command line */
    EX_INPUT = 3,    /* bad input, or a file that cannot be read or written */
    EX_INTERNAL = 4, /* out of memory, internal error */
    EX_UNKNOWN = 5,  /* decide: the relation is neither proved nor refuted */
    EX_DONE = -1     /* internal: --help/--version printed; main exits with EX_OK */
};

/* The exit-status block every --help ends with (one line per status the
 * command can return). */
#define CLI_EXIT_HEAD "\nexit status:\n"
#define CLI_EXIT_USAGE "  2  usage error (unknown option, missing or malformed argument)\n"
#define CLI_EXIT_INTERNAL "  4  internal error (out of memory)\n"

typedef struct cli_cmd {
    const char *name;
    const char *summary;
    const char *usage; /* full --help text */
    int (*run)(int argc, char **argv);
    int operands_may_start_with_dash; /* expressions: suggest '--' on an unknown option */
} cli_cmd;

/* Options every command accepts; end a command's option table with
 * CLI_COMMON_OPTIONS and {0}, and its short options with CLI_COMMON_SHORT. */
#define CLI_COMMON_OPTIONS {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}
#define CLI_COMMON_SHORT "hV"
/* cli_getopt's value when the command must return *rc now (after --help,
 * --version or a usage error). */
#define CLI_STOP 0x10000

/* getopt_long over argv (argv[0] is the command name). Returns the option's
 * value, -1 after the last option (operands are then argv[optind..argc-1]),
 * or CLI_STOP with *rc set: EX_DONE after printing --help/--version, EX_USAGE
 * after printing the error for an unknown option, a missing argument or a
 * value given to an option that takes none. shortopts is without the leading
 * ':' (added here). */
int cli_getopt(const cli_cmd *c, int argc, char **argv, const char *shortopts, const struct option *longopts,
               int *rc);

/* "symshape: error: CMD: MSG" and a "(see 'symshape CMD --help')" line; returns EX_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "symshape: error: MSG"; returns EX_INPUT. */
int cli_input_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "symshape: error: out of memory"; returns EX_INTERNAL. */
int cli_oom(void);
/* report a library error from ctx as bad input (3) or internal (4) */
int cli_lib_error(sy_ctx *ctx, const char *what);
sy_ctx *cli_ctx(void);
/* parse an expression; prints the error with a caret on failure. text has
 * len bytes (a NUL byte inside is an error); what names it in messages
 * ("expression", "assumption", or a file name). */
const sy_expr *cli_parse_n(sy_ctx *ctx, const char *text, size_t len, const char *what);
const sy_expr *cli_parse(sy_ctx *ctx, const char *text, const char *what);

/* Write s to f as a text report shows a name (backends/report.c): every control byte
 * (below 0x20, the newline included, and DEL) as \xHH, so that a name from a model cannot
 * start a new line, move the cursor or begin a terminal escape sequence. */
void cli_put_text(FILE *f, const char *s);

/* The name of a file operand in messages: "<stdin>" for "-". */
const char *cli_file_name(const char *path);
/* Read all of path ("-": stdin) into *data (malloc'ed, NUL-terminated,
 * *len bytes before the NUL; free()). stdin can be read only once per
 * process: a second "-" is a usage error. Errors are printed
 * ("cannot open PATH: REASON", "cannot read PATH: REASON"). Returns EX_*. */
int cli_read_input(const char *cmd, const char *path, char **data, size_t *len);
/* Write len bytes to path ("-" or NULL: stdout). Errors are printed
 * ("cannot write PATH: REASON"). Returns EX_*. */
int cli_write_output(const char *path, const void *data, size_t len);

/* Ensure room for n elements of size el in *p (capacity *cap elements);
 * growth is geometric. Returns 0, or -1 when out of memory or on overflow
 * (*p is unchanged then). */
int cli_reserve(void *pp, size_t *cap, size_t n, size_t el);

/* One input's sizes from "NAME=D,D,..." (no limit on the rank; each size a
 * non-negative int64, never clamped). name and shape are malloc'ed. Returns
 * 0, -1 for a malformed value, -2 when out of memory. */
int cli_parse_sizes(const char *v, char **name, int64_t **shape, size_t *rank);

void cli_print_version(void);

/* Progress of long work (cli/progress.c): a line on stderr redrawn in place,
 * "symshape: CMD: DONE/TOTAL UNIT" (TOTAL 0: "DONE UNIT"), only when stderr
 * is a terminal and --quiet was not given; throttled (at most five redraws a
 * second, none in the first half second). cli_progress_clear erases the line
 * before other output to the terminal (the next step redraws it);
 * cli_progress_done erases it for good. No allocation. */
typedef struct cli_progress {
    const char *cmd, *unit;
    size_t total, count; /* count: cli_progress_tick's */
    int on, shown;
    double start, last;
} cli_progress;
void cli_progress_start(cli_progress *p, const char *cmd, const char *unit, size_t total);
void cli_progress_step(cli_progress *p, size_t done);
/* one more done: cli_progress_step(p, ++p->count) */
void cli_progress_tick(cli_progress *p);
void cli_progress_clear(cli_progress *p);
void cli_progress_done(cli_progress *p);
/* The stage of one long library call, "symshape: CMD: tracing 1234 nodes...",
 * on stderr under the same conditions; call cli_stage_end right after the call
 * returns (before any message): it erases the line. */
void cli_stage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cli_stage_end(void);
/* --quiet: set by cli_take_quiet, which takes every "--quiet" before "--" out of argv */
extern int cli_quiet;
void cli_take_quiet(int *argc, char **argv);
/* argv[0] of the process (to find the bundled model next to the executable) */
extern const char *cli_argv0;

extern const cli_cmd cmd_simplify, cmd_eval, cmd_decide, cmd_bound, cmd_cases, cmd_run, cmd_probe, cmd_infer, cmd_check, cmd_disasm, cmd_verify, cmd_diff, cmd_dispatch;
/* deployment (cli/cmd_deploy.c, docs/deploy.md) */
extern const cli_cmd cmd_region, cmd_profile, cmd_corners, cmd_memory;
/* verify --cases FILE (cli/cmd_verify.c): returns EX_* */
int cli_verify_cases(const char *path, const sy_verify_options *vo);
#endif
