/* Renderings of a region (sy_region_format, include/symshape/deploy.h):
 * text, torch.export, JAX, ONNX, the --dynamic spec, JSON. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "algebra/internal.h"
#include "deploy/deploy_private.h"

typedef struct {
    sy_ctx *ctx;
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + (size_t)k + 1) nc *= 2;
        char *q = sy_realloc(b->ctx, b->p, b->cap, nc);
        if (!q) {
            b->oom = 1;
            return;
        }
        if (!b->p) q[0] = '\0';
        b->p = q;
        b->cap = nc;
    }
}

/* the exact-size string of b (GIVE), or NULL on SY_ENOMEM (recorded) */
static char *finish(sbuf *b)
{
    if (!b->oom && !b->p) put(b, "%s", "");
    if (b->oom) {
        if (b->p) sy_dealloc(b->ctx, b->p, b->cap);
        sy_fail(b->ctx, SY_ENOMEM, "out of memory");
        return NULL;
    }
    char *s = sy_alloc(b->ctx, b->n + 1);
    if (s) memcpy(s, b->p, b->n + 1);
    sy_dealloc(b->ctx, b->p, b->cap);
    if (!s) sy_fail(b->ctx, SY_ENOMEM, "out of memory");
    return s;
}

/* a name, guard or message from the model on a text or comment line: every control byte (the
 * newline included) and DEL as \xHH, so that a name cannot end a '#' comment and start a line of
 * Python or shell code, nor forge a line of the text (issue 38, fourth pass) */
static void put_text(sbuf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) put(b, "\\x%02x", *p);
        else put(b, "%c", *p);
    }
}

/* s inside a shell single-quoted word: a quote as '\'' (the word ends, an escaped quote, it
 * starts again); every other byte stands for itself there */
static void put_shq(sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\'') put(b, "'\\''");
        else put(b, "%c", *s);
    }
}

/* the dim as an expression of its variable: "x_0", "32*x_2_k", "32*x_2_k + 1", "2*x_0 - 1", "3" */
static void dim_expr(sbuf *b, const sy_region *r, const sy_region_dim *d)
{
    if (d->is_static) {
        put(b, "%" PRId64, d->value);
        return;
    }
    const char *v = r->vars[d->var].name;
    if (d->a == 1) put(b, "%s", v);
    else put(b, "%" PRId64 "*%s", d->a, v);
    if (d->b > 0) put(b, " + %" PRId64, d->b);
    else if (d->b < 0) put(b, " - %" PRId64, -(d->b + 1) + (int64_t)1);
}

static void range_text(sbuf *b, int64_t lo, int64_t hi)
{
    if (hi == SY_REGION_UNBOUNDED) put(b, "[%" PRId64 ", oo)", lo);
    else put(b, "[%" PRId64 ", %" PRId64 "]", lo, hi);
}

static void status_line(sbuf *b, const sy_region *r, const char *c)
{
    put(b, "%sregion of ", c);
    put_text(b, r->model);
    put(b, ": %s (%zu guards proved to hold at every point, %zu kept as runtime checks)\n", r->proved ? "proved" : "NOT proved",
        r->nproved, r->nkept);
}

static void kept_lines(sbuf *b, const sy_region *r, const char *c)
{
    if (!r->nkept) return;
    put(b, "%skept as runtime checks (check them with the guard set; the region alone does not imply them):\n", c);
    for (size_t i = 0; i < r->nkept; i++) {
        put(b, "%s  [%zu] ", c, r->kept[i].guard);
        put_text(b, r->kept[i].text);
        put(b, "  -- ");
        put_text(b, r->kept[i].reason);
        put(b, "\n");
    }
}

/* the variable is a progression's root or a plain dim's own */
static int var_is_static(const sy_region_var *v) { return v->tmax != SY_REGION_UNBOUNDED && v->tmax == v->tmin; }

static void fmt_text(sbuf *b, const sy_region *r)
{
    status_line(b, r, "");
    for (size_t k = 0; k < r->ndims; k++) {
        const sy_region_dim *d = &r->dims[k];
        put(b, "  ");
        put_text(b, d->input);
        put(b, ".size()[%zu]  %-12s ", d->dim, d->name);
        if (d->is_static) {
            put(b, "static %" PRId64 "\n", d->value);
            continue;
        }
        put(b, "= ");
        dim_expr(b, r, d);
        put(b, ",  %s in ", r->vars[d->var].name);
        range_text(b, r->vars[d->var].tmin, r->vars[d->var].tmax);
        put(b, ",  size in ");
        range_text(b, d->min, d->max);
        put(b, "\n");
    }
    kept_lines(b, r, "");
}

