/* Replays a fuzzing corpus folder (fuzz/corpus_NAME/ or fuzz/regress_NAME/)
 * through a harness's entry point: every file once. The harness aborts on an
 * oracle failure, so a finding fails the test; the sanitizer build reports
 * memory errors and leaks. Returns the number of files replayed. */
#ifndef SY_TESTS_FUZZ_REPLAY_H
#define SY_TESTS_FUZZ_REPLAY_H
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline size_t fuzz_replay_dir(const char *dir, int (*entry)(const uint8_t *, size_t))
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        size_t cap = 4096, len = 0, k;
        unsigned char *buf = malloc(cap);
        while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0) {
            len += k;
            if (len == cap) {
                unsigned char *nb = realloc(buf, cap *= 2);
                if (!nb) {
                    free(buf);
                    buf = NULL;
                }
                buf = nb;
            }
        }
        fclose(f);
        if (!buf) continue;
        entry(buf, len);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}
#endif
