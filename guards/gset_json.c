/* Guard sets: the canonical text of a guard and the JSON form of a set. */
#include <jansson.h>

#include "guards/gset_private.h"

/* ------------------------------------------------------------------ JSON */

char *sy_gset_guard_canonical(const sy_gset *gs, size_t i)
{
    if (!gs) return NULL;
    sy_ctx *ctx = gs->ctx;
    if (i >= gs->n) return (char *)sy_fail(ctx, SY_EINVAL, "guard index %zu out of range (%zu guards)", i, gs->n);
    const sy_gset_guard *g = &gs->g[i].pub;
    /* a guard reads only its own slots, so only those are substituted */
    size_t nk = g->nslots ? g->nslots : 1;
    const sy_expr **ks = sy_alloc(ctx, nk * sizeof *ks), **vs = sy_alloc(ctx, nk * sizeof *vs);
    char *es = NULL;
    if (ks && vs) {
        char nm[32];
        size_t k = 0;
        for (; k < g->nslots; k++) {
            ks[k] = gs->vars[g->slots[k]];
            snprintf(nm, sizeof nm, "_s%zu", g->slots[k]);
            if (!(vs[k] = sy_expr_sym(ctx, nm))) break;
        }
        const sy_expr *e = k == g->nslots ? sy_expr_subs(ctx, g->expr, g->nslots, ks, vs) : NULL;
        es = e ? print_show(ctx, e) : NULL;
    } else {
        sy_oom(ctx);
    }
    if (ks) sy_dealloc(ctx, ks, nk * sizeof *ks);
    if (vs) sy_dealloc(ctx, vs, nk * sizeof *vs);
    return es;
}

/* ok(s): NULL or valid UTF-8. JSON cannot carry other bytes: jansson's json_string and json_pack
 * give NULL for them and the array or object they went to silently lost them (a model whose input
 * name is not UTF-8, which an ONNX file may hold, printed "sources": [] with exit 0; attack38g) */
static int ok(const char *s) { return !s || sy_str_is_utf8(s) == SY_TRUE; }

/* the first text of the set that JSON cannot carry, described, or NULL */
static const char *bad_text(const sy_gset *gs, size_t *at)
{
    *at = 0;
    if (!ok(gs->model)) return "the model's name";
    for (size_t i = 0; i < gs->nsrc; i++)
        if (!ok(gs->sources[i])) return *at = i, "source";
    for (size_t i = 0; i < gs->n; i++) {
        const sy_gset_guard *g = &gs->g[i].pub;
        int b = !ok(g->text) || !ok(g->why);
        for (size_t k = 0; k < g->norigins && !b; k++) {
            const sy_guard_origin *x = &g->origins[k];
            b = !ok(x->node) || !ok(x->op) || !ok(x->reason) || !ok(x->loc.file) || !ok(x->loc.function);
        }
        if (b) return *at = i, "guard";
    }
    for (size_t i = 0; i < gs->nimpl; i++)
        if (!ok(gs->impl[i].text) || !ok(gs->impl[i].why)) return *at = i, "implied guard";
    for (size_t i = 0; gs->decl && i < gs->nsrc; i++)
        if (gs->decl[i].declared && !ok(gs->decl[i].name)) return *at = i, "declared name of source";
    for (size_t i = 0; gs->decl && i < gs->nviol; i++)
        if (!ok(gs->viol[i].dims) || !ok(gs->viol[i].message) || !ok(gs->viol[i].fix)) return *at = i, "violation";
    return NULL;
}

