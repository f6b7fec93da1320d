/* Regions (include/symshape/deploy.h, issue 36): exact regions of small graphs
 * of each kind (progression, derived dim, equality, non-linear relation kept,
 * runtime assert kept), exact regions of corpus models, every probe point of
 * the corpus that lies in the region and passes the kept checks ran on the CPU
 * (the probes' ground truth), random points of each region accepted by the
 * guard set, points just outside each face rejected, the renderings, errors. */
#include <inttypes.h>
#include <jansson.h>

#include "common.h"
#include "corpus.h"

#define HDR "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"t\",\"nodes\":["
/* x + y of two inputs [6], dim 0 dynamic: broadcasting ties x_0 == y_0 */
#define ADD_XY                                                                                                         \
    HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[6],\"dynamic\":[0]},"                       \
        "{\"name\":\"y\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[6],\"dynamic\":[0]},"                       \
        "{\"name\":\"a\",\"op\":\"add\",\"args\":[{\"ref\":\"x\"},{\"ref\":\"y\"}]}],\"outputs\":[{\"ref\":\"a\"}]}"

/* the minimized guard set of graph g under the most relaxed policy */
static sy_gset *relaxed_set(sy_graph *g)
{
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    sy_env *env = sy_env_new(ctx, &eo);
    cr_assert(env != NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(t);
    sy_env_free(env);
    return gs;
}

static sy_gset *relaxed_text(const char *text, sy_graph **gout)
{
    cr_assert(eq(int, sy_graph_load_text(ctx, text, strlen(text), "t", gout), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return relaxed_set(*gout);
}

static sy_region *region_of(const sy_gset *gs)
{
    sy_region *r = NULL;
    cr_assert(eq(int, sy_region_new(gs, NULL, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return r;
}

/* the relaxed guard set of the graph in the file at path (loaded into *gout) */
static sy_gset *relaxed_file(const char *path, sy_graph **gout)
{
    cr_assert(eq(int, sy_graph_load_file(ctx, path, gout), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    return relaxed_set(*gout);
}

/* the point vals (n sizes) is outside the region, and sy_region_contains_si says why: exactly
 * want, or (part set) a reason holding want */
static void outside_because(const sy_region *r, const int64_t *vals, size_t n, const char *want, int part)
{
    int in = 1;
    char why[256];
    cr_assert(eq(int, sy_region_contains_si(r, vals, n, &in, why, sizeof why), SY_OK));
    cr_assert(in == 0);
    if (part)
        cr_assert(strstr(why, want) != NULL, "%s", why);
    else
        cr_assert(eq(str, why, (char *)want));
}

/* the guard set rejects the point vals (n sizes) too */
static void set_rejects(const sy_gset *gs, const int64_t *vals, size_t n)
{
    sy_gset_result res = SY_GSET_RESULT_INIT;
    cr_assert(eq(int, sy_gset_check_si(gs, vals, n, &res), SY_OK));
    cr_assert(res.accept == 0);
}

/* the region's text rendering equals want */
static void text_is(const sy_region *r, const char *want)
{
    char *s = sy_region_format(r, SY_REGION_TEXT);
    cr_assert(s != NULL);
    cr_assert(eq(str, s, (char *)want));
    sy_str_free(ctx, s);
}

/* the sizes (one per source) at variable values t: statics, dims a*t+b, and the rank/dtype
 * sources at the example */
/* 0 when a size a*t+b is past int64 (no size there) */
static int point_at(const sy_gset *gs, const sy_region *r, const int64_t *t, int64_t *vals)
{
    size_t n = sy_gset_nsources(gs);
    for (size_t i = 0; i < n; i++)
        if (!sy_gset_source_example(gs, i, &vals[i])) vals[i] = 0;
    for (size_t k = 0; k < sy_region_ndims(r); k++) {
        const sy_region_dim *d = sy_region_dim_at(r, k);
        int64_t at;
        if (d->is_static)
            at = d->value;
        else if (__builtin_mul_overflow(d->a, t[d->var], &at) || __builtin_add_overflow(at, d->b, &at))
            return 0;
        vals[d->source] = at;
    }
    return 1;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* count of kept checks among the guards that fail at vals */
static int fails_only_kept(const sy_gset *gs, const sy_region *r, const int64_t *vals, long *first_fail)
{
    *first_fail = -1;
    for (size_t i = 0; i < sy_gset_size(gs); i++) {
        if (sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT) continue;
        /* check one guard: a set with only it is not available, so evaluate its expression */
        size_t n = sy_gset_nsources(gs);
        const sy_expr **syms = malloc(n * sizeof *syms);
        for (size_t k = 0; k < n; k++) syms[k] = sy_gset_source_var(gs, k);
        int64_t out = 0;
        sy_status st = sy_expr_eval_si(ctx, sy_gset_at(gs, i)->expr, n, syms, vals, &out);
        free(syms);
        if (st != SY_OK) sy_ctx_reset_error(ctx);
        if (st == SY_OK && out) continue;
        int kept = 0;
        for (size_t k = 0; k < sy_region_nkept(r); k++) kept |= sy_region_kept_at(r, k)->guard == i;
        if (!kept) {
            *first_fail = (long)i;
            return 0;
        }
    }
    return 1;
}

/* Random points of the region (each variable up to min(max, min + 300)): every guard not
 * kept holds there (exact evaluation); the region's own membership test agrees. Then each
 * face: the variable one below its min (and one above its max), the others at random, is
 * outside the region, and sy_region_contains_si names the dim. */
static void sample_region(const sy_gset *gs, const sy_region *r, int npoints)
{
    size_t n = sy_gset_nsources(gs), nv = sy_region_nvars(r);
    int64_t *vals = malloc((n ? n : 1) * sizeof *vals), *t = malloc((nv ? nv : 1) * sizeof *t);
    for (int p = 0; p < npoints; p++) {
        for (size_t v = 0; v < nv; v++) {
            const sy_region_var *x = sy_region_var_at(r, v);
            int64_t hi = x->tmax == SY_REGION_UNBOUNDED || x->tmax > x->tmin + 300 ? x->tmin + 300 : x->tmax;
            t[v] = x->tmin + (int64_t)(rnd() % (uint64_t)(hi - x->tmin + 1));
        }
        cr_assert(point_at(gs, r, t, vals), "%s: a sampled point passes int64", sy_gset_model(gs));
        long ff;
        cr_assert(fails_only_kept(gs, r, vals, &ff), "%s: region point %d fails guard %ld: %s", sy_gset_model(gs), p, ff,
                  sy_gset_at(gs, (size_t)ff)->text);
        int in = 0;
        cr_assert(eq(int, sy_region_contains_si(r, vals, n, &in, NULL, 0), SY_OK));
        cr_assert(in, "%s: sampled point not inside by sy_region_contains_si", sy_gset_model(gs));
    }
    for (size_t v = 0; v < nv; v++) {
        const sy_region_var *x = sy_region_var_at(r, v);
        for (int side = 0; side < 2; side++) {
            if (side == 0 && x->tmin == 0) continue;
            if (side == 1 && (x->tmax == SY_REGION_UNBOUNDED || x->tmax == INT64_MAX)) continue;
            for (size_t u = 0; u < nv; u++) t[u] = sy_region_var_at(r, u)->tmin;
            t[v] = side ? x->tmax + 1 : x->tmin - 1;
            if (!point_at(gs, r, t, vals)) continue; /* past int64: no size there */
            int in = 1;
            char why[256];
            int neg = 0;
            for (size_t k = 0; k < sy_region_ndims(r); k++)
                if (vals[sy_region_dim_at(r, k)->source] < 0) neg = 1;
            if (neg) continue; /* below zero: no size there */
            cr_assert(eq(int, sy_region_contains_si(r, vals, n, &in, why, sizeof why), SY_OK));
            cr_assert(in == 0, "%s: the point past face %s of %s is inside", sy_gset_model(gs), side ? "max" : "min", x->name);
            cr_assert(strstr(why, "outside") || strstr(why, "static"), "%s", why);
        }
    }
    free(vals);
    free(t);
}

/* a test's end: npoints random points of the region and its faces (sample_region; none when
 * npoints is 0), then the region, the guard set and the graph freed */
static void done(sy_graph *g, sy_gset *gs, sy_region *r, int npoints)
{
    if (npoints > 0) sample_region(gs, r, npoints);
    sy_region_free(r);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(deploy_region, progression_and_range_of_a_view, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[48],\"dynamic\":[0]},"
                                   "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,16]},"
                                   "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0]},"
                                   "{\"name\":\"c\",\"op\":\"le\",\"args\":[{\"ref\":\"s\"},1000]},"
                                   "{\"name\":\"gb\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"c\"},true]}],"
                                   "\"outputs\":[{\"ref\":\"v\"}]}",
                               &g);
    sy_region *r = region_of(gs);
    size_t np;
    cr_assert(sy_region_proved(r, &np));
    cr_assert(eq(sz, np, sy_gset_size(gs)));
    cr_assert(eq(sz, sy_region_nkept(r), 0));
    const sy_region_dim *d = sy_region_dim_at(r, 0);
    cr_assert(eq(i64, d->a, 16));
    cr_assert(eq(i64, d->b, 0));
    cr_assert(eq(i64, d->max, 992));
    text_is(r, "region of t: proved (4 guards proved to hold at every point, 0 kept as runtime checks)\n"
               "  x.size()[0]  x_0          = 16*x_0_k,  x_0_k in [0, 62],  size in [0, 992]\n");
    char *tq = sy_region_format(r, SY_REGION_TORCH);
    cr_assert(strstr(tq, "x_0_k = Dim(\"x_0_k\", min=0, max=62)\n") != NULL, "%s", tq);
    cr_assert(strstr(tq, "\"x\": {0: 16*x_0_k},") != NULL, "%s", tq);
    sy_str_free(ctx, tq);
    char *jx = sy_region_format(r, SY_REGION_JAX);
    cr_assert(strstr(jx, "SymbolicScope([\"x_0_k <= 62\"])") != NULL, "%s", jx);
    cr_assert(strstr(jx, "symbolic_shape(\"16*x_0_k\", scope=scope)") != NULL, "%s", jx);
    sy_str_free(ctx, jx);
    /* 1000 is not a multiple of 16, 992 is: 1008 is past the max face, 8 off the progression */
    int64_t vals[3] = {1, 0, 1008};
    outside_because(r, vals, 3, "x_0 = 1008: outside [0, 992]", 0);
    vals[2] = 40;
    outside_because(r, vals, 3, "x_0 = 40: not 16*x_0_k + 0", 0);
    set_rejects(gs, vals, 3);
    done(g, gs, r, 200);
}

Test(deploy_region, derived_dim_of_a_linear_equality, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[3,5],\"dynamic\":[0,1]},"
                                   "{\"name\":\"c\",\"op\":\"cat\",\"args\":[[{\"ref\":\"x\"},{\"ref\":\"x\"}]]},"
                                   "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"c\"},0]},"
                                   "{\"name\":\"s1\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},1]},"
                                   "{\"name\":\"sub\",\"op\":\"sub\",\"args\":[{\"ref\":\"s1\"},{\"ref\":\"s\"}]},"
                                   "{\"name\":\"e\",\"op\":\"eq\",\"args\":[{\"ref\":\"sub\"},-1]},"
                                   "{\"name\":\"gb\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"e\"},true]}],"
                                   "\"outputs\":[{\"ref\":\"c\"}]}",
                               &g);
    sy_region *r = region_of(gs);
    cr_assert(sy_region_proved(r, NULL));
    /* cat's 2*x_0 fits int64 only up to 2^62 - 1 (x of [2^62, 0] exists: issue 38's guard) */
    text_is(r, "region of t: proved (4 guards proved to hold at every point, 0 kept as runtime checks)\n"
               "  x.size()[0]  x_0          = x_0,  x_0 in [1, 4611686018427387903],  size in [1, 4611686018427387903]\n"
               "  x.size()[1]  x_1          = 2*x_0 - 1,  x_0 in [1, 4611686018427387903],  size in [1, 9223372036854775805]\n");
    char *tq = sy_region_format(r, SY_REGION_TORCH);
    cr_assert(strstr(tq, "\"x\": {0: x_0, 1: 2*x_0 - 1},") != NULL, "%s", tq);
    sy_str_free(ctx, tq);
    char *on = sy_region_format(r, SY_REGION_ONNX);
    json_error_t je;
    json_t *j = json_loads(on, 0, &je);
    cr_assert(j != NULL, "%s", on);
    cr_assert(eq(str, (char *)json_string_value(json_object_get(json_array_get(json_object_get(json_object_get(j, "inputs"), "x"), 1), "dim_param")),
                 "2*x_0 - 1"));
    json_decref(j);
    sy_str_free(ctx, on);
    done(g, gs, r, 200);
}

Test(deploy_region, equal_dims_of_two_inputs_share_one_dim, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(ADD_XY, &g);
    sy_region *r = region_of(gs);
    cr_assert(sy_region_proved(r, NULL));
    cr_assert(eq(sz, sy_region_nvars(r), 1));
    /* broadcasting requires Or(x == 1, x == y, y == 1) (shapeenv/rules.c); the region takes the
     * disjunct the example holds, x == y (region.c or_branch): no 2 <= x_0, the model also runs at
     * 0 and 1 */
    text_is(r, "region of t: proved (5 guards proved to hold at every point, 0 kept as runtime checks)\n"
               "  x.size()[0]  x_0          = x_0,  x_0 in [0, oo),  size in [0, oo)\n"
               "  y.size()[0]  y_0          = x_0,  x_0 in [0, oo),  size in [0, oo)\n");
    char *sp = sy_region_format(r, SY_REGION_SPEC);
    cr_assert(strstr(sp, "--dynamic 'x=0:x_0@0..'\n--dynamic 'y=0:x_0@0..'\n") != NULL, "%s", sp);
    sy_str_free(ctx, sp);
    /* x = 5, y = 6 breaks the equality */
    int64_t vals[6];
    for (size_t i = 0; i < 6; i++) sy_gset_source_example(gs, i, &vals[i]);
    vals[sy_gset_find_source(gs, "x.size()[0]")] = 5;
    outside_because(r, vals, 6, "breaks its relation", 1);
    done(g, gs, r, 200);
}

Test(deploy_region, nonlinear_relation_is_kept_as_a_runtime_check, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[4,8],\"dynamic\":[0,1]},"
                                   "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,16]}],\"outputs\":[{\"ref\":\"v\"}]}",
                               &g);
    sy_region *r = region_of(gs);
    cr_assert(sy_region_proved(r, NULL));
    cr_assert(eq(sz, sy_region_nkept(r), 1));
    const sy_region_kept *k = sy_region_kept_at(r, 0);
    cr_assert(eq(str, (char *)k->text, "Mod(x.size()[0]*x.size()[1], 16) == 0"));
    cr_assert(eq(str, (char *)k->reason, "relates several dims in a way no Dim expresses"));
    char *tq = sy_region_format(r, SY_REGION_TORCH);
    cr_assert(strstr(tq, "#   [2] Mod(x.size()[0]*x.size()[1], 16) == 0") != NULL, "%s", tq);
    sy_str_free(ctx, tq);
    done(g, gs, r, 200);
}

/* exact regions of corpus models (the text rendering) */
typedef struct {
    const char *model;
    const char *text;
} corpus_case;

static const corpus_case corpus_cases[] = {
    {"resnet18", "region of resnet18: proved (5 guards proved to hold at every point, 0 kept as runtime checks)\n"
                 "  x.size()[0]  x_0          = x_0,  x_0 in [0, oo),  size in [0, oo)\n"
                 "  x.size()[1]  x_1          static 3\n"
                 "  x.size()[2]  x_2          = x_2,  x_2 in [1, oo),  size in [1, oo)\n"
                 "  x.size()[3]  x_3          = x_3,  x_3 in [1, oo),  size in [1, oo)\n"},
    {"inception_v3", "region of inception_v3: proved (5 guards proved to hold at every point, 0 kept as runtime checks)\n"
                     "  x.size()[0]  x_0          = x_0,  x_0 in [0, oo),  size in [0, oo)\n"
                     "  x.size()[1]  x_1          static 3\n"
                     "  x.size()[2]  x_2          = x_2,  x_2 in [75, oo),  size in [75, oo)\n"
                     "  x.size()[3]  x_3          = x_3,  x_3 in [75, oo),  size in [75, oo)\n"},
    /* the class token's expand(n, -1, -1) asks nothing of n == 1 (ops_shape.c expand: its stride is
     * one expression) */
    {"vit_b_16", "region of vit_b_16: proved (5 guards proved to hold at every point, 0 kept as runtime checks)\n"
                 "  x.size()[0]  x_0          = x_0,  x_0 in [0, oo),  size in [0, oo)\n"
                 "  x.size()[1]  x_1          static 3\n"
                 "  x.size()[2]  x_2          static 224\n"
                 "  x.size()[3]  x_3          static 224\n"},
    {"transformer_encoder", "region of transformer_encoder: proved (2 guards proved to hold at every point, 0 kept as runtime checks)\n"
                            "  tokens.size()[0]  tokens_0     = tokens_0,  tokens_0 in [0, oo),  size in [0, oo)\n"
                            "  tokens.size()[1]  tokens_1     = tokens_1,  tokens_1 in [0, oo),  size in [0, oo)\n"},
};

static const char *shared_model(const char *dir, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s/%s.json", SY_SHARED_DIR, dir, name);
    FILE *f = fopen(buf, "r");
    if (f) {
        fclose(f);
        return buf;
    }
    return NULL;
}

Test(deploy_region, corpus_models_exact_regions, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    for (size_t c = 0; c < sizeof corpus_cases / sizeof corpus_cases[0]; c++) {
        char path[1024];
        if (!shared_model("corpus", corpus_cases[c].model, path, sizeof path)) {
            cr_log_warn("no %s in %s/corpus: skipped", corpus_cases[c].model, SY_SHARED_DIR);
            continue;
        }
        sy_graph *g;
        cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        sy_gset *gs = relaxed_set(g);
        sy_region *r = region_of(gs);
        text_is(r, corpus_cases[c].text);
        sample_region(gs, r, 200);
        sy_region_free(r);
        sy_gset_free(gs);
        sy_graph_free(g);
    }
}

/* The CPU ground truth: every probe point (torch ran the model or failed at those sizes) that
 * lies in the region and passes the kept checks ran; count them. */
static void probes_in_region(const char *path, const char *probes, const char *name, void *ud)
{
    long *tot = ud;
    json_error_t err;
    json_t *pr = json_load_file(probes, 0, &err);
    if (!pr) return;
    sy_graph *g;
    sy_gset *gs = relaxed_file(path, &g);
    sy_region *r = region_of(gs);
    cr_assert(sy_region_proved(r, NULL), "%s: region not proved", name);
    size_t n = sy_gset_nsources(gs);
    int64_t *vals = malloc(n * sizeof *vals);
    size_t i;
    json_t *p;
    long inside = 0;
    json_array_foreach(json_object_get(pr, "points"), i, p) {
        json_t *sizes = json_object_get(p, "sizes");
        const char *names[8];
        size_t ranks[8];
        int64_t shp[8][8];
        const int64_t *shapes[8];
        sy_dtype dts[8];
        size_t ni = 0;
        const char *k;
        json_t *v;
        int bad = 0;
        json_object_foreach(sizes, k, v) {
            if (ni >= 8 || json_array_size(v) > 8) {
                bad = 1;
                break;
            }
            names[ni] = k;
            ranks[ni] = json_array_size(v);
            for (size_t q = 0; q < ranks[ni]; q++) shp[ni][q] = json_integer_value(json_array_get(v, q));
            shapes[ni] = shp[ni];
            dts[ni] = SY_DT_FLOAT32;
            for (size_t q = 0; q < sy_graph_ninputs(g); q++)
                if (!strcmp(sy_graph_input_at(g, q)->name, k)) dts[ni] = sy_graph_input_at(g, q)->dtype;
            ni++;
        }
        if (bad) continue;
        if (sy_gset_values_from_shapes(gs, ni, names, ranks, shapes, dts, vals) != SY_OK) {
            sy_ctx_reset_error(ctx);
            continue;
        }
        int in = 0;
        cr_assert(eq(int, sy_region_contains_si(r, vals, n, &in, NULL, 0), SY_OK));
        if (!in) continue;
        sy_gset_result res = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, vals, n, &res), SY_OK));
        long ff;
        int only_kept = fails_only_kept(gs, r, vals, &ff);
        cr_assert(only_kept, "%s: probe %zu in the region fails guard %ld", name, i, ff);
        if (!res.accept) continue; /* a kept check rejects it */
        int ran = json_is_true(json_object_get(p, "ok"));
        cr_assert(ran, "%s: probe %zu lies in the region but the model failed on the CPU",
                  name, i);
        inside++;
    }
    *tot += inside;
    free(vals);
    json_decref(pr);
    done(g, gs, r, 0);
}

Test(deploy_region, corpus_probes_inside_the_region_all_ran, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(600))
{
    long inside = 0;
    int models = corpus_for_each(probes_in_region, &inside);
    cr_assert(models > 0);
    /* the second corpus (issue 20's models), each with its probes */
    DIR *dir = opendir(SY_SHARED_DIR "/corpus2");
    struct dirent *de;
    while (dir && (de = readdir(dir))) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".json")) continue;
        char path[1024], probes[1024];
        snprintf(path, sizeof path, "%s/corpus2/%s", SY_SHARED_DIR, de->d_name);
        snprintf(probes, sizeof probes, "%s/probes2/%.*s.probes.json", SY_SHARED_DIR, (int)(n - 5), de->d_name);
        FILE *f = fopen(probes, "r");
        if (!f) continue;
        fclose(f);
        /* a model the tracer does not support is not this test's concern */
        sy_graph *g;
        if (sy_graph_load_file(ctx, path, &g) != SY_OK) {
            sy_ctx_reset_error(ctx);
            continue;
        }
        sy_env_options eo = SY_ENV_OPTIONS_INIT;
        eo.duck_sizing = 0;
        eo.specialize_zero_one = 0;
        sy_env *env = sy_env_new(ctx, &eo);
        sy_trace *t = NULL;
        sy_status st = sy_env_trace(env, g, 0, NULL, &t);
        sy_trace_free(t);
        sy_env_free(env);
        sy_graph_free(g);
        if (st != SY_OK) {
            sy_ctx_reset_error(ctx);
            continue;
        }
        probes_in_region(path, probes, de->d_name, &inside);
        models++;
    }
    if (dir) closedir(dir);
    cr_log_info("%d models, %ld probe points inside their regions, all ran", models, inside);
    cr_assert(inside > 0);
}

Test(deploy_region, errors, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[6],\"dynamic\":[0]},"
                                   "{\"name\":\"r\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}],\"outputs\":[{\"ref\":\"r\"}]}",
                               &g);
    sy_region *r = NULL;
    cr_assert(eq(int, sy_region_new(gs, NULL, NULL), SY_EINVAL));
    cr_assert(eq(int, sy_region_new(NULL, NULL, &r), SY_EINVAL));
    sy_region_options o = SY_REGION_OPTIONS_INIT;
    o.version = 99;
    cr_assert(eq(int, sy_region_new(gs, &o, &r), SY_EVERSION));
    cr_assert(r == NULL);
    o.version = SY_REGION_OPTIONS_VERSION;
    o.window = 0;
    cr_assert(eq(int, sy_region_new(gs, &o, &r), SY_EINVAL));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "window 0") != NULL);
    o.window = 16;
    cr_assert(eq(int, sy_region_new(gs, &o, &r), SY_OK));
    cr_assert(sy_region_format(r, (sy_region_fmt)42) == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EINVAL));
    int64_t vals[3] = {1, 0, 5};
    int in;
    cr_assert(eq(int, sy_region_contains_si(r, vals, 2, &in, NULL, 0), SY_EINVAL));
    cr_assert(sy_region_free(r) == NULL);
    cr_assert(sy_region_free(NULL) == NULL);
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* attack38g: an input name that is not UTF-8 (an ONNX model's may hold any bytes). JSON cannot carry
 * it: jansson dropped the objects holding it, and region -f json printed "dims": [], corners --json
 * "sizes": {}, profile -f json "dims": [], run -b json "sources": [], each with exit 0. Now each JSON
 * form is SY_EFORMAT naming what; the text forms print the name. */
Test(deploy_region, a_name_json_cannot_carry_is_an_error, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    sy_env *env = sy_env_new(ctx, &eo);
    const char *nm = "q\xff\xfeq";
    sy_dim_policy pol[2] = {SY_DIM_DYNAMIC, SY_DIM_DYNAMIC};
    cr_assert(sy_env_input(env, nm, SY_DT_FLOAT32, 2, (int64_t[]){4, 6}, pol) != NULL, "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, NULL, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    cr_assert(sy_gset_to_json(gs) == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "not valid UTF-8") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    sy_region *r;
    cr_assert(eq(int, sy_region_new(gs, NULL, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    char *t = sy_region_format(r, SY_REGION_TEXT);
    cr_assert(t && strstr(t, nm), "%s", t ? t : sy_ctx_last_error_msg(ctx));
    sy_str_free(ctx, t);
    for (int f = SY_REGION_ONNX; f <= SY_REGION_JSON; f += SY_REGION_JSON - SY_REGION_ONNX) {
        cr_assert(sy_region_format(r, (sy_region_fmt)f) == NULL, "format %d", f);
        cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EFORMAT));
    }
    sy_corners *cs;
    cr_assert(eq(int, sy_corners_new(gs, r, &cs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(sy_corners_to_json(cs) == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EFORMAT));
    sy_profiles *p;
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 0, NULL, NULL, &p), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(sy_profiles_format(p, SY_PROFILE_JSON) == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EFORMAT));
    t = sy_profiles_format(p, SY_PROFILE_TRTEXEC);
    cr_assert(t != NULL, "%s", sy_ctx_last_error_msg(ctx));
    sy_str_free(ctx, t);
    sy_profiles_free(p);
    sy_corners_free(cs);
    sy_region_free(r);
    sy_gset_free(gs);
    sy_env_free(env);
}

/* every allocation failing in turn: SY_ENOMEM, no leak, then success */
Test(deploy_region, out_of_memory_at_every_allocation, .timeout = SY_TIMEOUT(600)) /* every allocation failed in turn: ~15 s, 5-10x under ASan */
{
    const char *G = HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[4,8],\"dynamic\":[0,1]},"
                        "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,16]}],\"outputs\":[{\"ref\":\"v\"}]}";
    int ok = 0;
    for (long n = 0; n < 100000 && !ok; n++) {
        ctx = new_counting_ctx(-1);
        sy_graph *g;
        cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "t", &g), SY_OK));
        sy_gset *gs = relaxed_set(g);
        g_alloc.count = 0;
        g_alloc.fail_at = n;
        sy_region *r = NULL;
        sy_status st = sy_region_new(gs, NULL, &r);
        char *s = st == SY_OK ? sy_region_format(r, SY_REGION_TORCH) : NULL;
        sy_profiles *p = NULL;
        int64_t pt[4] = {2, 0, 4, 8};
        uint64_t c1 = 3;
        if (s) st = sy_profiles_new(gs, r, NULL, 1, pt, &c1, &p);
        char *ps = st == SY_OK && p ? sy_profiles_format(p, SY_PROFILE_ORT) : NULL;
        sy_corners *cs = NULL;
        if (ps) st = sy_corners_new(gs, r, &cs);
        char *cj = st == SY_OK && cs ? sy_corners_to_json(cs) : NULL;
        g_alloc.fail_at = -1;
        if (st == SY_OK && s && ps && cj) ok = 1;
        sy_str_free(ctx, cj);
        sy_corners_free(cs);
        if (ok) cr_assert(eq(sz, sy_profiles_size(p), 1));
        sy_str_free(ctx, ps);
        sy_profiles_free(p);
        if (!ok) {
            int oom = st == SY_ENOMEM || (st == SY_OK && sy_ctx_last_error(ctx) == SY_ENOMEM);
            cr_assert(oom, "n=%ld st=%d: %s", n, st, sy_ctx_last_error_msg(ctx));
        }
        sy_str_free(ctx, s);
        sy_region_free(r);
        sy_gset_free(gs);
        sy_graph_free(g);
        ctx_teardown();
    }
    cr_assert(ok);
}

