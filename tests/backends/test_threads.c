/* The process-wide tables (backend registry, op index, op name list) are
 * built lazily on first use: concurrent first uses from several threads must
 * all see the complete tables (docs/ownership.md, thread safety). Each run is
 * a fresh forked process whose 8 threads make their first calls at the same
 * moment (a barrier); before the fix 174 of 300 runs saw NULL for
 * sy_backend_find("bytecode"). */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define NTHREADS 8
#define NRUNS 300

static pthread_barrier_t start;
static const char *const want_backends[] = {"bytecode", "json", "c", "report", "markdown"};

static void *first_use(void *arg)
{
    size_t k = (size_t)arg;
    pthread_barrier_wait(&start);
    int ok = 1;
    /* every thread starts with a different entry point */
    switch (k % 4) {
    case 0: ok &= sy_backend_find(want_backends[k % 5]) != NULL; break;
    case 1: ok &= sy_backend_count() >= 5; break;
    case 2: ok &= sy_env_has_op("conv2d") && sy_env_has_op("add"); break;
    default: ok &= sy_env_op_names()[0] != NULL; break;
    }
    for (size_t i = 0; i < 5; i++) ok &= sy_backend_find(want_backends[i]) != NULL;
    ok &= sy_backend_count() >= 5 && sy_backend_at(4) != NULL;
    ok &= sy_env_has_op("conv2d") && sy_env_has_op("view") && !sy_env_has_op("no_such_op");
    size_t n = 0;
    for (const char *const *p = sy_env_op_names(); *p; p++) n++;
    ok &= n > 50;
    return ok ? (void *)1 : NULL;
}

static int one_run(void)
{
    pthread_t th[NTHREADS];
    if (pthread_barrier_init(&start, NULL, NTHREADS)) return 2;
    for (size_t i = 0; i < NTHREADS; i++)
        if (pthread_create(&th[i], NULL, first_use, (void *)i)) return 2;
    int bad = 0;
    for (size_t i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad |= r == NULL;
    }
    return bad;
}

Test(backends_threads, first_use_from_8_threads_sees_complete_tables, .timeout = 120)
{
    int failed = 0, errors = 0;
    for (int run = 0; run < NRUNS; run++) {
        pid_t pid = fork();
        cr_assert(ge(int, pid, 0));
        if (pid == 0) _exit(one_run());
        int status = 0;
        cr_assert(eq(int, waitpid(pid, &status, 0), pid));
        if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) errors++;
        else if (WEXITSTATUS(status)) failed++;
    }
    cr_assert(eq(int, errors, 0), "%d runs could not start their threads or crashed", errors);
    cr_assert(eq(int, failed, 0), "%d of %d runs saw an incomplete table", failed, NRUNS);
}
