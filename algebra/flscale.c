/* floor / ceil of a binary floating-point product fl(L * s), exactly, for an
 * integer L and a float s of `prec` significand bits (53: double, as PyTorch
 * computes F.interpolate(scale_factor=s) and Python int(h * s); 24: float32,
 * as ONNX Resize). See algebra/internal.h (sy_flscale) for the contract and
 * docs/ops.md, "Float arithmetic on sizes", for the derivation.
 *
 * Notation: s = a / 2^E exactly (a odd), u = 2^-prec, y = L * s (exact),
 * F(L) = floor(fl(y)) (or ceil). For 0 <= L <= 2^prec, float(L) = L, so the
 * computed product is fl(y), the correctly rounded y, with |fl(y) - y| <= u*y.
 *
 * Let P/Q be a convergent of s, eta = s - P/Q.
 *  (A) Q does not divide L: L*P/Q is at least 1/Q from every integer, and
 *      |fl(y) - L*P/Q| <= L*|eta| + u*L*s; while that is < 1/Q, i.e.
 *      L * (|a*Q - P*2^E| * 2^prec + a*Q) < 2^(E+prec)   (the bound H_A),
 *      floor(fl(y)) = floor(L*P/Q) and ceil(fl(y)) = ceil(L*P/Q).
 *  (B) L = k*Q, N = k*P an integer, y = N + L*eta, |y - N| < 1/Q <= 1 under
 *      H_A. eta = 0: fl(y) = N. eta > 0: floor is N; ceil is N when fl(y)
 *      rounds down to N, else N + 1. eta < 0: ceil is N; floor is N when fl(y)
 *      rounds up to N, else N - 1. Whether it rounds to N compares the
 *      distance k*|c| (c = Q*eta) with half the spacing of floats next to N:
 *      it holds for every k when gamma = |c| * 2^prec / P <= 1/2 and for no k
 *      when gamma >= 1 (floor; ceil: > 1), and in between depends on where N
 *      lies in its binade [2^j, 2^(j+1)) (within one binade the distance grows
 *      with k and the spacing is fixed: a run of k that round to N, then a run
 *      that do not; N = 2^j exactly has the smaller spacing below it).
 * The result is FloorDiv(P*L + off*Min(L, 1), Q) (CeilDiv for ceil), off in
 * {-1, 0, 1} the behaviour of the multiples of Q (L = 0 gives 0 either way);
 * when the behaviour is mixed, the run of multiples that contains the example
 * is returned and the caller guards on it. Every plan is checked against the
 * exact evaluation at L in [0, 512] before it is returned. */
#include <stdint.h>
#include <math.h>

#include "algebra/internal.h"

__extension__ typedef unsigned __int128 u128;

static int bitlen(u128 t)
{
    int n = 0;
    while (t) t >>= 1, n++;
    return n;
}

/* t rounded to prec significant bits, ties to even */
static u128 round_prec(u128 t, int prec)
{
    int bits = bitlen(t);
    if (bits <= prec) return t;
    int sh = bits - prec;
    u128 q = t >> sh, r = t & (((u128)1 << sh) - 1), half = (u128)1 << (sh - 1);
    if (r > half || (r == half && (q & 1))) q++;
    return q << sh;
}

int sy_flscale_split(double s, int prec, uint64_t *a, int *E)
{
    if (!(s > 0) || !isfinite(s) || (prec != 53 && prec != 24)) return -1;
    if (prec == 24 && (double)(float)s != s) return -1;
    int k;
    double f = frexp(s, &k); /* s = f * 2^k, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);
    int e = 53 - k;
    while (!(m & 1)) m >>= 1, e--;
    *a = m, *E = e;
    return 0;
}

int64_t sy_flscale_eval(uint64_t a, int E, int prec, int ceil_mode, int64_t L)
{
    if (L == 0) return 0;
    u128 t = round_prec((u128)(uint64_t)L * a, prec); /* fl(L*a); fl(L*a/2^E) = fl(L*a)/2^E */
    if (E <= 0) return (int64_t)(t << -E);
    u128 q = t >> E;
    if (ceil_mode && (q << E) != t) q++;
    return (int64_t)q;
}

