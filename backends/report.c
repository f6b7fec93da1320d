/* The report backends: "report" (terminal text) and "markdown". A guard set
 * explained for a PyTorch user: the model, what became of every input dim
 * (dynamic with its symbol and range, static, or specialized by a guard and
 * where that guard came from), the guards grouped by kind with their
 * provenance, and the totals. Uses sy_backend_options.env / .graph when given;
 * without them, everything is derived from the guard set alone. Output is
 * deterministic: no addresses, times or locale-dependent formatting.
 * Length (about 1,210 lines, over the tree's 1,200): the two renderers share the analysis of the
 * guards (model) and the escaping of every name (rp_text, rp_code, rp_lines); one file keeps the
 * text and markdown layouts in step. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/internal.h"
#include "backends/backends_private.h"
#include "symshape/backend.h"

/* report texts past this many tree nodes use the let-form (as guard texts do) */
#define SY_REPORT_LET_NODES 100000u

/* ------------------------------------------------------------------ output */

typedef struct {
    sy_ctx *ctx;
    sy_output *out;
    int md;        /* markdown */
    sy_status st;  /* sticky */
} rp;

/* Every byte goes out through here: a control character other than the newline (ESC, \r, \b,
 * a tab, DEL) from a name, a source or a message is written as \xHH, so a name cannot move the
 * cursor, erase what was printed or start a terminal escape sequence (the HTML and JSON backends
 * escape theirs too). */
static void rp_sink(rp *r, const char *s, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n && !r->st; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 0x20 && c != 0x7f) || c == '\n') continue;
        char esc[5];
        snprintf(esc, sizeof esc, "\\x%02x", c);
        if ((i > from && sy_output_write(r->out, s + from, i - from) != SY_OK) || sy_output_write(r->out, esc, 4) != SY_OK)
            r->st = SY_ENOMEM;
        from = i + 1;
    }
    if (!r->st && n > from && sy_output_write(r->out, s + from, n - from) != SY_OK) r->st = SY_ENOMEM;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void rp_printf(rp *r, const char *fmt, ...)
{
    if (r->st) return;
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        r->st = sy_fail_st(r->ctx, SY_EINVAL, "report: formatting failed");
        return;
    }
    if ((size_t)n < sizeof tmp) {
        rp_sink(r, tmp, (size_t)n);
        return;
    }
    char *big = sy_alloc(r->ctx, (size_t)n + 1);
    if (!big) {
        r->st = sy_fail_st(r->ctx, SY_ENOMEM, "out of memory");
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rp_sink(r, big, (size_t)n);
    sy_dealloc(r->ctx, big, (size_t)n + 1);
}

static void rp_write(rp *r, const char *s, size_t n)
{
    if (r->st || !n) return;
    rp_sink(r, s, n);
}

/* Free text (a reason, a why) and every name (an input, a source, a symbol, a Dim, a model, a
 * guard's text, a message naming them), n bytes of s: one line. A control character, the
 * newline too, is written as \xHH, so a name cannot forge a line of the report (rp_sink keeps
 * the newlines of the report's own layout). Markdown: punctuation that could start markup is
 * backslash-escaped (also `|`, for table cells), so a name cannot forge a row, a link or HTML. */
/* p (in text) is a line break of the let-form of sy_expr_print_bounded: the next line starts
 * "let $K = " or "in ", and text starts with the let-form (strict: the break is written as a
 * newline) or holds it before p (a message quoting a let-form: the break is written as a space);
 * any other newline is a name's (escaped) */
static int let_break(const char *text, const char *let1, const char *p, int strict)
{
    if (*p != '\n' || (strncmp(p + 1, "let $", 5) && strncmp(p + 1, "in ", 3))) return 0;
    return let1 && let1 < p && (!strict || let1 == text);
}

/* the let-form's start in text (once per text: let_break's let1), or NULL */
static const char *let_start(const char *text) { return text && strchr(text, '\n') ? strstr(text, "let $1 = ") : NULL; }

/* n bytes of s, part of text (for let_break): a let-form's own line break as letnl (' ' on one line,
 * '\n' where the layout keeps it) */
static void rp_text_nl(rp *r, const char *s, size_t n, const char *text, const char *let1, char letnl)
{
    char buf[256];
    size_t k = 0;
    for (size_t i = 0; s && i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (k >= sizeof buf - 8) {
            rp_write(r, buf, k);
            k = 0;
        }
        if (let_break(text, let1, s + i, letnl == '\n')) {
            buf[k++] = letnl;
            continue;
        }
        if (c < 0x20 || c == 0x7f) {
            k += (size_t)snprintf(buf + k, sizeof buf - k, "\\x%02x", c);
            continue;
        }
        if (r->md && strchr("\\`*_[]<>|#~", (int)c)) buf[k++] = '\\';
        buf[k++] = (char)c;
    }
    rp_write(r, buf, k);
}

static void rp_text_n(rp *r, const char *s, size_t n) { rp_text_nl(r, s, n, s ? s : "", let_start(s), ' '); }
static void rp_text(rp *r, const char *s) { rp_text_n(r, s, s ? strlen(s) : 0); }

/* Text output of a guard that may be in the let-form (several lines, see
 * sy_expr_print_bounded): each line after the first indented by `indent`
 * spaces, so it stays under its heading. */
static void rp_lines(rp *r, const char *s, int indent)
{
    /* only the let-form's own line breaks (before "let $K = " and the last "in "), and only in a
     * text that is a let-form (starts "let $"); any other newline is a name's: escaped (rp_text) */
    const char *nl, *p = s, *let1 = let_start(s);
    while (p && (nl = strchr(p, '\n')) != NULL) {
        if (!let_break(s, let1, nl, 1)) {
            rp_text_nl(r, p, (size_t)(nl - p + 1), s, let1, ' ');
            p = nl + 1;
            continue;
        }
        rp_text_nl(r, p, (size_t)(nl - p), s, let1, ' ');
        rp_printf(r, "\n%*s", indent, "");
        p = nl + 1;
    }
    if (p) rp_text_nl(r, p, strlen(p), s, let1, ' ');
}

/* Code (a guard, a source, a symbol): markdown wraps it in a code span whose
 * fence is longer than any run of backticks inside; `|` is escaped for table
 * cells. Text: as is, on one line. */
static void rp_code(rp *r, const char *s)
{
    if (!s) s = "";
    if (!r->md) {
        rp_text(r, s);
        return;
    }
    size_t run = 0, maxrun = 0;
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > maxrun) maxrun = run;
    }
    char fence[8];
    size_t nf = maxrun + 1 < sizeof fence ? maxrun + 1 : sizeof fence - 1;
    memset(fence, '`', nf);
    int pad = maxrun > 0 || s[0] == '`';
    rp_write(r, fence, nf);
    if (pad) rp_write(r, " ", 1);
    const char *let1 = let_start(s);
    for (const char *p = s; *p; p++) { /* a control character (a newline too) as \xHH: one line */
        unsigned char c = (unsigned char)*p;
        char esc[5];
        if (let_break(s, let1, p, 0)) {
            rp_write(r, " ", 1);
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            rp_write(r, esc, 4);
        } else if (c == '|') {
            rp_write(r, "\\|", 2);
        } else {
            rp_write(r, p, 1);
        }
    }
    if (pad) rp_write(r, " ", 1);
    rp_write(r, fence, nf);
}

