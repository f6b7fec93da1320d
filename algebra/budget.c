/* Work budgets per operation (steps, intermediate terms, bytes) and the
 * rollback of a failed pure operation. See symshape/ctx.h for the contract. */
#include <stdio.h>
#include <string.h>

#include "algebra/expr_private.h"

void sy_op_begin(sy_ctx *ctx, bool pure)
{
    if (ctx->op_depth++) return;
    ctx->op_steps = ctx->op_terms = 0;
    ctx->op_bytes = 0;
    ctx->op_over = false;
    ctx->op_pure = pure;
    if (!pure) return;
    ctx->mark.serial = ctx->next_serial;
    ctx->mark.count = ctx->count;
    ctx->mark.cap = ctx->cap;
    ctx->mark.nsyms = ctx->nsyms;
    ctx->mark.arena_bytes = ctx->arena_bytes;
    ctx->mark.chunk = ctx->chunks;
    ctx->mark.used = ctx->chunks ? ctx->chunks->used : 0;
    ctx->ilog_n = 0;
    ctx->ilog_bad = false;
}

/* Record the table slot of a node interned inside a pure operation. The log
 * lives outside the allocator's block count (it is bookkeeping, reused by
 * every operation); when it cannot grow, rollback scans the table instead. */
void sy_ilog_push(sy_ctx *ctx, size_t slot)
{
    if (ctx->ilog_bad) return;
    if (ctx->ilog_n == ctx->ilog_cap) {
        size_t nc = ctx->ilog_cap ? ctx->ilog_cap * 2 : 256;
        size_t *nl = ctx->ilog ? ctx->alc.realloc(ctx->alc.ud, ctx->ilog, ctx->ilog_cap * sizeof *nl, nc * sizeof *nl)
                               : ctx->alc.malloc(ctx->alc.ud, nc * sizeof *nl);
        if (!nl) {
            ctx->ilog_bad = true;
            return;
        }
        ctx->ilog = nl;
        ctx->ilog_cap = nc;
    }
    ctx->ilog[ctx->ilog_n++] = slot;
}

static const char *const budget_name[] = {"steps", "intermediate terms", "bytes"};
static const char *const budget_field[] = {"max_steps", "max_work_terms", "max_work_bytes"};
static const char *const budget_flag[] = {"steps", "terms", "bytes"};

bool sy_budget_over(sy_ctx *ctx, int which, uint64_t amount)
{
    if (!ctx->op_over) {
        uint64_t lim = which == 0 ? ctx->opts.max_steps : which == 1 ? ctx->opts.max_work_terms : ctx->opts.max_work_bytes;
        (void)amount;
        snprintf(ctx->quota_msg, sizeof ctx->quota_msg,
                 "work budget exceeded: the operation needs more than %llu %s (raise sy_ctx_options.%s, "
                 "or --budget %s=N on the command line)",
                 (unsigned long long)lim, budget_name[which], budget_field[which], budget_flag[which]);
        ctx->op_over = true;
        ctx->err = SY_EQUOTA;
        ctx->erroff = -1;
        snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s", ctx->quota_msg);
    }
    return false;
}

static void clear_node(sy_ctx *ctx, sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) {
        /* an integer interned within the operation leaves the cache too */
        if (!COEFF_IS_MPZ(e->u.value) && ctx->icache[sy_icache_slot(e->u.value)] == e)
            ctx->icache[sy_icache_slot(e->u.value)] = NULL;
        fmpz_clear(&e->u.value);
    } else if (e->kind == SY_EXPR_ADD) {
        fmpz_clear(&e->u.c0);
        for (uint32_t j = 0; j < e->n; j++) fmpz_clear(&SY_TERMS(e)[j].coef);
    }
}

/* Release every node interned since the mark. Only the nodes' own storage
 * refers to them: the operation failed, so it handed none out, and the memos
 * that may hold one (fact sets) compare ctx->gen and start over. Nodes that
 * existed at the mark were placed in the table before any new one, so
 * clearing the new slots restores the table exactly (linear probing never
 * moves a node). */
static void rollback(sy_ctx *ctx)
{
    if (ctx->count == ctx->mark.count && ctx->chunks == ctx->mark.chunk &&
        (!ctx->chunks || ctx->chunks->used == ctx->mark.used))
        return; /* nothing interned: the memos name no released node */
    if (!ctx->ilog_bad && ctx->cap == ctx->mark.cap && ctx->ilog_n == ctx->count - ctx->mark.count) {
        for (size_t i = 0; i < ctx->ilog_n; i++) {
            sy_expr *e = (sy_expr *)ctx->table[ctx->ilog[i]];
            clear_node(ctx, e);
            ctx->table[ctx->ilog[i]] = NULL;
        }
    } else { /* the table grew (or the log is incomplete): rebuild it at its old size */
        size_t ncap = ctx->mark.cap;
        const sy_expr **nt = sy_alloc(ctx, ncap * sizeof *nt);
        if (!nt) return; /* keep the nodes: still a valid context */
        memset(nt, 0, ncap * sizeof *nt);
        for (size_t i = 0; i < ctx->cap; i++) {
            sy_expr *e = (sy_expr *)ctx->table[i];
            if (!e) continue;
            if (e->serial >= ctx->mark.serial) {
                clear_node(ctx, e);
                continue;
            }
            size_t j = (size_t)e->hash & (ncap - 1);
            while (nt[j]) j = (j + 1) & (ncap - 1);
            nt[j] = e;
        }
        sy_dealloc(ctx, ctx->table, ctx->cap * sizeof *ctx->table);
        ctx->table = nt;
        ctx->cap = ncap;
    }
    while (ctx->chunks != ctx->mark.chunk) {
        sy_arena_chunk *c = ctx->chunks;
        ctx->chunks = c->next;
        sy_dealloc(ctx, c, sizeof *c + c->size);
    }
    if (ctx->chunks) ctx->chunks->used = ctx->mark.used;
    ctx->arena_bytes = ctx->mark.arena_bytes;
    ctx->count = ctx->mark.count;
    ctx->next_serial = ctx->mark.serial;
    ctx->nsyms = ctx->mark.nsyms;
    ctx->gen++;
}

bool sy_op_end(sy_ctx *ctx, bool ok)
{
    if (--ctx->op_depth > 0) return ok && !ctx->op_over;
    bool over = ctx->op_over;
    ctx->op_over = false;
    if (over) { /* whatever the inner code recorded or cleared, the reason is the budget */
        ctx->err = SY_EQUOTA;
        ctx->erroff = -1;
        snprintf(ctx->errmsg, sizeof ctx->errmsg, "%s", ctx->quota_msg);
        ok = false;
        ctx->gen++; /* memos filled under the spent budget may be weaker than usual: start them over */
    }
    /* Only a spent budget rolls back: other failures (a division by zero a
     * caller expects, as sy_bound's "no range") keep their nodes, so that
     * creation order, and with it every later result, stays as it was. */
    if (!ok && ctx->op_pure && over) {
        long off = ctx->erroff;
        rollback(ctx);
        ctx->erroff = off;
    }
    return ok;
}

sy_status sy_op_end_st(sy_ctx *ctx, sy_status st)
{
    if (sy_op_end(ctx, st == SY_OK)) return SY_OK;
    if (st == SY_OK || ctx->err == SY_EQUOTA) return SY_EQUOTA;
    return st;
}

const sy_expr *sy_op_end_e(sy_ctx *ctx, const sy_expr *e)
{
    return sy_op_end(ctx, e != NULL) ? e : NULL;
}
