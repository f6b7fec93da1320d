/* Private: growable text buffer allocated through the context allocator. */
#ifndef SY_BUF_H
#define SY_BUF_H
#include <stdbool.h>
#include <stddef.h>
#include "symshape/ctx.h"

typedef struct sy_buf {
    sy_ctx *ctx;
    char *p;
    size_t len, cap;
    bool oom;
    /* let-form printing (print.c): shared nodes print as their name */
    const struct sy_letnames *let;
    const sy_expr *defining;
} sy_buf;

void sy_buf_init(sy_buf *b, sy_ctx *ctx);
void sy_buf_putc(sy_buf *b, char c);
void sy_buf_puts(sy_buf *b, const char *s);
void sy_buf_putn(sy_buf *b, const char *s, size_t n);
void sy_buf_printf(sy_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Give the string (exact size, NUL-terminated) to the caller, or NULL on OOM. */
char *sy_buf_finish(sy_buf *b);
void sy_buf_free(sy_buf *b);

/* Read the whole file at path into *data (*len bytes, not NUL-terminated;
 * GIVE: release with sy_dealloc(ctx, *data, *cap)). Errors, recorded in
 * ctx: SY_EFORMAT "cannot open PATH: REASON" / "cannot read PATH: REASON"
 * (e.g. a directory), SY_ENOMEM. On error *data is NULL. */
sy_status sy_read_file(sy_ctx *ctx, const char *path, char **data, size_t *len, size_t *cap);
#endif
