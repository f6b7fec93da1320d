/* Helpers shared by the bytecode tests: a raw assembler of encoded programs
 * (to craft exact corruptions), CRC re-sealing, header patching, and the
 * small guard sets the tests compile. */
#ifndef SY_BC_TEST_UTIL_H
#define SY_BC_TEST_UTIL_H
#include <stdio.h>
#include <zlib.h>

#include "common.h"
#include "symshape/bc.h"

static inline uint32_t bt_get32(const unsigned char *d)
{
    return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
}
static inline void bt_put32(unsigned char *d, uint32_t v)
{
    for (int i = 0; i < 4; i++) d[i] = (unsigned char)(v >> (8 * i));
}
static inline void bt_put16(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)v;
    d[1] = (unsigned char)(v >> 8);
}
/* Recompute the CRC of an encoded program in place (docs/bytecode.md §4:
 * bytes 0..35, then 40 to the end). */
static inline void bt_reseal(unsigned char *d, size_t len)
{
    if (len < SY_BC_HEADER_SIZE) return;
    uLong c = crc32(crc32(0L, Z_NULL, 0), d, 36);
    bt_put32(d + 36, (uint32_t)crc32(c, d + SY_BC_HEADER_SIZE, (uInt)(len - SY_BC_HEADER_SIZE)));
}

/* A raw program under construction (bytes appended in order). */
typedef struct bt_prog {
    unsigned char d[8192];
    size_t len;
} bt_prog;

static inline void bt_bytes(bt_prog *b, const void *p, size_t n)
{
    cr_assert(b->len + n <= sizeof b->d);
    memcpy(b->d + b->len, p, n);
    b->len += n;
}
static inline void bt_byte(bt_prog *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    bt_bytes(b, &c, 1);
}
static inline void bt_leb(bt_prog *b, uint64_t v)
{
    do {
        unsigned c = v & 0x7F;
        v >>= 7;
        bt_byte(b, c | (v ? 0x80u : 0));
    } while (v);
}
static inline void bt_str(bt_prog *b, const char *s)
{
    bt_leb(b, strlen(s));
    bt_bytes(b, s, strlen(s));
}
/* Header with the given counts (CRC filled by bt_finish). */
static inline void bt_header(bt_prog *b, uint32_t nregs, uint32_t nk, uint32_t nslots, uint32_t nguards, uint32_t ninstr)
{
    b->len = 0;
    bt_bytes(b, SY_BC_MAGIC, 8);
    unsigned char h[32];
    bt_put16(h, SY_BC_VERSION_MAJOR);
    bt_put16(h + 2, SY_BC_VERSION_MINOR);
    bt_put32(h + 4, 0);
    bt_put32(h + 8, nregs);
    bt_put32(h + 12, nk);
    bt_put32(h + 16, nslots);
    bt_put32(h + 20, nguards);
    bt_put32(h + 24, ninstr);
    bt_put32(h + 28, 0);
    bt_bytes(b, h, 32);
}
/* A constant: sign byte, LEB128 length, little-endian magnitude. */
static inline void bt_const_si(bt_prog *b, int64_t v)
{
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    unsigned char mag[8];
    size_t n = 0;
    while (m) {
        mag[n++] = (unsigned char)(m & 0xFF);
        m >>= 8;
    }
    bt_byte(b, v < 0);
    bt_leb(b, n);
    bt_bytes(b, mag, n);
}
static inline void bt_instr(bt_prog *b, uint32_t w)
{
    unsigned char c[4];
    bt_put32(c, w);
    bt_bytes(b, c, 4);
}
static inline void bt_finish(bt_prog *b) { bt_reseal(b->d, b->len); }

/* Load, asserting the status; returns the program (or NULL). */
static inline sy_bc_program *bt_load(const unsigned char *d, size_t len, sy_status want, sy_bc_load_err *err)
{
    sy_bc_program *p = NULL;
    sy_status st = sy_bc_load(ctx, d, len, &p, err);
    cr_assert(eq(int, st, want), "load: got %s, want %s: %s (offset %zu)", sy_status_name(st), sy_status_name(want), err->msg,
              err->offset);
    cr_assert(eq(int, err->code, st));
    return p;
}

/* A guard set from a one-input graph traced without duck sizing, plus user
 * facts (text over the symbols s0, s1, ... of the input's dims) and runtime
 * asserts. The graph is returned for freeing. */
