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

#endif
