/* Context: allocator, error state, lifetime. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/expr_private.h"
#include "symshape/version.h"

static void *default_malloc(void *ud, size_t size) { (void)ud; return malloc(size); }
static void *default_realloc(void *ud, void *p, size_t o, size_t n) { (void)ud; (void)o; return realloc(p, n); }
static void default_free(void *ud, void *p, size_t size) { (void)ud; (void)size; free(p); }
static const sy_allocator default_alc = {default_malloc, default_realloc, default_free, NULL};

int sy_version_number(void) { return SY_VERSION_NUMBER; }
const char *sy_version_string(void) { return SY_VERSION_STRING; }
/* SY_FEATURES: set on this file by CMakeLists.txt from what configure found */
#ifndef SY_FEATURES
#define SY_FEATURES ""
#endif
const char *sy_version_features(void) { return SY_FEATURES; }

const char *sy_status_name(sy_status s)
{
    switch (s) {
    case SY_OK: return "SY_OK";
    case SY_ERROR: return "SY_ERROR";
    case SY_ENOMEM: return "SY_ENOMEM";
    case SY_EINVAL: return "SY_EINVAL";
    case SY_EOVERFLOW: return "SY_EOVERFLOW";
    case SY_EDIVZERO: return "SY_EDIVZERO";
    case SY_EFORMAT: return "SY_EFORMAT";
    case SY_EVERSION: return "SY_EVERSION";
    case SY_EVERIFY: return "SY_EVERIFY";
    case SY_EQUOTA: return "SY_EQUOTA";
    case SY_EUNSUPPORTED: return "SY_EUNSUPPORTED";
    }
    return "SY_UNKNOWN_STATUS";
}

void *sy_alloc(sy_ctx *ctx, size_t size)
{
    if (ctx->op_depth && !sy_charge_bytes(ctx, (int64_t)size)) return NULL;
    void *p = ctx->alc.malloc(ctx->alc.ud, size ? size : 1);
    if (p) ctx->live_blocks++;
    else if (ctx->op_depth) ctx->op_bytes -= (int64_t)size;
    return p;
}

void *sy_realloc(sy_ctx *ctx, void *p, size_t old_size, size_t new_size)
{
    if (!p) return sy_alloc(ctx, new_size);
    int64_t d = (int64_t)new_size - (int64_t)old_size;
    if (ctx->op_depth && d > 0 && !sy_charge_bytes(ctx, d)) return NULL;
    void *q = ctx->alc.realloc(ctx->alc.ud, p, old_size, new_size ? new_size : 1);
    if (ctx->op_depth && (d < 0 ? q != NULL : q == NULL)) ctx->op_bytes -= d;
    return q;
}

void sy_dealloc(sy_ctx *ctx, void *p, size_t size)
{
    if (!p) return;
    ctx->alc.free(ctx->alc.ud, p, size);
    ctx->live_blocks--;
    if (ctx->op_depth) ctx->op_bytes -= (int64_t)size;
}

static void set_error(sy_ctx *ctx, sy_status st, const char *fmt, va_list ap)
{
    ctx->erroff = -1;
    if (ctx->op_over) { /* a spent budget is the reason for whatever fails after it */
        ctx->err = SY_EQUOTA;
        snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s", ctx->quota_msg);
        return;
    }
    ctx->err = st;
    vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
    if (ctx->opts.abort_on_error) {
        fprintf(stderr, "symshape: %s: %s\n", sy_status_name(st), ctx->errmsg);
        abort();
    }
}

const sy_expr *sy_fail(sy_ctx *ctx, sy_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(ctx, st, fmt, ap);
    va_end(ap);
    return NULL;
}

sy_status sy_fail_st(sy_ctx *ctx, sy_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(ctx, st, fmt, ap);
    va_end(ap);
    return st;
}

const sy_expr *sy_oom(sy_ctx *ctx) { return sy_fail(ctx, SY_ENOMEM, "out of memory"); }

