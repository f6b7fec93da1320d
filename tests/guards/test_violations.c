/* Violations of the dynamic-dim spec on real models and on small graphs of
 * each kind: vit_b_16's _assert pins h and w ("static 224"), resnet18 with
 * x=0:batch@1..1024,2:h,3:w holds and accepts every probe point torch ran
 * inside the spec, a view forcing Mod(h*w, 16) == 0 gets the divisibility
 * fix, and narrowed / equal / function / 0-1 cases get theirs. */
#include <jansson.h>

#include "common.h"
#include "corpus.h"

static char *model_path(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/corpus/%s.json", SY_SHARED_DIR, name);
    FILE *f = fopen(path, "r");
    if (f) {
        fclose(f);
        return path;
    }
    snprintf(path, sizeof path, "%s/../examples/%s.json", SY_TESTS_DIR, name);
    return path;
}

static sy_gset *traced_set(sy_graph *g, const char *spec)
{
    sy_env *env = sy_env_new(ctx, NULL);
    sy_input_spec *s = NULL;
    sy_trace_override ov = {NULL, 0, 0, NULL, NULL};
    if (spec) {
        cr_assert(eq(int, sy_input_spec_parse(ctx, spec, (size_t)-1, &s), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        ov.input = s->input;
        ov.spec = s;
    }
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, spec ? 1 : 0, &ov, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(t);
    sy_env_free(env);
    sy_input_spec_free(ctx, s);
    return gs;
}

static sy_gset *traced_text(const char *text, const char *spec, sy_graph **gout)
{
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, text, strlen(text), "t", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    *gout = g;
    return traced_set(g, spec);
}

Test(guards_violations, vit_b_16_assert_pins_h_and_w_fix_static_224, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, model_path("vit_b_16"), &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs = traced_set(g, "x=0:batch,2:h,3:w");
    cr_assert(eq(sz, sy_gset_nviolations(gs), 2));
    const char *want[2] = {"h", "w"};
    for (size_t i = 0; i < 2; i++) {
        const sy_gset_violation *v = sy_gset_violation_at(gs, i);
        cr_assert(eq(int, v->kind, SY_VIOL_PINNED));
        cr_assert(eq(str, (char *)v->dims, (char *)want[i]));
        cr_assert(eq(int, strncmp(v->fix, "static 224", 10), 0), "%s", v->fix);
        cr_assert(strstr(v->fix, "the model itself requires it: _assert at node") != NULL, "%s", v->fix);
        cr_assert(v->model_requires);
        cr_assert(strstr(sy_gset_at(gs, v->guard)->text, "== 224") != NULL);
    }
    /* the JSON carries the spec and the violations */
    char *js = sy_gset_to_json(gs);
    json_error_t err;
    json_t *j = json_loads(js, 0, &err);
    cr_assert(j != NULL);
    cr_assert(eq(sz, json_array_size(json_object_get(j, "spec")), 3));
    json_t *v0 = json_array_get(json_object_get(j, "violations"), 0);
    cr_assert(eq(str, (char *)json_string_value(json_object_get(v0, "kind")), "pinned"));
    cr_assert(eq(str, (char *)json_string_value(json_object_get(v0, "text")), "x.size()[2] == 224"));
    const char *kind0 = json_string_value(json_object_get(v0, "kind"));
    cr_assert(kind0 && !strcmp(kind0, "pinned"));
    int req = json_is_true(json_object_get(v0, "model_requires"));
    cr_assert(req);
    json_decref(j);
    sy_str_free(ctx, js);
    sy_gset_free(gs);
    /* without a spec: no violations, no spec fields (behaviour as before) */
    gs = traced_set(g, NULL);
    cr_assert(eq(sz, sy_gset_nviolations(gs), 0));
    js = sy_gset_to_json(gs);
    cr_assert(strstr(js, "\"violations\"") == NULL);
    sy_str_free(ctx, js);
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* resnet18 with the spec holds, and probe accepts every point torch ran where
 * the batch is in [1, 1024] and H, W >= 2; every accepted point is sound */
Test(guards_violations, resnet18_spec_holds_and_accepts_every_point_in_the_spec, .init = ctx_setup, .fini = ctx_teardown)
{
    char probes[1024];
    snprintf(probes, sizeof probes, "%s/probes/resnet18.probes.json", SY_SHARED_DIR);
    json_error_t err;
    json_t *pr = json_load_file(probes, 0, &err);
    if (!pr) {
        snprintf(probes, sizeof probes, "%s/../examples/resnet18.probes.json", SY_TESTS_DIR);
        pr = json_load_file(probes, 0, &err);
    }
    cr_assert(pr != NULL, "%s", probes);
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, model_path("resnet18"), &g), SY_OK));
    sy_gset *gs = traced_set(g, "x=0:batch@1..1024,2:h,3:w");
    cr_assert(eq(sz, sy_gset_nviolations(gs), 0));
    size_t ns = sy_gset_nsources(gs), i;
    int64_t *vals = malloc(ns * sizeof *vals);
    long in_spec = 0, accepted = 0;
    json_t *p;
    json_array_foreach(json_object_get(pr, "points"), i, p) {
        json_t *x = json_object_get(json_object_get(p, "sizes"), "x");
        int64_t shp[4];
        for (size_t d = 0; d < 4; d++) shp[d] = json_integer_value(json_array_get(x, d));
        const char *names[1] = {"x"};
        size_t ranks[1] = {json_array_size(x)};
        const int64_t *shapes[1] = {shp};
        sy_dtype dts[1] = {SY_DT_FLOAT32};
        cr_assert(eq(int, sy_gset_values_from_shapes(gs, 1, names, ranks, shapes, dts, vals), SY_OK));
        sy_gset_result r = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, vals, ns, &r), SY_OK));
        int ok = json_is_true(json_object_get(p, "ok"));
        int spec = ok && shp[0] >= 1 && shp[0] <= 1024 && shp[1] == 3 && shp[2] >= 2 && shp[3] >= 2;
        in_spec += spec;
        accepted += r.accept;
        if (spec) cr_assert(r.accept, "rejects [%lld, %lld, %lld, %lld]: %s", (long long)shp[0], (long long)shp[1],
                            (long long)shp[2], (long long)shp[3], r.message);
        if (r.accept) cr_assert(ok, "UNSOUND: accepts [%lld, %lld, %lld, %lld]", (long long)shp[0], (long long)shp[1],
                                (long long)shp[2], (long long)shp[3]);
    }
    cr_assert(gt(long, in_spec, 100), "the probes exercise the spec (%ld points)", in_spec);
    cr_assert(ge(long, accepted, in_spec));
    free(vals);
    sy_gset_free(gs);
    sy_graph_free(g);
    json_decref(pr);
}

