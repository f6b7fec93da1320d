/* The dynamic-dim spec's command-line form: NAME=ENTRY,ENTRY,... with ENTRY
 * DIM[:DIMNAME][@[MIN]..[MAX]] (docs/graph-format.md "Dynamic-dim spec").
 * Every error names the 1-based column and what was expected. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/buf.h"
#include "shapeenv/env_private.h"

#define SPEC_MAX_DIMS 64

/* one allocation: header, dims, then the strings */
typedef struct spec_block {
    size_t size;
    sy_input_spec pub;
    sy_dim_spec dims[];
} spec_block;

static sy_status perr(sy_ctx *ctx, const char *text, size_t len, size_t col, const char *what)
{
    return sy_fail_st(ctx, SY_EFORMAT, "dynamic spec '%.*s': column %zu: %s", (int)(len > 200 ? 200 : len), text, col + 1,
                      what);
}

static bool is_ident_start(int c) { return isalpha(c) || c == '_'; }
static bool is_ident(int c) { return isalnum(c) || c == '_'; }

/* a non-negative int64 at text[*i]; advances *i */
static bool read_int(const char *text, size_t len, size_t *i, int64_t *out)
{
    size_t j = *i;
    if (j >= len || !isdigit((unsigned char)text[j])) return false;
    uint64_t v = 0;
    while (j < len && isdigit((unsigned char)text[j])) {
        unsigned d = (unsigned)(text[j] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10) return false;
        v = v * 10 + d;
        j++;
    }
    *out = (int64_t)v;
    *i = j;
    return true;
}

sy_status sy_input_spec_parse(sy_ctx *ctx, const char *text, size_t len, sy_input_spec **out)
{
    if (!ctx) return SY_EINVAL;
    if (!text || !out) return sy_fail_st(ctx, SY_EINVAL, "dynamic spec: NULL argument");
    *out = NULL;
    if (len == (size_t)-1) len = strlen(text);
    for (size_t k = 0; k < len; k++)
        if (!text[k] || (unsigned char)text[k] < 0x20 || (unsigned char)text[k] >= 0x7f) {
            char m[64];
            snprintf(m, sizeof m, "unexpected byte 0x%02x", (unsigned char)text[k]);
            return sy_fail_st(ctx, SY_EFORMAT, "dynamic spec: column %zu: %s", k + 1, m);
        }
    size_t i = 0;
    while (i < len && text[i] != '=') i++;
    if (i == len) return perr(ctx, text, len, len, "expected INPUT=DIM,... ('=' missing)");
    if (i == 0) return perr(ctx, text, len, 0, "expected the input's name before '='");
    size_t name_len = i;
    sy_dim_spec dims[SPEC_MAX_DIMS];
    size_t nd = 0, strbytes = name_len + 1;
    size_t name_at[SPEC_MAX_DIMS], name_n[SPEC_MAX_DIMS];
    i++; /* '=' */
    if (i < len) {
        for (;;) {
            if (nd == SPEC_MAX_DIMS) return perr(ctx, text, len, i, "more than 64 dims");
            sy_dim_spec *d = &dims[nd];
            d->name = NULL;
            d->min = d->max = SY_DIM_SPEC_UNSET;
            name_n[nd] = 0;
            int64_t v;
            size_t at = i;
            if (!read_int(text, len, &i, &v)) return perr(ctx, text, len, at, "expected a dim index (a non-negative integer)");
            if (v > 63) return perr(ctx, text, len, at, "a dim index must be <= 63");
            d->dim = (size_t)v;
            for (size_t k = 0; k < nd; k++)
                if (dims[k].dim == d->dim) return perr(ctx, text, len, at, "this dim is listed twice");
            if (i < len && text[i] == ':') {
                i++;
                at = i;
                if (i >= len || !is_ident_start((unsigned char)text[i]))
                    return perr(ctx, text, len, at, "expected a dim name ([A-Za-z_][A-Za-z0-9_]*) after ':'");
                while (i < len && is_ident((unsigned char)text[i])) i++;
                name_at[nd] = at;
                name_n[nd] = i - at;
                strbytes += i - at + 1;
            }
            if (i < len && text[i] == '@') {
                i++;
                at = i;
                bool has_lo = false, has_hi = false;
                if (i < len && isdigit((unsigned char)text[i])) {
                    if (!read_int(text, len, &i, &d->min)) return perr(ctx, text, len, at, "the minimum does not fit int64");
                    has_lo = true;
                }
                if (i < len && text[i] == '-') return perr(ctx, text, len, i, "a bound of a size range must be non-negative");
                if (i + 1 >= len || text[i] != '.' || text[i + 1] != '.')
                    return perr(ctx, text, len, i, "expected '..' in the range @MIN..MAX (either bound may be left out)");
                i += 2;
                at = i;
                if (i < len && text[i] == '-') return perr(ctx, text, len, i, "a bound of a size range must be non-negative");
                if (i < len && isdigit((unsigned char)text[i])) {
                    if (!read_int(text, len, &i, &d->max)) return perr(ctx, text, len, at, "the maximum does not fit int64");
                    has_hi = true;
                }
                if (has_lo && has_hi && d->min > d->max) return perr(ctx, text, len, at, "the range is empty (MIN > MAX)");
                /* torch.export's Dim asserts max > min ("Cannot create Dim with inconsistent min=3,
                 * max=3", torch/export/dynamic_shapes.py Dim): one size is a static dim */
                if (has_lo && has_hi && d->min == d->max)
                    return perr(ctx, text, len, at, "the range holds one size (MIN == MAX): a dynamic dim needs MIN < MAX, as torch.export's Dim; a dim of one size is static (leave it out of --dynamic, or --static)");
                if (!has_lo && !has_hi) return perr(ctx, text, len, at, "a range needs at least one bound (@MIN.., @..MAX)");
            }
            nd++;
            if (i == len) break;
            if (text[i] != ',')
                return perr(ctx, text, len, i, "expected ',', ':NAME' or '@MIN..MAX' after a dim");
            i++;
            if (i == len) return perr(ctx, text, len, i, "expected a dim after ','");
        }
    }
    size_t size = sizeof(spec_block) + nd * sizeof(sy_dim_spec) + strbytes;
    spec_block *b = sy_alloc(ctx, size);
    if (!b) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    b->size = size;
    char *strs = (char *)&b->dims[nd];
    memcpy(strs, text, name_len);
    strs[name_len] = 0;
    b->pub.input = strs;
    strs += name_len + 1;
    for (size_t k = 0; k < nd; k++) {
        b->dims[k] = dims[k];
        if (name_n[k]) {
            memcpy(strs, text + name_at[k], name_n[k]);
            strs[name_n[k]] = 0;
            b->dims[k].name = strs;
            strs += name_n[k] + 1;
        }
    }
    b->pub.ndims = nd;
    b->pub.dims = b->dims;
    *out = &b->pub;
    return SY_OK;
}

