/* Concurrent readers of one guard set (issue 34 item 8): the readers take the
 * set const and only read it (its texts are made by produce and minimize), so
 * 8 threads reading one set at once, with no lock, must all see the same
 * texts, the same pointers, and ThreadSanitizer (scripts/tsan.sh) must report
 * no race. Before, the first read of a guard made its texts through a cast and
 * stored them in the set: two first reads at once raced on them (this test
 * under TSan with the old guards/: a data race in tx_format, called by
 * sy_gset_format, on the first run). */
#include <pthread.h>

#include "common.h"

#define READERS 8
#define ROUNDS 50

typedef struct {
    const sy_gset *gs;
    pthread_barrier_t *start;
    uint64_t hash; /* of every text and pointer read, the same in every thread */
    int ok;
} reader;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211u;
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) { return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "\1", 1); }

static uint64_t fnv_ptr(uint64_t h, const void *p) { return fnv(h, &p, sizeof p); }

/* every reader the header names thread-safe, first the Implied list or the
 * guards depending on the thread, so that first reads meet */
static void *read_set(void *arg)
{
    reader *r = arg;
    const sy_gset *gs = r->gs;
    pthread_barrier_wait(r->start);
    r->ok = 1;
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t h = 1469598103934665603u;
        size_t n = sy_gset_size(gs), ni = sy_gset_nimplied(gs);
        if (sy_gset_format(gs) != SY_OK) r->ok = 0;
        for (size_t q = 0; q < n; q++) {
            const sy_gset_guard *g = sy_gset_at(gs, q);
            if (!g || !g->text || !g->display || !strcmp(g->text, "?")) r->ok = 0;
            if (!g) continue;
            h = fnv_str(fnv_str(fnv_str(h, g->text), g->display), g->why);
            h = fnv_ptr(fnv_ptr(fnv_ptr(h, g->text), g->display), g->why);
        }
        for (size_t q = 0; q < ni; q++) {
            const sy_gset_implied *x = sy_gset_implied_at(gs, q);
            if (!x || !x->text || !x->display) r->ok = 0;
            if (!x) continue;
            h = fnv_str(fnv_str(fnv_str(h, x->text), x->display), x->why);
            h = fnv_ptr(fnv_ptr(fnv_ptr(h, x->text), x->display), x->why);
        }
        for (size_t s = 0; s < sy_gset_nsources(gs); s++) h = fnv_str(fnv_ptr(h, sy_gset_source_var(gs, s)), sy_gset_source(gs, s));
        if (round == 0) r->hash = h;
        else if (h != r->hash) r->ok = 0; /* a text changed while read */
    }
    return NULL;
}

/* trace + produce (+ minimize) model path in its own context, then READERS
 * threads read the set at once; 0 on success, else why in msg */
static int readers_agree(const char *path, int minimize, size_t *nimpl, char *msg, size_t msgn)
{
    sy_ctx *c = NULL;
    sy_graph *g = NULL;
    sy_env *env = NULL;
    sy_trace *tr = NULL;
    sy_gset *gs = NULL;
    int rc = 1;
    if (sy_ctx_new(NULL, &c) != SY_OK) {
        snprintf(msg, msgn, "ctx_new");
        return 1;
    }
    if (sy_graph_load_file(c, path, &g) != SY_OK || !(env = sy_env_new(c, NULL)) ||
        sy_env_trace(env, g, 0, NULL, &tr) != SY_OK || sy_gset_produce(env, g, &gs) != SY_OK ||
        (minimize && sy_gset_minimize(gs) != SY_OK)) {
        snprintf(msg, msgn, "%s: %s", path, sy_ctx_last_error_msg(c));
        goto done;
    }
    sy_trace_free(tr);
    tr = NULL;
    sy_env_free(env); /* the set stands alone */
    env = NULL;
    *nimpl = sy_gset_nimplied(gs);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, READERS);
    reader rd[READERS];
    pthread_t th[READERS];
    size_t started = 0;
    for (; started < READERS; started++) {
        rd[started] = (reader){.gs = gs, .start = &start};
        if (pthread_create(&th[started], NULL, read_set, &rd[started])) break;
    }
    for (size_t k = 0; k < started; k++) pthread_join(th[k], NULL);
    pthread_barrier_destroy(&start);
    if (started < READERS) {
        snprintf(msg, msgn, "%s: could not start %d threads", path, READERS);
        goto done;
    }
    for (size_t k = 0; k < READERS; k++) {
        if (!rd[k].ok) {
            snprintf(msg, msgn, "%s: reader %zu saw a missing, \"?\" or changing text", path, k);
            goto done;
        }
        if (rd[k].hash != rd[0].hash) {
            snprintf(msg, msgn, "%s: readers 0 and %zu read different texts", path, k);
            goto done;
        }
    }
    rc = 0;
done:
    sy_gset_free(gs);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
    sy_ctx_free(c);
    return rc;
}

/* bundled models, produced and minimized: vit_b_16 (an Implied list),
 * resnet18, and one whose minimization normalizes ranges (their whys name
 * other guards' texts) */
static int gset_readers(char *msg, size_t msgn)
{
    static const char *const models[] = {SY_TESTS_DIR "/../examples/vit_b_16.json", SY_TESTS_DIR "/../examples/resnet18.json",
                                         SY_TESTS_DIR "/guards/data/floordiv_chain69.json"};
    size_t implied = 0;
    for (size_t m = 0; m < sizeof models / sizeof *models; m++)
        for (int minimize = 0; minimize < 2; minimize++) {
            size_t ni = 0;
            if (readers_agree(models[m], minimize, &ni, msg, msgn)) return 1;
            implied += ni;
        }
    if (!implied) {
        snprintf(msg, msgn, "no Implied entry was read: the test reads less than it should");
        return 1;
    }
    return 0;
}

#ifndef SY_GSET_THREADS_MAIN
Test(guards_gset_threads, eight_readers_of_one_set_agree, .timeout = SY_TIMEOUT(300))
{
    char msg[400] = "";
    cr_assert(eq(int, gset_readers(msg, sizeof msg), 0), "%s", msg);
}
#else
/* scripts/tsan.sh: Criterion's runner cannot start under ThreadSanitizer, so
 * the TSan build runs the body from this main, argv[1] times (default 3). */
int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    for (int i = 0; i < reps; i++) {
        char msg[400] = "";
        if (gset_readers(msg, sizeof msg)) {
            fprintf(stderr, "test_gset_threads: run %d: %s\n", i, msg);
            return 1;
        }
    }
    fprintf(stderr, "test_gset_threads: %d runs of %d readers of one set agree\n", reps, READERS);
    return 0;
}
#endif
