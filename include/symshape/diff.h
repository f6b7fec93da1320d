/**
 * @file symshape/diff.h
 * @brief A semantic diff of two guard sets (docs/guards.md section 8): the
 *        two implications between the regions they accept, decided with the
 *        decision procedure; the guards added, dropped, narrowed and widened
 *        with their provenance in both versions; concrete witness sizes.
 *
 * The two sides, A (old) and B (new), are guard sets (sy_gset) or their JSON
 * form ("symshape.guards" version 1, sy_gset_to_json). Sources are matched
 * by text; sy_diff_map renames an input of A first ("x" -> "input": A's
 * "x.size()[0]" is then B's "input.size()[0]"). A source only one side has
 * is unconstrained on the other.
 *
 * Region of a side: the sizes its checked guards accept (runtime asserts
 * are not checked by sy_gset_check and take no part; they are still listed),
 * over the domain: every size, rank and stride >= 0, a dtype code in
 * [0, 11]. Declared ranges (sy_dim_spec) are guards of the set, so they
 * bound the regions.
 *
 * Soundness: an implication is SY_TRUTH_TRUE only when sy_decide proved it
 * (every guard of the other side, with every symbolic divisor proved
 * non-zero), SY_TRUTH_FALSE only with a witness that exact evaluation
 * confirms (accepted by one side's sy_gset_check order of guards, rejected
 * by the other's, every input's numel within int64 as sy_gset_check requires:
 * an input that cannot exist is no witness), and SY_TRUTH_UNKNOWN otherwise. The witness search is
 * bounded (a fixed number of candidate points per guard), never a guess.
 *
 * Ownership: a sy_diff (GIVE from sy_diff_new) borrows its context and is
 * freed with sy_diff_free before it. Strings returned are KEEP (owned by the
 * diff) unless said otherwise. Not thread-safe (the context is not).
 */
#ifndef SYMSHAPE_DIFF_H
#define SYMSHAPE_DIFF_H
#include "symshape/gset.h"

SY_BEGIN_DECLS

typedef struct sy_diff sy_diff;

/** The two sides. */
typedef enum { SY_DIFF_A = 0, SY_DIFF_B = 1 } sy_diff_side;

/** What happened to a guard between A and B. */
typedef enum sy_diff_change {
    SY_DIFF_RESTATED = 0, /**< in one side only, but the other side's guards imply it: no change of region */
    SY_DIFF_ADDED = 1,    /**< in B only and not implied by A: B may reject sizes A accepts */
    SY_DIFF_DROPPED = 2,  /**< in A only and not implied by B: B may accept sizes A rejects */
    SY_DIFF_NARROWED = 3, /**< an A guard replaced by a B guard on the same sources that implies it */
    SY_DIFF_WIDENED = 4   /**< an A guard replaced by a B guard on the same sources that it implies */
} sy_diff_change;

/** Name of a change ("restated", "added", ...); static storage. */
SY_API const char *sy_diff_change_name(sy_diff_change c);

/** New empty diff over @p ctx (GIVE). @retval SY_OK @retval SY_EINVAL NULL
 *  argument @retval SY_ENOMEM */
SY_API sy_status sy_diff_new(sy_ctx *ctx, SY_GIVE sy_diff **out);
/** Free; accepts NULL; returns NULL. */
SY_API sy_diff *sy_diff_free(SY_TAKE SY_NULL sy_diff *d);

/** Side @p side from a guard set (KEEP: read now, not kept; it may live in
 *  another context: its guards are re-read from their canonical text).
 *  @retval SY_OK @retval SY_EINVAL NULL, a bad side, or the side already set
 *  @retval SY_ENOMEM @retval SY_EQUOTA a guard's text exceeds the budget */
SY_API sy_status sy_diff_set_gset(sy_diff *d, sy_diff_side side, const sy_gset *gs);
/** Side @p side from the JSON form of a guard set (@p len bytes, (size_t)-1:
 *  NUL-terminated); @p name names it in messages (NULL: "<json>").
 *  @retval SY_OK @retval SY_EINVAL as sy_diff_set_gset
 *  @retval SY_EFORMAT malformed JSON (line and column), not
 *          "symshape.guards" version 1, a missing or mistyped field, a guard
 *          "expr" that does not parse or reads a slot out of range (the
 *          message names the guard's index) @retval SY_ENOMEM */
SY_API sy_status sy_diff_set_json(sy_diff *d, sy_diff_side side, const char *text, size_t len, const char *name);
/** Rename input @p old_name of A to @p new_name before matching (both
 *  copied). Call before sy_diff_run; a later mapping of the same old name
 *  replaces the earlier. An @p old_name that none of A's sources names, or a
 *  @p new_name that none of B's names, makes sy_diff_run fail with SY_EINVAL
 *  (the mapping would otherwise do nothing, or compare with nothing, silently), and so does a
 *  map that leaves two of A's sources one (an input renamed onto another input A reads and
 *  does not rename away, or two inputs renamed onto one: A's inputs would be compared as if
 *  equal); a swap (x to y, y to x) is fine. @retval SY_OK @retval SY_EINVAL NULL or empty name
 *  @retval SY_ENOMEM */
SY_API sy_status sy_diff_map(sy_diff *d, const char *old_name, const char *new_name);

