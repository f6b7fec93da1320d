/**
 * @file symshape/ctx.h
 * @brief Contexts: allocation, budgets and error reporting.
 *
 * A context owns every expression built in it (see expr.h). It is not
 * thread-safe: use one context per thread, or serialize access. Functions that
 * fail record a status and a message in the context; the library never prints
 * and never aborts on bad input.
 */
#ifndef SYMSHAPE_CTX_H
#define SYMSHAPE_CTX_H
#include "symshape/types.h"

SY_BEGIN_DECLS

/** Allocator injection. Every allocation the library makes goes through it.
 *  Memory that FLINT and GMP allocate internally (bignum limbs, polynomial
 *  arithmetic scratch) does not: those libraries abort when out of memory. */
typedef struct sy_allocator {
    void *(*malloc)(void *ud, size_t size);
    void *(*realloc)(void *ud, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *ud, void *ptr, size_t size);
    void *ud; /**< passed back as the first argument */
} sy_allocator;

#define SY_CTX_OPTIONS_VERSION 2u

/** Context options. Initialise with SY_CTX_OPTIONS_INIT or
 *  sy_ctx_options_init(), then change fields.
 *
 *  Version 2 added the three work budgets (max_steps, max_work_terms,
 *  max_work_bytes) at the end; sy_ctx_new still accepts a version-1 struct
 *  (without them) and gives it the default budgets.
 *
 *  **Work budgets.** An *operation* is one call of sy_expr_parse,
 *  sy_simplify, sy_decide, sy_bound, sy_facts_add, sy_expr_print,
 *  sy_expr_print_let, sy_expr_eval, sy_expr_subs, sy_expr_mul, sy_expr_mul_n,
 *  sy_expr_pow_ui, sy_expr_floordiv/mod/ceildiv, or the work on one graph
 *  node in sy_env_trace; calls made inside an operation belong to it. Each
 *  operation starts from zero and may spend at most:
 *  - max_steps *steps*: one step is one node interned (built or found), or
 *    one node visited by a recursive pass (simplify, bound, evaluation,
 *    printing, substitution);
 *  - max_work_terms *terms* appended to intermediate sums (every term of
 *    every partial result of an expansion, merged or not);
 *  - max_work_bytes *bytes* allocated through the context's allocator and
 *    not freed again within the operation (node arena included; memory
 *    FLINT/GMP allocate internally is not counted).
 *  Past any of them the operation fails with SY_EQUOTA and a message naming
 *  the budget, its value and the option that raises it. When an operation
 *  that only builds or queries expressions (all of the above except
 *  sy_facts_add and sy_env_trace) fails, every node it interned is
 *  released, so the context holds what it held before the call (its
 *  allocation counter, sy_ctx_stats.live_blocks, and node count return to
 *  their values before the call).
 *  The defaults are sized so that an operation stops within about a second
 *  on a 2020s core: max_steps 20000000, max_work_terms 20000000,
 *  max_work_bytes 256 MiB.
 *
 *  **Nesting.** An expression nests at most 2000 levels deep (a leaf is level
 *  0; a node is one level above its deepest argument), whatever the options:
 *  every recursive pass recurses once per level, and the limit keeps their
 *  stack use within about 2 MB (ASan builds included). Building a deeper node
 *  fails with SY_EQUOTA ("expression nested deeper than 2000 levels"). */
