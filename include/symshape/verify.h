/**
 * @file symshape/verify.h
 * @brief Proof obligations of a traced model, discharged with Z3 (translation
 *        validation, as PyTorch's torch/fx/experimental/validator.py does for
 *        its own guards). See docs/proof.md.
 *
 * Built only when Z3's C API (Debian's libz3-dev) was found at configure time.
 * The library is not linked with Z3: the first call that needs it loads Z3's
 * shared library (dlopen of the soname the build found, e.g. "libz3.so.4";
 * Debian's libz3-4) and looks its functions up once, so that a program that
 * never verifies does not load it. sy_verify_available() says whether this
 * worked; when it did not (built without Z3, or libz3 cannot be loaded at run
 * time), every call returns SY_EUNSUPPORTED with the message of
 * sy_verify_unavailable_reason() ("built without Z3", or "cannot load Z3
 * (libz3.so.4): " and the loader's reason).
 *
 * Semantics: integers of any size. FloorDiv, Mod and CeilDiv are Python's
 * floor division (encoded as in the smtlib backend: Z3's integer div equals
 * floor division for positive divisors), and an expression any of whose
 * divisors is 0 is false (the checker's rule, guards.md). Every obligation is
 * proved for all integer values of the sources with sizes and ranks >= 0.
 * Not thread-safe with respect to one env or guard set; separate calls on
 * separate objects may run in parallel (each call has its own Z3 context).
 */
#ifndef SYMSHAPE_VERIFY_H
#define SYMSHAPE_VERIFY_H
#include "symshape/gset.h"

SY_BEGIN_DECLS

/** The outcome of one obligation. */
typedef enum sy_verify_verdict {
    SY_VERIFY_PROVEN = 0,  /**< holds for every point of the domain (Z3: the negation is unsat) */
    SY_VERIFY_REFUTED = 1, /**< a counterexample point was found */
    SY_VERIFY_UNKNOWN = 2  /**< Z3 gave up or hit the timeout: never counted as proven */
} sy_verify_verdict;

/** Kinds of obligations. */
typedef enum sy_verify_kind {
    SY_VERIFY_EQUIVALENT = 0,  /**< (a) the final guard set is equivalent to the produced one */
    SY_VERIFY_IMPLIES = 1,     /**< (b) the final set implies a decision or requirement recorded while tracing */
    SY_VERIFY_REPLACEMENT = 2, /**< (c) the final set implies a replacement the env used (sym == expr) */
    SY_VERIFY_EXAMPLE = 3      /**< (d) a guard of the final set holds at the example sizes */
} sy_verify_kind;

/** One discharged obligation, passed to the callback (all pointers valid
 *  during the callback only). */
typedef struct sy_verify_obligation {
    sy_verify_kind kind;
    size_t index;               /**< the record, symbol or guard index the obligation is about */
    const char *what;           /**< one line, e.g. "implies recorded guard 3: Eq(s1, 224) (_assert)" */
    sy_verify_verdict verdict;
    const char *counterexample; /**< REFUTED: "x.size()[2] = 3, x.size()[3] = 5" (every source); else NULL */
    double seconds;             /**< Z3 time of this obligation */
    const char *reason;         /**< UNKNOWN: why, e.g. "Z3: max. resource limit exceeded (default solver, then
                                     qfnia)" or the residue split's reason (see sy_verify_options.max_cases); else NULL */
} sy_verify_obligation;

typedef void (*sy_verify_fn)(void *ud, const sy_verify_obligation *ob);

/** Version 2 added max_cases; version 1 structs (without it) are still accepted. */
#define SY_VERIFY_OPTIONS_VERSION 2u
/** The default and the largest max_cases. */
#define SY_VERIFY_MAX_CASES_DEFAULT 4096u
#define SY_VERIFY_MAX_CASES_LIMIT 1048576u
typedef struct sy_verify_options {
    unsigned version;    /**< SY_VERIFY_OPTIONS_VERSION */
    unsigned timeout_ms; /**< wall-clock limit per obligation (0: 60000 ms), the residue split included;
                              past it the verdict is UNKNOWN */
    unsigned rlimit;     /**< Z3's deterministic resource limit per attempt (Z3's "rlimit";
                              0: 2000000); past it the verdict is UNKNOWN, the same on every machine */
    /** The residue split's largest number of cases (0: SY_VERIFY_MAX_CASES_DEFAULT; values above
     *  SY_VERIFY_MAX_CASES_LIMIT count as the limit). When Z3 leaves an obligation unknown and it
     *  contains Mod(p, c), FloorDiv(p, c) or CeilDiv(p, c) with a constant c and a nonlinear
     *  integer polynomial p, the symbols x1..xk of those numerators are split on their residues
     *  modulo L = lcm(|c|): L^k cases, each with the linear premises x_i mod L = r_i, in which
     *  Mod(p, c) is the constant Mod(p(r), c), since p(x) ≡ p(r) (mod |c|) for an integer
     *  polynomial (docs/proof.md, "Residue split"). PROVEN when every case is unsat, REFUTED by
     *  a case's model, UNKNOWN when a case is, past the timeout, or when L^k > max_cases (the
     *  reason then reads "the residue split over x, y, z modulo 6 needs 6^3 cases, more than
     *  max_cases = 100"). */
    unsigned max_cases;
} sy_verify_options;
#define SY_VERIFY_OPTIONS_INIT {SY_VERIFY_OPTIONS_VERSION, 0, 0, 0}

