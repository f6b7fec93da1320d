/* Post-order walk of an expression DAG with an explicit stack (symshape/expr.h). */
#include "algebra/expr_private.h"

sy_status sy_expr_walk_postorder(sy_ctx *ctx, const sy_expr *root, int (*skip)(void *ud, const sy_expr *e),
                                 sy_status (*visit)(void *ud, const sy_expr *e), void *ud)
{
    if (!ctx) return SY_EINVAL;
    if (!root || !skip || !visit) return sy_fail_st(ctx, SY_EINVAL, "sy_expr_walk_postorder: NULL argument");
    if (skip(ud, root)) return SY_OK;
    typedef struct { const sy_expr *e; size_t next; } frame;
    size_t cap = 64, n = 0;
    frame *st = sy_alloc(ctx, cap * sizeof *st);
    if (!st) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    sy_status rc = SY_OK;
    st[n++] = (frame){root, 0};
    while (n && rc == SY_OK) {
        frame *f = &st[n - 1];
        if (f->next < sy_expr_nargs(f->e)) {
            const sy_expr *c = sy_expr_arg(f->e, f->next++);
            if (skip(ud, c)) continue;
            if (n == cap) {
                frame *ns = sy_realloc(ctx, st, cap * sizeof *st, 2 * cap * sizeof *st);
                if (!ns) {
                    rc = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                    break;
                }
                st = ns;
                cap *= 2;
            }
            st[n++] = (frame){c, 0};
            continue;
        }
        n--;
        rc = visit(ud, f->e);
    }
    sy_dealloc(ctx, st, cap * sizeof *st);
    return rc;
}
