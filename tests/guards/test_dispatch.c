/* sy_dispatch (symshape/dispatch.h): N guard sets of one model in one
 * decision structure. The dispatch, the entry-by-entry int64 check and an
 * exact bignum reference (sy_expr_eval_si over every guard of every entry,
 * in order) must give the same entry at random sizes. */
#include <dlfcn.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "symshape/bc.h"
#include "symshape/dispatch.h"

/* Shape buckets of a real model: resnet18's minimized guard set (JSON), and
 * for entry i a batch bucket and an image-size bucket (an 8 x (n/8) grid),
 * with every other entry also requiring an even image size. */
static char **bucket_sets(size_t n, size_t *nsrc)
{
    sy_graph *g = NULL;
    cr_assert(eq(int, sy_graph_load_file(ctx, SY_TESTS_DIR "/../examples/resnet18.json", &g), SY_OK));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t = NULL;
    sy_gset *gs = NULL;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK));
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    char *js = sy_gset_to_json(gs);
    long sb = sy_gset_find_source(gs, "x.size()[0]"), sh = sy_gset_find_source(gs, "x.size()[2]");
    cr_assert(sb >= 0 && sh >= 0);
    *nsrc = sy_gset_nsources(gs);
    char **out = calloc(n, sizeof *out);
    size_t nb = n < 8 ? 1 : 8;
    for (size_t i = 0; i < n; i++) {
        json_error_t err;
        json_t *root = json_loads(js, 0, &err), *guards = json_object_get(root, "guards");
        cr_assert(root != NULL);
        size_t bi = i % nb, hi = i / nb;
        char e[4][128];
        snprintf(e[0], sizeof e[0], "%zu <= _s%ld", 4 * bi + 1, sb);
        snprintf(e[1], sizeof e[1], "_s%ld <= %zu", sb, 4 * bi + 4);
        snprintf(e[2], sizeof e[2], "%zu <= _s%ld", 32 + 8 * hi, sh);
        snprintf(e[3], sizeof e[3], "_s%ld <= %zu", sh, 39 + 8 * hi);
        for (int k = 0; k < 4; k++) json_array_append_new(guards, json_pack("{s:s, s:s}", "kind", "range", "expr", e[k]));
        if (i % 2) {
            char m[64];
            snprintf(m, sizeof m, "Mod(_s%ld, 2) == 0", sh);
            json_array_append_new(guards, json_pack("{s:s, s:s}", "kind", "relation", "expr", m));
        }
        out[i] = json_dumps(root, 0);
        json_decref(root);
    }
    sy_str_free(ctx, js);
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
    return out;
}

/* the exact reference: first entry whose every checked guard evaluates true with bignums */
typedef struct ref {
    size_t n, nsrc;
    size_t *ng;
    const sy_expr ***g;
    const sy_expr **syms;
} ref;

static void ref_init(ref *r, size_t n, char **texts, size_t nsrc)
{
    r->n = n;
    r->nsrc = nsrc;
    r->ng = calloc(n, sizeof *r->ng);
    r->g = calloc(n, sizeof *r->g);
    r->syms = calloc(nsrc, sizeof *r->syms);
    for (size_t s = 0; s < nsrc; s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "_s%zu", s);
        r->syms[s] = sy_expr_sym(ctx, nm);
    }
    for (size_t i = 0; i < n; i++) {
        json_error_t err;
        json_t *root = json_loads(texts[i], 0, &err), *gs = json_object_get(root, "guards");
        r->g[i] = calloc(json_array_size(gs) + 1, sizeof **r->g);
        for (size_t j = 0; j < json_array_size(gs); j++) {
            const char *ex = json_string_value(json_object_get(json_array_get(gs, j), "expr"));
            cr_assert(eq(int, sy_expr_parse(ctx, ex, (size_t)-1, &r->g[i][r->ng[i]]), SY_OK));
            r->ng[i]++;
        }
        json_decref(root);
    }
}

static long ref_run(const ref *r, const int64_t *v)
{
    for (size_t i = 0; i < r->n; i++) {
        int ok = 1;
        for (size_t j = 0; ok && j < r->ng[i]; j++) {
            int64_t out = 0;
            ok = sy_expr_eval_si(ctx, r->g[i][j], r->nsrc, r->syms, v, &out) == SY_OK && out != 0;
            sy_ctx_reset_error(ctx);
        }
        if (ok) return (long)i;
    }
    return -1;
}