typedef struct sy_ctx_options {
    unsigned version;       /**< must be SY_CTX_OPTIONS_VERSION (or 1) */
    const sy_allocator *allocator; /**< NULL: the C library's malloc */
    /** Expansion budget: the largest number of terms a product or power may
     *  produce (default 200000). Past it, construction fails with SY_EQUOTA. */
    size_t max_terms;
    /** Largest exponent accepted by pow (default 4096). */
    uint64_t max_exponent;
    /** Largest constant, in bits, that the context builds: an integer, a
     *  coefficient or constant term of a sum, or a constant power's result
     *  (default 4096 bits; shape arithmetic is int64). Past it, the operation fails with
     *  SY_EQUOTA ("constant of N bits exceeds max_const_bits"); a chain of
     *  FloorDiv(x, 6) (whose divisor multiplies) stops there instead of
     *  growing its constants without bound. */
    uint64_t max_const_bits;
    /** Debug aid: abort() on the first error instead of returning it.
     *  Never set in production. */
    int abort_on_error;
    /* ---- version 2 */
    /** Steps per operation (see above; default 20000000; must be > 0). */
    uint64_t max_steps;
    /** Intermediate terms per operation (default 20000000; must be > 0). */
    uint64_t max_work_terms;
    /** Bytes per operation (default 256 MiB = 268435456; must be > 0). */
    uint64_t max_work_bytes;
} sy_ctx_options;

#define SY_CTX_OPTIONS_INIT                                                                                      \
    {SY_CTX_OPTIONS_VERSION, NULL, 200000u, 4096u, 4096u, 0, 20000000u, 20000000u, (uint64_t)256u << 20}

/** Fill @p opts with the defaults for options version @p version.
 *  @retval SY_OK
 *  @retval SY_EVERSION @p version is not one this library knows.
 *  @retval SY_EINVAL @p opts is NULL. */
SY_API sy_status sy_ctx_options_init(sy_ctx_options *opts, unsigned version);

/** Create a context.
 *  @param[in] opts options, or NULL for the defaults (KEEP; copied).
 *  @param[out] out receives the new context (GIVE: free with sy_ctx_free).
 *  @retval SY_OK
 *  @retval SY_EVERSION opts->version is unknown.
 *  @retval SY_EINVAL out is NULL or an option is out of range (a budget of 0).
 *  @retval SY_ENOMEM allocation failed. */
SY_API sy_status sy_ctx_new(const sy_ctx_options *opts, SY_GIVE sy_ctx **out);

/** Free a context and every expression it owns. Accepts NULL. Returns NULL
 *  so that callers can write `ctx = sy_ctx_free(ctx);`. */
SY_API sy_ctx *sy_ctx_free(SY_TAKE SY_NULL sy_ctx *ctx);

/** Status of the last failed call in @p ctx (SY_OK when none since the last
 *  reset). */
SY_API sy_status sy_ctx_last_error(const sy_ctx *ctx);
/** Message of the last error: "" when none. KEEP: valid until the next error
 *  or reset in this context. */
SY_API const char *sy_ctx_last_error_msg(const sy_ctx *ctx);
/** Byte offset the last error refers to (parsers), or -1 when it has none. */
SY_API long sy_ctx_last_error_offset(const sy_ctx *ctx);
/** Clear the last error. */
SY_API void sy_ctx_reset_error(sy_ctx *ctx);

/** The context's rollback generation: a counter that grows each time a spent
 *  work budget ends an operation (see "Work budgets" above), whether or not
 *  the operation's nodes were released. A node's address may be reused for
 *  another expression only after such a release, so a cache outside the
 *  algebra that is keyed on expression addresses stays valid while the
 *  generation it was filled in is current (the trace's op memo keys on it).
 *  Starts at 0 in a new context; 0 for NULL. No error. */
SY_API uint64_t sy_ctx_generation(const sy_ctx *ctx);

/** Statistics of a context's intern table. */
typedef struct sy_ctx_stats {
    size_t nodes;        /**< expression nodes interned */
    size_t node_bytes;   /**< bytes of node storage (arena), excluding bignum limbs */
    size_t table_slots;  /**< slots in the intern hash table */
    size_t symbols;      /**< distinct symbols */
    size_t live_blocks;  /**< blocks currently allocated through the allocator */
} sy_ctx_stats;

/** Read the statistics of @p ctx into @p out. */
SY_API void sy_ctx_get_stats(const sy_ctx *ctx, sy_ctx_stats *out);

SY_END_DECLS
#endif
