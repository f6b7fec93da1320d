/* Block lists freed together: algebra/internal.h (sy_blocks_alloc). Used by the guard-set
 * diff, the dispatcher and the bytecode program. */
#include <stdint.h>
#include <string.h>

#include "algebra/internal.h"

void *sy_blocks_alloc(sy_ctx *ctx, sy_block **list, size_t n)
{
    if (n > SIZE_MAX / 2) return SY_NOOM(ctx);
    size_t size = sizeof(sy_block) + (n ? n : 1);
    sy_block *b = sy_alloc(ctx, size);
    if (!b) return SY_NOOM(ctx);
    b->next = *list;
    b->size = size;
    *list = b;
    memset(b->data, 0, n ? n : 1);
    return b->data;
}

void *sy_blocks_array(sy_ctx *ctx, sy_block **list, size_t n, size_t el)
{
    if (el && n > SIZE_MAX / 4 / el) return SY_NOOM(ctx);
    return sy_blocks_alloc(ctx, list, n * el);
}

void sy_blocks_free(sy_ctx *ctx, sy_block *list)
{
    for (sy_block *b = list, *n; b; b = n) {
        n = b->next;
        sy_dealloc(ctx, b, b->size);
    }
}
