/* Progress of long work on stderr (docs/cli.md "Progress"): one line,
 * "symshape: probe: 1200/5000 points", redrawn in place (carriage return) at
 * most five times a second, and erased when the work ends, so that nothing of
 * it stays in the terminal. Only when stderr is a terminal and --quiet was not
 * given: a log, a pipe or a test sees exactly what it saw before. The line
 * first shows after half a second, so that quick work does not flicker. */
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_quiet;

static double now_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts)) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_start(cli_progress *p, const char *cmd, const char *unit, size_t total)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->unit = unit;
    p->total = total;
    p->on = !cli_quiet && isatty(STDERR_FILENO);
    if (p->on) p->start = p->last = now_s();
}

void cli_progress_step(cli_progress *p, size_t done)
{
    if (!p->on) return;
    double t = now_s();
    if (t - p->start < 0.5 || t - p->last < 0.2) return;
    p->last = t;
    if (p->total)
        fprintf(stderr, "\rsymshape: %s: %zu/%zu %s\033[K", p->cmd, done, p->total, p->unit);
    else
        fprintf(stderr, "\rsymshape: %s: %zu %s\033[K", p->cmd, done, p->unit);
    fflush(stderr);
    p->shown = 1;
}

void cli_progress_tick(cli_progress *p) { cli_progress_step(p, ++p->count); }

void cli_progress_clear(cli_progress *p)
{
    if (!p->on || !p->shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->shown = 0;
}

void cli_progress_done(cli_progress *p)
{
    cli_progress_clear(p);
    p->on = 0;
}

/* The stage line of a long library call, shown during the call only. */
static int stage_shown;

void cli_stage(const char *cmd, const char *fmt, ...)
{
    if (cli_quiet || !isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\rsymshape: %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("...\033[K", stderr);
    fflush(stderr);
    stage_shown = 1;
}

void cli_stage_end(void)
{
    if (!stage_shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    stage_shown = 0;
}

/* --quiet is accepted by every command, anywhere before '--' (as --budget). */
void cli_take_quiet(int *argc, char **argv)
{
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (strcmp(argv[i], "--quiet")) continue;
        cli_quiet = 1;
        for (int k = i; k + 1 <= *argc; k++) argv[k] = argv[k + 1]; /* argv[argc] is NULL */
        (*argc)--;
        i--;
    }
}
