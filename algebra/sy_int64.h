/* Checked int64 arithmetic with Python floor semantics, shared by exact
 * evaluation's fast path, the bytecode VM and (verbatim) the generated C of
 * the C backend, so that all three agree. Each helper returns 0 on success,
 * SY_I64_OVERFLOW when the exact result does not fit int64, SY_I64_DIVZERO
 * for a zero divisor. INT64_MIN // -1 reports overflow instead of trapping.
 * C99: add/sub/mul use __builtin_*_overflow under __GNUC__ (GCC, Clang) and a
 * portable fallback otherwise (or when SY_INT64_PORTABLE is defined). */
#ifndef SY_INT64_H
#define SY_INT64_H
#include <stdint.h>

#define SY_I64_OK 0
#define SY_I64_OVERFLOW 1
#define SY_I64_DIVZERO 2

#if defined(__GNUC__) && !defined(SY_INT64_PORTABLE)
static inline int sy_i64_add(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r) ? SY_I64_OVERFLOW : 0; }
static inline int sy_i64_sub(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r) ? SY_I64_OVERFLOW : 0; }
static inline int sy_i64_mul(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r) ? SY_I64_OVERFLOW : 0; }
#else
/* portable C99 (any compiler; also selected by defining SY_INT64_PORTABLE):
 * the operands are checked before the operation, which never overflows */
static inline int sy_i64_add(int64_t a, int64_t b, int64_t *r)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return SY_I64_OVERFLOW;
    *r = a + b;
    return 0;
}
static inline int sy_i64_sub(int64_t a, int64_t b, int64_t *r)
{
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return SY_I64_OVERFLOW;
    *r = a - b;
    return 0;
}
static inline int sy_i64_mul(int64_t a, int64_t b, int64_t *r)
{
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) : (b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))
        return SY_I64_OVERFLOW;
    *r = a * b;
    return 0;
}
#endif

/* floor(a / b) */
static inline int sy_i64_floordiv(int64_t a, int64_t b, int64_t *r)
{
    if (b == 0) return SY_I64_DIVZERO;
    if (b == -1) return sy_i64_sub(0, a, r);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    *r = q;
    return 0;
}
/* a - b*floor(a/b): the sign of the divisor */
static inline int sy_i64_mod(int64_t a, int64_t b, int64_t *r)
{
    if (b == 0) return SY_I64_DIVZERO;
    if (b == -1) {
        *r = 0;
        return 0;
    }
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    *r = m;
    return 0;
}
/* ceil(a / b) = -floor(-a / b) */
static inline int sy_i64_ceildiv(int64_t a, int64_t b, int64_t *r)
{
    if (b == 0) return SY_I64_DIVZERO;
    if (b == -1) return sy_i64_sub(0, a, r);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) == (b < 0))) q++;
    *r = q;
    return 0;
}
#endif
