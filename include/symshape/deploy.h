/**
 * @file symshape/deploy.h
 * @brief Deployment: the largest valid region of a guard set as a ready
 *        spec (torch.export dynamic_shapes, JAX symbolic shapes, ONNX
 *        dim_params, the --dynamic string), proved with the decision
 *        procedure. See docs/deploy.md (issue 36).
 *
 * ## Model
 * A region describes a set of input sizes by *region variables* t_0, t_1, ...
 * (torch.export's root `Dim`s), each in an integer range [tmin, tmax], and
 * every size source of the guard set (`x.size()[2]`) as either a constant
 * (static) or an affine function `a*t_k + b` of one variable. A congruence
 * (`H = 32*h + 1`) is the affine function of the dim's own variable; an
 * equality between dims (`y.size()[0] == 2*x.size()[0] + 1`) makes the second
 * a derived dim of the first one's variable.
 *
 * It is built from a minimized guard set (sy_gset_minimize), best produced
 * under the most relaxed policy (sy_env_options: duck_sizing 0,
 * specialize_zero_one 0), so that the guards, not the policy, shape it:
 *  1. the linear equalities between sources (`s == 3`, `s1 == s2`,
 *     `s1 == 2*s2 + 1`) become statics and derived dims, as long as each
 *     size stays affine in one root;
 *  2. per root, the guards that read only that root (after the equalities)
 *     give its range (sy_facts_get_range) and, by exact evaluation over a
 *     window of sizes around the range's low end and the example, the
 *     progression of the accepted sizes (modulus, residue);
 *  3. every guard is then substituted (each source by its affine function of
 *     the variables) and decided (sy_decide) under the variables' ranges.
 *     A guard decided TRUE is *proved*: every point of the region satisfies
 *     it. Every other guard (several roots related non-linearly, a hole in
 *     the sizes such as `s != 5`, a runtime assert, or an answer UNKNOWN) is
 *     *kept as a runtime check*, with the reason; none is dropped.
 * The guarantee (when sy_region_proved is 1): every point of the region that
 * satisfies the kept checks satisfies the whole guard set. Nothing is
 * assumed: a step that cannot be decided keeps the guard, never proves it.
 *
 * Ownership: a region (GIVE from sy_region_new) is freed with
 * sy_region_free; it borrows the guard set's context and is independent of
 * the set once built (strings are copied). Strings returned by
 * sy_region_format are GIVE (sy_str_free on the context). Not thread-safe
 * (calls on one context).
 */
#ifndef SYMSHAPE_DEPLOY_H
#define SYMSHAPE_DEPLOY_H
#include "symshape/gset.h"

SY_BEGIN_DECLS

typedef struct sy_region sy_region;

#define SY_REGION_OPTIONS_VERSION 1u
/** Options of sy_region_new. */
typedef struct sy_region_options {
    unsigned version; /**< SY_REGION_OPTIONS_VERSION */
    int64_t window;   /**< sizes evaluated per root to find its progression, in each of two windows (the
                           range's low end, the example): 1 .. 1000000; default 2048 */
} sy_region_options;
#define SY_REGION_OPTIONS_INIT {SY_REGION_OPTIONS_VERSION, 2048}

/** No upper bound (tmax, max). */
#define SY_REGION_UNBOUNDED (-1)

/** One region variable (a root Dim): t in [tmin, tmax]. KEEP: owned by the region. */
typedef struct sy_region_var {
    const char *name; /**< identifier, e.g. "x_0" or "x_2_k" (the dim's name + "_k" when the dim is a progression) */
    int64_t tmin;     /**< >= 0 is not implied: the range is what the region needs */
    int64_t tmax;     /**< SY_REGION_UNBOUNDED: no bound */
} sy_region_var;

