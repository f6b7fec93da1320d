/* The rewrite-rule table and its gate (algebra/rules.h, docs/proof.md). */
#include <string.h>

#include "algebra/expr_private.h"
#include "algebra/rules.h"

const sy_rule sy_rules_table[SY_R_COUNT] = {
#define SY_RULE(id, kind, split, lhs, rhs, side) {#id, SY_RULE_##kind, split, lhs, rhs, side},
#include "algebra/rules.def"
#undef SY_RULE
};

bool sy_rule_on(sy_ctx *ctx, sy_rule_id id)
{
    if ((ctx->rules.off[id >> 6] >> (id & 63)) & 1) return false;
    ctx->rules.hits[id]++;
    return true;
}

void sy_rule_form(sy_ctx *ctx, sy_rule_id id) { ctx->rules.hits[id]++; }

bool sy_rules_set_enabled(sy_ctx *ctx, sy_rule_id id, bool on)
{
    if (!ctx || (unsigned)id >= SY_R_COUNT || sy_rules_table[id].kind == SY_RULE_FORM) return false;
    if (on) ctx->rules.off[id >> 6] &= ~(UINT64_C(1) << (id & 63));
    else ctx->rules.off[id >> 6] |= UINT64_C(1) << (id & 63);
    ctx->rules_epoch++;
    return true;
}

void sy_rules_set_all(sy_ctx *ctx, bool on)
{
    for (unsigned i = 0; i < SY_R_COUNT; i++) sy_rules_set_enabled(ctx, (sy_rule_id)i, on);
}

uint64_t sy_rule_hits(const sy_ctx *ctx, sy_rule_id id)
{
    return ctx && (unsigned)id < SY_R_COUNT ? ctx->rules.hits[id] : 0;
}

void sy_rules_reset_hits(sy_ctx *ctx)
{
    if (ctx) memset(ctx->rules.hits, 0, sizeof ctx->rules.hits);
}