/* a UNet whose skips concatenate (tests/deploy/data/unet_cat.json, exported by symshape.export from
 * python/tests/test_deploy.py's UNetCat): the sizes are multiples of 4 */
/* a guard And(e1, e2) ties two inputs' dims pairwise (MHA's key_padding_mask against the tokens,
 * a 2-layer encoder exported by symshape.export): its conjuncts share the Dims, nothing is kept
 * (it was kept as "relates several dims in a way no Dim expresses", and every profile box
 * pinned to one point) */
Test(deploy_region, and_of_equalities_shares_the_dims, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_file(SY_TESTS_DIR "/deploy/data/enc_mask.json", &g);
    int has_and = 0;
    for (size_t i = 0; i < sy_gset_size(gs); i++) has_and |= sy_expr_kind_of(sy_gset_at(gs, i)->expr) == SY_EXPR_AND;
    cr_assert(has_and, "the set no longer has an And guard: the test tests nothing");
    sy_region *r = region_of(gs);
    /* MHA with a key_padding_mask and need_weights=False cannot run at batch or length 0
     * (shapeenv/ops_nn.c): tok_0*tok_1 != 0, which with sizes >= 0 is tok_0 >= 1 and tok_1 >= 1
     * (issue 38: it was kept as relating several dims) */
    text_is(r, "region of Enc: proved (7 guards proved to hold at every point, 0 kept as runtime checks)\n"
               "  tok.size()[0]  tok_0        = mask_0,  mask_0 in [1, oo),  size in [1, oo)\n"
               "  tok.size()[1]  tok_1        = mask_1,  mask_1 in [1, 128],  size in [1, 128]\n"
               "  mask.size()[0]  mask_0       = mask_0,  mask_0 in [1, oo),  size in [1, oo)\n"
               "  mask.size()[1]  mask_1       = mask_1,  mask_1 in [1, 128],  size in [1, 128]\n");
    sample_region(gs, r, 200);
    /* the region is the guard set: every point of the box [0, 4] of the four sizes (the other
     * sources at the example), inside the region exactly when every guard holds */
    size_t n = sy_gset_nsources(gs), nsize = 0, at[8];
    int64_t vals[64];
    cr_assert(n <= 64);
    const sy_expr *syms[64];
    for (size_t i = 0; i < n; i++) {
        syms[i] = sy_gset_source_var(gs, i);
        vals[i] = 0;
        if (sy_gset_source_parse(sy_gset_source(gs, i), NULL, NULL) == SY_SOURCE_SIZE) {
            cr_assert(nsize < 8);
            at[nsize++] = i;
        } else {
            cr_assert(sy_gset_source_example(gs, i, &vals[i]));
        }
    }
    cr_assert(eq(sz, nsize, 4));
    size_t inside = 0, zero_rejected = 0;
    for (int p = 0; p < 625; p++) {
        for (size_t k = 0, q = (size_t)p; k < nsize; k++, q /= 5) vals[at[k]] = (int64_t)(q % 5);
        int all = 1;
        for (size_t i = 0; i < sy_gset_size(gs) && all; i++) {
            int64_t v = 0;
            all = sy_expr_eval_si(ctx, sy_gset_at(gs, i)->expr, n, syms, vals, &v) == SY_OK && v;
            sy_ctx_reset_error(ctx);
        }
        int in = -1;
        cr_assert(eq(int, sy_region_contains_si(r, vals, n, &in, NULL, 0), SY_OK));
        cr_assert(eq(int, in, all), "point %d: region %d, guards %d", p, in, all);
        inside += (size_t)in;
        zero_rejected += !in && vals[at[0]] == vals[at[2]] && vals[at[1]] == vals[at[3]] && vals[at[0]] * vals[at[1]] == 0;
    }
    cr_assert(eq(sz, inside, 16)); /* tok = mask in [1, 4]^2 */
    cr_assert(eq(sz, zero_rejected, 9)); /* tok = mask with a 0 among them */
    sy_region_free(r);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(deploy_region, unet_skip_concat_is_a_progression_of_4, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_file(SY_TESTS_DIR "/deploy/data/unet_cat.json", &g);
    sy_region *r = region_of(gs);
    text_is(r, "region of unet_cat: proved (7 guards proved to hold at every point, 0 kept as runtime checks)\n"
               "  x.size()[0]  x_0          = x_0,  x_0 in [0, oo),  size in [0, oo)\n"
               "  x.size()[1]  x_1          static 3\n"
               "  x.size()[2]  x_2          = 4*x_2_k,  x_2_k in [1, oo),  size in [4, oo)\n"
               "  x.size()[3]  x_3          = 4*x_3_k,  x_3_k in [1, oo),  size in [4, oo)\n");
    char *tq = sy_region_format(r, SY_REGION_TORCH);
    cr_assert(strstr(tq, "\"x\": {0: x_0, 1: Dim.STATIC, 2: 4*x_2_k, 3: 4*x_3_k},") != NULL, "%s", tq);
    sy_str_free(ctx, tq);
    sample_region(gs, r, 200);
    /* 4k + 2: off the progression, and the guard set rejects it too */
    int64_t vals[6];
    for (size_t i = 0; i < 6; i++) sy_gset_source_example(gs, i, &vals[i]);
    vals[sy_gset_find_source(gs, "x.size()[2]")] = 34;
    outside_because(r, vals, 6, "x_2 = 34: not 4*x_2_k + 0", 0);
    set_rejects(gs, vals, 6);
    done(g, gs, r, 0);
}

/* ---- profiles */

/* every point of the box (all of them when it holds at most 20000, else 2000 at random) is
 * accepted by the guard set */
static void box_accepted(const sy_gset *gs, const sy_region *r, const sy_profile_box *b)
{
    size_t n = sy_gset_nsources(gs), nd = sy_region_ndims(r);
    int64_t *vals = malloc(n * sizeof *vals);
    double vol = 1;
    for (size_t k = 0; k < nd; k++) vol *= (double)(b->max[k] - b->min[k] + 1);
    long npts = vol <= 20000 ? (long)vol : 2000;
    for (long p = 0; p < npts; p++) {
        for (size_t i = 0; i < n; i++)
            if (!sy_gset_source_example(gs, i, &vals[i])) vals[i] = 0;
        long rest = p;
        for (size_t k = 0; k < nd; k++) {
            int64_t w = b->max[k] - b->min[k] + 1;
            int64_t off = vol <= 20000 ? rest % w : (int64_t)(rnd() % (uint64_t)w);
            rest /= w;
            vals[sy_region_dim_at(r, k)->source] = b->min[k] + off;
        }
        sy_gset_result res = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, vals, n, &res), SY_OK));
        cr_assert(res.accept, "%s: a point of a profile box is rejected: %s", sy_gset_model(gs), res.message);
    }
    free(vals);
}