/** One size source of the guard set (an input dim). KEEP: owned by the region. */
typedef struct sy_region_dim {
    size_t source;     /**< slot in the guard set (sy_gset_source) */
    const char *input; /**< the input's name */
    size_t dim;        /**< dim index, 0-based */
    const char *name;  /**< a name for the dim (the declared Dim name, or INPUT_DIM sanitized) */
    int is_static;     /**< 1: the size is the constant @p value */
    int64_t value;     /**< the static size */
    size_t var;        /**< otherwise: size = a*t[var] + b */
    int64_t a, b;      /**< a >= 1 */
    int64_t min, max;  /**< the size's own range over the region (max SY_REGION_UNBOUNDED: none) */
    int64_t example;   /**< the traced example size (-1 unknown) */
} sy_region_dim;

/** A guard the region does not express, kept as a runtime check. KEEP. */
typedef struct sy_region_kept {
    size_t guard;       /**< index in the guard set (sy_gset_at) */
    const char *text;   /**< the guard's text */
    const char *reason; /**< why it is kept, e.g. "relates several dims non-linearly" */
} sy_region_kept;

/** Build the region of the minimized guard set @p gs (KEEP; the region
 *  uses its context). @p opts NULL: defaults.
 *  Cost: per root, 2*window evaluations of the guards reading it; one
 *  decision per guard; each bounded by the context's budgets.
 *  @retval SY_OK *out set (GIVE)
 *  @retval SY_EINVAL NULL argument, or a window outside 1 .. 1000000
 *  @retval SY_EVERSION unknown options version
 *  @retval SY_EOVERFLOW a bound or coefficient does not fit int64
 *  @retval SY_ENOMEM @retval SY_EQUOTA a budget ran out (nothing is guessed)
 *  The message is the context's (sy_ctx_last_error_msg). */
SY_API sy_status sy_region_new(const sy_gset *gs, const sy_region_options *opts, SY_GIVE sy_region **out);
/** Free; accepts NULL; returns NULL. */
SY_API sy_region *sy_region_free(SY_TAKE SY_NULL sy_region *r);

SY_API size_t sy_region_nvars(const sy_region *r);
/** Variable @p i (< sy_region_nvars) or NULL. */
SY_API const sy_region_var *sy_region_var_at(const sy_region *r, size_t i);
/** Number of size sources (input dims) of the set. */
SY_API size_t sy_region_ndims(const sy_region *r);
SY_API const sy_region_dim *sy_region_dim_at(const sy_region *r, size_t i);
SY_API size_t sy_region_nkept(const sy_region *r);
SY_API const sy_region_kept *sy_region_kept_at(const sy_region *r, size_t i);
/** 1 when every guard not kept was proved (sy_decide TRUE) to hold at every
 *  point of the region, every size proved >= 0 there, and the example lies
 *  inside; 0 otherwise ("not proved": the region must not be used without the
 *  whole guard set). @p nproved (may be NULL): the number of guards proved. */
SY_API int sy_region_proved(const sy_region *r, size_t *nproved);

/** Output forms of sy_region_format. */
typedef enum sy_region_fmt {
    SY_REGION_TEXT = 0,  /**< for people: one line per dim, the kept checks, the proof status */
    SY_REGION_TORCH = 1, /**< Python: torch.export `Dim`s and `dynamic_shapes` (derived dims, Dim.STATIC) */
    SY_REGION_JAX = 2,   /**< Python: jax.export.SymbolicScope constraints and symbolic_shape strings */
    SY_REGION_ONNX = 3,  /**< JSON: per input dim_value/dim_param, the relations as metadata_props */
    SY_REGION_SPEC = 4,  /**< symshape --dynamic options (names and ranges; what they cannot say as comments) */
    SY_REGION_JSON = 5   /**< JSON "symshape.region" version 1: vars, dims, kept, proof (docs/deploy.md) */
} sy_region_fmt;

/** Render @p r. GIVE: release with sy_str_free on the set's context.
 *  NULL on error: SY_EINVAL (NULL @p r or unknown @p fmt), SY_ENOMEM,
 *  SY_EFORMAT (SY_REGION_ONNX, SY_REGION_JSON: a name that is not valid
 *  UTF-8, which JSON cannot carry). */
