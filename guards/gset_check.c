/* Guard sets: exact checking of values against a set (sy_gset_check*), and
 * the values of the sources from tensors' shapes. */
#include "guards/gset_private.h"

/* ------------------------------------------------------------------ checking */

static sy_status check_binding(const sy_gset *gs, sy_binding *b, int runtime, sy_gset_result *res)
{
    sy_ctx *ctx = gs->ctx;
    res->accept = 1;
    res->failed = -1;
    res->message[0] = '\0';
    res->truncated = 0;
    fmpz_t v;
    fmpz_init(v);
    for (size_t i = 0; i < gs->n; i++) {
        const sy_gset_guard *g = &gs->g[i].pub;
        if (g->kind == SY_GK_RUNTIME_ASSERT && !runtime) continue;
        sy_status st = sy_eval_raw(ctx, g->expr, b, v);
        bool ok = st == SY_OK && !fmpz_is_zero(v);
        if (st != SY_OK) sy_ctx_reset_error(ctx);
        if (ok) continue;
        res->accept = 0;
        res->failed = (long)i;
        size_t pos = (size_t)snprintf(res->message, sizeof res->message, "%s failed%s: ", g->display ? g->display : g->text,
                                      st == SY_EDIVZERO ? " (division by zero)" : "");
        for (size_t k = 0; k < g->nslots && pos < sizeof res->message; k++) {
            size_t s = g->slots[k];
            const fmpz *x = &b->vz[sy_expr_sym_id(gs->vars[s])];
            char *val = fmpz_get_str(NULL, 10, x);
            /* a dtype source's value is a sy_dtype code: shown by name, as the guard's display is */
            size_t sl = strlen(gs->sources[s]);
            const char *dname = sl >= 6 && !strcmp(gs->sources[s] + sl - 6, ".dtype") && fmpz_sgn(x) >= 0 &&
                                        fmpz_cmp_si(x, SY_DT_COUNT) < 0
                                    ? sy_dtype_name((sy_dtype)fmpz_get_si(x))
                                    : NULL;
            pos += (size_t)snprintf(res->message + pos, sizeof res->message - pos, "%s%s = %s%s%s%s", k ? ", " : "",
                                    gs->sources[s], dname ? dname : val, dname ? " (code " : "", dname ? val : "",
                                    dname ? ")" : "");
            if (pos > sizeof res->message) pos = sizeof res->message;
            flint_free(val);
        }
        /* snprintf returns the length it wanted: past the buffer means cut */
        res->truncated = pos >= sizeof res->message;
        break;
    }
    fmpz_clear(v);
    return SY_OK;
}

/* An input whose numel (the product of its sizes) is past int64 cannot exist: torch computes
 * numel with overflow checks (c10/core/TensorImpl.h, safe_compute_numel), onnxruntime too
 * (TensorShape::Size). A set's guards do not say so (every input's numel fitting is the fact
 * they were derived under, not a guard), so the check rejects such values itself, after the
 * guards accept. The sizes of an input are the sources NAME.size()[I] next to each other in
 * the set's order (a run; sources of one input that are not adjacent give partial products,
 * which are at most the numel: such an input is rejected only when it truly is past int64).
 * An input with a negative size is left to the guards; a size of 0 makes the numel 0. */
/* the rule, over sources[0..n) and their values (value(ud, i)): the first input whose run of size
 * sources has a numel past int64 rejects (res filled), 1 then */
typedef const fmpz *(*numel_value_fn)(const void *ud, size_t i);
static int numel_rule(const char *const *sources, size_t n, numel_value_fn value, const void *ud, sy_gset_result *res)
{
    fmpz_t p;
    fmpz_init(p);
    size_t i = 0;
    int past = 0;
    while (i < n && !past) {
        size_t nl = 0, d = 0, j = i;
        if (sy_gset_source_parse(sources[i], &nl, &d) != SY_SOURCE_SIZE) {
            i++;
            continue;
        }
        fmpz_one(p);
        int neg = 0;
        for (; j < n; j++) {
            size_t nl2 = 0, d2 = 0;
            if (sy_gset_source_parse(sources[j], &nl2, &d2) != SY_SOURCE_SIZE || nl2 != nl || strncmp(sources[j], sources[i], nl))
                break;
            const fmpz *x = value(ud, j);
            if (fmpz_sgn(x) < 0) neg = 1;
            fmpz_mul(p, p, x);
        }
        if (!neg && fmpz_cmp_si(p, INT64_MAX) > 0) {
            char *val = fmpz_get_str(NULL, 10, p);
            res->accept = 0;
            res->failed = -1;
            snprintf(res->message, sizeof res->message,
                     "input %.*s cannot exist: its numel %s (the product of its sizes) is past int64 (9223372036854775807)",
                     (int)(nl > 64 ? 64 : nl), sources[i], val ? val : "?");
            res->truncated = 0;
            flint_free(val);
            past = 1;
        }
        i = j;
    }
    fmpz_clear(p);
    return past;
}

typedef struct {
    const sy_gset *gs;
    const sy_binding *b;
} bind_ud;

