/* Test helpers shared by the suites that run over the model corpus: model
 * discovery (../shared/corpus with its probes, else the bundled examples/)
 * and the flattening of a traced value to the probes' "outputs" form. */
#ifndef SY_TESTS_CORPUS_H
#define SY_TESTS_CORPUS_H
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "symshape/symshape.h"

/* path: the model graph; probes: where its probes file would be (it may not
 * exist); name: the file name without folder. */
typedef void (*corpus_fn)(const char *path, const char *probes, const char *name, void *ud);

/* Calls fn on every model of the first folder that has any: the shared corpus
 * (probes in ../shared/probes) or, without it, examples/ (probes beside the
 * model). Returns how many models it visited. */
static inline int corpus_for_each(corpus_fn fn, void *ud)
{
    const char *dirs[2] = {SY_SHARED_DIR "/corpus", SY_TESTS_DIR "/../examples"};
    const char *probe_dirs[2] = {SY_SHARED_DIR "/probes", SY_TESTS_DIR "/../examples"};
    int found = 0;
    for (int d = 0; d < 2 && !found; d++) {
        DIR *dir = opendir(dirs[d]);
        if (!dir) continue;
        struct dirent *de;
        while ((de = readdir(dir))) {
            size_t n = strlen(de->d_name);
            if (n < 6 || strcmp(de->d_name + n - 5, ".json") || strstr(de->d_name, ".probes.")) continue;
            char path[1024], probes[1024];
            snprintf(path, sizeof path, "%s/%s", dirs[d], de->d_name);
            snprintf(probes, sizeof probes, "%s/%.*s.probes.json", probe_dirs[d], (int)(n - 5), de->d_name);
            fn(path, probes, de->d_name, ud);
            found++;
        }
        closedir(dir);
    }
    return found;
}

/* Appends the sizes of every tensor in v (lists flattened in order) to arr as
 * arrays of integers: the probes' "outputs" form. A size that is not a
 * constant appears as -1. */
static inline void corpus_flat_shapes(const sy_value *v, json_t *arr)
{
    if (v->kind == SY_V_TENSOR) {
        json_t *s = json_array();
        for (size_t k = 0; k < v->u.t->ndim; k++) {
            int64_t x = -1;
            sy_expr_get_si(v->u.t->sizes[k], &x);
            json_array_append_new(s, json_integer(x));
        }
        json_array_append_new(arr, s);
    } else if (v->kind == SY_V_LIST) {
        for (size_t i = 0; i < v->u.list.n; i++) corpus_flat_shapes(&v->u.list.items[i], arr);
    }
}
#endif