SY_API SY_GIVE char *sy_region_format(const sy_region *r, sy_region_fmt fmt);

/** Whether the sizes @p values (one per source of the set, as
 *  sy_gset_check_si) lie in the region (not counting the kept checks).
 *  @param[out] inside 1 inside, 0 outside
 *  @param[out] why (may be NULL) on 0: which dim and constraint fails
 *  @param whylen bytes of @p why
 *  @retval SY_OK @retval SY_EINVAL NULL or n != number of sources. */
SY_API sy_status sy_region_contains_si(const sy_region *r, const int64_t *values, size_t n, int *inside, char *why,
                                       size_t whylen);

/* ---------------------------------------------------------------- Profiles */

/** Optimization profiles (TensorRT, onnxruntime's TensorRT provider, Torch-TensorRT,
 *  OpenVINO): boxes of input shapes, min/opt/max per dim, each proved inside the accepted set.
 *  A box is a product of per-dim intervals, so a dim whose variable is a progression
 *  (a > 1) or is shared with another dim (an equality, a derived dim) is *pinned* in every box
 *  (min = opt = max): a range there would hold sizes the guards reject. The other dims
 *  (*free*) get intervals. GIVE from sy_profiles_new, freed with sy_profiles_free; borrows
 *  the guard set's context; independent of the set and the region once built. */
typedef struct sy_profiles sy_profiles;

#define SY_PROFILE_OPTIONS_VERSION 1u
typedef struct sy_profile_options {
    unsigned version; /**< SY_PROFILE_OPTIONS_VERSION */
    size_t k;         /**< boxes wanted: 1 .. 64; 0: one per group of pinned values, at most 4 */
    int64_t max_size; /**< without points: the largest size of a free dim whose region is unbounded
                           (default 0: 4 times the example, at least its minimum + 1) */
} sy_profile_options;
#define SY_PROFILE_OPTIONS_INIT {SY_PROFILE_OPTIONS_VERSION, 0, 0}

/** One box. KEEP: owned by the profiles. Arrays of sy_region_ndims entries, in the region's
 *  dim order (sy_region_dim_at). */
typedef struct sy_profile_box {
    const int64_t *min, *opt, *max;
    uint64_t covered; /**< histogram count inside the box */
    double share;     /**< covered / total count of the histogram (0 without points) */
} sy_profile_box;

/** Build profiles of the region @p r of @p gs (both KEEP) from a histogram: @p npoints
 *  points, point i being @p points[i*nsrc .. i*nsrc+nsrc-1] (values per source of the set, as
 *  sy_gset_check_si) seen @p counts[i] times. Points outside the region or rejected by the set
 *  are not covered (sy_profiles_counts). The points of each group of pinned values form
 *  boxes; the groups with the largest counts get a box each, and the rest of the k boxes
 *  split the heaviest boxes at the weighted median of their widest free dim. opt is the mode
 *  (the most frequent point) of each box. Every box is proved: each guard of the set (but the
 *  runtime asserts, checked once the data exists) decided TRUE, with its divisors non-zero, at
 *  every point of the box; a box that is not is split until it is, or dropped.
 *  With @p npoints 0, one box: free dims over their region range (unbounded ends cut at
 *  max_size), pinned dims at the example; its minimum is raised to 1, then 2 when that is what
 *  the proof needs. Cost: O(k * points) plus one decision per guard per box tried.
 *  @retval SY_OK @retval SY_EINVAL NULL argument, k > 64, a region not of this set
 *  @retval SY_EOVERFLOW the counts add up past INT64_MAX
 *  @retval SY_EVERSION @retval SY_ENOMEM @retval SY_EQUOTA */
SY_API sy_status sy_profiles_new(const sy_gset *gs, const sy_region *r, const sy_profile_options *opts, size_t npoints,
                                 const int64_t *points, const uint64_t *counts, SY_GIVE sy_profiles **out);
