/* A static index by name over rows whose first member is their name (const char *): the op
 * tables of shapeenv and of the ONNX frontend. Open addressing with linear probing and FNV-1a,
 * at most half full, so a lookup is a hash and about one strcmp (a linear scan of the 572 torch
 * ops with strcmp was 2% of a trace; a bsearch over the 139 ONNX ops 8 strcmp calls a node).
 * The callers build their index once (pthread_once) and share it between threads read-only. */
#include <string.h>

#include "algebra/internal.h"

static size_t strindex_hash(const char *s, size_t mask)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h & mask;
}

static const char *row_name(const void *row) { return *(const char *const *)row; }

int sy_strindex_add(sy_strindex *ix, const void *row)
{
    const char *name = row ? row_name(row) : NULL;
    if (!name) return -1;
    size_t mask = ix->cap - 1, j = strindex_hash(name, mask);
    for (; ix->slot[j]; j = (j + 1) & mask)
        if (!strcmp(row_name(ix->slot[j]), name)) return 0; /* the first row of a name wins */
    if (2 * (ix->n + 1) > ix->cap) return -1;
    ix->slot[j] = row;
    ix->n++;
    return 1;
}

const void *sy_strindex_find(const sy_strindex *ix, const char *name)
{
    if (!name || !ix->n) return NULL;
    size_t mask = ix->cap - 1;
    for (size_t j = strindex_hash(name, mask); ix->slot[j]; j = (j + 1) & mask)
        if (!strcmp(row_name(ix->slot[j]), name)) return ix->slot[j];
    return NULL;
}