static inline sy_gset *bt_gset(const char *shape, const char *dynamic, const char *const *facts, size_t nfacts,
                               const char *const *asserts, size_t nasserts, int minimize, sy_graph **gout)
{
    char G[1024];
    snprintf(G, sizeof G,
             "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["
             "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":%s,\"dynamic\":%s}],"
             "\"outputs\":[{\"ref\":\"x\"}]}",
             shape, dynamic);
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "t.json", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env_options o = SY_ENV_OPTIONS_INIT;
    o.duck_sizing = 0;
    sy_env *env = sy_env_new(ctx, &o);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    for (size_t i = 0; i < nfacts; i++)
        cr_assert(eq(int, sy_env_assume(env, P(facts[i]), NULL), SY_OK), "assume %s: %s", facts[i], sy_ctx_last_error_msg(ctx));
    for (size_t i = 0; i < nasserts; i++)
        cr_assert(eq(int, sy_env_runtime_assert(env, P(asserts[i]), NULL), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    if (minimize) cr_assert(eq(int, sy_gset_minimize(gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(t);
    sy_env_free(env);
    *gout = g;
    return gs;
}

static inline sy_bc_program *bt_compile(const sy_gset *gs)
{
    sy_bc_program *p = NULL;
    sy_status st = sy_bc_compile(gs, &p);
    cr_assert(eq(int, st, SY_OK), "compile: %s", sy_ctx_last_error_msg(ctx));
    return p;
}

/* xorshift64* */
static inline uint64_t bt_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}
/* The issue's chain as a user fact LAYER6 <= s0 over the input's size s0.
 * The issue's divisor A is 0 at some layer for every size, so no example
 * can assume it; here the divisor is Q - 1, which keeps the nodes and the
 * sharing and is 0 only for L in 22..29 (Q = 1): the reference rejects
 * there (a division by zero fails the guard) and the VM fails closed
 * (SY_EDIVZERO) on the same guard; everywhere else it gives the
 * reference's answer. The graph is returned for freeing. */
static inline const sy_expr *bt_issue_chain(const sy_expr *L, int layers)
{
    const sy_expr *lay = NULL;
    for (int k = 0; k < layers; k++) {
        const sy_expr *q = sy_expr_floordiv(ctx, sy_expr_pow_ui(ctx, L, 2), sy_expr_int_si(ctx, 448));
        const sy_expr *a = sy_expr_floordiv(ctx, sy_expr_mul_si(ctx, q, 64), sy_expr_int_si(ctx, 7));
        const sy_expr *d = sy_expr_floordiv(ctx, sy_expr_int_si(ctx, 512), sy_expr_add_si(ctx, q, -1));
        const sy_expr *t = sy_expr_floordiv(ctx, sy_expr_mul(ctx, d, q), sy_expr_int_si(ctx, 8));
        lay = sy_expr_floordiv(ctx, sy_expr_mul(ctx, t, a), sy_expr_int_si(ctx, 7));
        L = sy_expr_floordiv(ctx, lay, sy_expr_int_si(ctx, 4));
    }
    return lay;
}

static inline sy_gset *bt_chain_gset(int layers, sy_graph **gout)
{
    const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["
                    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[1000],\"dynamic\":[0]}],"
                    "\"outputs\":[{\"ref\":\"x\"}]}";
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "chain.json", gout), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, *gout, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_expr *fact = sy_expr_le(ctx, bt_issue_chain(P("s0"), layers), P("s0"));
    cr_assert(eq(int, sy_env_assume(env, fact, NULL), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return produce_minimized(env, *gout, t);
}

/* Issue 14's 69-node FloorDiv chain graph (tests/guards/data/floordiv_chain69.json),
 * loaded from text under its relative name (outputs that name the model must not hold
 * the checkout's path) into *gout, which the caller frees. */
static inline void bt_chain69_load(sy_graph **gout)
{
    FILE *f = fopen(SY_TESTS_DIR "/guards/data/floordiv_chain69.json", "rb");
    cr_assert(f != NULL);
    static char text[1 << 16];
    size_t tl = fread(text, 1, sizeof text, f);
    cr_assert(feof(f) && !ferror(f), "floordiv_chain69.json is larger than the buffer");
    fclose(f);
    cr_assert(eq(int, sy_graph_load_text(ctx, text, tl, "tests/guards/data/floordiv_chain69.json", gout), SY_OK), "%s",
              sy_ctx_last_error_msg(ctx));
}

/* That graph traced with the default policy, its guard set produced and
 * minimized. Returns the set; the caller frees it and then *gout. */
static inline sy_gset *bt_chain69_gset(sy_graph **gout)
{
    bt_chain69_load(gout);
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, *gout, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return produce_minimized(env, *gout, t);
}

#endif