/* ------------------------------------------------------------------ what the guards say */

typedef struct {
    long pin;        /* guard pinning the slot directly (slot == constant), -1 */
    int64_t value;   /* its constant */
    int has_lo, has_hi;
    int64_t lo, hi;  /* bounds from single-slot range guards */
    size_t parent;   /* union-find over equality guards */
} slotinfo;

typedef struct {
    sy_ctx *ctx;
    const sy_gset *gs;
    const sy_env *env;
    const sy_graph *graph;
    size_t ns, n;
    slotinfo *si;
    /* indexes of analyze (issue 14: each was a scan of the guards or slots per dim, quadratic in
     * the inputs: 1000 ONNX inputs rendered in 710M instructions) */
    size_t *rd_at, *rd;        /* the guards reading slot s, ascending: rd[rd_at[s] .. rd_at[s + 1]) */
    size_t *cl_at, *cl;        /* the slots of the class of root r, ascending: cl[cl_at[r] .. cl_at[r + 1]) */
    long *cl_pin;              /* per root: the slot of the class's best pin (recorded first, then lowest), -1 */
    slotinfo *cl_range;        /* per root: the class's bounds (has_lo, lo, has_hi, hi) */
    const sy_input_dim **eds;  /* per slot: the first env input dim of its source, or NULL */
    sy_status st; /* sticky: an allocation failed while analysing */
} model;

/* the slot of source variable v (vars[i] is the symbol named by sources[i]:
 * the text index finds it, the first slot of that text, as a scan would) */
static long slot_of_var(const model *m, const sy_expr *v)
{
    if (sy_expr_kind_of(v) != SY_EXPR_SYM) return -1;
    long s = sy_gset_find_source(m->gs, sy_expr_sym_name(v));
    return s >= 0 && sy_gset_source_var(m->gs, (size_t)s) == v ? s : -1;
}

/* d = c*v + c0 with one source variable v and c = +-1: *slot, *c, *c0 */
static int single_var(const model *m, const sy_expr *d, long *slot, int *c, int64_t *c0)
{
    if (sy_expr_kind_of(d) == SY_EXPR_SYM) {
        *slot = slot_of_var(m, d);
        *c = 1;
        *c0 = 0;
        return *slot >= 0;
    }
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) != 1 || sy_expr_kind_of(sy_expr_arg(d, 0)) != SY_EXPR_SYM)
        return 0;
    int64_t k;
    if (sy_expr_get_si(sy_expr_add_coeff(m->ctx, d, 0), &k) != SY_OK || (k != 1 && k != -1)) return 0;
    if (sy_expr_get_si(sy_expr_add_const(m->ctx, d), c0) != SY_OK || *c0 == INT64_MIN) return 0;
    *c = (int)k;
    *slot = slot_of_var(m, sy_expr_arg(d, 0));
    return *slot >= 0;
}

/* v1 - v2 == 0 over two source variables */
static int equality_pair(const model *m, const sy_expr *e, long *a, long *b)
{
    if (sy_expr_kind_of(e) != SY_EXPR_EQ) return 0;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) != 2) return 0;
    int64_t c0, k0, k1;
    if (sy_expr_get_si(sy_expr_add_const(m->ctx, d), &c0) != SY_OK || c0 != 0) return 0;
    if (sy_expr_kind_of(sy_expr_arg(d, 0)) != SY_EXPR_SYM || sy_expr_kind_of(sy_expr_arg(d, 1)) != SY_EXPR_SYM) return 0;
    if (sy_expr_get_si(sy_expr_add_coeff(m->ctx, d, 0), &k0) != SY_OK ||
        sy_expr_get_si(sy_expr_add_coeff(m->ctx, d, 1), &k1) != SY_OK || k0 + k1 != 0 || (k0 != 1 && k0 != -1))
        return 0;
    *a = slot_of_var(m, sy_expr_arg(d, 0));
    *b = slot_of_var(m, sy_expr_arg(d, 1));
    return *a >= 0 && *b >= 0;
}

static size_t uf_find(slotinfo *si, size_t i)
{
    while (si[i].parent != i) i = si[i].parent = si[si[i].parent].parent;
    return i;
}

static int recorded(const sy_gset_guard *g) { return g->count > 0 || g->norigins > 0; }

static void *zalloc(model *m, size_t n, size_t size)
{
    void *p = sy_alloc(m->ctx, (n ? n : 1) * size);
    if (p) memset(p, 0, (n ? n : 1) * size);
    return p;
}

static void unindex_model(model *m)
{
    size_t ns = m->ns ? m->ns : 1, nr = m->rd_at ? m->rd_at[m->ns] : 0;
    if (m->rd_at) sy_dealloc(m->ctx, m->rd_at, (m->ns + 1) * sizeof *m->rd_at);
    if (m->rd) sy_dealloc(m->ctx, m->rd, (nr ? nr : 1) * sizeof *m->rd);
    if (m->cl_at) sy_dealloc(m->ctx, m->cl_at, (m->ns + 1) * sizeof *m->cl_at);
    if (m->cl) sy_dealloc(m->ctx, m->cl, ns * sizeof *m->cl);
    if (m->cl_pin) sy_dealloc(m->ctx, m->cl_pin, ns * sizeof *m->cl_pin);
    if (m->cl_range) sy_dealloc(m->ctx, m->cl_range, ns * sizeof *m->cl_range);
    if (m->eds) sy_dealloc(m->ctx, m->eds, ns * sizeof *m->eds);
}

/* the readers of each slot, the classes of the equalities with their best pin and bounds, and each
 * slot's env dim: what classify_dim, put_readers and the "equal to" lists read, built once */
