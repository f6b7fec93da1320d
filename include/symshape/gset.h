/**
 * @file symshape/gset.h
 * @brief Guard sets: the conditions on a model's input sizes under which a
 *        compiled artifact may be reused. PyTorch's produce_guards
 *        (torch/fx/experimental/symbolic_shapes.py), done exactly. See
 *        docs/guards.md.
 *
 * A guard set is expressed over *sources*: the input properties a runtime
 * reads. For every input NAME of rank r the sources are, in this order,
 * "NAME.dim()", "NAME.dtype" (a dtype code: sy_dtype's numeric value) and
 * "NAME.size()[0]" ... "NAME.size()[r-1]". Each guard is a relation over
 * sources with its text in PyTorch's source notation ("x.size()[2] == 224").
 *
 * Ownership: a guard set (GIVE from sy_gset_produce) is freed with
 * sy_gset_free; it borrows its context. Guard and source strings live as long
 * as the set. A produced set is independent of the env (which may be freed).
 *
 * Texts made with the set: sy_gset_produce and sy_gset_minimize (every call
 * that builds or changes a set) make the text, display and why of every
 * guard and of every entry of the Implied list before they return; they stay
 * (same pointers) until sy_gset_free or the next sy_gset_minimize. The
 * readers take the set const and keep that promise: they only read it.
 * Concurrent readers of one set are safe (any number of threads, no lock,
 * while no thread minimizes or frees it): sy_gset_at, sy_gset_implied_at,
 * sy_gset_nimplied, sy_gset_format, sy_gset_size, sy_gset_nsources,
 * sy_gset_source, sy_gset_source_var (tests/guards/test_gset_threads.c,
 * also run under ThreadSanitizer by scripts/tsan.sh). The calls that use the
 * set's context (sy_gset_check*, sy_gset_to_json, sy_gset_guard_canonical:
 * they allocate or report errors in it) read the set only, but like every
 * call on one context they must not run at once with another on it.
 */
#ifndef SYMSHAPE_GSET_H
#define SYMSHAPE_GSET_H
#include "symshape/graph.h"

SY_BEGIN_DECLS

typedef struct sy_gset sy_gset;

/** Kinds, in the order a minimized set lists them (cheapest first). */
typedef enum sy_gset_kind {
    SY_GK_TENSOR_MATCH = 0, /**< an input's rank or dtype */
    SY_GK_EQUALITY = 1,     /**< two sources equal (duck sizing, replacements) */
    SY_GK_SPECIALIZATION = 2, /**< a source pinned to a constant (static dim, 0/1, or by a guard) */
    SY_GK_RANGE = 3,        /**< a bound on one source */
    SY_GK_RELATION = 4,     /**< any other recorded decision */
    SY_GK_RUNTIME_ASSERT = 5 /**< a deferred assert on unbacked sizes (checked by the runtime after the data exists) */
} sy_gset_kind;

/** Name of a kind ("tensor_match", "equality", ...); static storage. */
SY_API const char *sy_gset_kind_name(sy_gset_kind k);

/** One guard (KEEP: owned by the set). Its texts (text, display, why) were
 *  made with the set (see "Texts made with the set" above). */
typedef struct sy_gset_guard {
    sy_gset_kind kind;
    const sy_expr *expr;    /**< canonical boolean over source variables (symbols named by the sources) */
    const char *text;       /**< source form, e.g. "x.size()[2] == 224" */
    const char *why;        /**< short explanation, e.g. "duck sizing: equal example sizes (224)" */
    unsigned count;         /**< times recorded during tracing (0 for derived guards) */
    size_t norigins;
    const sy_guard_origin *origins; /**< node / op / reason of each recording */
    size_t nslots;
    const size_t *slots;    /**< source indices the guard reads */
    const char *display;    /**< for people (text and markdown reports, HTML): text with a dtype by name,
                                 "x.dtype == float32" for text "x.dtype == 0"; else the same as text.
                                 Generated C and bytecode keep text (codes, sy_dtype). */
} sy_gset_guard;

/** Whether every text of the set (guards and the Implied list) could be
 *  made when the set was built (see "Texts made with the set" above); makes
 *  nothing, reads only (thread-safe, reports no error). A failing
 *  sy_gset_minimize leaves a text that could not be made reading "?"
 *  (sy_gset_at); this returns that status again, for a backend to refuse
 *  the set (sy_backend_render). sy_gset_produce instead fails and gives no set.
 *  @retval SY_OK @retval SY_EINVAL gs NULL @retval SY_ENOMEM
 *  @retval SY_EQUOTA a print exceeded the context's work budget (its message
 *  was the context's error when the set was built). */
