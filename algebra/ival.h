/* Private: integer intervals with bignum endpoints and infinities.
 * Used for the intrinsic bounds stored in every node and by the decision
 * layer's bound(). Every operation returns an interval that contains every
 * value the operation can take for operands in the argument intervals
 * (over-approximation only, never under). */
#ifndef SY_IVAL_H
#define SY_IVAL_H
#include <flint/fmpz.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct sy_ival {
    fmpz_t lo, hi;
    bool lo_inf; /* lo is -oo */
    bool hi_inf; /* hi is +oo */
} sy_ival;

void sy_ival_init(sy_ival *r);
void sy_ival_clear(sy_ival *r);
void sy_ival_set(sy_ival *r, const sy_ival *a);
void sy_ival_set_full(sy_ival *r);
void sy_ival_set_fmpz(sy_ival *r, const fmpz_t v);
void sy_ival_set_si(sy_ival *r, int64_t lo, int64_t hi);
/* from int64 sentinels (INT64_MIN = -oo, INT64_MAX = +oo) */
void sy_ival_set_bounds64(sy_ival *r, int64_t lo, int64_t hi);
/* to int64 sentinels, rounding outward */
void sy_ival_get_bounds64(const sy_ival *a, int64_t *lo, int64_t *hi);
bool sy_ival_is_empty(const sy_ival *a);
bool sy_ival_is_point(const sy_ival *a);
bool sy_ival_contains_zero(const sy_ival *a);
/* a > 0 everywhere (lo >= 1), a < 0 everywhere (hi <= -1) */
bool sy_ival_positive(const sy_ival *a);
bool sy_ival_negative(const sy_ival *a);

void sy_ival_add(sy_ival *r, const sy_ival *a, const sy_ival *b);
void sy_ival_neg(sy_ival *r, const sy_ival *a);
void sy_ival_scale(sy_ival *r, const sy_ival *a, const fmpz_t c);
void sy_ival_add_fmpz(sy_ival *r, const sy_ival *a, const fmpz_t c);
void sy_ival_mul(sy_ival *r, const sy_ival *a, const sy_ival *b);
void sy_ival_pow(sy_ival *r, const sy_ival *a, uint64_t k);
/* FloorDiv / CeilDiv / Mod. The divisor interval must exclude 0 for a finite
 * answer: when b contains 0 and nonzero_b is false the result is the full
 * line and the function returns false. With nonzero_b true the divisor is
 * known to be non-zero and the two signed parts of b are handled separately. */
bool sy_ival_floordiv(sy_ival *r, const sy_ival *a, const sy_ival *b, bool nonzero_b);
bool sy_ival_ceildiv(sy_ival *r, const sy_ival *a, const sy_ival *b, bool nonzero_b);
bool sy_ival_mod(sy_ival *r, const sy_ival *a, const sy_ival *b, bool nonzero_b);
void sy_ival_min(sy_ival *r, const sy_ival *a, const sy_ival *b);
void sy_ival_max(sy_ival *r, const sy_ival *a, const sy_ival *b);
void sy_ival_union(sy_ival *r, const sy_ival *a, const sy_ival *b);
void sy_ival_intersect(sy_ival *r, const sy_ival *a, const sy_ival *b);

#endif
