/* Private: bindings for evaluation (the memo tables are in algebra/internal.h). */
#ifndef SY_EVAL_PRIVATE_H
#define SY_EVAL_PRIVATE_H
#include <stdlib.h>
#include "algebra/expr_private.h"
#include "symshape/decide.h"

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
#endif