static void ref_free(ref *r)
{
    for (size_t i = 0; i < r->n; i++) free(r->g[i]);
    free(r->g);
    free(r->ng);
    free(r->syms);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

enum { RP_MAX = 16 }; /* the most sources random_point fills */
static void random_point(uint64_t *s, int64_t *v, size_t nsrc, size_t n)
{
    size_t nb = n < 8 ? 1 : 8, nh = (n + nb - 1) / nb;
    /* resnet18: x.dim(), x.dtype, x.size()[0..3]; mostly valid ranks/dtypes/channels, some not */
    uint64_t r = rng_next(s);
    v[0] = r % 16 ? 4 : 3;
    v[1] = (r >> 8) % 16 ? 0 : 2;
    v[2] = (int64_t)((r >> 16) % (4 * nb + 6));
    v[3] = (r >> 24) % 16 ? 3 : 1;
    int64_t h = 28 + (int64_t)((r >> 32) % (8 * nh + 10));
    v[4] = h;
    v[5] = (r >> 48) % 8 ? h : h + 1;
    for (size_t i = 6; i < nsrc && i < RP_MAX; i++) v[i] = 0; /* callers hold RP_MAX values */
}

/* The bytecode form of d, through its bytes (encode, load: the loader verifies). */
static sy_bc_program *bytecode_of(const sy_dispatch *d)
{
    sy_bc_program *p = NULL, *q = NULL;
    cr_assert(eq(int, sy_bc_dispatch_compile(d, &p), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    unsigned char *bytes = NULL;
    size_t nb = 0;
    cr_assert(eq(int, sy_bc_encode(p, &bytes, &nb), SY_OK));
    sy_bc_load_err err;
    cr_assert(eq(int, sy_bc_load(ctx, bytes, nb, &q, &err), SY_OK), "%s", err.msg);
    cr_assert(eq(sz, sy_bc_nentries(q), sy_dispatch_nentries(d)));
    cr_assert(eq(sz, sy_bc_ninstr(q), sy_bc_ninstr(p)));
    sy_mem_free(ctx, bytes);
    sy_bc_free(p);
    return q;
}

/* The C form of d compiled with cc -O1 (as tests/backends/test_cgen.c), its dispatch function. */
typedef long (*cdispatch_fn)(const int64_t *);
static cdispatch_fn compile_c(const sy_dispatch *d, void **handle, char *dir)
{
    char *code = sy_dispatch_to_c(d, "bk");
    cr_assert(code != NULL, "%s", sy_ctx_last_error_msg(ctx));
    snprintf(dir, 256, "/tmp/sydispXXXXXX");
    cr_assert(mkdtemp(dir) != NULL);
    char src[512], so[512], err[512], cmd[2048];
    snprintf(src, sizeof src, "%s/d.c", dir);
    snprintf(so, sizeof so, "%s/d.so", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    FILE *f = fopen(src, "wb");
    cr_assert(f != NULL);
    fputs(code, f);
    fclose(f);
    sy_str_free(ctx, code);
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd, "%s -std=c99 -Wall -Wextra -Werror -pedantic -O1 -shared -fPIC -o '%s' '%s' 2>'%s'", cc && *cc ? cc : "cc", so,
             src, err);
    if (system(cmd) != 0) {
        char msg[4096] = "";
        FILE *e = fopen(err, "rb");
        if (e) {
            msg[fread(msg, 1, sizeof msg - 1, e)] = 0;
            fclose(e);
        }
        cr_fatal("generated C does not compile (%s):\n%s", cmd, msg);
    }
    *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    cr_assert(handle[0] != NULL, "dlopen: %s", dlerror());
    void *p = dlsym(*handle, "bk_dispatch");
    cr_assert(p != NULL);
    cdispatch_fn fn;
    memcpy(&fn, &p, sizeof p);
    return fn;
}

static void remove_dir(const char *dir)
{
    char path[512];
    const char *names[] = {"d.c", "d.so", "err.txt"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void agree_at_random_points(size_t n, unsigned npoints, unsigned nref)
{
    size_t nsrc = 0;
    char **texts = bucket_sets(n, &nsrc);
    cr_assert(eq(sz, nsrc, 6));
    size_t *lens = calloc(n, sizeof *lens);
    for (size_t i = 0; i < n; i++) lens[i] = (size_t)-1;
    sy_dispatch *d = NULL;
    cr_assert(eq(int, sy_dispatch_new_json(ctx, n, (const char *const *)texts, lens, &d), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    size_t ng, nn, ntn, depth, nsplit, maxleaf;
    sy_dispatch_stats(d, &ng, &nn, &ntn, &depth, &nsplit, &maxleaf);
    cr_assert(eq(sz, nsplit, 5)); /* rank, dtype, batch, channels, height: every source an interval guard reads */
    /* a balanced search: about log2 of the breakpoints of each split source */
    cr_assert(depth <= 2 * 12, "depth %zu", depth);
    cr_assert(maxleaf <= 2, "a leaf holds %zu entries", maxleaf);
    ref r;
    ref_init(&r, n, texts, nsrc);
    int64_t *f1 = calloc(sy_dispatch_frame_len(d), sizeof *f1), *f2 = calloc(sy_dispatch_frame_len(d), sizeof *f2);
    void *handle = NULL;
    char dir[256];
    cdispatch_fn cfn = compile_c(d, &handle, dir);
    sy_bc_program *vm = bytecode_of(d);
    uint64_t seed = test_seed();
    int64_t v[RP_MAX];
    size_t accepted = 0;
    for (unsigned p = 0; p < npoints; p++) {
        random_point(&seed, v, nsrc, n);
        long a = sy_dispatch_run(d, v, nsrc, f1), b = sy_dispatch_run_sequential(d, v, nsrc, f2);
        cr_assert(eq(long, a, b), "point %u (%lld %lld %lld %lld %lld %lld): dispatch %ld, sequential %ld", p, (long long)v[0],
                  (long long)v[1], (long long)v[2], (long long)v[3], (long long)v[4], (long long)v[5], a, b);
        long cv = cfn(v);
        cr_assert(eq(long, a, cv), "point %u: dispatch %ld, generated C %ld", p, a, cv);
        long bv = sy_bc_dispatch(vm, v, nsrc);
        cr_assert(eq(long, a, bv), "point %u: dispatch %ld, bytecode VM %ld", p, a, bv);
        if (p < nref) {
            long c = ref_run(&r, v);
            cr_assert(eq(long, a, c), "point %u: dispatch %ld, reference %ld", p, a, c);
        }
        accepted += a >= 0;
    }
    /* the points reach both answers (the test can fail both ways) */
    cr_assert(accepted > npoints / 50 && accepted < npoints, "%zu of %u accepted", accepted, npoints);
    dlclose(handle);
    remove_dir(dir);
    sy_bc_free(vm);
    free(f1);
    free(f2);
    ref_free(&r);
    sy_dispatch_free(d);
    for (size_t i = 0; i < n; i++) free(texts[i]);
    free(texts);
    free(lens);
}

Test(guards_dispatch, one_entry_agrees, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120)) { agree_at_random_points(1, 20000, 2000); }
Test(guards_dispatch, eight_entries_agree, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120)) { agree_at_random_points(8, 20000, 2000); }
/* 10^5 random sizes: dispatch and entry-by-entry agree on all, the bignum reference on 10^4 */
Test(guards_dispatch, sixty_four_entries_agree_on_1e5_points, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(600))
{
    agree_at_random_points(64, 100000, 10000);
}
Test(guards_dispatch, five_hundred_twelve_entries_agree, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(600))
{
    agree_at_random_points(512, 20000, 1000);
}

/* Near the int64 limits: a value of magnitude 2^31, 2^62 or next to INT64_MAX / INT64_MIN in
 * some source. The tree, the generated C and the bytecode VM run the same int64 evaluation and
 * agree at every point. Against the exact reference r: an answer a >= 0 is an entry the
 * reference accepts (never a wrong accept), and where checking the entries one by one in int64
 * (s) finds r, so does the dispatcher (they differ only where a guard overflows int64). */
static int64_t near_limit(uint64_t *s)
{
    static const int64_t base[] = {INT64_MAX, INT64_MIN, (int64_t)1 << 62, -((int64_t)1 << 62), (int64_t)1 << 31, -((int64_t)1 << 31),
                                   (int64_t)3037000499, 0};
    uint64_t r = rng_next(s);
    int64_t b = base[r % 8], d = (int64_t)((r >> 8) % 7) - 3;
    if ((b == INT64_MAX && d > 0) || (b == INT64_MIN && d < 0)) d = -d;
    return b + d;
}

Test(guards_dispatch, c_vm_and_reference_agree_near_int64_limits, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(600))
{
    size_t n = 64, nsrc = 0;
    char **texts = bucket_sets(n, &nsrc);
    size_t *lens = calloc(n, sizeof *lens);
    for (size_t i = 0; i < n; i++) lens[i] = (size_t)-1;
    sy_dispatch *d = NULL;
    cr_assert(eq(int, sy_dispatch_new_json(ctx, n, (const char *const *)texts, lens, &d), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    ref r;
    ref_init(&r, n, texts, nsrc);
    int64_t *f1 = calloc(sy_dispatch_frame_len(d), sizeof *f1), *f2 = calloc(sy_dispatch_frame_len(d), sizeof *f2);
    void *handle = NULL;
    char dir[256];
    cdispatch_fn cfn = compile_c(d, &handle, dir);
    sy_bc_program *vm = bytecode_of(d);
    uint64_t seed = test_seed() ^ 0x5eed;
    int64_t v[RP_MAX];
    size_t accepted = 0, differ = 0;
    const unsigned npoints = 100000;
    for (unsigned p = 0; p < npoints; p++) {
        random_point(&seed, v, nsrc, n);
        uint64_t m = rng_next(&seed);
        for (size_t i = 0; i < nsrc; i++)
            if ((m >> (4 * i)) % 4 == 0) v[i] = near_limit(&seed);
        long a = sy_dispatch_run(d, v, nsrc, f1), s = sy_dispatch_run_sequential(d, v, nsrc, f2);
        long cv = cfn(v), bv = sy_bc_dispatch(vm, v, nsrc);
        cr_assert(a == cv && a == bv, "point %u (%lld %lld %lld %lld %lld %lld): dispatch %ld, C %ld, VM %ld", p, (long long)v[0],
                  (long long)v[1], (long long)v[2], (long long)v[3], (long long)v[4], (long long)v[5], a, cv, bv);
        if (p % 10 == 0) {
            long ex = ref_run(&r, v);
            if (a >= 0) {
                /* the reference accepts entry a: ex is the first it accepts, so ex <= a */
                cr_assert(ex >= 0 && ex <= a, "point %u: dispatch answers %ld, the exact reference %ld", p, a, ex);
                int ok = 1;
                for (size_t j = 0; ok && j < r.ng[a]; j++) {
                    int64_t o = 0;
                    ok = sy_expr_eval_si(ctx, r.g[a][j], r.nsrc, r.syms, v, &o) == SY_OK && o != 0;
                    sy_ctx_reset_error(ctx);
                }
                cr_assert(ok, "point %u: dispatch answers entry %ld, which the exact reference rejects", p, a);
            }
            if (s == ex) cr_assert(eq(long, a, ex), "point %u: one by one %ld = reference, dispatch %ld", p, s, a);
            differ += a != ex;
        }
        accepted += a >= 0;
    }
    cr_assert(accepted > 0 && accepted < npoints, "%zu of %u accepted", accepted, npoints);
    dlclose(handle);
    remove_dir(dir);
    sy_bc_free(vm);
    free(f1);
    free(f2);
    ref_free(&r);
    sy_dispatch_free(d);
    for (size_t i = 0; i < n; i++) free(texts[i]);
    free(texts);
    free(lens);
    (void)differ;
}

#define SRC "\"sources\": [\"x.dim()\", \"x.dtype\", \"x.size()[0]\"]"
#define DOC(...) "{\"format\": \"symshape.guards\", \"version\": 1, " SRC ", \"guards\": [" __VA_ARGS__ "]}"
#define DOC0 "{\"format\": \"symshape.guards\", \"version\": 1, " SRC ", \"guards\": []}"

/* int64 overflow fails the guard (closed): the bignum reference accepts x0^4 != 7 at 2^20, the dispatcher does not */
Test(guards_dispatch, overflow_fails_closed, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(30))
{
    const char *t[2] = {DOC("{\"kind\": \"relation\", \"expr\": \"_s2**4 != 7\"}"), DOC("{\"kind\": \"range\", \"expr\": \"_s2 <= 5\"}")};
    size_t lens[2] = {(size_t)-1, (size_t)-1};
    sy_dispatch *d = NULL;
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 2, t, lens, &d), SY_OK));
    int64_t *f = calloc(sy_dispatch_frame_len(d), sizeof *f);
    int64_t v[3] = {0, 0, (int64_t)1 << 20};
    cr_assert(eq(long, sy_dispatch_run(d, v, 3, f), -1));
    v[2] = 3;
    cr_assert(eq(long, sy_dispatch_run(d, v, 3, f), 0));
    v[2] = (int64_t)1 << 16; /* 2^64 overflows too; entry 1 rejects */
    cr_assert(eq(long, sy_dispatch_run(d, v, 3, f), -1));
    v[2] = 1000;
    cr_assert(eq(long, sy_dispatch_run(d, v, 3, f), 0));
    cr_assert(eq(long, sy_dispatch_run(d, v, 2, f), -2));
    /* sy_dispatch_why names the fault (issue 38: dispatch said only "no entry accepts") */
    char why[256];
    v[2] = (int64_t)1 << 20;
    cr_assert(eq(long, sy_dispatch_why(d, v, 3, f, why, sizeof why), SY_EOVERFLOW));
    cr_assert(eq(str, why, "SY_EOVERFLOW in guard 0 of entry 0: _s2**4 != 7"));
    v[2] = (int64_t)1 << 16; /* entry 0 faults, entry 1 rejects (65536 <= 5 is false) */
    cr_assert(eq(long, sy_dispatch_why(d, v, 3, f, why, sizeof why), SY_EOVERFLOW));
    v[2] = 3;
    cr_assert(eq(long, sy_dispatch_why(d, v, 3, f, why, sizeof why), 0));
    cr_assert(eq(str, why, ""));
    cr_assert(eq(long, sy_dispatch_why(d, v, 2, f, why, sizeof why), -2));
    /* the bytecode form: a fault in entry 0's guard goes to entry 1 (ONFAIL), as the tree does */
    sy_bc_program *vm = bytecode_of(d);
    int64_t pts[4] = {(int64_t)1 << 20, 3, (int64_t)1 << 16, 1000};
    for (int i = 0; i < 4; i++) {
        v[2] = pts[i];
        cr_assert(eq(long, sy_bc_dispatch(vm, v, 3), sy_dispatch_run(d, v, 3, f)), "at %lld", (long long)pts[i]);
    }
    v[2] = 4;
    cr_assert(eq(long, sy_bc_dispatch(vm, v, 3), 0));
    cr_assert(eq(long, sy_bc_dispatch(vm, v, 2), SY_EINVAL));
    int32_t failed;
    cr_assert(eq(int, sy_bc_check(vm, v, 3, &failed), SY_EINVAL)); /* a dispatcher is not a guard program */
    sy_bc_free(vm);
    free(f);
    sy_dispatch_free(d);
}

/* A zero divisor fails closed and is named; a plain rejection of every entry is -1 with no message. */
Test(guards_dispatch, why_names_a_fault, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(30))
{
    const char *t[2] = {DOC("{\"kind\": \"range\", \"expr\": \"_s2 <= 2\"}"),
                        DOC("{\"kind\": \"relation\", \"expr\": \"1 <= FloorDiv(10, _s2 - 3)\"}")};
    size_t lens[2] = {(size_t)-1, (size_t)-1};
    sy_dispatch *d = NULL;
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 2, t, lens, &d), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    int64_t *f = calloc(sy_dispatch_frame_len(d), sizeof *f);
    int64_t v[3] = {0, 0, 3};
    char why[256];
    cr_assert(eq(long, sy_dispatch_run(d, v, 3, f), -1));
    cr_assert(eq(long, sy_dispatch_why(d, v, 3, f, why, sizeof why), SY_EDIVZERO));
    cr_assert(eq(str, why, "SY_EDIVZERO in guard 0 of entry 1: 1 <= FloorDiv(10, _s2 - 3)"));
    v[2] = 20; /* FloorDiv(10, 17) = 0: a plain rejection */
    cr_assert(eq(long, sy_dispatch_run(d, v, 3, f), -1));
    cr_assert(eq(long, sy_dispatch_why(d, v, 3, f, why, sizeof why), -1));
    cr_assert(eq(str, why, ""));
    v[2] = 5;
    cr_assert(eq(long, sy_dispatch_why(d, v, 3, f, why, 8), 1));
    v[2] = 2;
    cr_assert(eq(long, sy_dispatch_why(d, v, 3, f, NULL, 0), 0));
    free(f);
    sy_dispatch_free(d);
}

/* CRC-32 (zlib's polynomial) of the encoded program without its CRC field, written back */
static void fix_crc(unsigned char *b, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        if (i >= 36 && i < 40) continue;
        c ^= b[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    c ^= 0xFFFFFFFFu;
    for (int i = 0; i < 4; i++) b[36 + i] = (unsigned char)(c >> (8 * i));
}

static sy_status load_tampered(const unsigned char *orig, size_t nb, size_t at, uint32_t word, int is_word, sy_bc_load_err *err)
{
    unsigned char *b = malloc(nb);
    memcpy(b, orig, nb);
    if (is_word)
        for (int i = 0; i < 4; i++) b[at + (size_t)i] = (unsigned char)(word >> (8 * i));
    else
        b[at] = (unsigned char)word;
    fix_crc(b, nb);
    sy_bc_program *q = NULL;
    sy_status st = sy_bc_load(ctx, b, nb, &q, err);
    sy_bc_free(q);
    free(b);
    return st;
}

/* The verifier covers the dispatcher: entries, jumps and fault handlers in range, forward, one
 * handler per faulting instruction; the dispatcher's opcodes only in a format 2.2 dispatcher. */
Test(guards_dispatch, bytecode_verifier_refuses_bad_dispatchers, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(30))
{
    const char *t[2] = {DOC("{\"kind\": \"relation\", \"expr\": \"_s2**4 != 7\"}"), DOC("{\"kind\": \"range\", \"expr\": \"_s2 <= 5\"}")};
    size_t lens[2] = {(size_t)-1, (size_t)-1};
    sy_dispatch *d = NULL;
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 2, t, lens, &d), SY_OK));
    sy_bc_program *p = NULL;
    cr_assert(eq(int, sy_bc_dispatch_compile(d, &p), SY_OK));
    unsigned char *bytes = NULL;
    size_t nb = 0;
    cr_assert(eq(int, sy_bc_encode(p, &bytes, &nb), SY_OK));
    cr_assert(eq(int, bytes[10], 2)); /* format 2.2 */
    size_t code = nb - 1 - 4 * sy_bc_ninstr(p); /* the dispatch section: one LEB128 byte */
    sy_bc_load_err err;
    int seen_entry = 0, seen_jump = 0, seen_onfail = 0;
    for (size_t pc = 0; pc < sy_bc_ninstr(p); pc++) {
        uint32_t w = sy_bc_instr(p, pc);
        unsigned op = SY_BC_GET_OP(w);
        if (op == SY_OP_ENTRY && !seen_entry++) {
            cr_assert(eq(int, load_tampered(bytes, nb, code + 4 * pc, SY_BC_ABX(SY_OP_ENTRY, 0, 2), 1, &err), SY_EVERIFY));
            cr_assert(strstr(err.msg, "entry e2 out of range (2 entries)") != NULL, "%s", err.msg);
        }
        if ((op == SY_OP_JMPZ || op == SY_OP_JMPNZ) && !seen_jump++) {
            cr_assert(eq(int, load_tampered(bytes, nb, code + 4 * pc, SY_BC_ASBX(op, SY_BC_GET_A(w), 30000), 1, &err), SY_EVERIFY));
            cr_assert(strstr(err.msg, "past the end") != NULL, "%s", err.msg);
            cr_assert(eq(int, load_tampered(bytes, nb, code + 4 * pc, SY_BC_ASBX(op, SY_BC_GET_A(w), -2), 1, &err), SY_EVERIFY));
            cr_assert(strstr(err.msg, "backward jump") != NULL, "%s", err.msg);
        }
        if (op == SY_OP_ONFAIL && !seen_onfail++) { /* the handler right after it: before the POW that faults */
            cr_assert(eq(int, load_tampered(bytes, nb, code + 4 * pc, SY_BC_ASBX(SY_OP_ONFAIL, 0, 0), 1, &err), SY_EVERIFY));
            cr_assert(strstr(err.msg, "is not after it") != NULL, "%s", err.msg);
            cr_assert(eq(int, load_tampered(bytes, nb, code + 4 * pc, SY_BC_ABC(SY_OP_CHECK, 0, 0, 0), 1, &err), SY_EVERIFY));
            cr_assert(strstr(err.msg, "CHECK in a dispatcher") != NULL, "%s", err.msg);
        }
    }
    cr_assert(seen_entry && seen_jump && seen_onfail);
    /* the header: a dispatcher in format 2.1 (what a 2.1 writer cannot produce), a newer minor */
    cr_assert(eq(int, load_tampered(bytes, nb, 10, 1, 0, &err), SY_EFORMAT));
    cr_assert(strstr(err.msg, "(dispatcher) in a format 2.1 program") != NULL, "%s", err.msg);
    cr_assert(eq(int, load_tampered(bytes, nb, 10, 3, 0, &err), SY_EVERSION));
    cr_assert(strstr(err.msg, "format version 2.3 is newer than 2.2") != NULL, "%s", err.msg);
    /* without the flag, the section is trailing bytes and ENTRY an unknown instruction to a guard program */
    cr_assert(ne(int, load_tampered(bytes, nb, 12, 0, 0, &err), SY_OK));
    /* the entry count: 0 entries */
    cr_assert(eq(int, load_tampered(bytes, nb, nb - 1, 0, 0, &err), SY_EFORMAT));
    cr_assert(strstr(err.msg, "1 to 65536 entries") != NULL, "%s", err.msg);
    sy_mem_free(ctx, bytes);
    sy_bc_free(p);
    sy_dispatch_free(d);
}

Test(guards_dispatch, bad_input, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(30))
{
    size_t lens[2] = {(size_t)-1, (size_t)-1};
    sy_dispatch *d = NULL;
    const char *other = "{\"format\": \"symshape.guards\", \"version\": 1, \"sources\": [\"y.dim()\", \"y.dtype\", \"y.size()[0]\"], \"guards\": []}";
    const char *t1[2] = {DOC0, other};
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 2, t1, lens, &d), SY_EINVAL));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "entry 1: source 0 is y.dim()") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    const char *t2[2] = {DOC0, "{"};
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 2, t2, lens, &d), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "entry 1:1:") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    const char *t3[1] = {DOC("{\"kind\": \"range\", \"expr\": \"_s2 +\"}")};
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 1, t3, lens, &d), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "entry 0: guards[0]: expr does not parse") != NULL);
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 0, t3, lens, &d), SY_EINVAL));
    cr_assert(d == NULL);
    /* issue 38 (adversarial pass): a slot past the sources or a free symbol compiled to a guard
     * that always failed (the entry silently never matched; diff refused the same set), and a
     * version 99 was read as version 1 */
    const char *t4[1] = {DOC("{\"kind\": \"range\", \"expr\": \"_s2 <= _s9\"}")};
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 1, t4, lens, &d), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "entry 0: guards[0]: expr reads '_s9', not one of its 3 sources") != NULL, "%s",
              sy_ctx_last_error_msg(ctx));
    const char *t5[1] = {DOC("{\"kind\": \"range\", \"expr\": \"_s2 <= x\"}")};
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 1, t5, lens, &d), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "expr reads 'x'") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    const char *t6[1] = {"{\"format\": \"symshape.guards\", \"version\": 99, \"sources\": [\"x.dim()\"], \"guards\": []}"};
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 1, t6, lens, &d), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "\"version\": 1") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(d == NULL);
}

Test(guards_dispatch, out_of_memory_anywhere, .timeout = SY_TIMEOUT(120))
{
    const char *t[2] = {DOC("{\"kind\": \"range\", \"expr\": \"2 <= _s2\"}, {\"kind\": \"relation\", \"expr\": \"Mod(_s2, 4) == 0\"}"),
                        DOC("{\"kind\": \"range\", \"expr\": \"_s2 <= 5\"}")};
    size_t lens[2] = {(size_t)-1, (size_t)-1};
    for (long n = 0;; n++) {
        ctx = new_counting_ctx(n);
        if (!ctx) continue;
        sy_dispatch *d = NULL;
        sy_status st = sy_dispatch_new_json(ctx, 2, t, lens, &d);
        cr_assert(st == SY_OK || st == SY_ENOMEM, "n=%ld: %d", n, st);
        sy_dispatch_free(d);
        ctx = sy_ctx_free(ctx);
        cr_assert(eq(long, g_alloc.live, 0), "n=%ld: leaked %ld", n, g_alloc.live);
        if (st == SY_OK) break;
        cr_assert(n < 100000);
    }
    flint_cleanup();
}