char *sy_gset_to_json(const sy_gset *gs)
{
    if (!gs) return NULL;
    sy_ctx *ctx = gs->ctx;
    size_t at;
    const char *bad = bad_text(gs, &at);
    if (bad && !strcmp(bad, "the model's name")) return SY_NFAIL(ctx, SY_EFORMAT, "the model's name is not valid UTF-8, which JSON cannot carry");
    if (bad) return SY_NFAIL(ctx, SY_EFORMAT, "%s %zu: a name in it is not valid UTF-8, which JSON cannot carry", bad, at);
    json_t *root = json_object(), *srcs = json_array(), *guards = json_array(), *codes = json_object();
    json_object_set_new(root, "format", json_string("symshape.guards"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "model", json_string(gs->model ? gs->model : ""));
    for (size_t i = 0; i < gs->nsrc; i++) json_array_append_new(srcs, json_string(gs->sources[i]));
    json_object_set_new(root, "sources", srcs);
    for (int d = 0; d < SY_DT_COUNT; d++) json_object_set_new(codes, sy_dtype_name((sy_dtype)d), json_integer(d));
    json_object_set_new(root, "dtype_codes", codes);
    for (size_t i = 0; i < gs->n; i++) {
        const sy_gset_guard *g = &gs->g[i].pub;
        json_t *o = json_object(), *sl = json_array(), *orig = json_array();
        json_object_set_new(o, "kind", json_string(sy_gset_kind_name(g->kind)));
        json_object_set_new(o, "text", json_string(g->text));
        char *es = sy_gset_guard_canonical(gs, i);
        json_object_set_new(o, "expr", es ? json_string(es) : json_null());
        sy_str_free(ctx, es);
        for (size_t k = 0; k < g->nslots; k++) json_array_append_new(sl, json_integer((json_int_t)g->slots[k]));
        json_object_set_new(o, "slots", sl);
        json_object_set_new(o, "why", g->why ? json_string(g->why) : json_null());
        json_object_set_new(o, "count", json_integer(g->count));
        for (size_t k = 0; k < g->norigins; k++) {
            const sy_guard_origin *x = &g->origins[k];
            json_t *jo = json_pack("{s:s?, s:s?, s:s?, s:i}", "node", x->node, "op", x->op, "reason", x->reason, "count",
                                   (int)x->count);
            if (jo && x->required) json_object_set_new(jo, "required", json_true());
            if (jo && x->limit) json_object_set_new(jo, "limit", json_true());
            if (jo && x->loc.file)
                json_object_set_new(jo, "loc", json_pack("{s:s, s:I, s:s?}", "file", x->loc.file, "line", (json_int_t)x->loc.line,
                                                         "function", x->loc.function));
            json_array_append_new(orig, jo);
        }
        json_object_set_new(o, "origins", orig);
        json_array_append_new(guards, o);
    }
    json_object_set_new(root, "guards", guards);
    if (gs->nimpl) {
        json_t *imp = json_array();
        for (size_t i = 0; i < gs->nimpl; i++) {
            const sy_gset_implied *x = &gs->impl[i];
            json_t *by = json_array();
            for (size_t k = 0; k < x->nby; k++) json_array_append_new(by, json_integer((json_int_t)x->by[k]));
            json_array_append_new(imp, json_pack("{s:s, s:s, s:o, s:o, s:b}", "kind", sy_gset_kind_name(x->kind), "text",
                                                 x->text, "why", x->why ? json_string(x->why) : json_null(), "implied_by", by,
                                                 "partial", x->partial));
        }
        json_object_set_new(root, "implied", imp);
    }
    if (gs->decl) {
        json_t *spec = json_array(), *viol = json_array();
        for (size_t i = 0; i < gs->nsrc; i++) {
            const sdecl *d = &gs->decl[i];
            if (!d->declared) continue;
            json_array_append_new(spec, json_pack("{s:s, s:i, s:s?, s:I, s:o}", "source", gs->sources[i], "slot", (int)i, "name",
                                                  d->name, "min", (json_int_t)d->min, "max",
                                                  d->max >= 0 ? json_integer((json_int_t)d->max) : json_null()));
        }
        for (size_t i = 0; i < gs->nviol; i++) {
            const sy_gset_violation *v = &gs->viol[i];
            json_array_append_new(viol, json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:b}", "guard", (int)v->guard, "text",
                                                  gs->g[v->guard].pub.text, "kind", sy_violation_kind_name(v->kind), "dims",
                                                  v->dims, "message", v->message, "fix", v->fix, "model_requires",
                                                  v->model_requires));
        }
        json_object_set_new(root, "spec", spec);
        json_object_set_new(root, "violations", viol);
    }
    json_object_set_new(root, "counts", json_pack("{s:i, s:i, s:i}", "recorded", (int)gs->recorded, "deduplicated",
                                                  (int)gs->dedup, "kept", (int)gs->n));
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s) return SY_NOOM(ctx);
    size_t n = strlen(s) + 1;
    char *r = sy_alloc(ctx, n);
    if (r) memcpy(r, s, n);
    free(s);
    if (!r) sy_oom(ctx);
    return r;
}