sy_input_spec *sy_input_spec_free(sy_ctx *ctx, sy_input_spec *s)
{
    if (!s || !ctx) return NULL;
    spec_block *b = (spec_block *)((char *)s - offsetof(spec_block, pub));
    sy_dealloc(ctx, b, b->size);
    return NULL;
}

char *sy_input_spec_print(sy_ctx *ctx, const sy_input_spec *s)
{
    if (!ctx) return NULL;
    if (!s) return SY_NFAIL(ctx, SY_EINVAL, "dynamic spec: NULL argument");
    sy_buf b;
    sy_buf_init(&b, ctx);
    sy_buf_puts(&b, s->input);
    sy_buf_puts(&b, "=");
    for (size_t k = 0; k < s->ndims; k++) {
        const sy_dim_spec *d = &s->dims[k];
        char t[96];
        snprintf(t, sizeof t, "%s%zu", k ? "," : "", d->dim);
        sy_buf_puts(&b, t);
        if (d->name) {
            sy_buf_puts(&b, ":");
            sy_buf_puts(&b, d->name);
        }
        if (d->min != SY_DIM_SPEC_UNSET || d->max != SY_DIM_SPEC_UNSET) {
            sy_buf_puts(&b, "@");
            if (d->min != SY_DIM_SPEC_UNSET) {
                snprintf(t, sizeof t, "%" PRId64, d->min);
                sy_buf_puts(&b, t);
            }
            sy_buf_puts(&b, "..");
            if (d->max != SY_DIM_SPEC_UNSET) {
                snprintf(t, sizeof t, "%" PRId64, d->max);
                sy_buf_puts(&b, t);
            }
        }
    }
    return sy_buf_finish(&b);
}
