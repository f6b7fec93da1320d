/* Guard sets: the texts of guards and implied guards (text, display, why),
 * made by the constructors of a set (texts_make), so its readers only read. */
#include "guards/gset_private.h"

/* The why of a recorded guard states the decision the op made, in source
 * names (the env prints its messages so), with the sizes seen at the example:
 * "conv2d requires it (else: Given groups=1, ...); seen: x.size()[1] = 3". */
static const char *recorded_why(sy_gset *gs, const gtext *t)
{
    char seen[512];
    size_t sl = 0;
    seen[0] = 0;
    for (size_t k = 0; k < t->nslots && sl < sizeof seen; k++) {
        size_t s = t->slots[k];
        if (!gs->has_example[s]) continue;
        sl += (size_t)snprintf(seen + sl, sizeof seen - sl, "%s%s = %lld", sl ? ", " : "; seen: ", gs->sources[s],
                               (long long)gs->example[s]);
    }
    const char *op = t->s[0] ? t->s[0] : "the model", *msg = t->s[1] ? t->s[1] : "";
    size_t n = strlen(op) + strlen(msg) + strlen(seen) + 64;
    char *b = sy_alloc(gs->ctx, n);
    if (!b) return NULL;
    if (t->n[0]) snprintf(b, n, "%s requires it (else: %s)%s", op, msg, seen);
    else snprintf(b, n, "%s decided on it: %s%s", op, msg, seen);
    const char *r = gstrdup(gs, b);
    sy_dealloc(gs->ctx, b, n);
    return r;
}

bool tx_format(sy_gset *gs, gtext *t);

/* the why of t (NULL: out of memory, or a member's texts could not be made) */
static const char *format_why(sy_gset *gs, gtext *t)
{
    char buf[1024];
    const long long n0 = (long long)t->n[0], n1 = (long long)t->n[1];
    switch (t->wk) {
    case WHY_NONE: return NULL;
    case WHY_STR: return t->s[0];
    case WHY_RECORDED: return recorded_why(gs, t);
    case WHY_RANK: snprintf(buf, sizeof buf, "rank of input %.*s", (int)n0, t->s[0]); break;
    case WHY_DTYPE:
        snprintf(buf, sizeof buf, "dtype of input %.*s is %s (code %d)", (int)n0, t->s[0], sy_dtype_name((sy_dtype)t->n[1]),
                 (int)t->n[1]);
        break;
    case WHY_01_DECL:
        snprintf(buf, sizeof buf,
                 "0/1 specialization: example size %lld, below the declared range of %s (declare min=%lld to keep it dynamic)", n0,
                 t->s[0], n0);
        break;
    case WHY_01:
        snprintf(buf, sizeof buf, "0/1 specialization: example size %lld; --no-specialize-01 or a spec with min=%lld avoids it",
                 n0, n0);
        break;
    case WHY_DECL_EQ:
        snprintf(buf, sizeof buf, "declared equal: %s and %s are both named '%s' (one Dim)", t->s[0], t->s[1], t->s[2]);
        break;
    case WHY_DUCK:
        snprintf(buf, sizeof buf,
                 "duck sizing: %s and %s had the same example size %lld, so they were traced as one size; --no-duck-sizing "
                 "or a spec naming them differently avoids it",
                 t->s[0], t->s[1], n0);
        break;
    case WHY_SHARED:
        snprintf(buf, sizeof buf,
                 "declared equal by the model: %s and %s were given one symbol by its frontend (ONNX: one dim_param on "
                 "both, which declares them equal; not duck sizing, which ONNX does not do: no policy flag avoids it)",
                 t->s[0], t->s[1]);
        break;
    case WHY_STRIDE:
        snprintf(buf, sizeof buf, "stride %zu of input %.*s: %s", (size_t)t->n[0], (int)n1, t->s[0],
                 t->n[2] ? "as declared by its \"strides\"" : "contiguous (the graph reads strides)");
        break;
    case WHY_DECL_RANGE: {
        char dim[160];
        if (t->s[0]) snprintf(dim, sizeof dim, "Dim('%s'", t->s[0]);
        else snprintf(dim, sizeof dim, "Dim(%s", t->s[1]);
        if (t->n[1] >= 0)
            snprintf(buf, sizeof buf, "declared range [%lld, %lld]: %s, min=%lld, max=%lld)", n0, n1, dim, n0, n1);
        else
            snprintf(buf, sizeof buf, "declared range [%lld, oo): %s, min=%lld)", n0, dim, n0);
        break;
    }
    case WHY_01_RANGE:
        snprintf(buf, sizeof buf,
                 "0/1 specialization: sizes 0 and 1 were traced as constants, so %s >= 2 was assumed; --no-specialize-01 or a "
                 "spec with min=1 avoids it",
                 t->s[0]);
        break;
    case WHY_NORM: {
        size_t w = (size_t)snprintf(buf, sizeof buf, "exact range of %s (proved equivalent): ", t->s[0]);
        for (size_t k = 0; k < t->nm && w < sizeof buf; k++) {
            if (!tx_format(gs, t->m[k])) return NULL;
            w += (size_t)snprintf(buf + w, sizeof buf - w, "%s%s (%s)", k ? "; " : "", t->m[k]->text,
                                  t->m[k]->why ? t->m[k]->why : "");
        }
        break;
    }
    }
    return gstrdup(gs, buf);
}

