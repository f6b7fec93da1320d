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
    for (size_t i = 6; i < nsrc; i++) v[i] = 0;
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
    uint64_t seed = test_seed();
    int64_t v[6];
    size_t accepted = 0;
    for (unsigned p = 0; p < npoints; p++) {
        random_point(&seed, v, nsrc, n);
        long a = sy_dispatch_run(d, v, nsrc, f1), b = sy_dispatch_run_sequential(d, v, nsrc, f2);
        cr_assert(eq(long, a, b), "point %u (%lld %lld %lld %lld %lld %lld): dispatch %ld, sequential %ld", p, (long long)v[0],
                  (long long)v[1], (long long)v[2], (long long)v[3], (long long)v[4], (long long)v[5], a, b);
        long cv = cfn(v);
        cr_assert(eq(long, a, cv), "point %u: dispatch %ld, generated C %ld", p, a, cv);
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
    free(f1);
    free(f2);
    ref_free(&r);
    sy_dispatch_free(d);
    for (size_t i = 0; i < n; i++) free(texts[i]);
    free(texts);
    free(lens);
}

Test(guards_dispatch, one_entry_agrees, .init = ctx_setup, .fini = ctx_teardown, .timeout = 120) { agree_at_random_points(1, 20000, 2000); }
Test(guards_dispatch, eight_entries_agree, .init = ctx_setup, .fini = ctx_teardown, .timeout = 120) { agree_at_random_points(8, 20000, 2000); }
/* 10^5 random sizes: dispatch and entry-by-entry agree on all, the bignum reference on 10^4 */
Test(guards_dispatch, sixty_four_entries_agree_on_1e5_points, .init = ctx_setup, .fini = ctx_teardown, .timeout = 600)
{
    agree_at_random_points(64, 100000, 10000);
}
Test(guards_dispatch, five_hundred_twelve_entries_agree, .init = ctx_setup, .fini = ctx_teardown, .timeout = 600)
{
    agree_at_random_points(512, 20000, 1000);
}

#define SRC "\"sources\": [\"x.dim()\", \"x.dtype\", \"x.size()[0]\"]"
#define DOC(...) "{\"format\": \"symshape.guards\", \"version\": 1, " SRC ", \"guards\": [" __VA_ARGS__ "]}"
#define DOC0 "{\"format\": \"symshape.guards\", \"version\": 1, " SRC ", \"guards\": []}"

/* int64 overflow fails the guard (closed): the bignum reference accepts x0^4 != 7 at 2^20, the dispatcher does not */
Test(guards_dispatch, overflow_fails_closed, .init = ctx_setup, .fini = ctx_teardown, .timeout = 30)
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
    free(f);
    sy_dispatch_free(d);
}

Test(guards_dispatch, bad_input, .init = ctx_setup, .fini = ctx_teardown, .timeout = 30)
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

Test(guards_dispatch, out_of_memory_anywhere, .timeout = 120)
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