/* the histogram point of the example with the sizes of dims given (in dim order) */
static void hist_point(const sy_gset *gs, const sy_region *r, const int64_t *sizes, int64_t *row)
{
    for (size_t i = 0; i < sy_gset_nsources(gs); i++)
        if (!sy_gset_source_example(gs, i, &row[i])) row[i] = 0;
    for (size_t k = 0; k < sy_region_ndims(r); k++) row[sy_region_dim_at(r, k)->source] = sizes[k];
}

Test(deploy_profile, a_progression_is_pinned_in_every_box, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[48],\"dynamic\":[0]},"
                                   "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,16]}],\"outputs\":[{\"ref\":\"v\"}]}",
                               &g);
    sy_region *r = region_of(gs);
    /* sizes 16 (x5), 32 (x3), 48 (x1), 40 (x7: not a multiple of 16, outside) */
    int64_t pts[4][3], sz[4] = {16, 32, 48, 40};
    uint64_t cnt[4] = {5, 3, 1, 7};
    for (int i = 0; i < 4; i++) hist_point(gs, r, &sz[i], pts[i]);
    sy_profiles *p = NULL;
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 4, &pts[0][0], cnt, &p), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    uint64_t total, outside, unc;
    sy_profiles_counts(p, &total, &outside, &unc);
    cr_assert(eq(u64, total, 16));
    cr_assert(eq(u64, outside, 7));
    cr_assert(eq(u64, unc, 0));
    cr_assert(eq(sz, sy_profiles_size(p), 3));
    int64_t want[3] = {16, 32, 48};
    uint64_t wcov[3] = {5, 3, 1};
    for (size_t i = 0; i < 3; i++) {
        const sy_profile_box *b = sy_profiles_at(p, i);
        cr_assert(eq(i64, b->min[0], want[i]));
        cr_assert(eq(i64, b->max[0], want[i])); /* pinned: [16, 48] would hold 17 .. 47 */
        cr_assert(eq(u64, b->covered, wcov[i]));
        box_accepted(gs, r, b);
    }
    char *t = sy_profiles_format(p, SY_PROFILE_TRTEXEC);
    cr_assert(strstr(t, "--minShapes=x:16 --optShapes=x:16 --maxShapes=x:16\n") != NULL, "%s", t);
    sy_str_free(ctx, t);
    sy_profiles_free(p);
    /* k = 1: the heaviest group alone; the others left out */
    sy_profile_options o = SY_PROFILE_OPTIONS_INIT;
    o.k = 1;
    cr_assert(eq(int, sy_profiles_new(gs, r, &o, 4, &pts[0][0], cnt, &p), SY_OK));
    cr_assert(eq(sz, sy_profiles_size(p), 1));
    sy_profiles_counts(p, NULL, NULL, &unc);
    cr_assert(eq(u64, unc, 4));
    sy_profiles_free(p);
    done(g, gs, r, 0);
}