/* delta(k): whether the multiple L = k*Q gives k*P (rounds to N) */
static int rounds_to_n(const sy_flscale *pl, uint64_t a, int E, int prec, int ceil_mode, int64_t k)
{
    return sy_flscale_eval(a, E, prec, ceil_mode, k * pl->q) == k * pl->p;
}

/* the maximal k-segment [lo, hi] (within kmax) around k where delta is constant,
 * inside the binade of N = k*P: the point N = 2^j alone, then a run of 1s, then 0s */
static void segment(const sy_flscale *pl, uint64_t a, int E, int prec, int ceil_mode, int64_t kmax, int64_t k,
                    int64_t *lo, int64_t *hi)
{
    int64_t P = pl->p;
    u128 N = (u128)k * (u128)P;
    int j = bitlen(N) - 1;
    u128 lo2 = (u128)1 << j, hi2 = ((u128)1 << (j + 1)) - 1;
    int64_t kb = (int64_t)((lo2 + (u128)P - 1) / (u128)P), ke = (int64_t)(hi2 / (u128)P);
    if (ke > kmax) ke = kmax;
    if ((u128)kb * (u128)P == lo2) { /* the power of two: its own segment */
        if (k == kb) {
            *lo = *hi = kb;
            return;
        }
        kb++;
    }
    int v = rounds_to_n(pl, a, E, prec, ceil_mode, k);
    /* the last k in [kb, ke] with delta 1 (delta is 1...1 0...0 there) */
    int64_t l = kb - 1, r = ke; /* invariant: delta(l) = 1 or l = kb-1; delta(x) = 0 for x > r */
    while (l < r) {
        int64_t mid = l + (r - l + 1) / 2;
        if (rounds_to_n(pl, a, E, prec, ceil_mode, mid)) l = mid;
        else r = mid - 1;
    }
    if (v) *lo = kb, *hi = l;
    else *lo = l + 1, *hi = ke;
}

