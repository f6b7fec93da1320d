/* Golden files of the backend tests (tests/backends/golden/). Compare a
 * rendering with its golden; with SY_UPDATE_GOLDEN=1 in the environment,
 * write the rendering instead (then review the diff and commit it):
 *   SY_UPDATE_GOLDEN=1 ./test_backends --filter 'backends_*' */
#ifndef SY_TESTS_GOLDEN_H
#define SY_TESTS_GOLDEN_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static inline int golden_updating(void)
{
    const char *u = getenv("SY_UPDATE_GOLDEN");
    return u && *u && strcmp(u, "0") != 0;
}

static inline void golden_check(const char *name, const char *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/backends/golden/%s", SY_TESTS_DIR, name);
    if (golden_updating()) {
        FILE *f = fopen(path, "wb");
        cr_assert(f != NULL, "cannot write %s", path);
        cr_assert(eq(sz, fwrite(data, 1, len, f), len));
        fclose(f);
        cr_log_info("golden %s updated", path);
        return;
    }
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "missing golden %s (create it with SY_UPDATE_GOLDEN=1)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *want = malloc((size_t)n + 1);
    cr_assert(want != NULL);
    cr_assert(eq(sz, fread(want, 1, (size_t)n, f), (size_t)n));
    want[n] = 0;
    fclose(f);
    if ((size_t)n == len && !memcmp(want, data, len)) {
        free(want);
        return;
    }
    /* the first differing line */
    size_t i = 0, line = 1, bol = 0;
    while (i < len && i < (size_t)n && want[i] == data[i]) {
        if (data[i] == '\n') {
            line++;
            bol = i + 1;
        }
        i++;
    }
    const char *we = memchr(want + bol, '\n', (size_t)n - bol), *ge = memchr(data + bol, '\n', len - bol);
    int wl = (int)(we ? (size_t)(we - (want + bol)) : (size_t)n - bol), gl = (int)(ge ? (size_t)(ge - (data + bol)) : len - bol);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s differs at line %zu:\n  want: %.*s\n  got:  %.*s\n(regenerate with SY_UPDATE_GOLDEN=1 and review the diff)",
             path, line, wl, want + bol, gl, data + bol);
    free(want);
    cr_fatal("%s", msg);
}
#endif
