/* The deploy module's own structures (include/symshape/deploy.h). */
#ifndef SY_DEPLOY_PRIVATE_H
#define SY_DEPLOY_PRIVATE_H
#include "symshape/deploy.h"

struct sy_region {
    sy_ctx *ctx;
    size_t nsrc;          /* sources of the guard set */
    const char *model;
    sy_region_var *vars;  /* nvars of nsrc allocated */
    size_t nvars;
    sy_region_dim *dims;  /* ndims of nsrc allocated, in source order */
    size_t ndims;
    sy_region_kept *kept;
    size_t nkept, keptcap;
    size_t nproved;
    int proved, example_inside;
    int *srckind;         /* sy_gset_source_parse of each source */
    long *dimof;          /* source -> index in dims, -1 */
    long *tvar;           /* root source -> its variable, -1 */
    char **strs;          /* every string the region owns */
    size_t nstr, strcap;
};

/* a copy of s owned by r (freed with it); NULL on SY_ENOMEM (not recorded) */
char *sy_dp_strdup(sy_region *r, const char *s);

/* TRUE in *out when e holds at every point of f and each of its symbolic divisors is
 * non-zero there (region.c) */
sy_status sy_dp_decide_total(sy_ctx *ctx, sy_facts *f, const sy_expr *e, sy_truth *out);

/* lo <= sym <= hi (hi NULL: no bound) added to f; an allocation failure reports SY_ENOMEM (not
 * the SY_EINVAL sy_facts_set_range gives for the NULL relation it then builds) */
sy_status sy_dp_set_range(sy_ctx *ctx, sy_facts *f, const sy_expr *sym, int64_t lo, const int64_t *hi);

/* sy_expr_eval_si through a binding b made once (sy_binding_init, algebra/eval.h) and reused:
 * sy_expr_eval_si makes and clears a binding of every symbol of the context per call, so a scan
 * of the sizes of every input was quadratic in the inputs (issue 38). The n symbols are bound
 * for the call and unbound after it; one made after b falls back to sy_expr_eval_si. Same
 * results and errors (the call is one operation of the work budgets). */
struct sy_binding;
sy_status sy_dp_eval_si(sy_ctx *ctx, struct sy_binding *b, const sy_expr *e, size_t n, const sy_expr *const *syms,
                        const int64_t *vals, int64_t *out);

#endif