int sy_flscale_plan(double s, int prec, int ceil_mode, int64_t example, sy_flscale *out)
{
    uint64_t a;
    int E;
    if (sy_flscale_split(s, prec, &a, &E)) return -1;
    int64_t cap = (int64_t)1 << prec; /* float(L) = L */
    out->runs = 0, out->off = 0, out->klo = 0, out->khi = 0, out->nex = 0;
    if (E <= 0) { /* an integer a*2^-E: exact while L*a <= 2^prec */
        if (E < -40 || bitlen(a) - E > 62) return -1; /* p = a*2^-E must fit int64 */
        out->p = (int64_t)(a << -E), out->q = 1;
        out->hmax = cap / (int64_t)a;
        if (out->hmax > INT64_MAX / out->p) out->hmax = INT64_MAX / out->p;
        return 0;
    }
    if (E > 70) return -1;
    /* convergents of a / 2^E (Euclid); the one with the largest H_A */
    u128 num = a, den = (u128)1 << E;
    u128 h1 = 1, h2 = 0, k1 = 0, k2 = 1;
    u128 best = 0;
    int64_t bp = 0, bq = 0;
    while (den) {
        u128 t = num / den, r = num % den;
        u128 hn = t * h1 + h2, kn = t * k1 + k2;
        if (hn >= ((u128)1 << 40) || kn >= ((u128)1 << 24)) break;
        h2 = h1, h1 = hn, k2 = k1, k1 = kn;
        num = den, den = r;
        u128 aq = (u128)a * kn, p2 = hn << E;
        u128 diff = aq > p2 ? aq - p2 : p2 - aq;
        u128 x = (diff << prec) + aq;
        /* s = P/Q exactly: no rounding while L*a <= 2^prec (L*a, hence fl(y) = y, is representable) */
        u128 ha = diff == 0 ? (((u128)1) << prec) / a : ((((u128)1) << (E + prec)) - 1) / x;
        if (ha > best) best = ha, bp = (int64_t)hn, bq = (int64_t)kn;
    }
    if (!bq) return -1;
    out->p = bp, out->q = bq;
    out->hmax = best > (u128)cap ? cap : (int64_t)best;
    u128 aq = (u128)a * (u128)bq, p2 = (u128)bp << E;
    int sgn = aq > p2 ? 1 : aq < p2 ? -1 : 0; /* sign of eta */
    int64_t kmax = out->hmax / bq;
    if (sgn != 0 && (ceil_mode ? sgn > 0 : sgn < 0) && kmax >= 1) {
        u128 c = sgn > 0 ? aq - p2 : p2 - aq; /* |Q*eta| * 2^E */
        u128 lhs = c << prec, rhs = (u128)bp << E; /* gamma = lhs / rhs */
        int all = 2 * lhs <= rhs, none = ceil_mode ? lhs > rhs : lhs >= rhs;
        if (none) out->off = ceil_mode ? 1 : -1;
        else if (!all) { /* mixed: a window of multiples around the example, the other runs in it excluded */
            int64_t k0 = example <= 0 ? 1 : example / bq + (example % bq != 0);
            if (k0 > kmax) k0 = kmax;
            if (k0 < 1) k0 = 1;
            int v = rounds_to_n(out, a, E, prec, ceil_mode, k0);
            /* the window starts a few binades below the example, or at 1 */
            int64_t ks = k0 > 4096 ? k0 / 16 : 1, k = ks, lo, hi;
            out->nex = 0;
            out->klo = ks == 1 ? 0 : ks, out->khi = kmax;
            for (int it = 0; it < 2000 && k <= kmax; it++) {
                segment(out, a, E, prec, ceil_mode, kmax, k, &lo, &hi);
                if (lo < ks) lo = ks;
                if (rounds_to_n(out, a, E, prec, ceil_mode, k) != v) {
                    if (out->nex && out->exhi[out->nex - 1] == lo - 1) out->exhi[out->nex - 1] = hi; /* adjacent: merge */
                    else if (out->nex == SY_FLSCALE_MAXEX) {
                        if (lo > k0) { /* enough exclusions past the example: the window ends here */
                            out->khi = lo - 1;
                            break;
                        }
                        /* drop the first exclusion: the window starts after it */
                        out->klo = out->exhi[0] + 1;
                        for (int x = 1; x < out->nex; x++) out->exlo[x - 1] = out->exlo[x], out->exhi[x - 1] = out->exhi[x];
                        out->exlo[out->nex - 1] = lo, out->exhi[out->nex - 1] = hi;
                    } else out->exlo[out->nex] = lo, out->exhi[out->nex] = hi, out->nex++;
                }
                k = hi + 1;
            }
            if (k <= kmax && out->khi == kmax) out->khi = k - 1; /* the scan stopped early: cover what it saw */
            out->runs = 1;
            out->off = v ? 0 : ceil_mode ? 1 : -1;
        }
    }
    /* the plan against the exact evaluation on a prefix */
    for (int64_t L = 0; L <= 512 && L <= out->hmax; L++) {
        int64_t f;
        if (sy_flscale_formula(out, ceil_mode, L, &f)) continue; /* outside the guarded run */
        if (f != sy_flscale_eval(a, E, prec, ceil_mode, L)) return -1;
    }
    return 0;
}

int sy_flscale_formula(const sy_flscale *pl, int ceil_mode, int64_t L, int64_t *out)
{
    if (L < 0 || L > pl->hmax) return -1;
    if (pl->runs && L % pl->q == 0) {
        int64_t k = L / pl->q;
        if (k < pl->klo || k > pl->khi) return -1;
        for (int i = 0; i < pl->nex; i++)
            if (k >= pl->exlo[i] && k <= pl->exhi[i]) return -1;
    }
    __int128 n = (__int128)pl->p * L + (L > 0 ? pl->off : 0), q = pl->q;
    __int128 r = n / q;
    if (ceil_mode ? (r * q < n) : (r * q > n)) r += ceil_mode ? 1 : -1;
    *out = (int64_t)r;
    return 0;
}
