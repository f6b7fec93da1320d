/**
 * @file symshape/cgen.h
 * @brief The C backend ("c"): a guard set rendered as one self-contained C99
 *        translation unit that checks concrete input sizes without symshape.
 *
 * Render with `sy_backend_render("c", gs, &opts, &data, &len)`; the symbol
 * prefix is `opts.prefix` (NULL: SY_CGEN_DEFAULT_PREFIX). A prefix must be a
 * C identifier ([A-Za-z_][A-Za-z0-9_]*) that is not reserved (it may not start
 * with two underscores or an underscore and a capital letter): otherwise the
 * render fails with SY_EINVAL and names the prefix. The render fails with
 * SY_EINVAL too when a checked guard mentions a variable that is not one of
 * the set's sources (the set was not produced by sy_gset_produce).
 *
 * ## The generated translation unit
 * It includes only <stddef.h> and <stdint.h>, compiles cleanly with
 * `cc -std=c99 -Wall -Wextra -Werror -pedantic` (tested on every corpus model,
 * the bundled examples and synthetic sets that fail closed inside And/Or), and
 * is plain C99: the overflow checks use `__builtin_*_overflow` only under
 * `__GNUC__`, and a portable C99 fallback otherwise (also selected by
 * compiling with -DSY_INT64_PORTABLE; tested against the reference checker).
 * It exports, for the prefix P:
 *
 *   - `int P_check(const int64_t *sizes, size_t n, int32_t *failed);`
 *     @p sizes: array of @p n values, one per source in the order of
 *     `P_sources` (sy_gset_nsources / sy_gset_source: "x.dim()", "x.dtype"
 *     (the sy_dtype code), "x.size()[0]", ...). @p failed may be NULL;
 *     otherwise it receives the index (into `P_guards`, the same index
 *     sy_gset_at and sy_gset_result.failed use) of the guard that decided
 *     the result, or -1. Returns one of the SY_CGEN_* codes below. Pure
 *     function of its arguments: reentrant and thread-safe; O(size of the
 *     guard set) (a power x**k costs k multiplications).
 *   - `int P_check_runtime(const int64_t *sizes, size_t n, const int64_t
 *     *unbacked, size_t m, int32_t *failed);` the run-time check, once the
 *     data exists: every guard in set order, the runtime asserts included,
 *     with @p unbacked (array of @p m values; m = `P_nunbacked`) the values
 *     of the unbacked symbols u0, u1, ... (sy_gset_unbacked_var; e.g. the
 *     length nonzero() returned). Same codes and @p failed as `P_check`
 *     (SY_CGEN_EARG also when m differs or unbacked is NULL with m > 0);
 *     the reference is sy_gset_check_runtime_si.
 *   - `const char *const P_unbacked[]`, `const size_t P_nunbacked`: what
 *     produced each unbacked value (sy_gset_unbacked_source, e.g.
 *     "nz.size()[0] (from nonzero at node nz)").
 *   - `const char *const P_sources[]`, `const size_t P_nsources`: the source
 *     of each index of @p sizes, exactly as sy_gset_source returns it.
 *   - `const char *const P_guards[]`, `const size_t P_nguards`: the source
 *     text of every guard of the set (sy_gset_guard.text), in set order,
 *     including runtime asserts.
 *
 * ## Semantics
 * Exactly those of the reference checker sy_gset_check (exact integers,
 * Python floor division and modulo), computed in int64 with the checked
 * helpers of algebra/sy_int64.h, which the file contains verbatim. Guards are
 * evaluated in set order; every operand of And/Or is evaluated (as the
 * reference does). Runtime asserts (SY_GK_RUNTIME_ASSERT) are skipped by
 * `P_check`, as in sy_gset_check, and checked by `P_check_runtime`. When an intermediate value
 * does not fit int64 (a sum, product, power, quotient or constant) or a
 * divisor is zero, the check *fails closed*: it returns a negative code and
 * never accepts. Comparisons are exact even against constants beyond int64
 * (a bound above INT64_MAX is vacuous) and never overflow: a difference that
 * overflows still decides `a - b <= c` by its sign. The reference's other
 * rule, an input whose numel (the product of its sizes) is past int64 cannot
 * exist, is not in the file, as in the bytecode VM (sy_bc_check): the sizes of
 * a real tensor satisfy it, and sy_gset_numel_check_si is that rule alone
 * (the generated C accepted `x1 = [2**32, 2**62]` where sy_gset_check rejects
 * it, attack47n).
 */
#ifndef SYMSHAPE_CGEN_H
#define SYMSHAPE_CGEN_H
#include "symshape/types.h"

SY_BEGIN_DECLS

/** Prefix used when sy_backend_options.prefix is NULL. */
#define SY_CGEN_DEFAULT_PREFIX "guards"

/** Return codes of the generated `P_check`. */
/** Every checked guard holds; *failed = -1. */
#define SY_CGEN_ACCEPT 1
/** Guard *failed is false at these sizes (same index as sy_gset_check). */
#define SY_CGEN_REJECT 0
/** Fail closed: @p n differs from P_nsources, or @p sizes is NULL while
 *  sources exist; *failed = -1. */
#define SY_CGEN_EARG (-1)
/** Fail closed: evaluating guard *failed needs an int64 intermediate that
 *  overflows (or a constant beyond int64); the reference checker may accept
 *  or reject such a point. */
#define SY_CGEN_EOVERFLOW (-2)
/** Fail closed: guard *failed divides by zero at these sizes (the reference
 *  checker rejects such a point at the same guard). */
#define SY_CGEN_EDIVZERO (-3)

/** Type of the generated `P_check` (for dlsym). */
typedef int (*sy_cgen_check_fn)(const int64_t *sizes, size_t n, int32_t *failed);
/** Type of the generated `P_check_runtime` (for dlsym). */
typedef int (*sy_cgen_check_runtime_fn)(const int64_t *sizes, size_t n, const int64_t *unbacked, size_t m,
                                        int32_t *failed);

SY_END_DECLS
#endif