static sy_status index_model(model *m)
{
    size_t ns = m->ns, nr = 0;
    m->rd_at = zalloc(m, ns + 1, sizeof *m->rd_at);
    m->cl_at = zalloc(m, ns + 1, sizeof *m->cl_at);
    m->cl = zalloc(m, ns, sizeof *m->cl);
    m->cl_pin = zalloc(m, ns, sizeof *m->cl_pin);
    m->cl_range = zalloc(m, ns, sizeof *m->cl_range);
    m->eds = zalloc(m, ns, sizeof *m->eds);
    if (!m->rd_at || !m->cl_at || !m->cl || !m->cl_pin || !m->cl_range || !m->eds) return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
    /* readers: a guard once per slot it reads (a scan of its slots stopped at the first) */
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            for (size_t s = 0; s < ns; s++) m->rd_at[s + 1] += m->rd_at[s];
            nr = m->rd_at[ns];
            if (!(m->rd = zalloc(m, nr, sizeof *m->rd))) return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
        }
        size_t *fill = pass ? m->cl : NULL; /* the next position of each slot (cl as scratch) */
        if (pass) for (size_t s = 0; s < ns; s++) fill[s] = m->rd_at[s];
        for (size_t i = 0; i < m->n; i++) {
            const sy_gset_guard *g = sy_gset_at(m->gs, i);
            for (size_t k = 0; k < g->nslots; k++) {
                size_t s = g->slots[k];
                if (s >= ns) continue;
                int dup = 0;
                for (size_t j = 0; j < k && !dup; j++) dup = g->slots[j] == s;
                if (dup) continue;
                if (!pass) m->rd_at[s + 1]++;
                else m->rd[fill[s]++] = i;
            }
        }
    }
    /* classes: members ascending, per root */
    memset(m->cl_at, 0, (ns + 1) * sizeof *m->cl_at);
    for (size_t t = 0; t < ns; t++) m->cl_at[uf_find(m->si, t) + 1]++;
    for (size_t r = 0; r < ns; r++) m->cl_at[r + 1] += m->cl_at[r];
    size_t *fill = zalloc(m, ns, sizeof *fill);
    if (!fill) return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
    for (size_t r = 0; r < ns; r++) fill[r] = m->cl_at[r];
    for (size_t t = 0; t < ns; t++) m->cl[fill[uf_find(m->si, t)]++] = t;
    sy_dealloc(m->ctx, fill, (ns ? ns : 1) * sizeof *fill);
    for (size_t r = 0; r < ns; r++) {
        long pin = -1;
        slotinfo *c = &m->cl_range[r];
        for (size_t j = m->cl_at[r]; j < m->cl_at[r + 1]; j++) {
            size_t t = m->cl[j];
            if (m->si[t].pin >= 0 &&
                (pin < 0 || (recorded(sy_gset_at(m->gs, (size_t)m->si[t].pin)) && !recorded(sy_gset_at(m->gs, (size_t)m->si[pin].pin)))))
                pin = (long)t;
            if (m->si[t].has_lo && (!c->has_lo || m->si[t].lo > c->lo)) c->lo = m->si[t].lo, c->has_lo = 1;
            if (m->si[t].has_hi && (!c->has_hi || m->si[t].hi < c->hi)) c->hi = m->si[t].hi, c->has_hi = 1;
        }
        m->cl_pin[r] = pin;
    }
    /* env dims by slot, the first of a source */
    for (size_t i = m->env ? sy_env_ninput_dims(m->env) : 0; i-- > 0;) {
        const sy_input_dim *d = sy_env_input_dim(m->env, i);
        long s = sy_gset_find_source(m->gs, d->source);
        if (s >= 0) m->eds[s] = d;
    }
    return SY_OK;
}

static sy_status analyze(model *m)
{
    m->si = sy_alloc(m->ctx, (m->ns ? m->ns : 1) * sizeof *m->si);
    if (!m->si) return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->ns; i++) {
        memset(&m->si[i], 0, sizeof m->si[i]);
        m->si[i].pin = -1;
        m->si[i].parent = i;
    }
    for (size_t i = 0; i < m->n; i++) {
        const sy_gset_guard *g = sy_gset_at(m->gs, i);
        if (g->kind == SY_GK_RUNTIME_ASSERT) continue;
        sy_expr_kind k = sy_expr_kind_of(g->expr);
        long s, a, b;
        int c;
        int64_t c0;
        if ((k == SY_EXPR_EQ || k == SY_EXPR_LE) && single_var(m, sy_expr_arg(g->expr, 0), &s, &c, &c0)) {
            slotinfo *x = &m->si[s];
            /* c*v + c0 == 0 or <= 0 */
            int64_t v = c > 0 ? -c0 : c0;
            if (k == SY_EXPR_EQ) {
                if (x->pin < 0 || (!recorded(sy_gset_at(m->gs, (size_t)x->pin)) && recorded(g))) {
                    x->pin = (long)i;
                    x->value = v;
                }
            } else if (c > 0) { /* v <= -c0 */
                if (!x->has_hi || v < x->hi) x->hi = v;
                x->has_hi = 1;
            } else { /* v >= c0 */
                if (!x->has_lo || v > x->lo) x->lo = v;
                x->has_lo = 1;
            }
        } else if (equality_pair(m, g->expr, &a, &b)) {
            size_t ra = uf_find(m->si, (size_t)a), rb = uf_find(m->si, (size_t)b);
            if (ra != rb) m->si[ra > rb ? ra : rb].parent = ra < rb ? ra : rb;
        }
    }
    return index_model(m);
}

/* the equality guard between slots a and b, or -1 */
static long equality_guard(const model *m, size_t a, size_t b)
{
    for (size_t i = 0; i < m->n; i++) {
        long x, y;
        if (sy_gset_at(m->gs, i)->kind != SY_GK_RUNTIME_ASSERT && equality_pair(m, sy_gset_at(m->gs, i)->expr, &x, &y) &&
            (((size_t)x == a && (size_t)y == b) || ((size_t)x == b && (size_t)y == a)))
            return (long)i;
    }
    return -1;
}

/* ------------------------------------------------------------------ inputs and dims */

typedef enum { DIM_DYNAMIC, DIM_STATIC, DIM_SPECIALIZED } dstatus;

typedef struct {
    char source[192];
    long slot;            /* -1: not a source of the set */
    dstatus status;
    int has_value;
    int64_t value;
    const char *symbol;   /* env symbol name */
    char range[160];      /* dynamic: "[2, oo)"; "" unknown */
    int range_from_env;
    long guard;           /* pinning guard, -1 */
    long via;             /* slot carrying the pin (through equality), -1 */
    long eqguard;         /* equality guard between this slot and via, -1 */
    const char *why;      /* static: why */
    char whybuf[96];
} diminfo;

static const sy_input_dim *env_dim(const model *m, const char *source)
{
    if (!m->env) return NULL;
    for (size_t i = 0; i < sy_env_ninput_dims(m->env); i++)
        if (!strcmp(sy_env_input_dim(m->env, i)->source, source)) return sy_env_input_dim(m->env, i);
    return NULL;
}

static void fmt_bound(model *m, char *buf, size_t n, const sy_expr *b, const char *inf)
{
    /* the let-form past SY_REPORT_LET_NODES tree nodes: a bound that is a
     * huge DAG is not printed as its exponential tree */
    char *s = b ? sy_expr_print_bounded(m->ctx, b, SY_PRINT_CANONICAL, SY_REPORT_LET_NODES) : NULL;
    if (b && !s && !m->st) m->st = sy_ctx_last_error(m->ctx) ? sy_ctx_last_error(m->ctx) : SY_ENOMEM;
    snprintf(buf, n, "%s", s ? s : inf);
    sy_str_free(m->ctx, s);
}

