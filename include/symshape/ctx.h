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

#define SY_CTX_OPTIONS_VERSION 1u

/** Context options. Initialise with SY_CTX_OPTIONS_INIT or
 *  sy_ctx_options_init(), then change fields. */
typedef struct sy_ctx_options {
    unsigned version;       /**< must be SY_CTX_OPTIONS_VERSION */
    const sy_allocator *allocator; /**< NULL: the C library's malloc */
    /** Expansion budget: the largest number of terms a product or power may
     *  produce (default 200000). Past it, construction fails with SY_EQUOTA. */
    size_t max_terms;
    /** Largest exponent accepted by pow (default 4096). */
    uint64_t max_exponent;
    /** Largest constant, in bits, that a constant power may produce
     *  (default 1<<16). */
    uint64_t max_const_bits;
    /** Debug aid: abort() on the first error instead of returning it.
     *  Never set in production. */
    int abort_on_error;
} sy_ctx_options;

#define SY_CTX_OPTIONS_INIT {SY_CTX_OPTIONS_VERSION, NULL, 200000u, 4096u, 65536u, 0}

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
 *  @retval SY_EINVAL out is NULL or an option is out of range.
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
