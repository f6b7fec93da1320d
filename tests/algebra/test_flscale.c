/* algebra/flscale.c: floor/ceil of fl(L * s) against the host's own IEEE
 * arithmetic (double: (double)L * s; float32: (float)((float)L * s)), at every
 * L in [0, 20000] and at random L up to the plan's hmax, for the scales models
 * use (0.7, 1/3, 1.3, 0.1, 2.5, ...) and random doubles/floats. Where a plan
 * has a mixed run, L outside it is not covered by the formula (the caller
 * guards it); the test checks that the run contains the example and that
 * every L the formula covers is exact. */
#include <math.h>

#include "algebra/internal.h"
#include "common.h"

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return rng_state;
}

static int64_t host(double s, int prec, int ceil_mode, int64_t L)
{
    double y = prec == 53 ? (double)L * s : (double)(float)((float)L * (float)s);
    return (int64_t)(ceil_mode ? ceil(y) : floor(y));
}

/* returns the number of L the formula covered */
static long check_scale(double s, int prec, int ceil_mode, int64_t example)
{
    sy_flscale pl;
    if (sy_flscale_plan(s, prec, ceil_mode, example, &pl)) return -1;
    uint64_t a;
    int E;
    cr_assert(eq(int, sy_flscale_split(s, prec, &a, &E), 0));
    long covered = 0;
    int64_t f;
    if (example >= 0 && example <= pl.hmax)
        cr_assert(eq(int, sy_flscale_formula(&pl, ceil_mode, example, &f), 0), "s=%.17g example %lld not covered", s,
                  (long long)example);
    for (int64_t L = 0; L <= 20000 && L <= pl.hmax; L++) {
        int64_t h = host(s, prec, ceil_mode, L);
        cr_assert(eq(i64, sy_flscale_eval(a, E, prec, ceil_mode, L), h), "eval s=%.17g L=%lld", s, (long long)L);
        if (sy_flscale_formula(&pl, ceil_mode, L, &f)) continue;
        covered++;
        cr_assert(eq(i64, f, h), "s=%.17g prec %d ceil %d L=%lld: formula %lld*L%+lld over %lld gives %lld, IEEE %lld", s,
                  prec, ceil_mode, (long long)L, (long long)pl.p, (long long)pl.off, (long long)pl.q, (long long)f,
                  (long long)h);
    }
    for (int i = 0; i < 20000; i++) {
        int64_t L = (int64_t)(rnd() % (uint64_t)(pl.hmax + 1));
        if (i & 1) L = (L / pl.q) * pl.q; /* multiples: the delicate case */
        if (sy_flscale_formula(&pl, ceil_mode, L, &f)) continue;
        covered++;
        int64_t h = host(s, prec, ceil_mode, L);
        cr_assert(eq(i64, sy_flscale_eval(a, E, prec, ceil_mode, L), h), "eval s=%.17g L=%lld", s, (long long)L);
        cr_assert(eq(i64, f, h), "s=%.17g prec %d ceil %d L=%lld: formula %lld gives %lld, IEEE %lld", s, prec, ceil_mode,
                  (long long)L, (long long)pl.q, (long long)f, (long long)h);
    }
    return covered;
}

Test(flscale, model_scales)
{
    rng_state = test_seed() | 1;
    static const double scales[] = {0.7, 1.0 / 3, 2.0 / 3, 1.3, 0.1, 0.2, 0.3, 0.6, 0.8, 0.9, 1.1, 1.2, 1.7,
                                     2.5, 0.5, 0.75, 1.5, 2.0, 3.0, 0.25, 1.0, 0.35, 1.0 / 7, 0.45, 0.55};
    for (size_t i = 0; i < sizeof scales / sizeof *scales; i++)
        for (int prec = 24; prec <= 53; prec += 29)
            for (int cm = 0; cm < 2; cm++)
                for (int64_t ex = 7; ex < 2000; ex = ex * 9 + 20) {
                    double sc = prec == 24 ? (double)(float)scales[i] : scales[i];
                    long n = check_scale(sc, prec, cm, ex);
                    cr_assert(n > 0, "no plan for s=%.17g prec %d", sc, prec);
                }
}

/* the bounds are not tiny: the formula covers the sizes models have */
Test(flscale, ranges)
{
    sy_flscale pl;
    cr_assert(eq(int, sy_flscale_plan(0.7, 53, 0, 224, &pl), 0));
    cr_assert(eq(i64, pl.p, 7));
    cr_assert(eq(i64, pl.q, 10));
    cr_assert(pl.hmax > ((int64_t)1 << 40), "hmax %lld", (long long)pl.hmax);
    /* 0.7: 10*0.7 = 7.0 but 90*0.7 = 62.99999999999999: a mixed run; 224 is not a
     * multiple of 10, the run is the one containing k = 23 */
    cr_assert(eq(int, pl.runs, 1));
    cr_assert(pl.klo <= 23 && pl.khi >= 23);
    cr_assert(eq(int, sy_flscale_plan(0.5, 53, 0, 224, &pl), 0));
    cr_assert(pl.hmax >= ((int64_t)1 << 53) - 1, "0.5: hmax %lld", (long long)pl.hmax);
    cr_assert(eq(int, pl.runs, 0));
    cr_assert(eq(int, sy_flscale_plan(1.3, 53, 0, 224, &pl), 0));
    cr_assert(pl.hmax > ((int64_t)1 << 40), "hmax %lld", (long long)pl.hmax);
    cr_assert(eq(int, sy_flscale_plan((double)1.3f, 24, 0, 224, &pl), 0));
    cr_assert(pl.hmax > 500000, "float32 1.3: hmax %lld", (long long)pl.hmax);
    cr_assert(eq(int, sy_flscale_plan(1.0, 24, 0, 7, &pl), 0));
    cr_assert(eq(i64, pl.hmax, (int64_t)1 << 24)); /* an integer scale: L*a <= 2^prec */
    cr_assert(eq(int, sy_flscale_plan(-1.0, 53, 0, 7, &pl), -1));
    /* an integer scale whose value does not fit int64 (a 53-bit odd mantissa times 2^40) */
    cr_assert(eq(int, sy_flscale_plan(ldexp(9007199254740991.0, 40), 53, 0, 7, &pl), -1));
    cr_assert(eq(int, sy_flscale_plan(ldexp(3.0, 40), 53, 0, 7, &pl), 0));
    cr_assert(eq(i64, pl.p, (int64_t)3 << 40));
}

Test(flscale, random_scales)
{
    rng_state = (test_seed() * 7) | 1;
    int planned = 0;
    for (int i = 0; i < 60; i++) {
        double s;
        if (i % 3 == 0) s = (double)(rnd() % 1000 + 1) / (double)(rnd() % 1000 + 1); /* p/q as a double */
        else s = ldexp((double)(rnd() >> 11) / 9007199254740992.0 + 0.5, (int)(rnd() % 8) - 4);
        int prec = i & 1 ? 24 : 53;
        if (prec == 24) s = (double)(float)s;
        long n = check_scale(s, prec, (i >> 1) & 1, (int64_t)(rnd() % 5000));
        if (n >= 0) planned++;
    }
    cr_assert(planned >= 50, "only %d of 60 random scales planned", planned);
}