void sy_set_error_offset(sy_ctx *ctx, long off) { ctx->erroff = off; }

sy_status sy_ctx_last_error(const sy_ctx *ctx) { return ctx ? ctx->err : SY_EINVAL; }
const char *sy_ctx_last_error_msg(const sy_ctx *ctx) { return ctx ? ctx->errmsg : ""; }
long sy_ctx_last_error_offset(const sy_ctx *ctx) { return ctx ? ctx->erroff : -1; }
uint64_t sy_ctx_generation(const sy_ctx *ctx) { return ctx ? ctx->gen : 0; }

void sy_ctx_reset_error(sy_ctx *ctx)
{
    if (!ctx) return;
    ctx->err = SY_OK;
    ctx->erroff = -1;
    ctx->errmsg[0] = '\0';
}

sy_status sy_ctx_options_init(sy_ctx_options *opts, unsigned version)
{
    if (!opts) return SY_EINVAL;
    if (version != SY_CTX_OPTIONS_VERSION && version != 1u) return SY_EVERSION;
    sy_ctx_options d = SY_CTX_OPTIONS_INIT;
    if (version == 1u) { /* a version-1 struct ends before the budgets */
        d.version = 1u;
        memcpy(opts, &d, offsetof(sy_ctx_options, max_steps));
    } else {
        *opts = d;
    }
    return SY_OK;
}

sy_status sy_ctx_new(const sy_ctx_options *opts, sy_ctx **out)
{
    sy_ctx_options o = SY_CTX_OPTIONS_INIT;
    if (!out) return SY_EINVAL;
    *out = NULL;
    if (opts) {
        if (opts->version == 1u) /* version 1: no budgets, the defaults apply */
            memcpy(&o, opts, offsetof(sy_ctx_options, max_steps));
        else if (opts->version == SY_CTX_OPTIONS_VERSION)
            o = *opts;
        else
            return SY_EVERSION;
        o.version = SY_CTX_OPTIONS_VERSION;
    }
    if (o.max_terms == 0 || o.max_exponent == 0 || o.max_const_bits == 0) return SY_EINVAL;
    if (o.max_steps == 0 || o.max_work_terms == 0 || o.max_work_bytes == 0) return SY_EINVAL;
    if (o.allocator && (!o.allocator->malloc || !o.allocator->realloc || !o.allocator->free))
        return SY_EINVAL;
    const sy_allocator *alc = o.allocator ? o.allocator : &default_alc;
    sy_ctx *ctx = alc->malloc(alc->ud, sizeof *ctx);
    if (!ctx) return SY_ENOMEM;
    memset(ctx, 0, sizeof *ctx);
    ctx->alc = *alc;
    ctx->opts = o;
    ctx->opts.allocator = NULL;
    ctx->erroff = -1;
    ctx->cap = 256; /* doubles as nodes are interned (expr.c table_grow) */
    ctx->table = sy_alloc(ctx, ctx->cap * sizeof *ctx->table);
    if (!ctx->table) {
        alc->free(alc->ud, ctx, sizeof *ctx);
        return SY_ENOMEM;
    }
    memset(ctx->table, 0, ctx->cap * sizeof *ctx->table);
    /* the symbol table and the rollback log of budget.c exist from the start,
     * so that a failed operation leaves the allocation count as it found it */
    ctx->symcap = 64;
    ctx->syms = sy_alloc(ctx, ctx->symcap * sizeof *ctx->syms);
    ctx->ilog_cap = 256;
    ctx->ilog = alc->malloc(alc->ud, ctx->ilog_cap * sizeof *ctx->ilog);
    ctx->relc_cap = SY_RELC_MIN; /* grows in place of itself (rel.c): the count stays */
    ctx->relc = alc->malloc(alc->ud, ctx->relc_cap * sizeof *ctx->relc);
    if (ctx->relc) memset(ctx->relc, 0, ctx->relc_cap * sizeof *ctx->relc);
    if (!ctx->syms || !ctx->ilog || !ctx->relc) {
        ctx->relc_cap = ctx->relc ? ctx->relc_cap : 0;
        ctx->ilog_cap = ctx->ilog ? ctx->ilog_cap : 0;
        ctx->symcap = ctx->syms ? ctx->symcap : 0;
        sy_ctx_free(ctx);
        return SY_ENOMEM;
    }
    /* Pre-intern true/false and 0, 1, -1. The other integers are interned
     * on first use and then found through ctx->icache, or the table
     * (interning the small ones up front cost every context ~165 KB and most
     * of a small graph's run time). */
    ctx->etrue = sy_expr_true(ctx);
    ctx->efalse = sy_expr_false(ctx);
    for (int64_t v = -1; v <= 1 && ctx->etrue && ctx->efalse; v++)
        if (!sy_expr_int_si(ctx, v)) break;
    if (ctx->err != SY_OK) {
        sy_ctx_free(ctx);
        return SY_ENOMEM;
    }
    *out = ctx;
    return SY_OK;
}

