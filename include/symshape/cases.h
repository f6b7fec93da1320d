/**
 * @file symshape/cases.h
 * @brief Runner for researchers' `.cases` files (format: docs/algebra.md,
 *        "Case files", and ../shared/cases/README.md).
 *
 * Each line is one case:
 *   simplify EXPR [| ASSUME; ...] => EXPECTED
 *   decide   REL  [| ASSUME; ...] => true | false | unknown
 *   bound    EXPR [| ASSUME; ...] => [LO, HI]
 *   eval     EXPR [@ s0=3, s1=-2] => VALUE
 * Expectations are written by hand, so they are checked too: every decide,
 * bound and (differing) simplify case is sampled at up to `samples` points
 * satisfying the assumptions (an exhaustive small grid, then random values).
 * - A sampled point that refutes the expectation fails the case:
 *   "the expected answer is wrong: counterexample ..." (a decide true/false
 *   that is false/true there, a bound value outside [LO, HI], a simplify
 *   expected form that differs from EXPR there).
 * - A sampled point that refutes the engine's answer fails it as WRONG.
 * - simplify: the same canonical node passes; different nodes that agree at
 *   every sampled point are "other form".
 * - decide/bound: the exact answer passes; a sound but weaker answer (unknown
 *   for true/false, a wider range) whose expectation survived sampling is a
 *   "precision miss"; a stronger answer than expected that no point refutes
 *   (true/false for an expected unknown, a narrower range) fails: "the
 *   expected answer is wrong" (the expectation is not exact).
 * Other form and precision misses are passes unless `strict` is set.
 * Other failures: unparsable lines, a NUL byte in a line, a division by zero,
 * a symbol bound twice in an eval case. There is no limit on the number of
 * symbols, assumptions or bindings of a case.
 */
#ifndef SYMSHAPE_CASES_H
#define SYMSHAPE_CASES_H
#include <stdio.h>
#include "symshape/types.h"

SY_BEGIN_DECLS

/** Counters of a case run (cumulative over calls with the same struct). */
typedef struct sy_cases_result {
    size_t passed;         /**< passes (including other_form and precision_miss unless strict) */
    size_t failed;         /**< wrong answers, disagreeing forms, unparsable lines */
    size_t other_form;     /**< simplify: equivalent on samples, different canonical form */
    size_t precision_miss; /**< decide/bound: sound but weaker than expected */
    size_t skipped;        /**< kinds this build cannot check */
    size_t by_kind[4][2];  /**< [simplify, decide, bound, eval][passed, failed] */
} sy_cases_result;

/** Case kinds of sy_case. */
typedef enum sy_case_kind { SY_CASE_SIMPLIFY, SY_CASE_DECIDE, SY_CASE_BOUND, SY_CASE_EVAL } sy_case_kind;

/** One case as the runner parsed it, with the engine's answer: passed to
 *  sy_cases_options.on_case once per case line (comments and blank lines
 *  excluded). Every pointer is valid during the call only (KEEP: owned by the
 *  runner; the expressions by the context). */
typedef struct sy_case {
    const char *file;      /**< the run's name ("<text>" if none) */
    size_t line;           /**< 1-based line number */
    sy_case_kind kind;     /**< meaningful when expr is not NULL */
    const char *text;      /**< the case's expression text (the part before '|' or '@') */
    /** The parsed expression (relation for decide); NULL when the line could
     *  not be read (unknown kind, missing "=>", a parse error, a NUL byte):
     *  then status is the error and message says why. */
    const sy_expr *expr;
    size_t nassume;                 /**< parsed assumptions */
    const sy_expr *const *assume;   /**< nassume relations (NULL if none) */
    /** SY_OK: the engine answered (below). Otherwise the engine's own error
     *  (e.g. SY_EDIVZERO: a divisor that may be 0), message says which. */
    sy_status status;
    const char *message;            /**< NULL when status is SY_OK and expr is set */
    /** simplify: the engine's result the runner compares (sy_simplify under
     *  the assumptions; the parsed expression itself without assumptions). */
    const sy_expr *simplified;
    sy_truth truth;                 /**< decide: sy_decide's answer */
    /** bound: sy_bound's range; NULL: no bound on that side (also when the
     *  engine could not bound it). */
    const sy_expr *lo, *hi;
} sy_case;

/** Options of a run. */
typedef struct sy_cases_options {
    FILE *report;        /**< where failures (and, if verbose, all cases) are printed; NULL: silent */
    int verbose;         /**< 1: also print other-form and precision-miss lines */
    uint64_t seed;       /**< sampling seed (0: fixed default) */
    unsigned samples;    /**< points sampled per simplify, decide and bound case (0: default 400) */
    int strict;          /**< 1: other form and precision misses are failures */
    /** Called before each line printed to report (e.g. to clear a progress
     *  line on a terminal); NULL: none. */
    void (*before_report)(void *ud);
    void *before_report_ud;
    /** Called once per case line with what the runner parsed and the
     *  engine's answer (sy_case), after the engine answered and before the
     *  answer is checked against the expectation; NULL: none. */
    void (*on_case)(void *ud, const sy_case *c);
    void *on_case_ud;
} sy_cases_options;

/** Run the cases in @p text (@p len bytes, not necessarily NUL-terminated).
 *  @param name file name used in messages ("name:line: ...").
 *  @param[in,out] res counters, added to (not reset).
 *  @retval SY_OK the text was processed (individual failures are counted, not
 *          returned).
 *  @retval SY_EINVAL NULL argument. @retval SY_ENOMEM */
SY_API sy_status sy_cases_run_text(sy_ctx *ctx, const char *text, size_t len, const char *name,
                                   const sy_cases_options *opts, sy_cases_result *res);

/** Read @p path and run it like sy_cases_run_text.
 *  @retval SY_EFORMAT the file cannot be read (message names it). */
SY_API sy_status sy_cases_run_file(sy_ctx *ctx, const char *path, const sy_cases_options *opts,
                                   sy_cases_result *res);

SY_END_DECLS
#endif