Test(deploy_profile, resnet18_boxes_split_at_the_median_and_hold_only_accepted_sizes, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_file(SY_TESTS_DIR "/../examples/resnet18.json", &g);
    sy_region *r = region_of(gs);
    /* batch 1..16 x square sizes 96 .. 320 */
    int64_t bs[5] = {1, 2, 4, 8, 16}, hs[6] = {96, 128, 160, 224, 256, 320};
    int64_t pts[30][6];
    uint64_t cnt[30];
    for (int i = 0; i < 30; i++) {
        int64_t sz[4] = {bs[i / 6], 3, hs[i % 6], hs[i % 6]};
        hist_point(gs, r, sz, pts[i]);
        cnt[i] = hs[i % 6] == 224 ? 20 : 3; /* the mode: 224 */
    }
    sy_profile_options o = SY_PROFILE_OPTIONS_INIT;
    o.k = 3;
    sy_profiles *p = NULL;
    cr_assert(eq(int, sy_profiles_new(gs, r, &o, 30, &pts[0][0], cnt, &p), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, sy_profiles_size(p), 3));
    uint64_t cov = 0;
    int mode_seen = 0;
    for (size_t i = 0; i < 3; i++) {
        const sy_profile_box *b = sy_profiles_at(p, i);
        cov += b->covered;
        cr_assert(b->min[1] == 3 && b->max[1] == 3);
        cr_assert(b->min[2] <= b->opt[2] && b->opt[2] <= b->max[2]);
        mode_seen |= b->opt[2] == 224;
        box_accepted(gs, r, b);
    }
    cr_assert(eq(u64, cov, 5 * 20 + 25 * 3));
    cr_assert(mode_seen);
    char *j = sy_profiles_format(p, SY_PROFILE_JSON);
    json_error_t je;
    json_t *doc = json_loads(j, 0, &je);
    cr_assert(doc != NULL, "%s", j);
    cr_assert(eq(sz, json_array_size(json_object_get(doc, "profiles")), 3));
    json_decref(doc);
    sy_str_free(ctx, j);
    sy_profiles_free(p);
    /* no histogram: one box over the region, unbounded ends at 4 times the example */
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 0, NULL, NULL, &p), SY_OK));
    cr_assert(eq(sz, sy_profiles_size(p), 1));
    const sy_profile_box *b = sy_profiles_at(p, 0);
    cr_assert(eq(i64, b->min[2], 1));
    cr_assert(eq(i64, b->max[2], 896));
    cr_assert(eq(i64, b->opt[2], 224));
    char *ov = sy_profiles_format(p, SY_PROFILE_OPENVINO);
    cr_assert(strstr(ov, "ov.PartialShape(\"[0..32,3,1..896,1..896]\")") != NULL, "%s", ov);
    sy_str_free(ctx, ov);
    sy_profiles_free(p);
    done(g, gs, r, 0);
}