/** A second decision procedure for what sy_decide and the witness search
 *  leave open (e.g. Z3: the command line passes one built on
 *  sy_verify_equal when the library has Z3). Called with the domain bounds
 *  and one side's checked guards as @p assumptions (@p n, KEEP) and a guard
 *  of the other side as @p goal: set *out SY_TRUTH_TRUE when the goal holds
 *  at every integer point where the assumptions hold and it is defined;
 *  SY_TRUTH_FALSE with *point (GIVE, sy_str_free on @p ctx) a point
 *  "NAME = VALUE, ..." over the symbols of the expressions, which the diff
 *  then checks by exact evaluation before it counts as a witness; else
 *  SY_TRUTH_UNKNOWN. A status other than SY_OK is taken as UNKNOWN. */
typedef sy_status (*sy_diff_prover)(void *ud, sy_ctx *ctx, size_t n, const sy_expr *const *assumptions,
                                    const sy_expr *goal, sy_truth *out, char **point);
/** Set the prover (NULL: none, the default) before sy_diff_run.
 *  @retval SY_OK @retval SY_EINVAL d NULL or already run */
SY_API sy_status sy_diff_set_prover(sy_diff *d, sy_diff_prover fn, void *ud);

/** Compare the two sides (both must be set).
 *  Cost: per guard in one side only, one decision (sy_decide) against the
 *  other side's guards; for a guard not proved implied a witness search of
 *  at most 2000 candidate points (the guard first, the other side's guards
 *  only where it fails); the prover, if set, for what stays open; one
 *  decision per pair of a dropped and an added guard on the same sources.
 *  Bounded: the searches over each side's region evaluate at most 10^6
 *  guards together and the pairing makes at most 4096 decisions; past a
 *  budget what is open stays UNKNOWN ("budget_exhausted" in the JSON).
 *  @retval SY_OK @retval SY_EINVAL a side is missing, already run, or a
 *          sy_diff_map names an input A does not read, or a new name B does not
 *          read (the message names it)
 *  @retval SY_ENOMEM @retval SY_EQUOTA the context's budget ran out */
SY_API sy_status sy_diff_run(sy_diff *d);

/** A ⊆ B (@p side A) or B ⊆ A (@p side B), after sy_diff_run:
 *  SY_TRUTH_TRUE proved, SY_TRUTH_FALSE with a witness
 *  (sy_diff_witness), SY_TRUTH_UNKNOWN. Before sy_diff_run: UNKNOWN. */
SY_API sy_truth sy_diff_subset(const sy_diff *d, sy_diff_side side);

/** Merged sources: B's in its order, then A's (renamed) that B lacks. */
SY_API size_t sy_diff_nsources(const sy_diff *d);
SY_API const char *sy_diff_source(const sy_diff *d, size_t i);

/** One side's guards as the diff read them (KEEP). */
typedef struct sy_diff_guard {
    const char *kind;   /**< kind name (sy_gset_kind_name) */
    const char *text;   /**< the guard over (renamed) source names, canonical */
    const char *why;    /**< the side's why ("" when absent) */
    const char *origin; /**< its first recording: "node (op): reason", with " [required]" when an op check or an
                             _assert forced it, and " at FILE:LINE" when known; "" for derived guards */
    int checked;        /**< 0: a runtime assert (not part of the region) */
} sy_diff_guard;
SY_API size_t sy_diff_nguards(const sy_diff *d, sy_diff_side side);
SY_API const sy_diff_guard *sy_diff_guard_at(const sy_diff *d, sy_diff_side side, size_t i);

/** One difference. */
typedef struct sy_diff_entry {
    sy_diff_change change;
    long a, b;              /**< guard index in A / in B, -1 when the change has none there */
    sy_truth implied;       /**< the other side implies the guard: TRUE (RESTATED), FALSE (witness found),
                                 UNKNOWN (neither proved nor refuted) */
    const int64_t *witness; /**< NULL, or sy_diff_nsources values: accepted by one side and rejected by the
                                 other (exact evaluation of both sides' guards) */
    sy_diff_side accepts;   /**< the side accepting the witness */
    long rejected_by;       /**< the first guard (in set order) of the other side failing at the witness */
} sy_diff_entry;
SY_API size_t sy_diff_nentries(const sy_diff *d);
SY_API const sy_diff_entry *sy_diff_entry_at(const sy_diff *d, size_t i);

/** The witness that refutes sy_diff_subset(@p side) (NULL unless it is
 *  FALSE): sy_diff_nsources values that @p side accepts and the other side
 *  rejects; @p rejected_by (may be NULL) receives the other side's first
 *  failing guard. KEEP, valid until sy_diff_free. */
SY_API const int64_t *sy_diff_witness(const sy_diff *d, sy_diff_side side, long *rejected_by);

/** The whole result as JSON ("symshape.diff" version 1, docs/guards.md
 *  section 8); GIVE: free with sy_str_free. NULL on SY_ENOMEM, before
 *  sy_diff_run (SY_EINVAL), or SY_EFORMAT when a source, a model name or a
 *  guard's text is not valid UTF-8 (JSON cannot carry it; a name from an
 *  ONNX model may hold any bytes). */
SY_API SY_GIVE char *sy_diff_to_json(const sy_diff *d);

SY_END_DECLS
#endif