static void py_string(sbuf *b, const char *s)
{
    put(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') put(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) put(b, "\\x%02x", (unsigned char)*s);
        else put(b, "%c", *s);
    }
    put(b, "\"");
}

static void fmt_torch(sbuf *b, const sy_region *r)
{
    status_line(b, r, "# ");
    put(b, "from torch.export import Dim\n");
    for (size_t v = 0; v < r->nvars; v++) {
        const sy_region_var *x = &r->vars[v];
        if (var_is_static(x)) continue;
        int used = 0;
        for (size_t k = 0; k < r->ndims; k++) used |= !r->dims[k].is_static && r->dims[k].var == v;
        if (!used) continue;
        put(b, "%s = Dim(\"%s\", min=%" PRId64, x->name, x->name, x->tmin);
        if (x->tmax != SY_REGION_UNBOUNDED) put(b, ", max=%" PRId64, x->tmax);
        put(b, ")\n");
    }
    put(b, "dynamic_shapes = {\n");
    for (size_t k = 0; k < r->ndims;) {
        const char *in = r->dims[k].input;
        put(b, "    ");
        py_string(b, in);
        put(b, ": {");
        int first = 1;
        for (; k < r->ndims && !strcmp(r->dims[k].input, in); k++) {
            const sy_region_dim *d = &r->dims[k];
            put(b, "%s%zu: ", first ? "" : ", ", d->dim);
            first = 0;
            if (d->is_static) put(b, "Dim.STATIC");
            else dim_expr(b, r, d);
        }
        put(b, "},\n");
    }
    put(b, "}\n");
    put(b, "# ep = torch.export.export(model, args, dynamic_shapes=dynamic_shapes,\n"
           "#                          prefer_deferred_runtime_asserts_over_guards=True)\n"
           "# (torch's tracer adds guards the region does not need: 0/1 tests of intermediate sizes and\n"
           "#  FloorDiv facts its solver cannot prove; the flag makes them runtime asserts instead of a\n"
           "#  ConstraintViolationError. symshape's guards are proved for every point of the region,\n"
           "#  torch's are not: the exported program then fails its own runtime asserts at some sizes of\n"
           "#  the region where the model runs, e.g. an intermediate size 1 (Ne(..., 1)). Check the\n"
           "#  sizes you deploy against ep, or keep the eager model for them. A dim whose example size\n"
           "#  is 0 or 1 is specialized by torch.export whatever the spec says: export at an example >= 2.)\n");
    kept_lines(b, r, "# ");
}