SY_API sy_status sy_gset_format(const sy_gset *gs);

/** Produce the guard set of a traced env: tensor-match guards for every
 *  input of @p g (NULL: of every input sy_env_input registered, with the
 *  rank and dtype it was given),
 *  duck-sizing equalities, static and 0/1 specializations, every recorded
 *  guard translated to sources, and range guards for the symbols decisions
 *  relied on. Not minimized. Makes every guard's texts (see "Texts made with
 *  the set").
 *  @param[out] out the set (GIVE: free with sy_gset_free); NULL on every error.
 *  @retval SY_OK @retval SY_ENOMEM @retval SY_EINVAL
 *  @retval SY_EQUOTA a text's print exceeded the context's work budget */
SY_API sy_status sy_gset_produce(sy_env *env, const sy_graph *g, SY_GIVE sy_gset **out);
/** sy_gset_produce for a model that is not a sy_graph (e.g. an ONNX model,
 *  symshape/onnx.h): @p model names it (NULL: "model"), @p ins lists its
 *  @p ninputs inputs (KEEP; only name, dtype and ndim are read) for the
 *  tensor-match guards. Same result and errors as sy_gset_produce. */
SY_API sy_status sy_gset_produce_inputs(sy_env *env, const char *model, size_t ninputs,
                                        const sy_graph_input *const *ins, SY_GIVE sy_gset **out);
SY_API sy_gset *sy_gset_free(SY_TAKE SY_NULL sy_gset *gs);
/** The context @p gs lives in (KEEP: the one it was produced in; backends report their errors
 *  in it, sy_backend_fail). NULL for NULL. Reports no error. */
SY_API SY_KEEP sy_ctx *sy_gset_ctx(const sy_gset *gs);

/** Minimize in place: remove duplicates, merge the bounds of each source to
 *  the tightest pair, drop every guard implied by the others (sy_decide), and
 *  order cheap first (tensor match, equalities and specializations, ranges,
 *  relations by size, runtime asserts), deterministically. The set accepts
 *  exactly the points it accepted before. Then normalizes: the guards that
 *  read only one size source become its exact range (`1 <= FloorDiv(h + 1,
 *  16)` becomes `15 <= h`; `2 <= w` and `CeilDiv(w, 2) != 1` become `3 <= w`)
 *  when sy_decide proves the two equivalent over the sizes (integers >= 0);
 *  otherwise they stay as they are. Then computes the violations of the
 *  dynamic-dim spec (sy_gset_nviolations), and makes the texts of the
 *  guards it made and of the Implied list, after an error too (a text that
 *  cannot be made reads "?", sy_gset_format). */
SY_API sy_status sy_gset_minimize(sy_gset *gs);

/** What normalization did: @p replaced guards on one source became @p into
 *  exact range guards (why: "exact range of SRC (proved equivalent): ..."). */
SY_API void sy_gset_normalized(const sy_gset *gs, size_t *replaced, size_t *into);

/** A guard that minimization dropped because the kept guards imply it
 *  (KEEP: owned by the set, valid until the next sy_gset_minimize or
 *  sy_gset_free). Duplicates merged into one guard are not listed (their
 *  provenance is the kept guard's); guards normalization replaced by their
 *  exact range are named in that range guard's why. */
typedef struct sy_gset_implied {
    sy_gset_kind kind;
    const sy_expr *expr; /**< as sy_gset_guard.expr (over sy_gset_source_var) */
    const char *text;    /**< as sy_gset_guard.text */
    const char *display; /**< as sy_gset_guard.display */
    const char *why;     /**< the dropped guard's own why */
    size_t nby;
    const size_t *by;    /**< ascending indices (sy_gset_at) of kept guards that together imply it: the
                              facts the decision procedure was given (sy_decide returned TRUE, with every
                              symbolic divisor non-zero), where a fact dropped later is replaced by the
                              guards that imply it in turn; at most 16 */
    int partial;         /**< 1: more kept guards of its component took part than the 16 listed */
} sy_gset_implied;
/** Number of guards minimization dropped as implied (0 before sy_gset_minimize). */
SY_API size_t sy_gset_nimplied(const sy_gset *gs);
SY_API const sy_gset_implied *sy_gset_implied_at(const sy_gset *gs, size_t i);

