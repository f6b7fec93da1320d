/**
 * @file symshape/backend.h
 * @brief Pluggable renderers of a guard set: a backend is a vtable (name,
 *        description, render) in a registry. The built-ins ("report",
 *        "markdown", "json", "c", "bytecode", "smtlib", and "html" in a
 *        library built with cmark-gfm) register through the same
 *        sy_backend_register() a user calls. See docs/index.md.
 *
 * Thread safety: every registry call (register, find, count, at, render) may
 * be made from any thread at any time: the built-in backends are registered
 * exactly once (pthread_once) before the first lookup or registration, and
 * the table is guarded by a mutex. Entries are never removed, so a returned
 * sy_backend stays valid for the life of the process.
 */
#ifndef SYMSHAPE_BACKEND_H
#define SYMSHAPE_BACKEND_H
#include "symshape/gset.h"

SY_BEGIN_DECLS

/** Where a backend writes: an in-memory byte buffer owned by the caller of
 *  sy_backend_render (opaque; write with sy_output_write / sy_output_printf). */
typedef struct sy_output sy_output;

/** Append @p n bytes. @retval SY_OK @retval SY_ENOMEM (sticky: later writes
 *  do nothing and the render returns SY_ENOMEM). */
SY_API sy_status sy_output_write(sy_output *out, const void *data, size_t n);
SY_API sy_status sy_output_printf(sy_output *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#define SY_BACKEND_OPTIONS_VERSION 1u
/** Options shared by the backends (each reads what it needs). */
typedef struct sy_backend_options {
    unsigned version;        /**< SY_BACKEND_OPTIONS_VERSION */
    const char *prefix;      /**< C backend: symbol prefix (default "guards") */
    const sy_env *env;       /**< report: the traced env (symbols, ranges), may be NULL */
    const sy_graph *graph;   /**< report: the model, may be NULL */
} sy_backend_options;
#define SY_BACKEND_OPTIONS_INIT {SY_BACKEND_OPTIONS_VERSION, NULL, NULL, NULL}

typedef struct sy_backend sy_backend;
struct sy_backend {
    const char *name;        /**< unique, e.g. "c" (static storage) */
    const char *description; /**< one line (static storage) */
    /** Render @p gs (KEEP) into @p out. Returns SY_OK or an error recorded in
     *  the guard set's context. */
    sy_status (*render)(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out);
    void *ud;                /**< for the backend's own use */
};

/** Register @p b (KEEP: must stay valid while registered; its name must be
 *  unique). @retval SY_OK @retval SY_EINVAL NULL, unnamed, no render, or a
 *  duplicate name @retval SY_EQUOTA registry full (64 backends). */
SY_API sy_status sy_backend_register(const sy_backend *b);
/** The backend named @p name, or NULL. Built-ins are registered on first use. */
SY_API const sy_backend *sy_backend_find(const char *name);
/** Number of registered backends and the i-th (registration order). */
SY_API size_t sy_backend_count(void);
SY_API const sy_backend *sy_backend_at(size_t i);

/** Render with the backend named @p name into a new buffer.
 *  @param[out] data GIVE: *data (NUL-terminated for convenience, *len bytes
 *              excluding the NUL) is released with sy_mem_free(ctx, *data).
 *  A set some of whose texts could not be made when it was built (they read
 *  "?", sy_gset_format) is refused with that status.
 *  @retval SY_OK @retval SY_EINVAL unknown backend (message lists the known
 *  ones) @retval SY_ENOMEM @retval SY_EQUOTA (sy_gset_format), or the
 *  backend's error. */
SY_API sy_status sy_backend_render(const char *name, const sy_gset *gs, const sy_backend_options *opts,
                                   SY_GIVE unsigned char **data, size_t *len);

/** For a backend's render: record the error @p st with a printf-style
 *  message in the guard set's context (sy_ctx_last_error_msg) and return
 *  @p st, as the built-in backends do. */
SY_API sy_status sy_backend_fail(const sy_gset *gs, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

SY_END_DECLS
#endif