/* shufflenet's kept x0*CeilDiv(h, 8)*CeilDiv(w, 8) != 0: a box from batch 0 is not proved; the
 * box without a histogram starts at batch 1 */
Test(deploy_profile, kept_checks_raise_the_minimum, .init = ctx_setup, .fini = ctx_teardown)
{
    char path[1024];
    if (!shared_model("corpus", "shufflenet_v2_x1_0", path, sizeof path)) {
        cr_log_warn("no shufflenet_v2_x1_0 in the shared corpus: skipped");
        return;
    }
    sy_graph *g;
    sy_gset *gs = relaxed_file(path, &g);
    sy_region *r = region_of(gs);
    cr_assert(eq(sz, sy_region_nkept(r), 3));
    sy_profiles *p = NULL;
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 0, NULL, NULL, &p), SY_OK));
    cr_assert(eq(sz, sy_profiles_size(p), 1));
    const sy_profile_box *b = sy_profiles_at(p, 0);
    cr_assert(eq(i64, b->min[0], 1), "min batch %" PRId64, b->min[0]);
    box_accepted(gs, r, b);
    sy_profiles_free(p);
    done(g, gs, r, 0);
}

Test(deploy_profile, errors, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[6],\"dynamic\":[0]},"
                                   "{\"name\":\"r\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}],\"outputs\":[{\"ref\":\"r\"}]}",
                               &g);
    sy_region *r = region_of(gs);
    sy_profiles *p = NULL;
    cr_assert(eq(int, sy_profiles_new(gs, NULL, NULL, 0, NULL, NULL, &p), SY_EINVAL));
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 1, NULL, NULL, &p), SY_EINVAL));
    sy_profile_options o = SY_PROFILE_OPTIONS_INIT;
    o.k = 65;
    cr_assert(eq(int, sy_profiles_new(gs, r, &o, 0, NULL, NULL, &p), SY_EINVAL));
    o.k = 0;
    o.version = 7;
    cr_assert(eq(int, sy_profiles_new(gs, r, &o, 0, NULL, NULL, &p), SY_EVERSION));
    cr_assert(p == NULL);
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 0, NULL, NULL, &p), SY_OK));
    cr_assert(sy_profiles_format(p, (sy_profile_fmt)9) == NULL);
    cr_assert(sy_profiles_free(p) == NULL);
    cr_assert(sy_profiles_free(NULL) == NULL);
    done(g, gs, r, 0);
}