SY_API size_t sy_gset_size(const sy_gset *gs);
SY_API const sy_gset_guard *sy_gset_at(const sy_gset *gs, size_t i);
SY_API size_t sy_gset_nsources(const sy_gset *gs);
/** Source text of slot @p i ("x.size()[2]"); KEEP. */
SY_API const char *sy_gset_source(const sy_gset *gs, size_t i);
/** The source variable of slot @p i (a symbol node named by the source). */
SY_API const sy_expr *sy_gset_source_var(const sy_gset *gs, size_t i);
/** The example size of source slot @p i: the value the trace saw (the
 *  input's example shape, rank or dtype code). 1 and *value (may be NULL)
 *  when the set knows it; 0 otherwise (i out of range, NULL @p gs, or a
 *  source without an example). Reports no error. */
SY_API int sy_gset_source_example(const sy_gset *gs, size_t i, int64_t *value);
/** Index of the source named @p text, or -1. */
SY_API long sy_gset_find_source(const sy_gset *gs, const char *text);
SY_API const char *sy_gset_model(const sy_gset *gs);
/** Counts: guards recorded during tracing (with repeats), after
 *  deduplication, and in the set now. */
SY_API void sy_gset_counts(const sy_gset *gs, size_t *recorded, size_t *deduplicated, size_t *kept);

/** The declared spec of source slot @p i (an input dim given a name or a
 *  range, sy_dim_spec): 1 and the name (NULL when unnamed; KEEP), the range
 *  after defaults (*max -1: oo) and the example size; 0 when the slot is not
 *  a declared dim. Any output pointer may be NULL. */
SY_API int sy_gset_source_spec(const sy_gset *gs, size_t i, SY_KEEP const char **name, int64_t *min, int64_t *max,
                               int64_t *example);

/** How a guard violates the dynamic-dim spec (torch.export's "Constraints
 *  violated"). */
typedef enum sy_violation_kind {
    SY_VIOL_PINNED = 0,       /**< the guards pin a declared dim to a constant */
    SY_VIOL_NARROWED = 1,     /**< the guard is exactly a narrower range of one declared dim */
    SY_VIOL_EQUAL = 2,        /**< it makes two dims of different names equal */
    SY_VIOL_FUNCTION = 3,     /**< it makes a declared dim a function of other dims (an equality) */
    SY_VIOL_DIVISIBILITY = 4, /**< a divisibility condition (Mod(...) == 0) no range expresses */
    SY_VIOL_RELATION = 5      /**< any other relation not implied by the spec */
} sy_violation_kind;

/** Name of a kind ("pinned", "narrowed", "equal", "function",
 *  "divisibility", "relation"); static storage. */
SY_API const char *sy_violation_kind_name(sy_violation_kind k);

/** One violation (KEEP: owned by the set). */
typedef struct sy_gset_violation {
    size_t guard;           /**< index of the guard in the (minimized) set */
    sy_violation_kind kind;
    const char *dims;       /**< the declared dims it constrains, by name ("h", "h and w"; unnamed: the source) */
    const char *message;    /**< "not all values of h in [2, oo) satisfy x.size()[2] == 224" */
    const char *fix;        /**< the suggested fix: "static 224", "batch = Dim('batch', max=512)",
                                 "h and w must be equal: give them one name", "h*w must be a multiple of 16 ..." */
    int model_requires;     /**< 1: an op's validity check or an _assert of the model itself forced it, so no
                                 spec keeps the dim dynamic over its whole range (fix says so) */
} sy_gset_violation;

/** Violations of the declared dims (sy_dim_spec) by the set, computed by
 *  sy_gset_minimize (a set not minimized has none): every kept guard reading
 *  a declared dim that the declared ranges, the equalities of same-named
 *  dims and the guards on other sources do not imply (decided with
 *  sy_decide, never assumed). Cost: one decision per such guard plus a few
 *  for its classification. */
SY_API size_t sy_gset_nviolations(const sy_gset *gs);
SY_API const sy_gset_violation *sy_gset_violation_at(const sy_gset *gs, size_t i);

/** Result of a check. Versioned by its size, as Windows' cbSize structs: the
 *  caller sets @p size to sizeof(sy_gset_result) (SY_GSET_RESULT_INIT does)
 *  before every call that fills it, and a library built with another layout
 *  refuses it (SY_EVERSION) instead of writing past the caller's struct. */
