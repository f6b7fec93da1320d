/* Private: bindings for evaluation, memo tables, generic rebuild. */
#ifndef SY_EVAL_PRIVATE_H
#define SY_EVAL_PRIVATE_H
#include <stdlib.h>
#include "algebra/expr_private.h"

/* Values of symbols by dense id. has[id]: 0 unbound, 1 bignum only, 2 fits int64. */
typedef struct sy_binding {
    size_t n;
    unsigned char *has;
    int64_t *v64;
    fmpz *vz;
} sy_binding;

bool sy_binding_init(sy_ctx *ctx, sy_binding *b);
void sy_binding_clear(sy_ctx *ctx, sy_binding *b);
void sy_binding_set(sy_binding *b, uint32_t id, const fmpz_t v);
/* Exact value of e (booleans as 0/1). Errors: SY_EINVAL unbound symbol,
 * SY_EDIVZERO, SY_EQUOTA (message set). */
sy_status sy_eval_raw(sy_ctx *ctx, const sy_expr *e, const sy_binding *b, fmpz_t out);

/* pointer-keyed memo (internal only; never used for ordering) */
typedef struct sy_memo {
    const sy_expr **keys, **vals;
    size_t n, cap;
} sy_memo;
bool sy_memo_init(sy_ctx *ctx, sy_memo *m);
void sy_memo_clear(sy_ctx *ctx, sy_memo *m);
const sy_expr *sy_memo_get(const sy_memo *m, const sy_expr *k);
bool sy_memo_put(sy_ctx *ctx, sy_memo *m, const sy_expr *k, const sy_expr *v);
const sy_expr *sy_rebuild(sy_ctx *ctx, const sy_expr *e, sy_memo *memo,
                          const sy_expr *(*leaf)(void *ud, const sy_expr *e), void *ud);

void *sy_alloc_array(sy_ctx *ctx, size_t bytes);
#endif