static void classify_dim(model *m, diminfo *d, int graph_dynamic, int64_t graph_example)
{
    d->slot = sy_gset_find_source(m->gs, d->source);
    d->guard = d->via = d->eqguard = -1;
    const sy_input_dim *ed = d->slot >= 0 ? m->eds[d->slot] : env_dim(m, d->source);
    long pin = -1;
    int64_t pinv = 0;
    if (d->slot >= 0) {
        size_t s = (size_t)d->slot, root = uf_find(m->si, s);
        if (m->si[s].pin >= 0) {
            pin = m->si[s].pin;
            pinv = m->si[s].value;
        } else if (m->cl_pin[root] >= 0) { /* best pin of the class: recorded first, then lowest slot (not s: unpinned) */
            size_t t = (size_t)m->cl_pin[root];
            pin = m->si[t].pin;
            pinv = m->si[t].value;
            d->via = (long)t;
            d->eqguard = equality_guard(m, s, t);
        }
    }
    if (ed && sy_expr_kind_of(ed->expr) == SY_EXPR_SYM) { /* by the frontend's name (an ONNX dim_param), as infer shows it */
        const sy_symbol_info *si = sy_env_symbol_of(m->env, ed->expr);
        d->symbol = si && si->display ? si->display : sy_expr_sym_name(ed->expr);
    }
    /* static by policy: the env made a constant, or the graph did not list the dim */
    int64_t v;
    if ((ed && sy_expr_get_si(ed->expr, &v) == SY_OK) || (!ed && graph_dynamic == 0)) {
        d->status = DIM_STATIC;
        d->has_value = 1;
        d->value = ed ? v : graph_example;
        if (pin >= 0 && d->via < 0) {
            d->guard = pin;
            d->why = sy_gset_at(m->gs, (size_t)pin)->why;
        }
        if (!d->why) {
            if (ed && ed->policy != SY_DIM_STATIC)
                snprintf(d->whybuf, sizeof d->whybuf, "0/1 specialization: example size %" PRId64, ed->example);
            else snprintf(d->whybuf, sizeof d->whybuf, "static dim (not listed as dynamic)");
            d->why = d->whybuf;
        }
        d->via = d->eqguard = -1;
        return;
    }
    if (pin >= 0) {
        const sy_gset_guard *g = sy_gset_at(m->gs, (size_t)pin);
        d->status = recorded(g) ? DIM_SPECIALIZED : DIM_STATIC;
        d->has_value = 1;
        d->value = pinv;
        d->guard = pin;
        d->why = g->why;
        return;
    }
    d->status = DIM_DYNAMIC;
    if (ed && d->symbol) {
        const sy_expr *lo = NULL, *hi = NULL;
        /* the facts are only read; sy_env_facts takes a mutable env */
        sy_status st = sy_facts_get_range(sy_env_facts((sy_env *)m->env), ed->expr, &lo, &hi);
        if (st == SY_ENOMEM && !m->st) m->st = st;
        if (st == SY_OK) {
            char a[64], b[64];
            fmt_bound(m, a, sizeof a, lo, "-oo");
            fmt_bound(m, b, sizeof b, hi, "oo");
            snprintf(d->range, sizeof d->range, "%s%s, %s%s", lo ? "[" : "(", a, b, hi ? "]" : ")");
            d->range_from_env = 1;
        } else {
            sy_ctx_reset_error(m->ctx);
        }
    }
    if (!d->range_from_env && d->slot >= 0) {
        const slotinfo *c = &m->cl_range[uf_find(m->si, (size_t)d->slot)];
        int hl = c->has_lo, hh = c->has_hi;
        int64_t lo = c->lo, hi = c->hi;
        if (hl || hh) {
            char a[32] = "-oo", b[32] = "oo";
            if (hl) snprintf(a, sizeof a, "%" PRId64, lo);
            if (hh) snprintf(b, sizeof b, "%" PRId64, hi);
            snprintf(d->range, sizeof d->range, "%s%s, %s%s", hl ? "[" : "(", a, b, hh ? "]" : ")");
        }
    }
}

typedef struct {
    char name[128];
    const char *dtype;   /* name, or NULL */
    char dtbuf[32];
    long rank;           /* -1 unknown */
    size_t ndim;
    const int64_t *example;
    diminfo *dims;
} inputinfo;

/* pinned value of the source "NAME<suffix>", or 0 */
static int pinned_source(const model *m, const char *name, const char *suffix, int64_t *v)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s%s", name, suffix);
    long s = sy_gset_find_source(m->gs, buf);
    if (s < 0 || m->si[s].pin < 0) return 0;
    *v = m->si[s].value;
    return 1;
}

/* the FNV-1a hash of n bytes */
static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* the input of in[0 .. n) named by the n bytes at s (as a scan testing strlen(name) == len and
 * strncmp finds it: names are unique under that test), by the open-addressing table tab (k + 1; 0 empty) */
static size_t input_named(const inputinfo *in, const size_t *tab, size_t cap, const char *s, size_t len)
{
    for (size_t j = (size_t)name_hash(s, len) & (cap - 1); tab[j]; j = (j + 1) & (cap - 1)) {
        const char *nm = in[tab[j] - 1].name;
        if (strlen(nm) == len && !strncmp(nm, s, len)) return tab[j] - 1;
    }
    return SIZE_MAX;
}