typedef struct sy_gset_result {
    size_t size;         /**< set by the caller: sizeof(sy_gset_result) */
    int accept;          /**< 1 accept, 0 reject */
    long failed;         /**< index of the first failing guard, -1 on accept or on an
                              input that cannot exist (its numel past int64: sy_gset_check) */
    char message[512];   /**< the failed guard's display, then each source it reads:
                              "x.size()[2] == 224 failed: x.size()[2] = 97"; a dtype source
                              by name and code: "x.dtype == float32 failed: x.dtype = float16 (code 2)";
                              at most 511 bytes and the NUL: see truncated */
    int truncated;       /**< 1: message was cut at 511 bytes (a long guard or many sources; the guard
                              itself is sy_gset_at(gs, failed)); 0: message is whole */
} sy_gset_result;
/** A result ready for a check: its size set, the rest 0. */
#define SY_GSET_RESULT_INIT {sizeof(sy_gset_result), 0, 0, {0}, 0}

/** Check concrete values (the reference checker the backends are tested
 *  against): exact bignum evaluation; guards are checked in order and the
 *  first failure is reported with the values of the sources it reads. A guard
 *  whose evaluation divides by zero fails. Values where every guard holds but
 *  an input's numel (the product of its NAME.size()[I] sources) is past
 *  int64 are rejected too (torch and onnxruntime compute numel as a checked
 *  int64: such an input cannot exist), with failed = -1 and the message
 *  "input x cannot exist: its numel N (the product of its sizes) is past
 *  int64 (9223372036854775807)".
 *  @param values array of n integer constants (expressions), one per source.
 *  @retval SY_OK (res filled) @retval SY_EINVAL n != number of sources or a
 *  value is not an integer constant. @retval SY_EVERSION res->size is not
 *  sizeof(sy_gset_result) (see sy_gset_result). Runtime asserts are not checked here. */
SY_API sy_status sy_gset_check(const sy_gset *gs, const sy_expr *const *values, size_t n, sy_gset_result *res);
/** The numel rule of sy_gset_check alone, for a checker without a set (the
 *  CLI's check of a bytecode file): @p sources are source names with their
 *  int64 @p values; the sizes of an input are its NAME.size()[I] sources next
 *  to each other, and an input whose numel (their product) is past int64
 *  cannot exist (a size 0 makes it 0; a negative size is left to the guards).
 *  Fills @p res as sy_gset_check does: accept, or failed = -1 and the message
 *  "input x cannot exist: its numel N (the product of its sizes) is past
 *  int64 (9223372036854775807)". Thread-safe, no context.
 *  @return 1 when an input cannot exist, 0 when none, -1 on a NULL argument or
 *  res->size not sizeof(sy_gset_result). */
SY_API int sy_gset_numel_check_si(const char *const *sources, const int64_t *values, size_t n, sy_gset_result *res);
/** Same with int64 values. */
SY_API sy_status sy_gset_check_si(const sy_gset *gs, const int64_t *values, size_t n, sy_gset_result *res);

/** Number of unbacked symbols of the traced env (data-dependent sizes and
 *  values: u0, u1, ... in creation order), which runtime asserts read. */
SY_API size_t sy_gset_nunbacked(const sy_gset *gs);
/** The symbol of unbacked value @p i (u<i>), or NULL; KEEP. */
SY_API const sy_expr *sy_gset_unbacked_var(const sy_gset *gs, size_t i);
/** What produced unbacked value @p i, e.g. "nz.size()[0] (from nonzero at
 *  node nz)"; KEEP; NULL if out of range. */
SY_API const char *sy_gset_unbacked_source(const sy_gset *gs, size_t i);

/** The run-time check: like sy_gset_check_si, and the runtime asserts too,
 *  with the unbacked values known once the data exists.
 *  @param values array of n int64, one per source (n = sy_gset_nsources).
 *  @param unbacked array of m int64: unbacked[i] is the value of
 *         sy_gset_unbacked_var(gs, i) (m = sy_gset_nunbacked; NULL if 0).
 *  Guards are checked in set order; the first failing one (a runtime assert
 *  included) is reported. @retval SY_OK (res filled) @retval SY_EINVAL n or m
 *  differs from the set's counts, or a NULL array. @retval SY_EVERSION as sy_gset_check.
 *  Not reentrant (fix38: the comment said it was): it evaluates in and reports errors in the
 *  set's context, so two calls on sets of one context must not run at once (it only reads the
 *  set: its texts were made with it). */