SY_API sy_profiles *sy_profiles_free(SY_TAKE SY_NULL sy_profiles *p);
SY_API size_t sy_profiles_size(const sy_profiles *p);
SY_API const sy_profile_box *sy_profiles_at(const sy_profiles *p, size_t i);
/** Histogram counts: total, outside the region or rejected by the guards, and inside but
 *  left out of every box (groups past k, dropped boxes). Any pointer may be NULL. */
SY_API void sy_profiles_counts(const sy_profiles *p, uint64_t *total, uint64_t *outside, uint64_t *uncovered);

typedef enum sy_profile_fmt {
    SY_PROFILE_TEXT = 0,     /**< for people */
    SY_PROFILE_TRTEXEC = 1,  /**< trtexec --minShapes/--optShapes/--maxShapes, one line per profile */
    SY_PROFILE_ORT = 2,      /**< onnxruntime TensorRT provider options trt_profile_{min,opt,max}_shapes */
    SY_PROFILE_TORCH_TRT = 3,/**< Torch-TensorRT Input(min_shape=, opt_shape=, max_shape=) per profile */
    SY_PROFILE_OPENVINO = 4, /**< OpenVINO PartialShape intervals per profile */
    SY_PROFILE_JSON = 5      /**< JSON "symshape.profiles" version 1 */
} sy_profile_fmt;

/** Render; GIVE (sy_str_free on the context). NULL on SY_EINVAL / SY_ENOMEM, or SY_EFORMAT
 *  (SY_PROFILE_JSON: an input's name that is not valid UTF-8, which JSON cannot carry). */
SY_API SY_GIVE char *sy_profiles_format(const sy_profiles *p, sy_profile_fmt fmt);

/* ---------------------------------------------------------------- Corners */

/** Corner tests: the sizes where the guard set changes its mind, each with the guard it
 *  tests. GIVE from sy_corners_new, freed with sy_corners_free; independent of the set and
 *  the region once built. */
typedef struct sy_corners sy_corners;

/** One corner. KEEP: owned by the corners. */
typedef struct sy_corner {
    const char *label;     /**< what it tests: "x_2 = min - 1", "x_2 off its progression (+1)",
                                "y_0 != x_0 (equality broken)", "x_0 = 0" */
    const int64_t *values; /**< one per source of the set (as sy_gset_check_si) */
    int in_region;         /**< 1 inside the region (sy_region_contains_si) */
    int accept;            /**< 1 the guard set accepts it */
    const char *guard;     /**< on reject: the failing guard's check message (sy_gset_result.message); else NULL */
} sy_corner;

/** The corners of region @p r of @p gs (both KEEP), from the example point (the region's
 *  lowest point where the example is not in it): per variable its range ends and one past
 *  them, sizes 0, 1 and 2 of its plain dims, one off each progression (+1 and -1), and for a
 *  variable shared by several dims each of them +1 alone (the equality broken); the other
 *  variables stay at the base. Duplicates and points with a negative size are left out. Every
 *  corner is checked with sy_gset_check_si. Cost: O(dims) corners, one check each.
 *  @retval SY_OK @retval SY_EINVAL NULL argument or a region of another set @retval SY_ENOMEM */
SY_API sy_status sy_corners_new(const sy_gset *gs, const sy_region *r, SY_GIVE sy_corners **out);
SY_API sy_corners *sy_corners_free(SY_TAKE SY_NULL sy_corners *c);
SY_API size_t sy_corners_size(const sy_corners *c);
SY_API const sy_corner *sy_corners_at(const sy_corners *c, size_t i);
/** JSON {"format": "symshape.corners", "version": 1, "corners": [{"label", "sizes": {INPUT:
 *  [D, ...]}, "in_region", "accept", "guard"}]}; GIVE (sy_str_free). NULL on SY_ENOMEM, or
 *  SY_EFORMAT when an input's name, a label or a guard is not valid UTF-8 (JSON cannot carry it). */
