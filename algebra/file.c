/* Private: read a whole file through the context allocator (used by the
 * .cases runner and the graph loader). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "algebra/buf.h"
#include "algebra/expr_private.h"

sy_status sy_read_file(sy_ctx *ctx, const char *path, char **data, size_t *len, size_t *cap)
{
    *data = NULL;
    *len = *cap = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return sy_fail_st(ctx, SY_EFORMAT, "cannot open %s: %s", path, strerror(errno));
    char *d = NULL;
    size_t n = 0, c = 0;
    for (;;) {
        if (n + 4096 > c) {
            size_t nc = c ? c * 2 : 65536;
            char *nd = sy_realloc(ctx, d, c, nc);
            if (!nd) {
                if (d) sy_dealloc(ctx, d, c);
                fclose(fp);
                return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            }
            d = nd;
            c = nc;
        }
        size_t got = fread(d + n, 1, c - n, fp);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(fp), e = bad ? errno : 0;
    fclose(fp);
    if (bad) {
        sy_dealloc(ctx, d, c);
        return sy_fail_st(ctx, SY_EFORMAT, "cannot read %s%s%s", path, e ? ": " : "", e ? strerror(e) : "");
    }
    *data = d;
    *len = n;
    *cap = c;
    return SY_OK;
}