SY_API sy_status sy_gset_check_runtime_si(const sy_gset *gs, const int64_t *values, size_t n, const int64_t *unbacked,
                                          size_t m, sy_gset_result *res);

/** What an input source reads (sy_gset_source_parse). */
typedef enum { SY_SOURCE_DIM = 0, SY_SOURCE_DTYPE = 1, SY_SOURCE_SIZE = 2, SY_SOURCE_STRIDE = 3 } sy_source_kind;

/** Parse a source name: exactly `NAME.dim()`, `NAME.dtype`,
 *  `NAME.size()[I]` or `NAME.stride()[I]` (I decimal digits, no sign), with a
 *  non-empty NAME (which may itself contain dots). Reads @p src only up to its NUL.
 *  @param[out] namelen length of NAME in bytes (may be NULL).
 *  @param[out] dim I for SY_SOURCE_SIZE and SY_SOURCE_STRIDE (0-based; may be NULL).
 *  @return the sy_source_kind, or -1 for any other string (e.g.
 *          `x.dtypeZ`, `x.size()[`, `x.size()[-1]`, NULL). Thread-safe, pure. */
SY_API int sy_gset_source_parse(const char *src, size_t *namelen, size_t *dim);

/** Fill @p values (array of sy_gset_nsources int64) from input shapes:
 *  @p names / @p ranks / @p shapes / @p dtypes describe @p ninputs inputs.
 *  Missing sizes (rank smaller than expected) are set to 0 — the rank guard
 *  fails first. Two inputs of one name: the later is used. All KEEP (read
 *  during the call). Time: O(sources * log inputs).
 *  @retval SY_EINVAL an input of the set is missing, a NULL array or name.
 *  @retval SY_EUNSUPPORTED a source that sy_gset_source_parse rejects (named
 *  in the message). @retval SY_ENOMEM out of memory (more than 16 inputs:
 *  their names are sorted). */
SY_API sy_status sy_gset_values_from_shapes(const sy_gset *gs, size_t ninputs, const char *const *names,
                                            const size_t *ranks, const int64_t *const *shapes, const sy_dtype *dtypes,
                                            int64_t *values);
/** Same, with the inputs' strides (elements, as Tensor.stride()): @p strides
 *  NULL, or @p ninputs entries each NULL or ranks[i] strides. A stride source
 *  (`NAME.stride()[I]`, present when the graph declares the input's strides or
 *  reads strides, docs/guards.md) of an input without strides takes the
 *  contiguous stride (the product of Max(size, 1) over the dims after dim I,
 *  as sy_tensor_contig_stride, saturated at INT64_MAX); sy_gset_values_from_shapes is this with @p strides NULL.
 *  Errors as sy_gset_values_from_shapes. */
SY_API sy_status sy_gset_values_from_tensors(const sy_gset *gs, size_t ninputs, const char *const *names,
                                             const size_t *ranks, const int64_t *const *shapes,
                                             const int64_t *const *strides, const sy_dtype *dtypes, int64_t *values);

/** The canonical text of guard @p i: its expression with every source it
 *  reads renamed `_s<slot>` (slot = the source's index, sy_gset_source), as
 *  in the JSON's "expr" and the report's "canonical:" line; re-parseable by
 *  sy_expr_parse. Cost: linear in the guard's size, not in the set's.
 *  @param gs the set (KEEP).
 *  @param i the guard's index, < sy_gset_size(gs).
 *  @return the text (GIVE: free with sy_str_free on the set's context), or
 *          NULL: SY_EINVAL (gs NULL or i out of range) or SY_ENOMEM, recorded
 *          in the context. */
SY_API SY_GIVE char *sy_gset_guard_canonical(const sy_gset *gs, size_t i);

/** Stable JSON form (docs/guards.md, "symshape.guards" version 1); GIVE:
 *  free with sy_str_free. NULL on SY_ENOMEM, or SY_EFORMAT when a text of
 *  the set (the model's name, a source, a guard's text or why, an origin's
 *  node, op, reason or loc, ...) is not valid UTF-8, which JSON cannot carry
 *  (a name from an ONNX model may hold any bytes); the message names it. */
SY_API SY_GIVE char *sy_gset_to_json(const sy_gset *gs);

SY_END_DECLS
#endif
