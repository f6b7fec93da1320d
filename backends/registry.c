/* Backend registry and the output buffer. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "algebra/internal.h"
#include "backends/backends_private.h"
#include "symshape/backend.h"

struct sy_output {
    sy_ctx *ctx;
    unsigned char *p;
    size_t len, cap;
    int oom;
};

sy_status sy_output_write(sy_output *out, const void *data, size_t n)
{
    if (!out) return SY_EINVAL;
    if (out->oom) return SY_ENOMEM;
    if (out->len + n + 1 > out->cap) {
        size_t nc = out->cap ? out->cap : 4096;
        while (nc < out->len + n + 1) nc *= 2;
        unsigned char *np = sy_realloc(out->ctx, out->p, out->cap, nc);
        if (!np) {
            out->oom = 1;
            return SY_ENOMEM;
        }
        out->p = np;
        out->cap = nc;
    }
    if (n) memcpy(out->p + out->len, data, n);
    out->len += n;
    out->p[out->len] = 0;
    return SY_OK;
}

sy_status sy_output_printf(sy_output *out, const char *fmt, ...)
{
    if (!out) return SY_EINVAL;
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return SY_EINVAL;
    if ((size_t)n < sizeof tmp) return sy_output_write(out, tmp, (size_t)n);
    char *big = sy_alloc(out->ctx, (size_t)n + 1);
    if (!big) {
        out->oom = 1;
        return SY_ENOMEM;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sy_status st = sy_output_write(out, big, (size_t)n);
    sy_dealloc(out->ctx, big, (size_t)n + 1);
    return st;
}

/* The registry is shared by all threads (docs/ownership.md, thread safety):
 * the built-in backends are registered exactly once (pthread_once) before
 * any lookup or registration, and every access to the table holds reg_lock.
 * Entries are never removed, so a returned backend stays valid. */
#define MAX_BACKENDS 64
static const sy_backend *registry[MAX_BACKENDS];
static size_t nregistry;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;
/* set while this thread runs the once routine (whose registrations must not
 * wait for the once routine itself) */
static _Thread_local int registering_builtins;

static void register_builtins(void)
{
    registering_builtins = 1;
    sy_backends_register_builtins();
    registering_builtins = 0;
}

static void ensure_builtins(void)
{
    if (!registering_builtins) pthread_once(&builtins_once, register_builtins);
}

sy_status sy_backend_register(const sy_backend *b)
{
    if (!b || !b->name || !*b->name || !b->render) return SY_EINVAL;
    ensure_builtins();
    sy_status st = SY_OK;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nregistry && st == SY_OK; i++)
        if (!strcmp(registry[i]->name, b->name)) st = SY_EINVAL;
    if (st == SY_OK && nregistry == MAX_BACKENDS) st = SY_EQUOTA;
    if (st == SY_OK) registry[nregistry++] = b;
    pthread_mutex_unlock(&reg_lock);
    return st;
}

const sy_backend *sy_backend_find(const char *name)
{
    ensure_builtins();
    if (!name) return NULL;
    const sy_backend *r = NULL;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nregistry && !r; i++)
        if (!strcmp(registry[i]->name, name)) r = registry[i];
    pthread_mutex_unlock(&reg_lock);
    return r;
}

size_t sy_backend_count(void)
{
    ensure_builtins();
    pthread_mutex_lock(&reg_lock);
    size_t n = nregistry;
    pthread_mutex_unlock(&reg_lock);
    return n;
}

const sy_backend *sy_backend_at(size_t i)
{
    ensure_builtins();
    pthread_mutex_lock(&reg_lock);
    const sy_backend *r = i < nregistry ? registry[i] : NULL;
    pthread_mutex_unlock(&reg_lock);
    return r;
}

sy_status sy_backend_render(const char *name, const sy_gset *gs, const sy_backend_options *opts, unsigned char **data,
                            size_t *len)
{
    if (!gs || !data || !len) return SY_EINVAL;
    sy_ctx *ctx = sy_gset_ctx(gs);
    *data = NULL;
    *len = 0;
    const sy_backend *b = sy_backend_find(name);
    if (!b) {
        char known[512] = "";
        pthread_mutex_lock(&reg_lock);
        for (size_t i = 0; i < nregistry; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, registry[i]->name, sizeof known - strlen(known) - 1);
        }
        pthread_mutex_unlock(&reg_lock);
        return sy_fail_st(ctx, SY_EINVAL, "unknown backend '%s' (known: %s)", name ? name : "(null)", known);
    }
    sy_backend_options defo = SY_BACKEND_OPTIONS_INIT;
    if (!opts) opts = &defo;
    if (opts->version != SY_BACKEND_OPTIONS_VERSION) return sy_fail_st(ctx, SY_EVERSION, "unknown backend options version");
    /* a set whose texts could not all be made (they read "?") is refused: this call's error */
    sy_status st = sy_gset_format(gs);
    if (st != SY_OK) return sy_fail_st(ctx, st, "render: a text of the guard set could not be made when it was built");
    sy_output out = {ctx, NULL, 0, 0, 0};
    st = b->render(b, gs, opts, &out);
    if (st == SY_OK && out.oom) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    if (st != SY_OK) {
        if (out.p) sy_dealloc(ctx, out.p, out.cap);
        return st;
    }
    /* hand out through the array allocator so sy_mem_free releases it */
    unsigned char *r = sy_alloc_array(ctx, out.len + 1);
    if (!r) {
        if (out.p) sy_dealloc(ctx, out.p, out.cap);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    if (out.len) memcpy(r, out.p, out.len);
    r[out.len] = 0;
    if (out.p) sy_dealloc(ctx, out.p, out.cap);
    *data = r;
    *len = out.len;
    return SY_OK;
}

sy_status sy_backend_fail(const sy_gset *gs, sy_status st, const char *fmt, ...)
{
    sy_ctx *ctx = gs ? sy_gset_ctx(gs) : NULL;
    if (!ctx) return st;
    char msg[1024] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    return sy_fail_st(ctx, st, "%s", msg);
}

sy_output *sy_output_mem_new(sy_ctx *ctx)
{
    sy_output *o = sy_alloc(ctx, sizeof *o);
    if (!o) return NULL;
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    return o;
}

char *sy_output_mem_take(sy_output *out, sy_status *st)
{
    char *r = NULL;
    if (*st == SY_OK && out->oom) *st = SY_ENOMEM;
    if (*st == SY_OK) {
        r = sy_alloc(out->ctx, out->len + 1); /* exactly strlen + 1 bytes: sy_str_free releases it */
        if (!r) *st = SY_ENOMEM;
        else {
            if (out->len) memcpy(r, out->p, out->len);
            r[out->len] = 0;
        }
    }
    if (out->p) sy_dealloc(out->ctx, out->p, out->cap);
    sy_dealloc(out->ctx, out, sizeof *out);
    return r;
}