/** Counts by verdict, filled by sy_verify_model. */
typedef struct sy_verify_summary {
    size_t proven, refuted, unknown;
    size_t skipped_runtime; /**< recorded runtime asserts (on unbacked sizes): checked at run time, not implied by guards */
} sy_verify_summary;

/** 1 when this build has the Z3 verifier and Z3's library is loaded, else 0.
 *  The first call loads it (thread-safe; later calls only read the outcome). */
SY_API int sy_verify_available(void);

/** NULL when sy_verify_available() is 1; else why not, one line naming the library
 *  (static storage, valid until the process exits), e.g. "verify: cannot load Z3
 *  (libz3.so.4): libz3.so.4: cannot open shared object file: No such file or directory". */
SY_API const char *sy_verify_unavailable_reason(void);

/** Discharge every obligation of a traced model:
 *  (a) @p final (the minimized set) is equivalent to @p produced;
 *  (b) @p final implies every guard @p env recorded (sy_env_guard), with each
 *      symbol read as the first source it was created for;
 *  (c) @p final implies `sym == r` for every symbol with a replacement r in
 *      the env's facts (sy_facts_replacement);
 *  (d) every guard of @p final holds at @p example (sy_gset_nsources(final)
 *      int64 values, e.g. from sy_gset_values_from_shapes), or NULL to skip (d).
 *  Sources are matched between the two sets by their text.
 *  @param env the traced env (KEEP); @param produced, final (KEEP), over the
 *         same inputs; @param opts NULL: defaults; @param fn called once per
 *         obligation, in the order (a), (b), (c), (d); may be NULL.
 *  @param[out] summary counts (may be NULL).
 *  @retval SY_OK every obligation was attempted (see the verdicts)
 *  @retval SY_EINVAL NULL env or sets, or a version mismatch
 *  @retval SY_EUNSUPPORTED built without Z3, or an expression kind Z3 cannot
 *          take @retval SY_ENOMEM */
SY_API sy_status sy_verify_model(sy_env *env, const sy_gset *produced, const sy_gset *final, const int64_t *example,
                                 const sy_verify_options *opts, sy_verify_fn fn, void *ud, sy_verify_summary *summary);

/** Prove that @p a and @p b are equal (integers) or equivalent (booleans)
 *  for every integer assignment of the free symbols (named by
 *  sy_expr_sym_name) that satisfies every assumption and at which @p a is
 *  defined; @p b must then be defined too. "Defined" means every divisor in
 *  it is nonzero; an assumption holds where it is defined and true.
 *  Both sides are translated to Z3 as they are: nothing is built with the
 *  algebra's constructors, so a rewrite (b = sy_simplify(a)) is checked, not
 *  re-derived.
 *  @param assumptions array of @p n boolean expressions (NULL if n = 0).
 *  @param opts Z3's limits (NULL: defaults); past one the verdict is UNKNOWN.
 *  @param[out] verdict PROVEN / REFUTED / UNKNOWN.
 *  @param[out] counterexample if not NULL: REFUTED: GIVE, the point, "a = 3, b = -1";
 *              UNKNOWN: GIVE, the reason (as sy_verify_obligation.reason); PROVEN: set
 *              to NULL. Free with sy_str_free(ctx, ...).
 *  @retval SY_OK @retval SY_EINVAL a NULL argument, a non-boolean assumption,
 *          or a and b of different types @retval SY_EUNSUPPORTED built without Z3
 *  @retval SY_ENOMEM */
SY_API sy_status sy_verify_equal(sy_ctx *ctx, size_t n, const sy_expr *const *assumptions, const sy_expr *a,
                                 const sy_expr *b, const sy_verify_options *opts, sy_verify_verdict *verdict,
                                 SY_GIVE char **counterexample);

/** Prove `lo <= e <= hi` (@p lo / @p hi NULL: no bound on that side) wherever
 *  the assumptions hold and @p e is defined, as sy_verify_equal.
 *  @retval SY_OK @retval SY_EINVAL NULL e, or a bound that is not an integer
 *  expression @retval SY_EUNSUPPORTED built without Z3 @retval SY_ENOMEM */
SY_API sy_status sy_verify_bound(sy_ctx *ctx, size_t n, const sy_expr *const *assumptions, const sy_expr *e,
                                 const sy_expr *lo, const sy_expr *hi, const sy_verify_options *opts,
                                 sy_verify_verdict *verdict,
                                 SY_GIVE char **counterexample);

/** Replay an SMT-LIB 2.6 script with Z3 (a certificate's obligation, symshape/bc.h): its
 *  assertions are read by Z3's SMT-LIB 2 parser and checked once by Z3's default solver, within
 *  @p opts' timeout and rlimit. A script that asserts the negation of its claim is PROVEN when Z3
 *  answers unsat.
 *  @param script NUL-terminated (KEEP).
 *  @param[out] verdict PROVEN (unsat), REFUTED (sat), UNKNOWN.
 *  @param[out] detail if not NULL: REFUTED: Z3's model (GIVE); UNKNOWN: Z3's reason (GIVE);
 *              else NULL. Free with sy_str_free(ctx, ...).
 *  @retval SY_OK @retval SY_EINVAL a NULL argument @retval SY_EFORMAT Z3 does not parse the
 *  script (its message) @retval SY_EUNSUPPORTED built without Z3 @retval SY_ENOMEM */
SY_API sy_status sy_verify_smtlib(sy_ctx *ctx, const char *script, const sy_verify_options *opts, sy_verify_verdict *verdict,
                                  SY_GIVE char **detail);

SY_END_DECLS
#endif