sy_ctx *sy_ctx_free(sy_ctx *ctx)
{
    if (!ctx) return NULL;
    for (size_t i = 0; i < ctx->cap; i++) {
        sy_expr *e = (sy_expr *)ctx->table[i];
        if (!e) continue;
        if (e->kind == SY_EXPR_INT) {
            fmpz_clear(&e->u.value);
        } else if (e->kind == SY_EXPR_ADD) {
            fmpz_clear(&e->u.c0);
            for (uint32_t j = 0; j < e->n; j++) fmpz_clear(&SY_TERMS(e)[j].coef);
        }
    }
    sy_dealloc(ctx, ctx->table, ctx->cap * sizeof *ctx->table);
    if (ctx->ilog) ctx->alc.free(ctx->alc.ud, ctx->ilog, ctx->ilog_cap * sizeof *ctx->ilog);
    if (ctx->relc) ctx->alc.free(ctx->alc.ud, ctx->relc, ctx->relc_cap * sizeof *ctx->relc);
    for (sy_arena_chunk *c = ctx->chunks, *next; c; c = next) {
        next = c->next;
        sy_dealloc(ctx, c, sizeof *c + c->size);
    }
    if (ctx->syms) sy_dealloc(ctx, ctx->syms, ctx->symcap * sizeof *ctx->syms);
    if (ctx->scratch) {
        sy_dealloc(ctx, ctx->scratch, sizeof(sy_expr) + ctx->scratch_cap * sizeof(sy_term));
    }
    sy_allocator alc = ctx->alc;
    alc.free(alc.ud, ctx, sizeof *ctx);
    return NULL;
}

void sy_ctx_get_stats(const sy_ctx *ctx, sy_ctx_stats *out)
{
    if (!ctx || !out) return;
    out->nodes = ctx->count;
    out->node_bytes = ctx->arena_bytes;
    out->table_slots = ctx->cap;
    out->symbols = ctx->nsyms;
    out->live_blocks = ctx->live_blocks;
}

char *sy_str_free(sy_ctx *ctx, char *s)
{
    if (s) sy_dealloc(ctx, s, strlen(s) + 1);
    return NULL;
}

/* RFC 3629, section 4: the one validator of the library (the CLI's `infer --json` and
 * sy_diff_to_json use it; jansson refuses other bytes) */
sy_bool sy_str_is_utf8(const char *s)
{
    if (!s) return SY_BOOL_ERROR;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p, n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;
        if (n == 4 || (n == 1 && c < 0xc2) || (n == 3 && c > 0xf4)) return SY_FALSE;
        uint32_t cp = n ? c & (0x3fu >> n) : c;
        for (unsigned k = 1; k <= n; k++) {
            if ((p[k] & 0xc0) != 0x80) return SY_FALSE;
            cp = cp << 6 | (p[k] & 0x3fu);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff))) return SY_FALSE;
        p += n + 1;
    }
    return SY_TRUE;
}