/* issue 38 (adversarial pass): counts adding up past 2^63 - 1 wrapped the total (a box
 * "covering 307445734561825816576%"); a size whose distance to b is past int64 (x - b
 * overflowed in sy_region_contains_si) is outside, not undefined behaviour */
Test(deploy_profile, hostile_counts_and_sizes, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[48],\"dynamic\":[0]},"
                                   "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,16]},"
                                   "{\"name\":\"a\",\"op\":\"add\",\"args\":[{\"ref\":\"v\"},1]}],\"outputs\":[{\"ref\":\"a\"}]}",
                               &g);
    sy_region *r = region_of(gs);
    int64_t pts[2][3], sz[2] = {16, 32};
    for (int i = 0; i < 2; i++) hist_point(gs, r, &sz[i], pts[i]);
    uint64_t cnt[2] = {(uint64_t)INT64_MAX, 1};
    sy_profiles *p = NULL;
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 2, &pts[0][0], cnt, &p), SY_EOVERFLOW));
    cr_assert(p == NULL);
    cnt[0] = (uint64_t)INT64_MAX - 1;
    cr_assert(eq(int, sy_profiles_new(gs, r, NULL, 2, &pts[0][0], cnt, &p), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    uint64_t total;
    sy_profiles_counts(p, &total, NULL, NULL);
    cr_assert(eq(u64, total, (uint64_t)INT64_MAX));
    sy_profiles_free(p);
    /* INT64_MIN and INT64_MAX as the size: outside, no overflow (UBSan) */
    int64_t big[3];
    memcpy(big, pts[0], sizeof big);
    size_t n = sy_gset_nsources(gs);
    for (size_t i = 0; i < n; i++) {
        const char *src = sy_gset_source(gs, i);
        if (strstr(src, ".size()[0]") == NULL) continue;
        int64_t ext[2] = {INT64_MIN, INT64_MAX};
        for (int k = 0; k < 2; k++) {
            big[i] = ext[k];
            int in = 1;
            cr_assert(eq(int, sy_region_contains_si(r, big, n, &in, NULL, 0), SY_OK));
            cr_assert(eq(int, in, 0));
        }
    }
    done(g, gs, r, 0);
}

/* ---- corners */

Test(deploy_corners, unet_progression_edges_and_faces_name_their_guards, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_file(SY_TESTS_DIR "/deploy/data/unet_cat.json", &g);
    sy_region *r = region_of(gs);
    sy_corners *c = NULL;
    cr_assert(eq(int, sy_corners_new(gs, r, &c), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, sy_corners_size(c), 11));
    size_t in = 0, off = 0;
    for (size_t i = 0; i < sy_corners_size(c); i++) {
        const sy_corner *k = sy_corners_at(c, i);
        /* the region and the guard set agree at every corner (no kept check here) */
        cr_assert(eq(int, k->in_region, k->accept), "%s", k->label);
        if (k->in_region) {
            in++;
            cr_assert(k->guard == NULL);
        } else {
            cr_assert(k->guard != NULL, "%s", k->label);
        }
        if (strstr(k->label, "off its progression")) {
            off++;
            cr_assert(strstr(k->guard, "== 4*FloorDiv(") != NULL, "%s", k->guard);
        }
    }
    cr_assert(eq(sz, in, 5));
    cr_assert(eq(sz, off, 4));
    const sy_corner *k = sy_corners_at(c, 3);
    cr_assert(eq(str, (char *)k->label, "x_2_k = min - 1 (0)"));
    cr_assert(eq(str, (char *)k->guard, "1 <= x.size()[2] failed: x.size()[2] = 0"));
    char *j = sy_corners_to_json(c);
    json_error_t je;
    json_t *doc = json_loads(j, 0, &je);
    cr_assert(doc != NULL);
    json_t *k3 = json_array_get(json_object_get(doc, "corners"), 3);
    cr_assert(eq(i64, json_integer_value(json_array_get(json_object_get(json_object_get(k3, "sizes"), "x"), 2)), 0));
    json_decref(doc);
    sy_str_free(ctx, j);
    sy_corners_free(c);
    done(g, gs, r, 0);
}

Test(deploy_corners, a_broken_equality_is_rejected_by_it, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    sy_gset *gs = relaxed_text(ADD_XY, &g);
    sy_region *r = region_of(gs);
    sy_corners *c = NULL;
    cr_assert(eq(int, sy_corners_new(gs, r, &c), SY_OK));
    cr_assert(eq(sz, sy_corners_size(c), 4));
    const char *want[4] = {"the example", "x_0 = min (0)", "x_0 + 1 alone (its tie to x_0 broken)",
                           "y_0 + 1 alone (its tie to x_0 broken)"};
    for (size_t i = 0; i < 4; i++) cr_assert(eq(str, (char *)sy_corners_at(c, i)->label, (char *)want[i]));
    cr_assert(eq(str, (char *)sy_corners_at(c, 3)->guard,
                 "Or(x.size()[0] == 1, x.size()[0] == y.size()[0], y.size()[0] == 1) failed: x.size()[0] = 6, y.size()[0] = 7"));
    c = sy_corners_free(c);
    cr_assert(eq(int, sy_corners_new(gs, NULL, &c), SY_EINVAL));
    cr_assert(c == NULL);
    cr_assert(sy_corners_free(NULL) == NULL);
    done(g, gs, r, 0);
}

/* ---- memory envelopes */

Test(deploy_memory, resnet18_bytes_match_the_concrete_run_and_the_largest_batch_is_proved, .init = ctx_setup,
     .fini = ctx_teardown, .timeout = SY_TIMEOUT(300))
{
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, SY_TESTS_DIR "/../examples/resnet18.json", &g), SY_OK));
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    sy_env *env = sy_env_new(ctx, &eo);
    sy_trace *tr;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &tr), SY_OK));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    sy_region *r = region_of(gs);
    sy_memory *m = NULL;
    cr_assert(eq(int, sy_memory_new(env, g, tr, r, &m), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, sy_memory_nskipped(m), 0));
    const sy_memory_value *conv1 = NULL;
    for (size_t i = 0; i < sy_memory_size(m); i++)
        if (!strcmp(sy_memory_at(m, i)->node, "conv1")) conv1 = sy_memory_at(m, i);
    cr_assert(conv1 != NULL);
    char *e = sy_expr_print(ctx, conv1->bytes, SY_PRINT_CANONICAL);
    cr_assert(eq(str, e, "256*x_0*CeilDiv(x_2, 2)*CeilDiv(x_3, 2)"));
    sy_str_free(ctx, e);
    /* the bytes of every tensor value equal numel * 4 of the concrete run at 50 points */
    const sy_expr *syms[3];
    for (size_t v = 0; v < 3; v++) syms[v] = sy_expr_sym(ctx, sy_region_var_at(r, v)->name);
    sy_realvals *rv = sy_realvals_new(ctx, g);
    long checked = 0;
    for (int p = 0; p < 50; p++) {
        int64_t t[3] = {1 + (int64_t)(rnd() % 3), 1 + (int64_t)(rnd() % 80), 1 + (int64_t)(rnd() % 80)};
        int64_t shape[4] = {t[0], 3, t[1], t[2]};
        cr_assert(eq(int, sy_realvals_bind(rv, "x", 4, shape), SY_OK));
        for (size_t i = 0; i < sy_memory_size(m); i += 7) { /* every 7th value: the run is memoized */
            const sy_memory_value *mv = sy_memory_at(m, i);
            long node = sy_graph_find(g, mv->node);
            const sy_value *val;
            cr_assert(eq(int, sy_realvals_get(rv, (size_t)node, &val), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
            cr_assert(val->kind == SY_V_TENSOR);
            int64_t numel = 1, b = 0;
            for (size_t k = 0; k < val->u.t->ndim; k++) {
                int64_t s;
                cr_assert(eq(int, sy_expr_get_si(val->u.t->sizes[k], &s), SY_OK));
                numel *= s;
            }
            cr_assert(eq(int, sy_expr_eval_si(ctx, mv->bytes, 3, syms, t, &b), SY_OK));
            cr_assert(eq(i64, b, numel * mv->elem_bytes), "%s at %ld,%ld,%ld", mv->node, (long)t[0], (long)t[1], (long)t[2]);
            checked++;
        }
    }
    cr_assert(checked >= 50 * 20);
    sy_realvals_free(rv);
    /* the largest batch at 224x224 for 1 GiB and 16 GiB: conv1's 256*B*112*112 bytes */
    int64_t fixed[3] = {0, 224, 224}, best;
    int proved;
    cr_assert(eq(int, sy_memory_largest(m, r, 0, fixed, SY_MEM_LARGEST, (uint64_t)1 << 30, &best, &proved), SY_OK));
    cr_assert(eq(i64, best, 334)); /* 2^30 / 3211264 = 334.4 */
    cr_assert(proved);
    cr_assert(eq(int, sy_memory_largest(m, r, 0, fixed, SY_MEM_LARGEST, (uint64_t)16 << 30, &best, &proved), SY_OK));
    cr_assert(eq(i64, best, 5349));
    cr_assert(proved);
    /* the sum of the activations: smaller; at 1000 bytes not even batch 0 -> 0 fits? batch 0 is 0 bytes */
    int64_t tot;
    cr_assert(eq(int, sy_memory_largest(m, r, 0, fixed, SY_MEM_TOTAL, (uint64_t)1 << 30, &tot, &proved), SY_OK));
    cr_assert(tot < 334 && tot >= 1, "%ld", (long)tot);
    cr_assert(proved);
    /* the live sum in graph order: conv1's output is still read by bn1 when bn1's is born, so
     * 2 * 3211264 bytes per image at that node: 2^30 / 6422528 = 167.2; between the two above */
    int64_t live;
    cr_assert(eq(int, sy_memory_largest(m, r, 0, fixed, SY_MEM_LIVE, (uint64_t)1 << 30, &live, &proved), SY_OK));
    cr_assert(eq(i64, live, 167));
    cr_assert(proved);
    cr_assert(tot <= live && live <= 334);
    cr_assert(eq(int, sy_memory_largest(m, r, 0, fixed, (sy_memory_what)3, 1, &best, &proved), SY_EINVAL));
    /* the peak over a box, against exact evaluation at every point of a small one: batch 1..3,
     * H and W 30..37 (CeilDiv steps inside), the largest of the values' bytes (and live sums) */
    {
        int64_t lo[3] = {1, 30, 30}, hi[3] = {3, 37, 37};
        uint64_t peak, peak_live;
        cr_assert(eq(int, sy_memory_peak(m, r, lo, hi, SY_MEM_LARGEST, &peak, &proved), SY_OK));
        cr_assert(proved);
        cr_assert(eq(u64, peak, (uint64_t)256 * 3 * 19 * 19)); /* conv1 at 3x37x37: 256*3*CeilDiv(37,2)^2 */
        cr_assert(eq(int, sy_memory_peak(m, r, lo, hi, SY_MEM_LIVE, &peak_live, &proved), SY_OK));
        cr_assert(proved);
        cr_assert(peak_live >= peak);
        const sy_expr *vs[3] = {sy_expr_sym(ctx, "x_0"), sy_expr_sym(ctx, "x_2"), sy_expr_sym(ctx, "x_3")};
        uint64_t seen = 0;
        for (int64_t b0 = 1; b0 <= 3; b0++)
            for (int64_t h = 30; h <= 37; h++)
                for (int64_t w = 30; w <= 37; w++) {
                    int64_t pt[3] = {b0, h, w};
                    for (size_t i = 0; i < sy_memory_size(m); i++) {
                        const sy_memory_value *mv = sy_memory_at(m, i);
                        int64_t b;
                        if (!strcmp(mv->op, "param")) continue;
                        cr_assert(eq(int, sy_expr_eval_si(ctx, mv->bytes, 3, vs, pt, &b), SY_OK));
                        cr_assert(le(u64, (uint64_t)b, peak), "%s at %ld,%ld,%ld", mv->node, (long)b0, (long)h, (long)w);
                        if ((uint64_t)b > seen) seen = (uint64_t)b;
                    }
                }
        cr_assert(eq(u64, seen, peak)); /* reached */
        int64_t bad[3] = {1, 0, 30}; /* x_2 >= 1 */
        cr_assert(eq(int, sy_memory_peak(m, r, bad, hi, SY_MEM_LARGEST, &peak, &proved), SY_EINVAL));
        cr_assert(eq(int, sy_memory_peak(m, r, hi, lo, SY_MEM_LARGEST, &peak, &proved), SY_EINVAL)); /* empty */
        cr_assert(eq(int, sy_memory_peak(m, r, lo, hi, (sy_memory_what)9, &peak, &proved), SY_EINVAL));
        cr_assert(eq(int, sy_memory_peak(NULL, r, lo, hi, SY_MEM_LARGEST, &peak, &proved), SY_EINVAL));
    }
    /* errors */
    cr_assert(eq(int, sy_memory_largest(m, r, 7, fixed, SY_MEM_LARGEST, 1, &best, &proved), SY_EINVAL));
    fixed[1] = 0; /* x_2 >= 1 */
    cr_assert(eq(int, sy_memory_largest(m, r, 0, fixed, SY_MEM_LARGEST, 1, &best, &proved), SY_EINVAL));
    m = sy_memory_free(m);
    cr_assert(eq(int, sy_memory_new(env, g, tr, NULL, &m), SY_EINVAL));
    cr_assert(m == NULL);
    sy_region_free(r);
    sy_gset_free(gs);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
}

/* Issue 38: a progression longer than the scan windows stayed static. view(-1, 65536) of
 * x [65536] with x >= 1: the windows [1, 17) and [65520, 65552) (window 16) hold one accepted
 * size, which was the region's only size; the guards' modulus 65536 steps to 131072 and 196608,
 * both accepted, so the region is 65536*k, k >= 1 (proved). And the two windows of an example far
 * above the low end are one run when the sizes between them follow its step: x >= 1 and x even,
 * example 100000 (window 16): the region was [99984, oo) (the example's window only); it is
 * 2*k, k >= 1. Random points of each region are accepted by the guard set (sample_region). */
Test(deploy_region, progressions_longer_than_the_window_and_merged_windows, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_region_options o = SY_REGION_OPTIONS_INIT;
    o.window = 16;
    sy_graph *g;
    sy_gset *gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[65536],\"dynamic\":[0]},"
                                   "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,65536]},"
                                   "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0]},"
                                   "{\"name\":\"c\",\"op\":\"ge\",\"args\":[{\"ref\":\"s\"},1]},"
                                   "{\"name\":\"gb\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"c\"},true]}],"
                                   "\"outputs\":[{\"ref\":\"v\"}]}",
                               &g);
    sy_region *r = NULL;
    cr_assert(eq(int, sy_region_new(gs, &o, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    size_t np;
    cr_assert(sy_region_proved(r, &np));
    const sy_region_dim *d = sy_region_dim_at(r, 0);
    cr_assert(d->is_static == 0);
    cr_assert(eq(i64, d->a, 65536));
    cr_assert(eq(i64, d->min, 65536));
    done(g, gs, r, 100);
    gs = relaxed_text(HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[100000],\"dynamic\":[0]},"
                          "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,2]},"
                          "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0]},"
                          "{\"name\":\"c\",\"op\":\"ge\",\"args\":[{\"ref\":\"s\"},1]},"
                          "{\"name\":\"gb\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"c\"},true]}],"
                          "\"outputs\":[{\"ref\":\"v\"}]}",
                      &g);
    cr_assert(eq(int, sy_region_new(gs, &o, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(sy_region_proved(r, &np));
    d = sy_region_dim_at(r, 0);
    cr_assert(eq(i64, d->a, 2));
    cr_assert(eq(i64, d->min, 2), "min %" PRId64, d->min);
    done(g, gs, r, 100);
}

/* Issue 38 (fix38f): sy_region_new of n inputs [b_i, d_i] joined by cat along dim 1 (the b_i tied
 * by the cat, the d_i free) took 2.0 / 7.0 / 26 s at 300 / 600 / 1,200 inputs (quadratic: a
 * binding of every symbol per evaluation, a scan of the sources per lookup and of the guards per
 * root, every source a key of every substitution, a trial copy of the facts per equality); now
 * ~linear (bench_scale "region of n inputs"). The exact region at n = 2,000: one variable for the
 * tied b_i and one per d_i, every guard proved but the sum's int64 bound (kept), each dim its
 * variable with a = 1, b = 0. Under ASan (SY_TEST_ASAN) at n = 500: the same region, the same
 * paths, a quarter of the work (11 of the ASan deploy test's 32 s at n = 2,000). */
Test(deploy_region, cat_of_2000_inputs_is_linear, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(30)) /* before: ~70 s */
{
    enum { N = SY_TEST_ASAN ? 500 : 2000 };
    size_t cap = (size_t)N * 160 + 256, len = 0;
    char *t = malloc(cap);
    cr_assert(t != NULL);
    len += (size_t)snprintf(t + len, cap - len, HDR);
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"x%d\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[4,%d],\"dynamic\":[0,1]},", i,
                                1 + i % 7);
    len += (size_t)snprintf(t + len, cap - len, "{\"name\":\"c\",\"op\":\"cat\",\"args\":[[");
    for (int i = 0; i < N; i++) len += (size_t)snprintf(t + len, cap - len, "%s{\"ref\":\"x%d\"}", i ? "," : "", i);
    len += (size_t)snprintf(t + len, cap - len, "],1]}],\"outputs\":[{\"ref\":\"c\"}]}");
    sy_graph *g;
    sy_gset *gs = relaxed_text(t, &g);
    free(t);
    sy_region *r = region_of(gs);
    size_t nproved = 0;
    cr_assert(sy_region_proved(r, &nproved));
    /* kept: the cat's sum of the d_i fits int64 (several dims, no Dim expresses it) */
    cr_assert(eq(sz, nproved, sy_gset_size(gs) - 1));
    cr_assert(eq(sz, sy_region_nkept(r), 1));
    char kept[64];
    snprintf(kept, sizeof kept, "x%d.size()[1] <= 9223372036854775807", N - 1);
    cr_assert(strstr(sy_region_kept_at(r, 0)->text, kept) != NULL, "%s", sy_region_kept_at(r, 0)->text);
    cr_assert(eq(sz, sy_region_nvars(r), (size_t)N + 1));
    cr_assert(eq(sz, sy_region_ndims(r), (size_t)2 * N));
    const sy_region_dim *b0 = NULL;
    for (size_t k = 0; k < sy_region_ndims(r); k++) {
        const sy_region_dim *d = sy_region_dim_at(r, k);
        cr_assert(d->is_static == 0 && d->a == 1 && d->b == 0, "%s", d->name);
        const sy_region_var *v = sy_region_var_at(r, d->var);
        cr_assert(v->tmin == 0 && v->tmax == SY_REGION_UNBOUNDED, "%s: [%" PRId64 ", %" PRId64 "]", d->name, v->tmin, v->tmax);
        if (d->dim == 0) {
            if (!b0) b0 = d;
            cr_assert(eq(sz, d->var, b0->var), "%s", d->name); /* the b_i: one variable */
        } else {
            cr_assert(d->var != b0->var, "%s", d->name);
        }
    }
    /* sample_region's check of every guard at a point is quadratic here: one point, by the region */
    size_t n = sy_gset_nsources(gs);
    int64_t *t8 = malloc((N + 1) * sizeof *t8), *vals = malloc(n * sizeof *vals);
    cr_assert(t8 != NULL && vals != NULL);
    for (size_t v = 0; v <= N; v++) t8[v] = (int64_t)(rnd() % 50);
    cr_assert(point_at(gs, r, t8, vals));
    int in = 0;
    cr_assert(eq(int, sy_region_contains_si(r, vals, n, &in, NULL, 0), SY_OK));
    cr_assert(in);
    free(t8);
    free(vals);
    done(g, gs, r, 0);
}