static void fmt_jax(sbuf *b, const sy_region *r)
{
    status_line(b, r, "# ");
    put(b, "# JAX dimension variables are >= 1: a region minimum of 0 becomes 1 there\n");
    put(b, "import jax\nscope = jax.export.SymbolicScope([");
    int first = 1;
    for (size_t v = 0; v < r->nvars; v++) {
        const sy_region_var *x = &r->vars[v];
        if (var_is_static(x)) continue;
        if (x->tmin > 1) {
            put(b, "%s\"%s >= %" PRId64 "\"", first ? "" : ", ", x->name, x->tmin);
            first = 0;
        }
        if (x->tmax != SY_REGION_UNBOUNDED) {
            put(b, "%s\"%s <= %" PRId64 "\"", first ? "" : ", ", x->name, x->tmax);
            first = 0;
        }
    }
    put(b, "])\n");
    for (size_t k = 0; k < r->ndims;) {
        const char *in = r->dims[k].input;
        put(b, "shape_");
        for (const char *c = in; *c; c++)
            put(b, "%c", (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_');
        put(b, " = jax.export.symbolic_shape(\"");
        int first2 = 1;
        for (; k < r->ndims && !strcmp(r->dims[k].input, in); k++) {
            put(b, "%s", first2 ? "" : ", ");
            first2 = 0;
            dim_expr(b, r, &r->dims[k]);
        }
        put(b, "\", scope=scope)\n");
    }
    kept_lines(b, r, "# ");
}

static char *dim_expr_str(sy_ctx *ctx, const sy_region *r, const sy_region_dim *d)
{
    sbuf b = {ctx, NULL, 0, 0, 0};
    dim_expr(&b, r, d);
    return finish(&b);
}

static json_t *jstr(const char *s) { return json_string(s ? s : ""); }

/* ONNX: per input, the dims as dim_value (int) or dim_param (string); the relations as metadata_props */
static json_t *onnx_json(sy_ctx *ctx, const sy_region *r)
{
    json_t *root = json_object(), *ins = json_object(), *meta = json_object();
    if (!root || !ins || !meta) goto oom;
    json_object_set_new(root, "format", jstr("symshape.region.onnx"));
    json_object_set_new(root, "version", json_integer(1));
    for (size_t k = 0; k < r->ndims; k++) {
        const sy_region_dim *d = &r->dims[k];
        json_t *arr = json_object_get(ins, d->input);
        if (!arr) {
            arr = json_array();
            if (!arr || json_object_set_new(ins, d->input, arr)) goto oom;
        }
        json_t *e;
        if (d->is_static) {
            e = json_pack("{s:I}", "dim_value", (json_int_t)d->value);
        } else {
            char *s = dim_expr_str(ctx, r, d);
            if (!s) goto oom;
            e = json_pack("{s:s}", "dim_param", s);
            sy_str_free(ctx, s);
        }
        if (!e || json_array_append_new(arr, e)) goto oom;
    }
    json_object_set_new(root, "inputs", ins);
    ins = NULL;
    /* metadata: one line per variable range, one per kept check */
    sbuf b = {ctx, NULL, 0, 0, 0};
    for (size_t v = 0; v < r->nvars; v++) {
        const sy_region_var *x = &r->vars[v];
        if (var_is_static(x)) continue;
        put(&b, "%s%" PRId64 " <= %s", b.n ? "; " : "", x->tmin, x->name);
        if (x->tmax != SY_REGION_UNBOUNDED) put(&b, " <= %" PRId64, x->tmax);
    }
    char *ranges = finish(&b);
    if (!ranges) goto oom;
    json_object_set_new(meta, "symshape.region.ranges", jstr(ranges));
    sy_str_free(ctx, ranges);
    sbuf c = {ctx, NULL, 0, 0, 0};
    for (size_t i = 0; i < r->nkept; i++) put(&c, "%s%s", i ? "; " : "", r->kept[i].text);
    char *kept = finish(&c);
    if (!kept) goto oom;
    json_object_set_new(meta, "symshape.region.runtime_checks", jstr(kept));
    sy_str_free(ctx, kept);
    json_object_set_new(meta, "symshape.region.proved", jstr(r->proved ? "true" : "false"));
    json_object_set_new(root, "metadata_props", meta);
    return root;
oom:
    json_decref(root);
    json_decref(ins);
    json_decref(meta);
    return NULL;
}

static json_t *region_json(const sy_region *r)
{
    json_t *root = json_object(), *vars = json_array(), *dims = json_array(), *kept = json_array();
    if (!root || !vars || !dims || !kept) {
        json_decref(root);
        json_decref(vars);
        json_decref(dims);
        json_decref(kept);
        return NULL;
    }
    json_object_set_new(root, "format", jstr("symshape.region"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "model", jstr(r->model));
    json_object_set_new(root, "proved", json_boolean(r->proved));
    json_object_set_new(root, "example_inside", json_boolean(r->example_inside));
    json_object_set_new(root, "guards_proved", json_integer((json_int_t)r->nproved));
    for (size_t v = 0; v < r->nvars; v++)
        json_array_append_new(vars, json_pack("{s:s, s:I, s:o}", "name", r->vars[v].name, "min", (json_int_t)r->vars[v].tmin,
                                              "max", r->vars[v].tmax == SY_REGION_UNBOUNDED ? json_null()
                                                                                            : json_integer((json_int_t)r->vars[v].tmax)));
    for (size_t k = 0; k < r->ndims; k++) {
        const sy_region_dim *d = &r->dims[k];
        json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:b, s:I, s:I}", "input", d->input, "dim", (json_int_t)d->dim, "source",
                              (json_int_t)d->source, "name", d->name, "static", d->is_static, "min", (json_int_t)d->min,
                              "example", (json_int_t)d->example);
        if (!o) continue;
        json_object_set_new(o, "max", d->max == SY_REGION_UNBOUNDED ? json_null() : json_integer((json_int_t)d->max));
        if (d->is_static) {
            json_object_set_new(o, "value", json_integer((json_int_t)d->value));
        } else {
            json_object_set_new(o, "var", json_integer((json_int_t)d->var));
            json_object_set_new(o, "a", json_integer((json_int_t)d->a));
            json_object_set_new(o, "b", json_integer((json_int_t)d->b));
        }
        json_array_append_new(dims, o);
    }
    for (size_t i = 0; i < r->nkept; i++)
        json_array_append_new(kept, json_pack("{s:I, s:s, s:s}", "guard", (json_int_t)r->kept[i].guard, "text",
                                              r->kept[i].text, "reason", r->kept[i].reason));
    json_object_set_new(root, "vars", vars);
    json_object_set_new(root, "dims", dims);
    json_object_set_new(root, "kept", kept);
    return root;
}

/* the --dynamic options: names and ranges of the dims; equal dims share a name; what a spec
 * cannot say (progressions, derived dims other than equal) as comment lines */
static void fmt_spec(sbuf *b, const sy_region *r)
{
    status_line(b, r, "# ");
    sbuf notes = {r->ctx, NULL, 0, 0, 0};
    for (size_t k = 0; k < r->ndims;) {
        const char *in = r->dims[k].input;
        size_t k0 = k;
        int any = 0;
        for (; k < r->ndims && !strcmp(r->dims[k].input, in); k++) any |= !r->dims[k].is_static;
        put(b, "--dynamic '");
        put_shq(b, in);
        put(b, "=");
        int first = 1;
        for (size_t j = k0; any && j < k; j++) {
            const sy_region_dim *d = &r->dims[j];
            if (d->is_static) continue;
            const sy_region_var *v = &r->vars[d->var];
            /* a dim equal to its variable shares the variable's name (one Dim) */
            const char *nm = d->a == 1 && d->b == 0 ? v->name : d->name;
            put(b, "%s%zu:%s@%" PRId64 "..", first ? "" : ",", d->dim, nm, d->min);
            if (d->max != SY_REGION_UNBOUNDED) put(b, "%" PRId64, d->max);
            first = 0;
            if (d->a != 1 || d->b != 0) {
                put(&notes, "#   ");
                put_text(&notes, in);
                put(&notes, ".size()[%zu] = ", d->dim);
                dim_expr(&notes, r, d);
                put(&notes, " (%s in ", v->name);
                range_text(&notes, v->tmin, v->tmax);
                put(&notes, ")\n");
            }
        }
        put(b, "'\n");
    }
    char *ns = finish(&notes);
    if (!ns) {
        b->oom = 1;
        return;
    }
    if (*ns) put(b, "# not expressible in --dynamic (a progression or a derived dim): check them with the guard set\n%s", ns);
    sy_str_free(r->ctx, ns);
    kept_lines(b, r, "# ");
}

static char *json_give(sy_ctx *ctx, json_t *j)
{
    if (!j) return SY_NFAIL(ctx, SY_ENOMEM, "out of memory");
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    if (!s) return SY_NFAIL(ctx, SY_ENOMEM, "out of memory");
    size_t n = strlen(s) + 1;
    char *out = sy_alloc(ctx, n + 1);
    if (out) {
        memcpy(out, s, n - 1);
        out[n - 1] = '\n';
        out[n] = '\0';
    }
    free(s);
    if (!out) return SY_NFAIL(ctx, SY_ENOMEM, "out of memory");
    return out; /* strlen(out) + 1 == n + 1 bytes: what sy_str_free releases */
}

/* JSON cannot carry a name that is not UTF-8 (an ONNX model's may hold any bytes): json_pack gave
 * NULL and the dim was left out ("dims": [] with exit 0; attack38g). The first such text, or NULL. */
static const char *region_bad_utf8(const sy_region *r)
{
#define SY_BAD(s, what) \
    if ((s) && sy_str_is_utf8(s) != SY_TRUE) return what
    SY_BAD(r->model, "the model's name");
    for (size_t v = 0; v < r->nvars; v++) SY_BAD(r->vars[v].name, "a variable's name");
    for (size_t k = 0; k < r->ndims; k++) {
        SY_BAD(r->dims[k].input, "an input's name");
        SY_BAD(r->dims[k].name, "a dim's name");
    }
    for (size_t i = 0; i < r->nkept; i++) {
        SY_BAD(r->kept[i].text, "a kept check");
        SY_BAD(r->kept[i].reason, "a kept check's reason");
    }
#undef SY_BAD
    return NULL;
}

char *sy_region_format(const sy_region *r, sy_region_fmt fmt)
{
    if (!r) return NULL;
    const char *bad = fmt == SY_REGION_ONNX || fmt == SY_REGION_JSON ? region_bad_utf8(r) : NULL;
    if (bad) return SY_NFAIL(r->ctx, SY_EFORMAT, "%s is not valid UTF-8, which JSON cannot carry (the text format prints it)", bad);
    sbuf b = {r->ctx, NULL, 0, 0, 0};
    switch (fmt) {
    case SY_REGION_TEXT: fmt_text(&b, r); break;
    case SY_REGION_TORCH: fmt_torch(&b, r); break;
    case SY_REGION_JAX: fmt_jax(&b, r); break;
    case SY_REGION_SPEC: fmt_spec(&b, r); break;
    case SY_REGION_ONNX: return json_give(r->ctx, onnx_json(r->ctx, r));
    case SY_REGION_JSON: return json_give(r->ctx, region_json(r));
    default: return SY_NFAIL(r->ctx, SY_EINVAL, "sy_region_format: unknown format %d", (int)fmt);
    }
    return finish(&b);
}