static sy_status collect_inputs(model *m, inputinfo **out, size_t *nout)
{
    size_t cap = m->graph ? sy_graph_ninputs(m->graph) : m->ns, n = 0;
    inputinfo *in = sy_alloc(m->ctx, (cap ? cap : 1) * sizeof *in);
    if (!in) return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
    memset(in, 0, (cap ? cap : 1) * sizeof *in);
    if (m->graph) {
        for (size_t i = 0; i < cap; i++, n++) {
            const sy_graph_input *gi = sy_graph_input_at(m->graph, i);
            snprintf(in[n].name, sizeof in[n].name, "%s", gi->name);
            in[n].dtype = sy_dtype_name(gi->dtype);
            in[n].rank = (long)gi->ndim;
            in[n].ndim = gi->ndim;
            in[n].example = gi->shape;
        }
    } else {
        size_t tcap = 16; /* the inputs by name, load at most 1/2 (issue 14: a scan per source) */
        while (tcap < 2 * m->ns) tcap *= 2;
        size_t *tab = sy_alloc(m->ctx, tcap * sizeof *tab);
        if (!tab) {
            sy_dealloc(m->ctx, in, (cap ? cap : 1) * sizeof *in);
            return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
        }
        memset(tab, 0, tcap * sizeof *tab);
        for (size_t s = 0; s < m->ns; s++) {
            /* the input part of a source: "x" of "x.size()[2]", "x.stride()[1]",
             * "x.dim()", "x.dtype"; a source of another form is a name of its own */
            const char *src = sy_gset_source(m->gs, s);
            size_t nl = 0, dim = 0;
            int kind = sy_gset_source_parse(src, &nl, &dim);
            if (kind < 0) nl = strlen(src);
            size_t k = input_named(in, tab, tcap, src, nl);
            if (k == SIZE_MAX) {
                k = n;
                snprintf(in[n].name, sizeof in[n].name, "%.*s", (int)nl, src);
                in[n].rank = -1;
                size_t j = (size_t)name_hash(in[n].name, strlen(in[n].name)) & (tcap - 1);
                while (tab[j]) j = (j + 1) & (tcap - 1);
                tab[j] = ++n;
            }
            if ((kind == SY_SOURCE_SIZE || kind == SY_SOURCE_STRIDE) && dim + 1 > in[k].ndim && dim < 4096)
                in[k].ndim = dim + 1;
        }
        sy_dealloc(m->ctx, tab, tcap * sizeof *tab);
        for (size_t k = 0; k < n; k++) {
            int64_t v;
            if (pinned_source(m, in[k].name, ".dim()", &v)) in[k].rank = (long)v;
            if (pinned_source(m, in[k].name, ".dtype", &v)) {
                if (v >= 0 && v < SY_DT_COUNT) in[k].dtype = sy_dtype_name((sy_dtype)v);
                else {
                    snprintf(in[k].dtbuf, sizeof in[k].dtbuf, "dtype code %" PRId64, v);
                    in[k].dtype = in[k].dtbuf;
                }
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        in[k].dims = sy_alloc(m->ctx, (in[k].ndim ? in[k].ndim : 1) * sizeof *in[k].dims);
        if (!in[k].dims) {
            *out = in;
            *nout = n;
            return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
        }
        memset(in[k].dims, 0, (in[k].ndim ? in[k].ndim : 1) * sizeof *in[k].dims);
        const sy_graph_input *gi = m->graph ? sy_graph_input_at(m->graph, k) : NULL;
        for (size_t d = 0; d < in[k].ndim; d++) {
            diminfo *di = &in[k].dims[d];
            snprintf(di->source, sizeof di->source, "%s.size()[%zu]", in[k].name, d);
            classify_dim(m, di, gi ? gi->dynamic[d] : -1, gi ? gi->shape[d] : 0);
        }
    }
    *out = in;
    *nout = n;
    return SY_OK;
}

static void free_inputs(sy_ctx *ctx, inputinfo *in, size_t n, size_t cap)
{
    if (!in) return;
    for (size_t k = 0; k < n; k++)
        if (in[k].dims) sy_dealloc(ctx, in[k].dims, (in[k].ndim ? in[k].ndim : 1) * sizeof *in[k].dims);
    sy_dealloc(ctx, in, (cap ? cap : 1) * sizeof *in);
}

/* ------------------------------------------------------------------ rendering */

static const char *status_name(dstatus s)
{
    return s == DIM_DYNAMIC ? "dynamic" : s == DIM_STATIC ? "static" : "specialized";
}

/* the guards reading slot s: "2, 4", or @p none */
static void put_readers(rp *r, const model *m, long s, const char *none)
{
    int first = 1;
    for (size_t j = s >= 0 ? m->rd_at[s] : 0; s >= 0 && j < m->rd_at[s + 1]; j++) {
        rp_printf(r, "%s%zu", first ? "" : ", ", m->rd[j]);
        first = 0;
    }
    if (first) rp_printf(r, "%s", none);
}

static void put_origin(rp *r, const sy_guard_origin *o)
{
    rp_printf(r, "node ");
    rp_code(r, o->node ? o->node : "?");
    rp_printf(r, " (op ");
    rp_code(r, o->op ? o->op : "?");
    rp_printf(r, ", %u time%s)", o->count, o->count == 1 ? "" : "s");
    if (o->reason) {
        rp_printf(r, ": ");
        rp_text(r, o->reason);
    }
    if (o->loc.file) { /* PyTorch's "sloc": file:line in function */
        rp_printf(r, " at ");
        rp_text(r, o->loc.file);
        if (o->loc.line > 0) rp_printf(r, ":%ld", o->loc.line);
        if (o->loc.function) {
            rp_printf(r, " in ");
            rp_code(r, o->loc.function);
        }
    }
}

/* the pin of a specialized/static dim: "by guard 4 (x == 224) through guard 2 (...)" */
static void put_pin(rp *r, const model *m, const diminfo *d)
{
    if (d->guard < 0) return;
    rp_printf(r, "by guard %ld (", d->guard);
    rp_code(r, sy_gset_at(m->gs, (size_t)d->guard)->display);
    rp_printf(r, ")");
    if (d->via >= 0) {
        rp_printf(r, " through ");
        if (d->eqguard >= 0) {
            rp_printf(r, "guard %ld (", d->eqguard);
            rp_code(r, sy_gset_at(m->gs, (size_t)d->eqguard)->display);
            rp_printf(r, ")");
        } else {
            rp_printf(r, "equality with ");
            rp_code(r, sy_gset_source(m->gs, (size_t)d->via));
        }
    }
}

static void put_equal_to(rp *r, const model *m, const diminfo *d)
{
    if (d->slot < 0) return;
    size_t root = uf_find(m->si, (size_t)d->slot);
    int first = 1;
    for (size_t j = m->cl_at[root]; j < m->cl_at[root + 1]; j++) {
        size_t t = m->cl[j];
        if (t == (size_t)d->slot) continue;
        rp_printf(r, "%s", first ? "; equal to " : ", ");
        rp_code(r, sy_gset_source(m->gs, t));
        first = 0;
    }
}

/* "[lo, hi]" and its note: the brackets are the report's, the bounds may name symbols (escaped) */
static void put_range(rp *r, const diminfo *d)
{
    size_t n = strlen(d->range);
    rp_write(r, d->range, 1);
    if (n >= 2) rp_text_nl(r, d->range + 1, n - 2, d->range + 1, let_start(d->range + 1), '\n');
    if (n >= 2) rp_write(r, d->range + n - 1, 1);
    rp_printf(r, "%s", d->range_from_env ? "" : " (from the guards)");
}

static void put_dim_text(rp *r, const model *m, const inputinfo *in, size_t k)
{
    const diminfo *d = &in->dims[k];
    rp_printf(r, "    dim %zu  ", k);
    rp_text(r, d->source);
    rp_printf(r, "  %s: ", status_name(d->status));
    if (d->status == DIM_DYNAMIC) {
        if (d->symbol) {
            rp_printf(r, "symbol ");
            rp_text(r, d->symbol);
            rp_printf(r, ", ");
        }
        if (d->range[0]) {
            rp_printf(r, "range ");
            put_range(r, d);
        } else {
            rp_printf(r, "no range guard");
        }
        put_equal_to(r, m, d);
    } else {
        rp_printf(r, "%" PRId64, d->value);
        if (d->symbol) {
            rp_printf(r, " (symbol ");
            rp_text(r, d->symbol);
            rp_printf(r, ")");
        }
        if (d->status == DIM_SPECIALIZED) {
            rp_printf(r, " ");
            put_pin(r, m, d);
        } else if (d->why) {
            rp_printf(r, " (");
            rp_text(r, d->why);
            rp_printf(r, ")");
        }
    }
    rp_printf(r, "; guards reading it: ");
    put_readers(r, m, d->slot, "none");
    rp_printf(r, "\n");
    if (d->status == DIM_SPECIALIZED) {
        const sy_gset_guard *g = sy_gset_at(m->gs, (size_t)d->guard);
        for (size_t o = 0; o < g->norigins; o++) {
            rp_printf(r, "             forced at ");
            put_origin(r, &g->origins[o]);
            rp_printf(r, "\n");
        }
    }
}

static void put_dim_md(rp *r, const model *m, const inputinfo *in, size_t k)
{
    const diminfo *d = &in->dims[k];
    rp_printf(r, "| %zu | ", k);
    rp_code(r, d->source);
    rp_printf(r, " | %s%s%s | ", d->status == DIM_SPECIALIZED ? "**" : "", status_name(d->status),
      d->status == DIM_SPECIALIZED ? "**" : "");
    if (d->status != DIM_DYNAMIC) rp_printf(r, "%" PRId64, d->value);
    rp_printf(r, " | ");
    if (d->symbol) rp_code(r, d->symbol);
    rp_printf(r, " | ");
    if (d->status == DIM_DYNAMIC) {
        if (d->range[0]) put_range(r, d);
        else rp_printf(r, "no range guard");
    }
    rp_printf(r, " | ");
    if (d->status == DIM_DYNAMIC) {
        const char *sep = "";
        if (d->slot >= 0) {
            size_t root = uf_find(m->si, (size_t)d->slot);
            for (size_t j = m->cl_at[root]; j < m->cl_at[root + 1]; j++) {
                size_t t = m->cl[j];
                if (t == (size_t)d->slot) continue;
                rp_printf(r, "%s", *sep ? sep : "equal to ");
                rp_code(r, sy_gset_source(m->gs, t));
                sep = ", ";
            }
        }
    } else if (d->status == DIM_SPECIALIZED) {
        put_pin(r, m, d);
        const sy_gset_guard *g = sy_gset_at(m->gs, (size_t)d->guard);
        for (size_t o = 0; o < g->norigins; o++) {
            rp_printf(r, "%s", o ? "; " : ", forced at ");
            put_origin(r, &g->origins[o]);
        }
    } else if (d->why) {
        rp_text(r, d->why);
    }
    rp_printf(r, " | ");
    put_readers(r, m, d->slot, "none");
    rp_printf(r, " |\n");
}

static void put_inputs(rp *r, const model *m, const inputinfo *in, size_t n)
{
    rp_printf(r, r->md ? "## Inputs\n\n" : "Inputs\n");
    if (!n) rp_printf(r, r->md ? "No inputs.\n\n" : "  (none)\n");
    for (size_t k = 0; k < n; k++) {
        if (r->md) {
            rp_printf(r, "### ");
            rp_code(r, in[k].name);
            rp_printf(r, "\n\n");
        } else {
            rp_printf(r, "  ");
            rp_text(r, in[k].name);
            rp_printf(r, ": ");
        }
        rp_text(r, in[k].dtype ? in[k].dtype : "dtype unknown");
        if (in[k].rank >= 0) rp_printf(r, ", rank %ld", in[k].rank);
        else rp_printf(r, ", rank unknown");
        if (in[k].example) {
            rp_printf(r, ", example shape [");
            for (size_t d = 0; d < in[k].ndim; d++) rp_printf(r, "%s%" PRId64, d ? ", " : "", in[k].example[d]);
            rp_printf(r, "]");
        }
        rp_printf(r, "\n");
        if (r->md && in[k].ndim) {
            rp_printf(r, "\n| dim | source | status | value | symbol | range | details | read by guards |\n"
                 "|---:|---|---|---:|---|---|---|---|\n");
        }
        for (size_t d = 0; d < in[k].ndim; d++) {
            if (r->md) put_dim_md(r, m, &in[k], d);
            else put_dim_text(r, m, &in[k], d);
        }
        if (r->md) rp_printf(r, "\n");
    }
    if (!r->md) rp_printf(r, "\n");
}

/* the canonical expression over slot variables _s0, _s1, ... (as in the JSON) */
static void put_guard(rp *r, const model *m, size_t i)
{
    const sy_gset_guard *g = sy_gset_at(m->gs, i);
    if (r->st) return;
    char *can = sy_gset_guard_canonical(m->gs, i);
    if (!can) {
        r->st = sy_ctx_last_error(m->ctx) ? sy_ctx_last_error(m->ctx) : SY_ENOMEM;
        return;
    }
    if (r->md) {
        rp_printf(r, "| %zu | ", i);
        rp_code(r, g->display);
        rp_printf(r, " | ");
        rp_code(r, can);
        rp_printf(r, " | ");
        rp_text(r, g->why ? g->why : "");
        rp_printf(r, " | ");
        if (!recorded(g)) rp_printf(r, "derived (not recorded during tracing)");
        else rp_printf(r, "recorded %u time%s", g->count, g->count == 1 ? "" : "s");
        for (size_t o = 0; o < g->norigins; o++) {
            rp_printf(r, "%s", o ? "; " : ": ");
            put_origin(r, &g->origins[o]);
        }
        rp_printf(r, " |\n");
    } else {
        rp_printf(r, "    [%zu] ", i);
        rp_lines(r, g->display, 8);
        rp_printf(r, "\n        canonical:  ");
        rp_lines(r, can, 20);
        rp_printf(r, "\n");
        rp_printf(r, "        why:        ");
        rp_text(r, g->why ? g->why : "");
        rp_printf(r, "\n        provenance: ");
        if (!recorded(g)) rp_printf(r, "derived (not recorded during tracing)\n");
        else rp_printf(r, "recorded %u time%s\n", g->count, g->count == 1 ? "" : "s");
        for (size_t o = 0; o < g->norigins; o++) {
            rp_printf(r, "          - ");
            put_origin(r, &g->origins[o]);
            rp_printf(r, "\n");
        }
    }
    sy_str_free(m->ctx, can);
}

/* the declared dims (a spec was given): violations with their fixes, or that the spec holds */
static void put_violations(rp *r, const model *m)
{
    size_t ndecl = 0, nv = sy_gset_nviolations(m->gs);
    for (size_t i = 0; i < m->ns; i++) ndecl += (size_t)sy_gset_source_spec(m->gs, i, NULL, NULL, NULL, NULL);
    if (!ndecl) return;
    if (r->md) rp_printf(r, "## Dynamic-dim spec\n\n");
    else rp_printf(r, "Dynamic-dim spec: ");
    if (r->md) rp_printf(r, "Declared: ");
    int first = 1;
    for (size_t i = 0; i < m->ns; i++) {
        const char *name;
        int64_t lo, hi;
        if (!sy_gset_source_spec(m->gs, i, &name, &lo, &hi, NULL)) continue;
        rp_printf(r, "%s", first ? "" : ", ");
        first = 0;
        if (name) {
            rp_code(r, name);
            rp_printf(r, " = ");
        }
        rp_code(r, sy_gset_source(m->gs, i));
        if (hi >= 0) rp_printf(r, " in [%" PRId64 ", %" PRId64 "]", lo, hi);
        else rp_printf(r, " in [%" PRId64 ", oo)", lo);
    }
    /* guards on declared dims that are limits of symshape's formulas (sy_guard_origin.limit), never
     * violations: the model allows the sizes they reject, symshape does not model them exactly */
    size_t nlim = 0;
    for (size_t k = 0; k < sy_gset_size(m->gs); k++) {
        const sy_gset_guard *g = sy_gset_at(m->gs, k);
        int lim = g->norigins > 0, decl = 0;
        for (size_t o = 0; o < g->norigins; o++)
            if (!g->origins[o].limit || g->origins[o].required) lim = 0;
        for (size_t q = 0; q < g->nslots && lim; q++)
            if (sy_gset_source_spec(m->gs, g->slots[q], NULL, NULL, NULL, NULL)) decl = 1;
        if (!lim || !decl) continue;
        if (!nlim++)
            rp_printf(r, r->md ? ".\n\nsymshape's own limits (not the model's: the model runs there, symshape does not model it "
                                 "exactly, so those sizes are rejected) narrow a declared dim: "
                               : "\n  limits of symshape, not of the model (the sizes they reject run, but symshape does not "
                                 "model them exactly): ");
        else rp_printf(r, ", ");
        rp_printf(r, "[%zu] ", k);
        rp_code(r, g->display);
    }
    if (nlim) rp_printf(r, r->md ? "" : "\n");
    if (!nv) {
        rp_printf(r, r->md ? (nlim ? ".\n\nNo guard the model imposes narrows a declared dim.\n\n"
                                   : ".\n\nThe guard set keeps every declared dim dynamic over its declared range.\n\n")
                           : nlim ? "  holds: no guard the model imposes narrows a declared dim\n\n"
                                  : "\n  holds: the guard set keeps every declared dim dynamic over its declared range\n\n");
        return;
    }
    if (r->md)
        rp_printf(r, ".\n\n**Constraints violated: %zu.** `symshape run` exits 1.\n\n"
                     "| guard | dims | violation | forced at | suggested fix |\n|---|---|---|---|---|\n", nv);
    else rp_printf(r, "\n  CONSTRAINTS VIOLATED: %zu (symshape run exits 1)\n", nv);
    for (size_t v = 0; v < nv; v++) {
        const sy_gset_violation *x = sy_gset_violation_at(m->gs, v);
        const sy_gset_guard *g = sy_gset_at(m->gs, x->guard);
        if (r->md) {
            rp_printf(r, "| [%zu] ", x->guard);
            rp_code(r, g->display);
            rp_printf(r, " | ");
            rp_text(r, x->dims);
            rp_printf(r, " | %s: ", sy_violation_kind_name(x->kind));
            rp_text(r, x->message);
            rp_printf(r, " | ");
            if (!g->norigins) rp_printf(r, "%s", g->why ? "" : "derived");
            if (!g->norigins && g->why) rp_text(r, g->why);
            for (size_t o = 0; o < g->norigins; o++) {
                rp_printf(r, "%s", o ? "; " : "");
                put_origin(r, &g->origins[o]);
            }
            rp_printf(r, " | ");
            rp_text(r, x->fix);
            rp_printf(r, " |\n");
        } else {
            rp_printf(r, "  [%zu] ", x->guard);
            rp_lines(r, g->display, 6);
            rp_printf(r, "  (%s: ", sy_violation_kind_name(x->kind));
            rp_text(r, x->dims);
            rp_printf(r, ")\n        ");
            rp_text(r, x->message);
            rp_printf(r, "\n");
            if (!g->norigins && g->why) {
                rp_printf(r, "        from:  ");
                rp_text(r, g->why);
                rp_printf(r, "\n");
            }
            for (size_t o = 0; o < g->norigins; o++) {
                rp_printf(r, "        forced at ");
                put_origin(r, &g->origins[o]);
                rp_printf(r, "\n");
            }
            rp_printf(r, "        suggested fix: ");
            rp_text(r, x->fix);
            rp_printf(r, "\n");
        }
    }
    rp_printf(r, "\n");
}

static const char *const kind_note[] = {
    "Rank and dtype of each input",
    "Sources that must be equal (duck sizing, recorded equalities)",
    "Sources pinned to a constant (static dims, 0/1 specialization, or by a guard)",
    "Bounds on one source",
    "Other decisions the trace relied on",
    "Deferred asserts on data-dependent sizes: checked by the runtime, not from sizes",
};

static void put_guards(rp *r, const model *m)
{
    size_t per[SY_GK_RUNTIME_ASSERT + 1] = {0};
    for (size_t i = 0; i < m->n; i++) {
        sy_gset_kind k = sy_gset_at(m->gs, i)->kind;
        if ((unsigned)k <= SY_GK_RUNTIME_ASSERT) per[k]++;
    }
    if (r->md) rp_printf(r, "## Guards\n\n%zu guard%s, checked in index order.\n\n", m->n, m->n == 1 ? "" : "s");
    else rp_printf(r, "Guards: %zu, checked in index order\n", m->n);
    for (int k = 0; k <= SY_GK_RUNTIME_ASSERT; k++) {
        if (!per[k]) continue;
        if (r->md)
            rp_printf(r, "### %s (%zu)\n\n%s.\n\n| # | guard | canonical | why | provenance |\n|---:|---|---|---|---|\n",
              sy_gset_kind_name((sy_gset_kind)k), per[k], kind_note[k]);
        else rp_printf(r, "  %s (%zu) - %s\n", sy_gset_kind_name((sy_gset_kind)k), per[k], kind_note[k]);
        for (size_t i = 0; i < m->n; i++)
            if (sy_gset_at(m->gs, i)->kind == (sy_gset_kind)k) put_guard(r, m, i);
        if (r->md) rp_printf(r, "\n");
    }
    if (!m->n) rp_printf(r, r->md ? "No guards: every input is accepted.\n\n" : "  (none: every input is accepted)\n");
    if (!r->md) rp_printf(r, "\n");
}

/* Implied: each guard minimization dropped, with the kept guards that imply it */
static void put_implied(rp *r, const model *m)
{
    size_t ni = sy_gset_nimplied(m->gs);
    if (!ni || r->st) return;
    if (r->md)
        rp_printf(r, "## Implied\n\n%zu guard%s dropped by minimization: the kept guards listed imply each "
                     "(proved with the decision procedure).\n\n| guard | kind | implied by | why it was recorded |\n|---|---|---|---|\n",
                  ni, ni == 1 ? "" : "s");
    else rp_printf(r, "Implied: %zu guard%s dropped by minimization (the kept guards listed imply each)\n", ni, ni == 1 ? "" : "s");
    for (size_t i = 0; i < ni; i++) {
        const sy_gset_implied *x = sy_gset_implied_at(m->gs, i);
        if (r->md) {
            rp_printf(r, "| ");
            rp_code(r, x->display);
            rp_printf(r, " | %s | ", sy_gset_kind_name(x->kind));
        } else {
            rp_printf(r, "  ");
            rp_lines(r, x->display, 8);
            rp_printf(r, "  (%s)\n        implied by: ", sy_gset_kind_name(x->kind));
        }
        for (size_t k = 0; k < x->nby; k++) {
            rp_printf(r, "%s[%zu] ", k ? ", " : "", x->by[k]);
            if (r->md) rp_code(r, sy_gset_at(m->gs, x->by[k])->display);
            else rp_lines(r, sy_gset_at(m->gs, x->by[k])->display, 8);
        }
        if (!x->nby) rp_printf(r, "the declared ranges of the inputs");
        if (x->partial) rp_printf(r, " and other kept guards of its component");
        if (r->md) {
            rp_printf(r, " | ");
            rp_text(r, x->why ? x->why : "");
            rp_printf(r, " |\n");
        } else {
            rp_printf(r, "\n        why:        ");
            rp_text(r, x->why ? x->why : "");
            rp_printf(r, "\n");
        }
    }
    rp_printf(r, "\n");
}

static void put_sources(rp *r, const model *m)
{
    if (r->md) {
        rp_printf(r, "## Sources\n\n");
        if (m->ns) rp_printf(r, "The canonical forms name source *i* `_s`*i*.\n\n| variable | source |\n|---|---|\n");
        else rp_printf(r, "No sources.\n");
    } else {
        rp_printf(r, "Sources (variables of the canonical forms)\n");
        if (!m->ns) rp_printf(r, "  (none)\n");
    }
    for (size_t i = 0; i < m->ns; i++) {
        if (r->md) {
            rp_printf(r, "| `_s%zu` | ", i);
            rp_code(r, sy_gset_source(m->gs, i));
            rp_printf(r, " |\n");
        } else {
            rp_printf(r, "  _s%-4zu ", i);
            rp_text(r, sy_gset_source(m->gs, i));
            rp_printf(r, "\n");
        }
    }
    rp_printf(r, "\n");
}

static void put_totals(rp *r, const model *m)
{
    size_t rec, dedup, kept, nfrom, ninto;
    sy_gset_counts(m->gs, &rec, &dedup, &kept);
    sy_gset_normalized(m->gs, &nfrom, &ninto);
    size_t per[SY_GK_RUNTIME_ASSERT + 1] = {0};
    for (size_t i = 0; i < m->n; i++) {
        sy_gset_kind k = sy_gset_at(m->gs, i)->kind;
        if ((unsigned)k <= SY_GK_RUNTIME_ASSERT) per[k]++;
    }
    if (r->md) {
        rp_printf(r, "## Totals\n\n| | guards |\n|---|---:|\n"
             "| recorded during tracing (with repeats) | %zu |\n"
             "| after deduplication | %zu |\n"
             "| in the set after minimization (with derived guards) | %zu |\n"
             "| before normalization (%zu on one source became %zu exact ranges) | %zu |\n",
          rec, dedup, kept, nfrom, ninto, kept + nfrom - ninto);
        for (int k = 0; k <= SY_GK_RUNTIME_ASSERT; k++)
            if (per[k]) rp_printf(r, "| &nbsp;&nbsp;%s | %zu |\n", sy_gset_kind_name((sy_gset_kind)k), per[k]);
    } else {
        rp_printf(r, "Totals\n"
             "  recorded during tracing (with repeats):              %zu\n"
             "  after deduplication:                                 %zu\n"
             "  in the set after minimization (with derived guards): %zu",
          rec, dedup, kept);
        if (nfrom) rp_printf(r, " (%zu before normalization: %zu on one source became %zu exact ranges)", kept + nfrom - ninto, nfrom, ninto);
        const char *sep = " (";
        for (int k = 0; k <= SY_GK_RUNTIME_ASSERT; k++)
            if (per[k]) {
                rp_printf(r, "%s%s %zu", sep, sy_gset_kind_name((sy_gset_kind)k), per[k]);
                sep = ", ";
            }
        rp_printf(r, "%s\n", *sep == ',' ? ")" : "");
    }
}

static sy_status render(const sy_gset *gs, const sy_backend_options *opts, sy_output *out, int md)
{
    model m;
    memset(&m, 0, sizeof m);
    m.ctx = sy_gset_ctx(gs);
    m.gs = gs;
    m.env = opts ? opts->env : NULL;
    m.graph = opts ? opts->graph : NULL;
    m.ns = sy_gset_nsources(gs);
    m.n = sy_gset_size(gs);
    rp r = {m.ctx, out, md, SY_OK};
    sy_status st = analyze(&m);
    inputinfo *in = NULL;
    size_t nin = 0, cap = m.graph ? sy_graph_ninputs(m.graph) : m.ns;
    if (st == SY_OK) st = collect_inputs(&m, &in, &nin);
    if (st == SY_OK) st = m.st;
    if (st == SY_OK) {
        const char *model_name = sy_gset_model(gs) ? sy_gset_model(gs) : "model";
        if (md) {
            rp_printf(&r, "# Guard report: ");
            rp_code(&r, model_name);
            rp_printf(&r, "\n\n");
        } else {
            rp_printf(&r, "symshape guard report: ");
            rp_text(&r, model_name);
            rp_printf(&r, "\n\n");
        }
        if (!m.env) {
            rp_printf(&r, "(No shape environment was given: symbols are unknown and ranges are derived from the guards.)\n\n");
        }
        put_inputs(&r, &m, in, nin);
        put_violations(&r, &m);
        put_guards(&r, &m);
        put_implied(&r, &m);
        put_sources(&r, &m);
        put_totals(&r, &m);
        st = r.st;
    }
    free_inputs(m.ctx, in, nin, cap);
    unindex_model(&m);
    if (m.si) sy_dealloc(m.ctx, m.si, (m.ns ? m.ns : 1) * sizeof *m.si);
    return st;
}

static sy_status render_report(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)self;
    return render(gs, opts, out, 0);
}

static sy_status render_markdown(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)self;
    return render(gs, opts, out, 1);
}

static const sy_backend report_backend = {
    "report", "a text report for the terminal: inputs and dims, guards by kind with provenance, totals", render_report, NULL};
static const sy_backend markdown_backend = {
    "markdown", "the report as Markdown (tables per input and per guard kind)", render_markdown, NULL};

sy_status sy_backend_register_report(void)
{
    sy_status st = sy_backend_register(&report_backend);
    sy_status st2 = sy_backend_register(&markdown_backend);
    return st ? st : st2;
}
