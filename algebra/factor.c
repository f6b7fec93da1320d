/* Divisors of integers, bounded: the .cases runner's divisor candidates (cases.c: a claim like
 * `x*y != 12345*54321 => true` is false only where x and y divide the constant) and the ONNX
 * related-example solver (frontends/onnx/onnx_relate.c: a product of dims equal to a constant).
 * One factoring rule in one place (issue 38). */
#include <stdlib.h>
#include <string.h>

#include <flint/fmpz.h>
#include <flint/fmpz_factor.h>
#include <flint/ulong_extras.h>

#include "algebra/eval.h"

/* trial-division primes for a number past one word: FLINT's table (the primes below 2^15) */
enum { TRIAL_PRIMES = 3512, PRIMES_MAX = 64 };

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t sy_factor_u64(uint64_t n, uint64_t *p, size_t maxp)
{
    if (n < 2 || !maxp) return 0;
    n_factor_t f;
    n_factor_init(&f);
    n_factor(&f, (ulong)n, 0);
    size_t k = 0;
    for (int i = 0; i < f.num; i++)
        for (int j = 0; j < f.exp[i] && k < maxp; j++) p[k++] = f.p[i];
    qsort(p, k, sizeof *p, cmp_u64);
    return k;
}

/* the prime-power factors of |n| (n != 0, bits <= SY_DIVISORS_BITS): np entries of ps / es; a
 * cofactor no trial prime divides and past one word is one entry (a divisor all the same) */
static size_t prime_powers(const fmpz_t n, fmpz *ps, ulong *es)
{
    size_t np = 0;
    fmpz_t a;
    fmpz_init(a);
    fmpz_abs(a, n);
    if (fmpz_abs_fits_ui(a)) {
        n_factor_t f;
        n_factor_init(&f);
        if (fmpz_get_ui(a) >= 2) n_factor(&f, fmpz_get_ui(a), 0);
        for (int i = 0; i < f.num && np < PRIMES_MAX; i++, np++) {
            fmpz_set_ui(ps + np, f.p[i]);
            es[np] = (ulong)f.exp[i];
        }
    } else {
        fmpz_factor_t f;
        fmpz_factor_init(f);
        fmpz_factor_trial(f, a, TRIAL_PRIMES);
        fmpz_t q;
        fmpz_init(q);
        for (slong i = 0; i < f->num && np < PRIMES_MAX; i++) {
            fmpz_set(ps + np, f->p + i);
            es[np] = f->exp[i];
            fmpz_pow_ui(q, f->p + i, f->exp[i]);
            fmpz_divexact(a, a, q); /* the cofactor left */
            np++;
        }
        fmpz_clear(q);
        fmpz_factor_clear(f);
        if (!fmpz_is_one(a) && np < PRIMES_MAX) {
            if (fmpz_abs_fits_ui(a)) {
                n_factor_t g;
                n_factor_init(&g);
                n_factor(&g, fmpz_get_ui(a), 0);
                for (int i = 0; i < g.num && np < PRIMES_MAX; i++, np++) {
                    fmpz_set_ui(ps + np, g.p[i]);
                    es[np] = (ulong)g.exp[i];
                }
            } else {
                fmpz_set(ps + np, a);
                es[np++] = 1;
            }
        }
    }
    fmpz_clear(a);
    return np;
}

static int cmp_fmpz(const void *a, const void *b) { return fmpz_cmp((const fmpz *)a, (const fmpz *)b); }

size_t sy_fmpz_divisors(const fmpz_t n, fmpz *out, size_t maxd)
{
    if (fmpz_is_zero(n) || maxd < 2 || fmpz_bits(n) > SY_DIVISORS_BITS) return 0;
    fmpz ps[PRIMES_MAX];
    ulong es[PRIMES_MAX];
    for (size_t i = 0; i < PRIMES_MAX; i++) fmpz_init(ps + i);
    size_t np = prime_powers(n, ps, es);
    /* every product of the prime powers, at most SY_DIVISORS_GEN (the small primes' first) */
    fmpz *all = flint_malloc(SY_DIVISORS_GEN * sizeof *all);
    for (size_t i = 0; i < SY_DIVISORS_GEN; i++) fmpz_init(all + i);
    size_t na = 1;
    fmpz_one(all);
    fmpz_t cur;
    fmpz_init(cur);
    for (size_t i = 0; i < np; i++) {
        size_t base = na;
        for (size_t j = 0; j < base && na < SY_DIVISORS_GEN; j++) {
            fmpz_set(cur, all + j);
            for (ulong e = 1; e <= es[i] && na < SY_DIVISORS_GEN; e++) {
                fmpz_mul(cur, cur, ps + i);
                fmpz_set(all + na++, cur);
            }
        }
    }
    fmpz_clear(cur);
    qsort(all, na, sizeof *all, cmp_fmpz);
    /* the smallest half and their complements |n| / d: both ends of every pair */
    size_t half = maxd / 2, k = 0;
    fmpz_t a, q;
    fmpz_init(a);
    fmpz_init(q);
    fmpz_abs(a, n);
    for (size_t i = 0; i < na && i < half; i++) fmpz_set(out + k++, all + i);
    for (size_t i = 0; i < na && i < half; i++) {
        fmpz_divexact(q, a, all + i);
        bool dup = false;
        for (size_t j = 0; j < k && !dup; j++) dup = fmpz_equal(out + j, q);
        if (!dup) fmpz_set(out + k++, q);
    }
    fmpz_clear(a);
    fmpz_clear(q);
    for (size_t i = 0; i < SY_DIVISORS_GEN; i++) fmpz_clear(all + i);
    flint_free(all);
    for (size_t i = 0; i < PRIMES_MAX; i++) fmpz_clear(ps + i);
    return k;
}