static const fmpz *bind_value(const void *ud, size_t i)
{
    const bind_ud *u = ud;
    return &u->b->vz[sy_expr_sym_id(u->gs->vars[i])];
}

static void numel_check(const sy_gset *gs, const sy_binding *b, sy_gset_result *res)
{
    bind_ud u = {gs, b};
    numel_rule((const char *const *)gs->sources, gs->nsrc, bind_value, &u, res);
}

/* an int64 value as an fmpz: one scratch, read by numel_rule before the next value is asked for */
typedef struct {
    const int64_t *v;
    fmpz_t x;
} numel_si_ud;

static const fmpz *numel_si_at(const void *ud, size_t i)
{
    numel_si_ud *u = (numel_si_ud *)ud; /* the caller's own scratch */
    fmpz_set_si(u->x, u->v[i]);
    return u->x;
}

int sy_gset_numel_check_si(const char *const *sources, const int64_t *values, size_t n, sy_gset_result *res)
{
    if ((n && (!sources || !values)) || !res || res->size != sizeof *res) return -1;
    for (size_t i = 0; i < n; i++)
        if (!sources[i]) return -1;
    res->accept = 1;
    res->failed = -1;
    res->message[0] = '\0';
    res->truncated = 0;
    numel_si_ud u = {values, {0}};
    fmpz_init(u.x);
    int past = numel_rule(sources, n, numel_si_at, &u, res);
    fmpz_clear(u.x);
    return past;
}

static sy_status check_common(const sy_gset *gs, const sy_expr *const *values, const int64_t *v64, size_t n,
                              const int64_t *unbacked, size_t m, int runtime, sy_gset_result *res)
{
    if (!gs) return SY_EINVAL;
    sy_ctx *ctx = gs->ctx;
    if (!res || (!values && !v64)) return sy_fail_st(ctx, SY_EINVAL, "check: NULL argument");
    if (res->size != sizeof *res)
        return sy_fail_st(ctx, SY_EVERSION, "check: sy_gset_result.size is %zu, this library's is %zu (set it to sizeof, "
                                            "SY_GSET_RESULT_INIT)", res->size, sizeof *res);
    if (n != gs->nsrc) return sy_fail_st(ctx, SY_EINVAL, "check: expected %zu values (one per source), got %zu", gs->nsrc, n);
    sy_binding b;
    if (!sy_binding_init(ctx, &b)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    fmpz_t t;
    fmpz_init(t);
    for (size_t i = 0; i < n; i++) {
        if (values) {
            int64_t x;
            if (!values[i] || !sy_expr_is_int(values[i])) {
                fmpz_clear(t);
                sy_binding_clear(ctx, &b);
                return sy_fail_st(ctx, SY_EINVAL, "check: value %zu (%s) is not an integer", i, gs->sources[i]);
            }
            if (sy_expr_get_si(values[i], &x) == SY_OK) fmpz_set_si(t, x);
            else {
                char *s = sy_expr_print(ctx, values[i], SY_PRINT_CANONICAL);
                fmpz_set_str(t, s ? s : "0", 10);
                sy_str_free(ctx, s);
            }
        } else {
            fmpz_set_si(t, v64[i]);
        }
        sy_binding_set(&b, sy_expr_sym_id(gs->vars[i]), t);
    }
    if (runtime) {
        if (m != gs->nub || (m && !unbacked)) {
            fmpz_clear(t);
            sy_binding_clear(ctx, &b);
            return sy_fail_st(ctx, SY_EINVAL, "check_runtime: expected %zu unbacked values, got %zu", gs->nub, m);
        }
        for (size_t i = 0; i < m; i++) {
            fmpz_set_si(t, unbacked[i]);
            sy_binding_set(&b, sy_expr_sym_id(gs->ub[i]), t);
        }
    }
    fmpz_clear(t);
    sy_status st = check_binding(gs, &b, runtime, res);
    if (st == SY_OK && res->accept) numel_check(gs, &b, res);
    sy_binding_clear(ctx, &b);
    return st;
}

sy_status sy_gset_check(const sy_gset *gs, const sy_expr *const *values, size_t n, sy_gset_result *res)
{
    return check_common(gs, values, NULL, n, NULL, 0, 0, res);
}

sy_status sy_gset_check_si(const sy_gset *gs, const int64_t *values, size_t n, sy_gset_result *res)
{
    return check_common(gs, NULL, values, n, NULL, 0, 0, res);
}

sy_status sy_gset_check_runtime_si(const sy_gset *gs, const int64_t *values, size_t n, const int64_t *unbacked, size_t m,
                                   sy_gset_result *res)
{
    return check_common(gs, NULL, values, n, unbacked, m, 1, res);
}

/* names[a] before names[b]: by name, then by index (the last of equal names is the one used) */
static int name_before(const char *const *names, size_t a, size_t b)
{
    int c = strcmp(names[a], names[b]);
    return c ? c < 0 : a < b;
}

/* ord[0..n) sorted by name_before: a bottom-up merge sort through tmp (n entries) */
static void name_sort(const char *const *names, size_t *ord, size_t *tmp, size_t n)
{
    size_t *x = ord, *y = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi) y[k++] = name_before(names, x[j], x[i]) ? x[j++] : x[i++];
            while (i < mid) y[k++] = x[i++];
            while (j < hi) y[k++] = x[j++];
        }
        size_t *s = x;
        x = y;
        y = s;
    }
    if (x != ord) memcpy(ord, x, n * sizeof *ord);
}