/* Make the texts of t once: its text (the print of its expression, then the
 * legend), display and why, exactly as produce made them when it made them
 * all; false (the error in the context) when one cannot be made. */
bool tx_format(sy_gset *gs, gtext *t)
{
    if (t->done) return true;
    sy_ctx *ctx = gs->ctx;
    char *p = print_show(ctx, t->expr);
    if (!p) return false;
    const char *text;
    if (t->legend) {
        size_t a = strlen(p), b = strlen(t->legend);
        char *x = galloc(gs, a + b + 1);
        if (x) {
            memcpy(x, p, a);
            memcpy(x + a, t->legend, b + 1);
        }
        text = x;
    } else {
        text = gstrdup(gs, p);
    }
    sy_str_free(ctx, p);
    const char *display = text, *why = NULL;
    if (text && t->dtype >= 0) {
        char b[300];
        snprintf(b, sizeof b, "%s == %s", gs->sources[t->dslot], sy_dtype_name((sy_dtype)t->dtype));
        display = gstrdup(gs, b);
    }
    if (text && display && t->wk != WHY_NONE) why = format_why(gs, t);
    if (!text || !display || (t->wk != WHY_NONE && !why)) {
        sy_oom(ctx);
        return false;
    }
    t->text = text;
    t->display = display;
    t->why = why;
    t->done = true;
    return true;
}

static const char tx_unknown[] = "?";

/* Fill the public texts (text, display, why) of pub from t, made now; a text
 * that cannot be made reads "?" */
static bool fill(sy_gset *gs, gtext *t, const char **text, const char **display, const char **why, bool give_up)
{
    if (!give_up && tx_format(gs, t)) {
        *text = t->text;
        *display = t->display;
        *why = t->why;
        return true;
    }
    *text = *display = tx_unknown;
    *why = t->wk != WHY_NONE ? tx_unknown : NULL;
    return false;
}

/* Make the texts of every guard and Implied entry that has none yet: every
 * constructor of a set (produce, minimize) calls it before it returns, so
 * the readers (sy_gset_at, sy_gset_implied_at, sy_gset_format, the checks,
 * the JSON) only read the set and many threads may read one set at once.
 * After the first text that cannot be made (out of memory, work budget) the
 * rest read "?" too, and the set keeps that status for sy_gset_format.
 * Returns SY_OK or that status (the error is the context's). */
sy_status texts_make(sy_gset *gs)
{
    bool bad = gs->text_st != SY_OK;
    for (size_t i = 0; i < gs->n; i++) {
        sy_gset_guard *p = &gs->g[i].pub;
        if (!p->text && !fill(gs, gs->g[i].tx, &p->text, &p->display, &p->why, bad) && !bad) {
            bad = true;
            sy_status e = sy_ctx_last_error(gs->ctx);
            gs->text_st = e ? e : SY_ENOMEM;
        }
    }
    for (size_t i = 0; i < gs->nimpl; i++) {
        sy_gset_implied *x = &gs->impl[i];
        if (!x->text && !fill(gs, gs->impl_tx[i], &x->text, &x->display, &x->why, bad) && !bad) {
            bad = true;
            sy_status e = sy_ctx_last_error(gs->ctx);
            gs->text_st = e ? e : SY_ENOMEM;
        }
    }
    return gs->text_st;
}

size_t sy_gset_nimplied(const sy_gset *gs) { return gs ? gs->nimpl : 0; }
const sy_gset_implied *sy_gset_implied_at(const sy_gset *gs, size_t i) { return gs && i < gs->nimpl ? &gs->impl[i] : NULL; }

sy_status sy_gset_format(const sy_gset *gs) { return gs ? gs->text_st : SY_EINVAL; }

/* ------------------------------------------------------------------ normalization */
