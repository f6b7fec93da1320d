/* The algebra module's FLINT bridge for the library's other modules (shapeenv's hints, the
 * guard set's checker and passes, the bytecode compiler): evaluation under bindings and the
 * FLINT integers of a node. Not installed, not part of the public API; apart from
 * algebra/internal.h so that a file that needs neither does not include FLINT (a test including
 * FLINT before criterion breaks criterion's `ulong` tag). */
#ifndef SY_ALGEBRA_EVAL_H
#define SY_ALGEBRA_EVAL_H
#include <flint/fmpz.h>

#include "algebra/internal.h"

/* ---- reading nodes: the FLINT values symshape/expr.h does not give. Borrowed (KEEP: they
 * live as long as the node, that is the context). One call each, no checks beyond the kind. */
/* An integer constant's value; NULL when e is not SY_EXPR_INT. */
const fmpz *sy_expr_int_ref(const sy_expr *e);
/* An Add's coefficient of term i (i < sy_expr_nargs(e); its monomial is sy_expr_arg(e, i)), and
 * its constant term; NULL when e is not SY_EXPR_ADD (or i is out of range). */
const fmpz *sy_expr_add_coef_ref(const sy_expr *e, size_t i);
const fmpz *sy_expr_add_c0_ref(const sy_expr *e);
/* The integer node of value v (NULL with the error in ctx). */
const sy_expr *sy_int_fmpz(sy_ctx *ctx, const fmpz_t v);

/* ---- evaluation under bindings (eval.c): values of symbols by dense id (sy_expr_sym_id).
 * has[id]: 0 unbound, 1 bignum only (vz), 2 fits int64 (v64 and vz). The env's hints and the
 * guard checker bind once and evaluate many expressions. */
typedef struct sy_binding {
    size_t n;
    unsigned char *has;
    int64_t *v64;
    fmpz *vz;
} sy_binding;
/* Room for every symbol of ctx so far, all unbound; false (SY_ENOMEM recorded) when out of memory. */
bool sy_binding_init(sy_ctx *ctx, sy_binding *b);
/* Room for ids below n at least (doubling), the values kept; false (SY_ENOMEM recorded, b unchanged
 * but possibly with larger arrays of the old n) when out of memory. */
bool sy_binding_reserve(sy_ctx *ctx, sy_binding *b, size_t n);
void sy_binding_clear(sy_ctx *ctx, sy_binding *b);
void sy_binding_set(sy_binding *b, uint32_t id, const fmpz_t v);
/* Exact value of e (booleans as 0/1). Errors: SY_EINVAL unbound symbol,
 * SY_EDIVZERO, SY_EQUOTA (message set). */
sy_status sy_eval_raw(sy_ctx *ctx, const sy_expr *e, const sy_binding *b, fmpz_t out);
/* sy_expr_subs with the values by symbol id: byid[id] (an integer-valued expression, or NULL: kept)
 * for ids below nid. The caller checks the values once; the work is that of the rebuild alone, not
 * O(keys) per call and per leaf (the guard producer substituted every symbol into every guard:
 * O(n^2) over n inputs, issue 38). */
const sy_expr *sy_expr_subs_ids(sy_ctx *ctx, const sy_expr *e, size_t nid, const sy_expr *const *byid);

/* ---- divisors (factor.c), bounded: deterministic, FLINT's n_factor for one word, trial division
 * by the primes below 2^15 past it (a cofactor left over counts as one prime), at most
 * SY_DIVISORS_GEN products generated. */
enum { SY_DIVISORS_BITS = 4096, SY_DIVISORS_GEN = 4096 };
/* Positive divisors of |n| into out (room for maxd, fmpz_init'ed): the smallest maxd / 2 and their
 * complements |n| / d, ascending then descending; the count. 0 for n = 0, maxd < 2 or |n| past
 * SY_DIVISORS_BITS bits. Time: a few ms at most. */
size_t sy_fmpz_divisors(const fmpz_t n, fmpz *out, size_t maxd);
#endif