/* the last input whose name is src's first nl bytes, or -1 */
static long name_find(const char *const *names, const size_t *ord, size_t n, const char *src, size_t nl)
{
    size_t lo = 0, hi = n; /* the first entry whose name is after the key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *nm = names[ord[mid]];
        int c = strncmp(nm, src, nl);
        if (c < 0 || (c == 0 && nm[nl] == '\0')) lo = mid + 1; /* at or before the key */
        else if (c == 0) hi = mid; /* nm extends the key: after it */
        else hi = mid;
    }
    if (!lo) return -1;
    const char *nm = names[ord[lo - 1]];
    return strncmp(nm, src, nl) == 0 && nm[nl] == '\0' ? (long)ord[lo - 1] : -1;
}

sy_status sy_gset_values_from_tensors(const sy_gset *gs, size_t ninputs, const char *const *names, const size_t *ranks,
                                      const int64_t *const *shapes, const int64_t *const *strides, const sy_dtype *dtypes,
                                      int64_t *values)
{
    if (!gs) return SY_EINVAL;
    if (!values || (ninputs && (!names || !ranks || !shapes))) return sy_fail_st(gs->ctx, SY_EINVAL, "values_from_shapes: NULL argument");
    for (size_t i = 0; i < ninputs; i++)
        if (!names[i]) return sy_fail_st(gs->ctx, SY_EINVAL, "values_from_shapes: the name of input %zu is NULL", i);
    /* many inputs: their names sorted once, each source's found by bisection (a scan of every
     * name per source was O(sources * inputs): 3,000 inputs took 0.3 s per call, issue 38) */
    size_t *ord = NULL;
    if (ninputs > 16) {
        size_t *tmp = sy_alloc(gs->ctx, ninputs * sizeof *tmp);
        if (tmp) ord = sy_alloc(gs->ctx, ninputs * sizeof *ord);
        if (!ord) {
            if (tmp) sy_dealloc(gs->ctx, tmp, ninputs * sizeof *tmp);
            return sy_fail_st(gs->ctx, SY_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < ninputs; i++) ord[i] = i;
        name_sort(names, ord, tmp, ninputs);
        sy_dealloc(gs->ctx, tmp, ninputs * sizeof *tmp);
    }
    for (size_t s = 0; s < gs->nsrc; s++) {
        const char *src = gs->sources[s];
        size_t nl = 0, d = 0;
        int kind = sy_gset_source_parse(src, &nl, &d);
        if (kind < 0 && ord) sy_dealloc(gs->ctx, ord, ninputs * sizeof *ord);
        if (kind < 0)
            return sy_fail_st(gs->ctx, SY_EUNSUPPORTED,
                              "unsupported source '%s' (expected NAME.dim(), NAME.dtype, NAME.size()[I] or NAME.stride()[I])", src);
        long in = -1;
        if (ord) in = name_find(names, ord, ninputs, src, nl);
        else
            for (size_t i = 0; i < ninputs; i++)
                if (strlen(names[i]) == nl && !strncmp(names[i], src, nl)) in = (long)i;
        if (in < 0) {
            if (ord) sy_dealloc(gs->ctx, ord, ninputs * sizeof *ord);
            return sy_fail_st(gs->ctx, SY_EINVAL, "no shape given for input %.*s", (int)nl, src);
        }
        if (kind == SY_SOURCE_DIM) values[s] = (int64_t)ranks[in];
        else if (kind == SY_SOURCE_DTYPE) values[s] = dtypes ? (int64_t)dtypes[in] : -1;
        else if (kind == SY_SOURCE_SIZE) values[s] = d < ranks[in] ? shapes[in][d] : 0;
        else if (strides && strides[in]) values[s] = d < ranks[in] ? strides[in][d] : 0;
        else { /* no strides given: the contiguous ones, products of Max(size, 1) (sy_tensor_contig_stride) */
            int64_t acc = 1;
            for (size_t k = d + 1; k < ranks[in]; k++) {
                int64_t m = shapes[in][k] >= 1 ? shapes[in][k] : 1;
                acc = acc > INT64_MAX / m ? INT64_MAX : acc * m;
            }
            values[s] = d < ranks[in] ? acc : 0;
        }
    }
    if (ord) sy_dealloc(gs->ctx, ord, ninputs * sizeof *ord);
    return SY_OK;
}

sy_status sy_gset_values_from_shapes(const sy_gset *gs, size_t ninputs, const char *const *names, const size_t *ranks,
                                     const int64_t *const *shapes, const sy_dtype *dtypes, int64_t *values)
{
    return sy_gset_values_from_tensors(gs, ninputs, names, ranks, shapes, NULL, dtypes, values);
}