#define HDR "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"t\",\"nodes\":["

Test(guards_violations, view_forcing_mod_h_w_16_gets_the_divisibility_fix, .init = ctx_setup, .fini = ctx_teardown)
{
    const char *G = HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[4,8],\"dynamic\":[0,1]},"
                        "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,16]}],\"outputs\":[{\"ref\":\"v\"}]}";
    sy_graph *g;
    sy_gset *gs = traced_text(G, "x=0:h,1:w", &g);
    cr_assert(eq(sz, sy_gset_nviolations(gs), 1));
    const sy_gset_violation *v = sy_gset_violation_at(gs, 0);
    cr_assert(eq(int, v->kind, SY_VIOL_DIVISIBILITY));
    cr_assert(eq(str, (char *)v->dims, "h and w"));
    cr_assert(strstr(v->fix, "h*w must be a multiple of 16") != NULL, "%s", v->fix);
    cr_assert(strstr(sy_gset_at(gs, v->guard)->text, "Mod(") != NULL, "%s", sy_gset_at(gs, v->guard)->text);
    cr_assert(v->model_requires);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(guards_violations, narrowed_equal_function_and_01_fixes, .init = ctx_setup, .fini = ctx_teardown)
{
    /* narrowed: the trace branched on batch <= 512 */
    const char *N = HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[8,3],\"dynamic\":[0]},"
                        "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0]},"
                        "{\"name\":\"c\",\"op\":\"le\",\"args\":[{\"ref\":\"s\"},512]},"
                        "{\"name\":\"gb\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"c\"},true]}],\"outputs\":[{\"ref\":\"x\"}]}";
    sy_graph *g;
    sy_gset *gs = traced_text(N, "x=0:batch@1..1024", &g);
    cr_assert(eq(sz, sy_gset_nviolations(gs), 1));
    const sy_gset_violation *v = sy_gset_violation_at(gs, 0);
    cr_assert(eq(int, v->kind, SY_VIOL_NARROWED));
    cr_assert(eq(str, (char *)v->fix, "batch = Dim('batch', min=1, max=512)"));
    cr_assert(eq(str, (char *)v->message, "not all values of batch in [1, 1024] satisfy x.size()[0] <= 512"));
    cr_assert(not(v->model_requires));
    sy_gset_free(gs);
    /* a declared range inside what the trace allows: holds */
    gs = traced_set(g, "x=0:batch@1..512");
    cr_assert(eq(sz, sy_gset_nviolations(gs), 0));
    sy_gset_free(gs);
    sy_graph_free(g);
    /* equal: an add broadcasts h against w */
    const char *E = HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[6],\"dynamic\":[0]},"
                        "{\"name\":\"y\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[6],\"dynamic\":[0]},"
                        "{\"name\":\"a\",\"op\":\"add\",\"args\":[{\"ref\":\"x\"},{\"ref\":\"y\"}]}],\"outputs\":[{\"ref\":\"a\"}]}";
    sy_graph *g2;
    cr_assert(eq(int, sy_graph_load_text(ctx, E, strlen(E), "t", &g2), SY_OK));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_input_spec *sx, *sy;
    cr_assert(eq(int, sy_input_spec_parse(ctx, "x=0:h", (size_t)-1, &sx), SY_OK));
    cr_assert(eq(int, sy_input_spec_parse(ctx, "y=0:w", (size_t)-1, &sy), SY_OK));
    sy_trace_override ov[2] = {{"x", 0, 0, NULL, sx}, {"y", 0, 0, NULL, sy}};
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g2, 2, ov, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_produce(env, g2, &gs), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    cr_assert(eq(sz, sy_gset_nviolations(gs), 1));
    v = sy_gset_violation_at(gs, 0);
    cr_assert(eq(int, v->kind, SY_VIOL_EQUAL));
    cr_assert(strstr(v->fix, "h and w must be equal: give them one name") == v->fix, "%s", v->fix);
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    /* one name on both: holds, and the equality is the declared one */
    env = sy_env_new(ctx, NULL);
    sy_input_spec *sy2;
    cr_assert(eq(int, sy_input_spec_parse(ctx, "y=0:h", (size_t)-1, &sy2), SY_OK));
    sy_trace_override ov2[2] = {{"x", 0, 0, NULL, sx}, {"y", 0, 0, NULL, sy2}};
    cr_assert(eq(int, sy_env_trace(env, g2, 2, ov2, &t), SY_OK));
    cr_assert(eq(int, sy_gset_produce(env, g2, &gs), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    cr_assert(eq(sz, sy_gset_nviolations(gs), 0));
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_input_spec_free(ctx, sx);
    sy_input_spec_free(ctx, sy);
    sy_input_spec_free(ctx, sy2);
    sy_graph_free(g2);
    /* function: 2*h == w + 1 through a cat of x with itself added to y */
    const char *F = HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[3,5],\"dynamic\":[0,1]},"
                        "{\"name\":\"c\",\"op\":\"cat\",\"args\":[[{\"ref\":\"x\"},{\"ref\":\"x\"}]]},"
                        "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"c\"},0]},"
                        "{\"name\":\"s1\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},1]},"
                        "{\"name\":\"sub\",\"op\":\"sub\",\"args\":[{\"ref\":\"s1\"},{\"ref\":\"s\"}]},"
                        "{\"name\":\"e\",\"op\":\"eq\",\"args\":[{\"ref\":\"sub\"},-1]},"
                        "{\"name\":\"gb\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"e\"},true]}],\"outputs\":[{\"ref\":\"c\"}]}";
    gs = traced_text(F, "x=0:h,1:w", &g);
    cr_assert(eq(sz, sy_gset_nviolations(gs), 1));
    v = sy_gset_violation_at(gs, 0);
    cr_assert(eq(int, v->kind, SY_VIOL_FUNCTION), "%s", sy_violation_kind_name(v->kind));
    cr_assert(strstr(v->fix, "h and w are tied by 2*h == w + 1: make them static (h = 3, w = 5 at the example)") != NULL, "%s", v->fix);
    sy_gset_free(gs);
    sy_graph_free(g);
    /* 0/1: an example batch of 1 without min=1 is specialized: the fix names min=1 */
    const char *O = HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[1,3],\"dynamic\":[0]},"
                        "{\"name\":\"r\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}],\"outputs\":[{\"ref\":\"r\"}]}";
    gs = traced_text(O, "x=0:batch", &g);
    cr_assert(eq(sz, sy_gset_nviolations(gs), 1));
    v = sy_gset_violation_at(gs, 0);
    cr_assert(eq(int, v->kind, SY_VIOL_PINNED));
    cr_assert(strstr(v->fix, "batch = Dim('batch', min=1) keeps size 1 dynamic (or --no-specialize-01)") == v->fix, "%s", v->fix);
    sy_gset_free(gs);
    gs = traced_set(g, "x=0:batch@1..");
    cr_assert(eq(sz, sy_gset_nviolations(gs), 0));
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* x = [b, h, w] declared x=0:b,1:h,2:w, a scalar guard_bool asserting REL (ops on s0, s1, s2) */
static char *div_graph(const char *ops, const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,6,4],\"dynamic\":[0,1,2]},"
                 "{\"name\":\"s0\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0]},"
                 "{\"name\":\"s1\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},1]},"
                 "{\"name\":\"s2\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},2]},%s"
                 "{\"name\":\"gb\",\"op\":\"guard_bool\",\"args\":[{\"ref\":\"%s\"},true]}],\"outputs\":[{\"ref\":\"x\"}]}",
             ops, rel);
    return buf;
}

#define OP2(n, o, a, b) "{\"name\":\"" n "\",\"op\":\"" o "\",\"args\":[" a "," b "]},"
#define R(n) "{\"ref\":\"" n "\"}"

/* random points of the declared box [lo, hi]^3 (b, h, w): the guard equals AND of Mod(v, 2) == 0 over the dims in want */
/* want[d]: the modulus dim d must be a multiple of (0: none) */
static void div_agrees_with_mod(sy_gset *gs, const sy_gset_violation *v, const int want[3], int64_t lo, int64_t hi)
{
    const sy_expr *syms[3];
    size_t slot[3];
    for (size_t d = 0; d < 3; d++) {
        char src[32];
        snprintf(src, sizeof src, "x.size()[%zu]", d);
        slot[d] = sy_gset_nsources(gs);
        for (size_t i = 0; i < sy_gset_nsources(gs); i++)
            if (!strcmp(sy_gset_source(gs, i), src)) slot[d] = i;
        cr_assert(slot[d] < sy_gset_nsources(gs));
        syms[d] = sy_gset_source_var(gs, slot[d]);
    }
    const sy_expr *ge = sy_gset_at(gs, v->guard)->expr;
    uint64_t r = 88172645463325252ull;
    for (int it = 0; it < 2000; it++) {
        int64_t vals[3];
        bool mod = true;
        for (size_t d = 0; d < 3; d++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            vals[d] = lo + (int64_t)(r % (uint64_t)(hi - lo + 1));
            if (want[d] && vals[d] % want[d]) mod = false;
        }
        int64_t got;
        cr_assert(eq(int, sy_expr_eval_si(ctx, ge, 3, syms, vals, &got), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        cr_assert(eq(i64, got, mod ? 1 : 0), "b=%lld h=%lld w=%lld", (long long)vals[0], (long long)vals[1], (long long)vals[2]);
    }
}

Test(guards_violations, divisibility_without_a_mod_is_proved_by_residue_cases, .init = ctx_setup, .fini = ctx_teardown)
{
    static const struct {
        const char *ops, *rel, *text, *dims, *fix;
        int want[3];
    } cs[] = {
        {/* h == 2*CeilDiv(h, 2): unet's skip Add of an upsampled half */
         OP2("h1", "add", R("s1"), "1") OP2("c", "floordiv", R("h1"), "2") OP2("c2", "mul", R("c"), "2") OP2("e", "eq", R("c2"), R("s1")),
         "e", "x.size()[1] == 2*CeilDiv(x.size()[1], 2)", "h",
         "h must be a multiple of 2 (the guard holds exactly then): no Dim range expresses this; make h static, or declare it a "
         "multiple (h = 2*Dim('h_k')) where the model allows it",
         {0, 2, 0}},
        {/* h == 2*FloorDiv(h, 2) */
         OP2("c", "floordiv", R("s1"), "2") OP2("c2", "mul", R("c"), "2") OP2("e", "eq", R("c2"), R("s1")), "e",
         "x.size()[1] == 2*FloorDiv(x.size()[1], 2)", "h",
         "h must be a multiple of 2 (the guard holds exactly then): no Dim range expresses this; make h static, or declare it a "
         "multiple (h = 2*Dim('h_k')) where the model allows it",
         {0, 2, 0}},
        {/* FloorDiv(w, 4) == CeilDiv(w, 4): by 2 (focus's two strided slices concatenated) the sum
          * is Mod(w, 2) (rule ADD_HALVES), a guard with a Mod */
         OP2("f", "floordiv", R("s2"), "4") OP2("w1", "add", R("s2"), "3") OP2("c", "floordiv", R("w1"), "4")
             OP2("e", "eq", R("f"), R("c")),
         "e", "FloorDiv(x.size()[2], 4) == CeilDiv(x.size()[2], 4)", "w",
         "w must be a multiple of 4 (the guard holds exactly then): no Dim range expresses this; make w static, or declare it a "
         "multiple (w = 4*Dim('w_k')) where the model allows it",
         {0, 0, 4}},
        {/* b*h*w == 4*b*FloorDiv(h, 2)*FloorDiv(w, 2): a Reshape to [b, 4, h/2, w/2]; b cancels, b >= 1 */
         OP2("p", "mul", R("s0"), R("s1")) OP2("p2", "mul", R("p"), R("s2")) OP2("fh", "floordiv", R("s1"), "2")
             OP2("fw", "floordiv", R("s2"), "2") OP2("q", "mul", R("fh"), R("fw")) OP2("q2", "mul", R("q"), R("s0"))
                 OP2("q4", "mul", R("q2"), "4") OP2("e", "eq", R("p2"), R("q4")),
         "e", "x.size()[0]*x.size()[1]*x.size()[2] == 4*x.size()[0]*FloorDiv(x.size()[1], 2)*FloorDiv(x.size()[2], 2)",
         "h and w",
         "h must be a multiple of 2 and w a multiple of 2 (the guard holds exactly then): no Dim range expresses this; make h and "
         "w static, or declare each a multiple (h = 2*Dim('h_k'), w = 2*Dim('w_k')) where the model allows it",
         {0, 2, 2}},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        sy_graph *g;
        sy_gset *gs = traced_text(div_graph(cs[i].ops, cs[i].rel), "x=0:b@1..64,1:h@1..512,2:w@1..512", &g);
        cr_assert(eq(sz, sy_gset_nviolations(gs), 1), "case %zu", i);
        const sy_gset_violation *v = sy_gset_violation_at(gs, 0);
        cr_assert(eq(str, (char *)sy_gset_at(gs, v->guard)->text, (char *)cs[i].text), "case %zu", i);
        cr_assert(eq(int, v->kind, SY_VIOL_DIVISIBILITY), "case %zu: %s", i, sy_violation_kind_name(v->kind));
        cr_assert(eq(str, (char *)v->dims, (char *)cs[i].dims));
        cr_assert(eq(str, (char *)v->fix, (char *)cs[i].fix));
        div_agrees_with_mod(gs, v, cs[i].want, 1, 64);
        sy_gset_free(gs);
        if (i == 3) {
            /* b may be 0: then b*h*w == 4*b*... holds at odd h too, no divisibility is proved */
            gs = traced_set(g, "x=0:b@0..64,1:h@1..512,2:w@1..512");
            cr_assert(eq(sz, sy_gset_nviolations(gs), 1));
            cr_assert(eq(int, sy_gset_violation_at(gs, 0)->kind, SY_VIOL_FUNCTION));
            sy_gset_free(gs);
        }
        sy_graph_free(g);
    }
    /* h == 4*FloorDiv(h, 4) + 2 (true at the example h = 6): Mod(h, 4) == 2, not a multiple: stays a function of h */
    sy_graph *g;
    sy_gset *gs = traced_text(div_graph(OP2("c", "floordiv", R("s1"), "4") OP2("c2", "mul", R("c"), "4")
                                            OP2("c3", "add", R("c2"), "2") OP2("e", "eq", R("c3"), R("s1")),
                                        "e"),
                              "x=0:b@1..64,1:h@1..512,2:w@1..512", &g);
    cr_assert(eq(sz, sy_gset_nviolations(gs), 1));
    cr_assert(eq(int, sy_gset_violation_at(gs, 0)->kind, SY_VIOL_FUNCTION), "%s",
              sy_violation_kind_name(sy_gset_violation_at(gs, 0)->kind));
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* Issue 32: interpolate's float(h) * s is exact in symshape's formula only up to a bound (and, for a
 * scale such as 0.7, outside runs of multiples): guards recorded as limits of symshape
 * (sy_env_evaluate_limit), which the spec check never reports, while the guard set keeps them. */
Test(guards_violations, formula_limits_are_not_violations, .init = ctx_setup, .fini = ctx_teardown)
{
    const char *scales[2] = {"2.0", "0.7"};
    for (int i = 0; i < 2; i++) {
        char G[1024];
        snprintf(G, sizeof G,
                 HDR "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,3,224,224],\"dynamic\":[0,2,3]},"
                     "{\"name\":\"o\",\"op\":\"interpolate\",\"args\":[{\"ref\":\"x\"}],\"kwargs\":{\"scale_factor\":%s}}],"
                     "\"outputs\":[{\"ref\":\"o\"}]}",
                 scales[i]);
        sy_graph *g;
        sy_gset *gs = traced_text(G, "x=0:batch,2:h,3:w", &g);
        cr_assert(eq(sz, sy_gset_nviolations(gs), 0), "scale %s: %zu violations, the first on %s", scales[i],
                  sy_gset_nviolations(gs), sy_gset_nviolations(gs) ? sy_gset_at(gs, sy_gset_violation_at(gs, 0)->guard)->text : "");
        size_t nlimit = 0;
        for (size_t k = 0; k < sy_gset_size(gs); k++) {
            const sy_gset_guard *gg = sy_gset_at(gs, k);
            for (size_t o = 0; o < gg->norigins; o++)
                if (gg->origins[o].limit) {
                    nlimit++;
                    cr_assert(not(gg->origins[o].required));
                    cr_assert(strstr(gg->origins[o].reason, "a limit of symshape's formula, not of the model") != NULL, "%s",
                              gg->origins[o].reason);
                }
        }
        cr_assert(nlimit >= 2, "scale %s: %zu limit origins", scales[i], nlimit); /* h and w */
        char *js = sy_gset_to_json(gs);
        cr_assert(strstr(js, "\"limit\": true") != NULL || strstr(js, "\"limit\":true") != NULL);
        sy_str_free(ctx, js);
        sy_gset_free(gs);
        sy_graph_free(g);
    }
}