SY_API SY_GIVE char *sy_corners_to_json(const sy_corners *c);

/* ---------------------------------------------------------------- Memory envelopes */

/** Memory envelopes: every tensor value of a traced graph with its element count and bytes
 *  as expressions of the region's variables (symbols named by sy_region_var.name; dtype
 *  sizes from the graph), and the largest value of one variable that fits a byte budget.
 *  GIVE from sy_memory_new, freed with sy_memory_free; borrows the context. */
typedef struct sy_memory sy_memory;

/** One tensor value. KEEP: owned by the envelope. */
typedef struct sy_memory_value {
    const char *node;     /**< the graph node */
    const char *op;       /**< its op ("param" for weights) */
    int64_t elem_bytes;   /**< bytes per element of its dtype */
    const sy_expr *numel; /**< element count, over the region's variables */
    const sy_expr *bytes; /**< numel * elem_bytes */
} sy_memory_value;

/** Build the envelopes of trace @p tr of graph @p g in env @p env (all KEEP), over region @p r
 *  (KEEP; of the guard set produced from this env). A value whose sizes read a symbol the region
 *  does not map (an unbacked size) is left out (sy_memory_nskipped). Liveness (SY_MEM_LIVE): a
 *  value lives from its node to the last node reading it, the graph's outputs (sy_graph_output_refs)
 *  to the last node. Cost: one product and one substitution per value; linear in the graph.
 *  @retval SY_OK @retval SY_EINVAL NULL argument @retval SY_ENOMEM @retval SY_EQUOTA */
SY_API sy_status sy_memory_new(sy_env *env, const sy_graph *g, const sy_trace *tr, const sy_region *r, SY_GIVE sy_memory **out);
/** One tensor value handed to sy_memory_new_values by a frontend (the ONNX reader's values). */
typedef struct sy_memory_input {
    const char *node;   /**< its name (copied) */
    const char *op;     /**< its op (copied); "param" for weights, which the measures exclude */
    const sy_tensor *t; /**< its fake tensor (KEEP): dtype ignored, sizes read */
    int64_t elem_bytes; /**< bytes per element, >= 1 */
    size_t born;        /**< the node (0 .. nnodes - 1) that makes it; graph inputs and weights: 0 */
    size_t dies;        /**< the last node that reads it (born <= dies < nnodes); outputs: nnodes - 1 */
} sy_memory_input;

/** sy_memory_new for values given one by one (@p n of them, in node order: born
 *  non-decreasing), over @p nnodes nodes (>= 1): the ONNX frontend's values, with their element
 *  sizes from the ONNX element types. Linear in n plus nnodes (one product and one substitution
 *  per value).
 *  @retval SY_OK @retval SY_EINVAL NULL argument, nnodes 0, elem_bytes < 1, born > dies or dies >=
 *  nnodes, born decreasing (message: the value) @retval SY_ENOMEM @retval SY_EQUOTA */
SY_API sy_status sy_memory_new_values(sy_env *env, size_t nnodes, size_t n, const sy_memory_input *vals, const sy_region *r,
                                      SY_GIVE sy_memory **out);
SY_API sy_memory *sy_memory_free(SY_TAKE SY_NULL sy_memory *m);
SY_API size_t sy_memory_size(const sy_memory *m);
SY_API const sy_memory_value *sy_memory_at(const sy_memory *m, size_t i);
/** Values left out (sizes not over the region's variables). */
SY_API size_t sy_memory_nskipped(const sy_memory *m);

/** What sy_memory_largest bounds. */
typedef enum sy_memory_what {
    SY_MEM_LARGEST = 0, /**< the largest single activation (weights excluded) */
    SY_MEM_TOTAL = 1,   /**< the sum of every activation (all kept alive; weights excluded) */
    SY_MEM_LIVE = 2     /**< the largest sum of the activations live at one node in graph order: a
                             value lives from its node to the last node reading it (the graph's
                             outputs to the end); views count as values (an upper bound where
                             they share storage); weights excluded */
} sy_memory_what;

