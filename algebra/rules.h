/* Private: the rewrite-rule table (algebra/rules.def) and the gate every
 * rewrite site goes through. Not part of the public API. */
#ifndef SY_RULES_H
#define SY_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "symshape/ctx.h"

typedef enum sy_rule_id {
#define SY_RULE(id, kind, split, lhs, rhs, side) SY_R_##id,
#include "algebra/rules.def"
#undef SY_RULE
    SY_R_COUNT
} sy_rule_id;

typedef enum sy_rule_kind {
    SY_RULE_REWRITE, /* can be switched off */
    SY_RULE_FORM     /* the stored form of a node: always applied */
} sy_rule_kind;

typedef struct sy_rule {
    const char *name; /* the id without SY_R_, e.g. "FLOORDIV_NESTED" */
    sy_rule_kind kind;
    const char *split; /* "": proven for all integers; "v1 v2=N": for v1, v2 in [-N, N] (rules.def) */
    const char *lhs, *rhs, *side; /* see rules.def */
} sy_rule;

/* The table, indexed by sy_rule_id. */
extern const sy_rule sy_rules_table[SY_R_COUNT];

#define SY_RULE_WORDS ((SY_R_COUNT + 63) / 64)

/* Per-context state (inside sy_ctx): switched-off rules and how often each
 * rule was applied. */
typedef struct sy_rule_state {
    uint64_t off[SY_RULE_WORDS];
    uint64_t hits[SY_R_COUNT];
} sy_rule_state;

/* The gate: true (and counted) when rule @p id may be applied. Every rewrite
 * site calls it where its pattern matched, before rewriting. */
bool sy_rule_on(sy_ctx *ctx, sy_rule_id id);
/* A FORM rule is being applied (counted; cannot be switched off). */
void sy_rule_form(sy_ctx *ctx, sy_rule_id id);

/* Test switches. sy_rules_set_enabled returns false for a FORM rule or an
 * unknown id (nothing changes). */
bool sy_rules_set_enabled(sy_ctx *ctx, sy_rule_id id, bool on);
void sy_rules_set_all(sy_ctx *ctx, bool on);
uint64_t sy_rule_hits(const sy_ctx *ctx, sy_rule_id id);
void sy_rules_reset_hits(sy_ctx *ctx);

#endif
