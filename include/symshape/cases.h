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
 * A simplify case passes when EXPR and EXPECTED canonicalise (under the
 * assumptions) to the same node; when they differ but agree at every sampled
 * point satisfying the assumptions it is counted as "other form" (not a
 * failure); when they disagree at a point it fails and names the point.
 * decide/bound cases: an exact answer passes; a strictly weaker sound answer
 * (unknown for true/false, a wider bound) is a "precision miss" (not a
 * failure); a wrong answer fails.
 */
#ifndef SYMSHAPE_CASES_H
#define SYMSHAPE_CASES_H
#include <stdio.h>
#include "symshape/types.h"

SY_BEGIN_DECLS

/** Counters of a case run (cumulative over calls with the same struct). */
typedef struct sy_cases_result {
    size_t passed;         /**< exact passes (includes other_form and precision_miss) */
    size_t failed;         /**< wrong answers, disagreeing forms, unparsable lines */
    size_t other_form;     /**< simplify: equivalent on samples, different canonical form */
    size_t precision_miss; /**< decide/bound: sound but weaker than expected */
    size_t skipped;        /**< kinds this build cannot check */
    size_t by_kind[4][2];  /**< [simplify, decide, bound, eval][passed, failed] */
} sy_cases_result;

/** Options of a run. */
typedef struct sy_cases_options {
    FILE *report;        /**< where failures (and, if verbose, all cases) are printed; NULL: silent */
    int verbose;         /**< 1: also print other-form and precision-miss lines */
    uint64_t seed;       /**< sampling seed (0: fixed default) */
    unsigned samples;    /**< points sampled per simplify case (0: default 400) */
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