/** The largest value t* of region variable @p var, the other variables at @p fixed (array of
 *  sy_region_nvars values; entry @p var ignored), such that @p what fits @p budget bytes:
 *  found by exact evaluation (doubling, then bisection), then *proved* with sy_decide: every
 *  activation's bytes (or their sum) <= budget for every t in [tmin, t*] (*proved = 1), while
 *  t* + 1 exceeds it by exact evaluation (or is past the variable's range; or t* = 2^40, where
 *  the search of an unbounded variable stops, and t* + 1 may fit too). *proved = 0 when
 *  the decision procedure cannot show the whole interval (a non-monotone size): then t* is only
 *  the bisection's answer. *best = -1 when even tmin does not fit.
 *  SY_MEM_LIVE: the live sum at each node, proved at each value's node (one sum and one decision
 *  per value; the sweep of one evaluation is linear in the graph).
 *  @retval SY_OK @retval SY_EINVAL NULL, var out of range, a fixed value outside its range, an
 *  unknown @p what
 *  @retval SY_ENOMEM @retval SY_EQUOTA */
SY_API sy_status sy_memory_largest(const sy_memory *m, const sy_region *r, size_t var, const int64_t *fixed,
                                   sy_memory_what what, uint64_t budget, int64_t *best, int *proved);

/** sy_memory_largest with variables tied to @p var: for each v != var with tie_a[v] != 0, t_v =
 *  tie_a[v] * t_var + tie_b[v] (tie_a[v] in 1 .. 2^20, |tie_b[v]| <= 2^40; fixed[v] ignored): "the
 *  largest batch with seq = 4 * batch" (then batch * seq is the largest too). The search runs over
 *  the values of var that keep it and every tied variable in range; the proof decides each
 *  activation's bytes (or the sums) with the tied variables replaced by their forms, over t_var from
 *  that lowest value up to *best. @p tie_a, @p tie_b: arrays of sy_region_nvars values, or both
 *  NULL (no tie: sy_memory_largest). *stop (NULL: not written): 0 when *best + 1 does not fit (exact
 *  evaluation), 1 when *best is the end of the range (var's or a tied variable's), 2 when it is the
 *  2^40 cap of an unbounded variable (larger values may fit).
 *  @retval SY_OK @retval SY_EINVAL as sy_memory_largest; a factor or offset out of bounds, one of
 *  tie_a/tie_b NULL, no value of var keeping the tied variables in range (message: the variable)
 *  @retval SY_ENOMEM @retval SY_EQUOTA */
SY_API sy_status sy_memory_largest_tied(const sy_memory *m, const sy_region *r, size_t var, const int64_t *fixed,
                                        const int64_t *tie_a, const int64_t *tie_b, sy_memory_what what, uint64_t budget,
                                        int64_t *best, int *proved, int *stop);

/** The peak of @p what over the box lo[v] <= t_v <= hi[v] (arrays of sy_region_nvars values, inside
 *  the variables' ranges): *peak is its exact value at the box's upper corner, and *proved = 1
 *  when the decision procedure shows that it is <= *peak at every point of the box (then *peak is
 *  the largest value over the box, reached at that corner); *proved = 0 when it cannot (a size
 *  that is not monotone, a budget): *peak is then only the corner's value. Cost: one exact
 *  evaluation and the decisions of sy_memory_largest's proof.
 *  @retval SY_OK @retval SY_EINVAL NULL, an empty box or one outside the ranges, an unknown @p what
 *  @retval SY_EOVERFLOW the corner's bytes pass 2^64 - 1 @retval SY_ENOMEM @retval SY_EQUOTA */
SY_API sy_status sy_memory_peak(const sy_memory *m, const sy_region *r, const int64_t *lo, const int64_t *hi,
                                sy_memory_what what, uint64_t *peak, int *proved);

SY_END_DECLS
#endif
