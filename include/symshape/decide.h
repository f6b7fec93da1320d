/**
 * @file symshape/decide.h
 * @brief Facts, value ranges and a sound decision procedure for relations
 *        between symbolic sizes (docs/decision.md).
 *
 * A fact set (sy_facts) holds what is known about the symbols: ranges,
 * relations known true, divisibility facts and replacements (symbol :=
 * expression, from solved equalities). sy_decide() answers TRUE only when the
 * relation holds at every integer point satisfying the facts, FALSE only when
 * it fails at all of them, and UNKNOWN otherwise or when a work budget runs
 * out. It never guesses.
 *
 * Lifetime: a fact set borrows its context (KEEP) and must be freed before
 * the context. Expressions returned by these functions belong to the context.
 * Thread safety: none (the context is not thread-safe).
 */
#ifndef SYMSHAPE_DECIDE_H
#define SYMSHAPE_DECIDE_H
#include "symshape/expr.h"

SY_BEGIN_DECLS

typedef struct sy_facts sy_facts;

/** New empty fact set over @p ctx (GIVE: free with sy_facts_free). NULL with
 *  SY_ENOMEM recorded in ctx on failure. */
SY_API SY_GIVE sy_facts *sy_facts_new(sy_ctx *ctx);
/** Free; accepts NULL; returns NULL. */
SY_API sy_facts *sy_facts_free(SY_TAKE SY_NULL sy_facts *f);
/** Deep copy (GIVE), sharing the context. NULL on SY_ENOMEM. */
SY_API SY_GIVE sy_facts *sy_facts_copy(const sy_facts *f);
/** The context of @p f (KEEP). */
SY_API SY_KEEP sy_ctx *sy_facts_ctx(const sy_facts *f);

/** Add a fact: any boolean expression (relation, And, Or, true, false).
 *  What it implies is derived immediately: a single-symbol inequality narrows
 *  the symbol's range; an equality with a unit-coefficient symbol becomes a
 *  replacement (the symbol that is last in canonical order, i.e. natural name
 *  order s2 < s10, is replaced); a
 *  congruence Mod(e, k) == r becomes a replacement through a fresh internal
 *  integer (s := k*t + ...); other relations are kept for the linear layer.
 *  Adding `false`, or facts that contradict each other, marks the set
 *  inconsistent (sy_facts_consistent returns SY_FALSE) and later decisions
 *  answer UNKNOWN.
 *  @retval SY_OK @retval SY_EINVAL not a boolean expression
 *  @retval SY_ENOMEM @retval SY_EQUOTA an expansion exceeded the budget */
SY_API sy_status sy_facts_add(sy_facts *f, const sy_expr *fact);

/** Set lo <= sym <= hi (intersected with what is known). @p lo / @p hi are
 *  integer constants or NULL for no bound.
 *  @retval SY_OK @retval SY_EINVAL sym is not a symbol or a bound is not an
 *  integer constant. */
SY_API sy_status sy_facts_set_range(sy_facts *f, const sy_expr *sym, const sy_expr *lo, const sy_expr *hi);

/** The range of a symbol under the facts: *lo / *hi receive integer
 *  constants, or NULL for -oo / +oo. A replaced symbol reports the bound of
 *  its replacement. */
SY_API sy_status sy_facts_get_range(sy_facts *f, const sy_expr *sym, const sy_expr **lo, const sy_expr **hi);

/** The replacement of @p sym, or NULL if it has none. */
SY_API const sy_expr *sy_facts_replacement(const sy_facts *f, const sy_expr *sym);

/** Apply every replacement to @p e (simultaneously, to a fixed point). */
SY_API const sy_expr *sy_facts_apply(sy_facts *f, const sy_expr *e);

/** SY_TRUE when no contradiction has been found (not a proof of
 *  satisfiability), SY_FALSE when the facts are known to be contradictory. */
SY_API sy_bool sy_facts_consistent(const sy_facts *f);

/** Decide @p rel (a boolean expression) under the facts.
 *  @param[out] out SY_TRUTH_TRUE / SY_TRUTH_FALSE / SY_TRUTH_UNKNOWN.
 *  @retval SY_OK an answer (possibly UNKNOWN) was produced.
 *  @retval SY_EINVAL rel is not boolean. @retval SY_ENOMEM
 *  Complexity: layers run cheapest first (canonical form, intervals,
 *  range-aware simplification, linear integer arithmetic by Fourier-Motzkin
 *  with integer tightening), each within a work budget. */
SY_API sy_status sy_decide(sy_facts *f, const sy_expr *rel, sy_truth *out);

/** Range of the integer expression @p e under the facts. *lo / *hi receive
 *  integer constants, or NULL for -oo / +oo. The range is sound (contains
 *  every value e takes at a point satisfying the facts), not always tight.
 *  @retval SY_OK
 *  @retval SY_EDIVZERO a divisor of e may be zero under the facts: no range
 *          is invented; the message names the division and the divisor's range.
 *  @retval SY_EINVAL e is boolean. */
SY_API sy_status sy_bound(sy_facts *f, const sy_expr *e, const sy_expr **lo, const sy_expr **hi);

/** Range-aware rewriting under the facts: replacements applied, Mod(x, k) ->
 *  x when 0 <= x < k, FloorDiv(x, k) -> its value when constant over x's
 *  range, Min/Max resolved when the order of their arguments is decided,
 *  relations decided to true/false. Returns an expression equal to @p e at
 *  every point satisfying the facts, or NULL on error: SY_EDIVZERO when,
 *  under the replacements, a divisor of e is the constant 0 (e is undefined
 *  wherever the facts hold); SY_ENOMEM; SY_EQUOTA. */
SY_API const sy_expr *sy_simplify(sy_facts *f, const sy_expr *e);

/** Solve the equality @p eq (an Eq relation) for a replacement.
 *  @param[out] sym the symbol solved for, or NULL when none can be
 *              (no unit-coefficient symbol, or the solution leaves the
 *              symbol's range).
 *  @param[out] value its replacement (integer expression).
 *  @param[out] divisibility a divisibility condition (boolean) that the
 *              solution needs, or NULL (e.g. solving 2*a == b for b gives
 *              b := 2*a and no condition; solving 5*a == b - 5 for b gives
 *              b := 5*a + 5).
 *  @retval SY_OK (also when nothing could be solved) @retval SY_EINVAL */
SY_API sy_status sy_solve(sy_facts *f, const sy_expr *eq, const sy_expr **sym, const sy_expr **value,
                          const sy_expr **divisibility);

/** Counters of which layer answered, for benchmarks and reports. */
typedef struct sy_decide_stats {
    size_t queries;
    size_t by_canonical;  /**< answered by the canonical form / fact lookup */
    size_t by_interval;   /**< answered by interval bounds */
    size_t by_simplify;   /**< answered after range-aware rewriting */
    size_t by_linear;     /**< answered by linear integer arithmetic */
    size_t unknown;       /**< no layer could answer */
    size_t budget_hits;   /**< a layer stopped on its budget */
} sy_decide_stats;

/** Read the counters of @p f. */
SY_API void sy_facts_get_stats(const sy_facts *f, sy_decide_stats *out);

SY_END_DECLS
#endif
