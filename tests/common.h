/* Test helpers: a counting allocator (every test ends with zero live
 * blocks), context fixtures, seeds. */
#ifndef SY_TESTS_COMMON_H
#define SY_TESTS_COMMON_H
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <flint/flint.h>
#include <flint/fmpz.h>
#include <stdlib.h>
#include <string.h>

#include "symshape/symshape.h"

/* Criterion's per-test timeout: `Test(suite, name, .timeout = SY_TIMEOUT(300))`. The seconds are a
 * hang detector (about 10x the test's time on an idle 2-core machine), multiplied by
 * SY_TEST_TIMEOUT_SCALE, the factor the ctest TIMEOUTs take (tests/CMakeLists.txt; scripts/test.sh
 * sets it from the load, CI to 4): the build passes it (-DSY_TEST_TIMEOUT_SCALE=N at configure
 * time), so an ASan run on a loaded machine gets the longer limit. Criterion 2.4's --timeout only
 * sets the default of tests without one, and the attribute must be a constant: hence a macro.
 * Configuring fails on a bare `.timeout = N` under tests/. */
#ifndef SY_TEST_TIMEOUT_SCALE
#define SY_TEST_TIMEOUT_SCALE 1
#endif
#define SY_TIMEOUT(seconds) ((double)(seconds) * (SY_TEST_TIMEOUT_SCALE))

/* SY_TEST_ASAN: 1 in a build with AddressSanitizer (scripts/test.sh's build-asan: GCC defines
 * __SANITIZE_ADDRESS__, clang has __has_feature(address_sanitizer)), else 0. A test whose point
 * is a size (a scale test) runs at a smaller one there, its exact result still asserted: ASan sees
 * the same code paths, and the size itself is the other builds' to check. */
#if defined(__SANITIZE_ADDRESS__)
#define SY_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SY_TEST_ASAN 1
#endif
#endif
#ifndef SY_TEST_ASAN
#define SY_TEST_ASAN 0
#endif

typedef struct test_alloc {
    long live;
    long count;     /* allocations so far */
    long fail_at;   /* fail the n-th allocation (-1: never) */
} test_alloc;

static test_alloc g_alloc;

static void *ta_malloc(void *ud, size_t n)
{
    test_alloc *a = ud;
    if (a->fail_at >= 0 && a->count++ >= a->fail_at) return NULL;
    void *p = malloc(n);
    if (p) a->live++;
    return p;
}
static void *ta_realloc(void *ud, void *p, size_t o, size_t n)
{
    test_alloc *a = ud;
    (void)o;
    if (a->fail_at >= 0 && a->count++ >= a->fail_at) return NULL;
    if (!p) {
        void *q = malloc(n);
        if (q) a->live++;
        return q;
    }
    return realloc(p, n);
}
static void ta_free(void *ud, void *p, size_t n)
{
    test_alloc *a = ud;
    (void)n;
    if (p) a->live--;
    free(p);
}
static const sy_allocator g_test_allocator = {ta_malloc, ta_realloc, ta_free, &g_alloc};

static sy_ctx *ctx;

static inline sy_ctx *new_counting_ctx(long fail_at)
{
    g_alloc.live = 0;
    g_alloc.count = 0;
    g_alloc.fail_at = fail_at;
    sy_ctx_options o = SY_CTX_OPTIONS_INIT;
    o.allocator = &g_test_allocator;
    sy_ctx *c = NULL;
    if (sy_ctx_new(&o, &c) != SY_OK) return NULL;
    return c;
}

static inline void ctx_setup(void)
{
    ctx = new_counting_ctx(-1);
    cr_assert(ctx != NULL);
}

static inline void ctx_teardown(void)
{
    ctx = sy_ctx_free(ctx);
    cr_assert(eq(long, g_alloc.live, 0), "leaked %ld blocks", g_alloc.live);
    flint_cleanup();
}

/* A test file's env fixture: `static sy_env *env` (a default-options env over the counting ctx),
 * created by env_setup and freed by env_teardown, for Test(..., .init = env_setup, .fini = env_teardown). */
#define SY_TEST_ENV_FIXTURE                                                                                            \
    static sy_env *env;                                                                                                \
    static void env_setup(void)                                                                                        \
    {                                                                                                                  \
        ctx_setup();                                                                                                   \
        env = sy_env_new(ctx, NULL);                                                                                   \
        cr_assert(env != NULL);                                                                                        \
    }                                                                                                                  \
    static void env_teardown(void)                                                                                     \
    {                                                                                                                  \
        env = sy_env_free(env);                                                                                        \
        ctx_teardown();                                                                                                \
    }

static inline const sy_expr *P(const char *text)
{
    const sy_expr *e = NULL;
    sy_status st = sy_expr_parse(ctx, text, (size_t)-1, &e);
    cr_assert(eq(int, st, SY_OK), "parse '%s': %s", text, sy_ctx_last_error_msg(ctx));
    return e;
}

static inline char *S(const sy_expr *e)
{
    static char buf[4096];
    char *s = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
    cr_assert(s != NULL);
    snprintf(buf, sizeof buf, "%s", s);
    sy_str_free(ctx, s);
    return buf;
}

/* Note: Criterion 2.4.1's gt(T, a, b) also passes when a == b; the tests use
 * lt(T, b, a) instead. */
static inline uint64_t test_seed(void)
{
    const char *s = getenv("SY_TEST_SEED");
    return s && *s ? strtoull(s, NULL, 10) : 0x5eed5eedull;
}
/* The exact value of an integer constant expression e (any size) into out. */
static inline void const_fmpz(const sy_expr *e, fmpz_t out)
{
    int64_t v;
    if (sy_expr_get_si(e, &v) == SY_OK) {
        fmpz_set_si(out, v);
        return;
    }
    char *s = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
    cr_assert(s != NULL);
    cr_assert(eq(int, fmpz_set_str(out, s, 10), 0));
    sy_str_free(ctx, s);
}

static inline long test_multiplier(void)
{
    const char *s = getenv("SY_TEST_MULTIPLIER");
    long m = s && *s ? strtol(s, NULL, 10) : 1;
    return m > 0 ? m : 1;
}
/* The guard set of g as traced into env and t, produced and minimized; frees t
 * and env (the set does not need them). GIVE: sy_gset_free, before g. */
static inline sy_gset *produce_minimized(sy_env *env, sy_graph *g, sy_trace *t)
{
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(t);
    sy_env_free(env);
    return gs;
}

/* g traced in a new env with options eo (NULL: the defaults), its guard set
 * produced and minimized (produce_minimized). GIVE: sy_gset_free. */
static inline sy_gset *trace_minimize_opts(sy_graph *g, const sy_env_options *eo)
{
    sy_env *env = sy_env_new(ctx, eo);
    cr_assert(env != NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return produce_minimized(env, g, t);
}
#endif
