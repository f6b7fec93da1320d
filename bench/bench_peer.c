/* The main path against PyTorch 1.13's own ShapeEnv (issue 14), in one run:
 * for every corpus model, symshape's trace + produce + minimize (median of
 * --reps runs, a fresh context each) next to ../shared/tools/peer_shapeenv13.py
 * (the same graphs' shape work through torch.fx.experimental.symbolic_shapes
 * with sympy; run by /usr/bin/python3, one process per model and run so
 * that sympy's caches start cold, as symshape's context does; the median of
 * --peer-reps runs, since one run varies by 2x), and the ratio; then parsing:
 * jansson's own json_load_file next to our loader
 * (sy_graph_load_file, which is json_load_file plus validation and the node
 * index), alternating rep by rep, thread CPU time, minimum and median, and
 * the loader's overhead in percent (bench/loader_ir.sh: by instructions).
 * Figures only.
 *
 *   ./build/bench/bench_peer [--reps N] [--peer-reps K] [--peer PATH] [--python PATH] [--loader-only] [MODEL.json...]
 * Without models: the folder SY_CORPUS_DIR, else the corpus/ of SY_SHARED_DIR
 * (as configured; default ../shared beside the sources), else examples/.
 * Goal (issue 14): ratio >= 300 on every model the peer supports, loader
 * overhead <= 10%.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symshape/symshape.h"
#include "bench_util.h"

#define MAXM 64

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmpd);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the sizes of the graph outputs at the example, "2x1000/..." as the 2.x peer prints them
 * ("?" for an output that is not a tensor) */
static void outputs_text(sy_env *env, const sy_trace *tr, char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < sy_trace_noutputs(tr) && k + 32 < n; i++) {
        const sy_value *v = sy_trace_output(tr, i);
        /* a dict or tuple output ({"out": x}): its tensors in order */
        size_t nt = v && v->kind == SY_V_LIST ? v->u.list.n : 1;
        for (size_t j = 0; j < nt && k + 32 < n; j++) {
            const sy_value *t = v && v->kind == SY_V_LIST ? &v->u.list.items[j] : v;
            if (v && v->kind == SY_V_LIST && t->kind != SY_V_TENSOR) continue;
            if (k) out[k++] = '/', out[k] = 0;
            if (!t || t->kind != SY_V_TENSOR) {
                k += (size_t)snprintf(out + k, n - k, "?");
                continue;
            }
            for (size_t d = 0; d < t->u.t->ndim && k + 24 < n; d++) {
                const sy_expr *h = NULL;
                int64_t x = -1;
                if (sy_env_hint(env, t->u.t->sizes[d], &h) != SY_OK || sy_expr_get_si(h, &x) != SY_OK) x = -1;
                k += (size_t)snprintf(out + k, n - k, d ? "x%lld" : "%lld", (long long)x);
            }
        }
    }
}

/* trace + produce + minimize of an already loaded graph, ms; -1 on error;
 * *mst: the trace's op memo counts; *nguards, outs (when not NULL): the minimized
 * set's size and the outputs' sizes at the example */
static double pipeline_ms(const char *path, sy_trace_memo_stats *mst, size_t *nguards, char *outs, size_t outn)
{
    sy_ctx *ctx;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) return -1;
    sy_graph *g = NULL;
    double ms = -1;
    if (sy_graph_load_file(ctx, path, &g) == SY_OK) {
        double t0 = bench_now_ns();
        sy_env *env = sy_env_new(ctx, NULL);
        sy_trace *tr = NULL;
        sy_gset *gs = NULL;
        int ok = env && sy_env_trace(env, g, 0, NULL, &tr) == SY_OK && sy_gset_produce(env, g, &gs) == SY_OK &&
                 sy_gset_minimize(gs) == SY_OK;
        double t1 = bench_now_ns();
        if (ok) ms = (t1 - t0) * 1e-6;
        else fprintf(stderr, "%s: %s\n", path, sy_ctx_last_error_msg(ctx));
        sy_trace_get_memo_stats(tr, mst);
        if (ok && nguards) *nguards = sy_gset_size(gs);
        if (ok && outs) outputs_text(env, tr, outs, outn);
        sy_gset_free(gs);
        sy_trace_free(tr);
        sy_env_free(env);
        sy_graph_free(g);
    } else {
        fprintf(stderr, "%s: %s\n", path, sy_ctx_last_error_msg(ctx));
    }
    sy_ctx_free(ctx);
    return ms;
}

/* CPU time of this thread, ns: unlike the wall clock it does not count the
 * time the thread waits for one of the shared cores */
static double thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* one load by jansson (ours = 0) or our loader, thread CPU ms; -1 on error */
static double load_ms(sy_ctx *ctx, const char *path, int ours)
{
    double t0, t1;
    int ok;
    if (ours) {
        sy_graph *g = NULL;
        t0 = thread_cpu_ns();
        ok = sy_graph_load_file(ctx, path, &g) == SY_OK;
        t1 = thread_cpu_ns();
        sy_graph_free(g);
    } else {
        json_error_t err;
        t0 = thread_cpu_ns();
        json_t *j = json_load_file(path, 0, &err);
        t1 = thread_cpu_ns();
        ok = j != NULL;
        json_decref(j);
    }
    return ok ? (t1 - t0) * 1e-6 : -1;
}

/* the model's "name" as the peer prints it */
static void model_name(const char *path, char *out, size_t n)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    const char *s = j ? json_string_value(json_object_get(j, "name")) : NULL;
    snprintf(out, n, "%s", s ? s : "?");
    json_decref(j);
}

/* one bench_load --cold run (a fresh process: its first and only load, as
 * the CLI loads a model): the call's thread CPU ms it prints, -1 on error */
static double cold_ms(const char *bench_load, const char *which, const char *path)
{
    size_t cl = strlen(bench_load) + strlen(path) + 64;
    char *cmd = malloc(cl), line[4096];
    double ms = -1;
    if (!cmd) return -1;
    snprintf(cmd, cl, "'%s' --cold %s '%s'", bench_load, which, path);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p)) {
        const char *m = strstr(line, "_ms=");
        if (m) ms = atof(m + 4);
    }
    if (!p || pclose(p) != 0) ms = -1;
    free(cmd);
    return ms;
}

/* The CLI's case: a fresh process per load (bench_load --cold, beside this
 * program), jansson and the loader alternating, thread CPU time of the one
 * call, the median of reps each. First-touch page faults count here (each
 * costs microseconds on a VM), as they do for `symshape run`. */
static void cold_table(const char *argv0, int np, char **paths, char (*names)[128], int reps, double *v, double *w)
{
    char bl[4096];
    const char *slash = strrchr(argv0, '/');
    snprintf(bl, sizeof bl, "%.*sbench_load", slash ? (int)(slash - argv0 + 1) : 0, argv0);
    if (access(bl, X_OK)) {
        printf("\ncold loads: %s not found (build the bench_load target)\n", bl);
        return;
    }
    printf("\ncold loads, one process each (the CLI's case): median thread CPU ms of %d alternating runs\n", reps);
    printf("%-22s %12s %12s %10s\n", "model", "jansson", "loader", "overhead");
    double maxover = -1e9;
    for (int i = 0; i < np; i++) {
        int k = 0;
        for (int r = 0; r < reps; r++) {
            double a = cold_ms(bl, "jansson", paths[i]), b = cold_ms(bl, "ours", paths[i]);
            if (a > 0 && b > 0) v[k] = a, w[k++] = b;
        }
        if (!k) {
            printf("%-22s %12s\n", names[i], "failed");
            continue;
        }
        double jm = median(v, k), om = median(w, k), over = (om / jm - 1) * 100;
        printf("%-22s %12.3f %12.3f %9.1f%%\n", names[i], jm, om, over);
        if (over > maxover) maxover = over;
    }
    printf("largest overhead %.1f%%\n", maxover);
}

/* what a peer printed for one model */
typedef struct peer_res {
    double ms;        /* the median of its times, -1 when none */
    int unsupported;  /* it said "unsupported op" */
    int failed;       /* a nonzero exit, a failed check or a MISMATCH line (printed) */
    long guards;      /* guards=, -1 when not printed */
    char out[256];    /* out=, "" when not printed */
} peer_res;

/* runs the peer script on each model. proto NULL (the 1.13 peer) or "cold": peer_reps runs, a
 * fresh process each, res[i].ms the median of the times they print; "cleared" / "hot": one process
 * per model, `--protocol P --reps inproc_reps` (the 2.x peer), its median */
static int run_peer(const char *python, const char *peer, const char *proto, char **paths, int np, int peer_reps,
                    int inproc_reps, peer_res *res)
{
    int runs = proto && strcmp(proto, "cold") ? 1 : peer_reps;
    double *pv = malloc((size_t)runs * sizeof *pv);
    if (!pv) return 1;
    for (int i = 0; i < np; i++) {
        peer_res *r0 = &res[i];
        r0->ms = -1, r0->unsupported = r0->failed = 0, r0->guards = -1, r0->out[0] = 0;
        size_t cl = strlen(python) + strlen(peer) + strlen(paths[i]) + 80;
        char *cmd = malloc(cl);
        if (!cmd) {
            free(pv);
            return 1;
        }
        if (proto)
            snprintf(cmd, cl, "'%s' '%s' --protocol %s --reps %d '%s' 2>&1", python, peer, proto,
                     strcmp(proto, "cold") ? inproc_reps : 1, paths[i]);
        else snprintf(cmd, cl, "'%s' '%s' '%s' 2>&1", python, peer, paths[i]);
        int k = 0;
        for (int r = 0; r < runs && !r0->unsupported; r++) {
            FILE *p = popen(cmd, "r");
            char line[1024];
            double got = -1;
            while (p && fgets(line, sizeof line, p)) {
                double ms;
                const char *m = strstr(line, "\tms="), *g = strstr(line, "\tguards="), *o = strstr(line, "\tout=");
                if (strstr(line, "unsupported op")) r0->unsupported = 1;
                else if (strstr(line, "MISMATCH") || strstr(line, "check failed")) {
                    r0->failed = 1;
                    fprintf(stderr, "bench_peer: %s", line);
                } else if (m && sscanf(m, "\tms=%lf", &ms) == 1) {
                    got = ms;
                    if (g) r0->guards = atol(g + 8);
                    if (o) snprintf(r0->out, sizeof r0->out, "%.*s", (int)strcspn(o + 5, "\t\n"), o + 5);
                }
            }
            int prc = p ? pclose(p) : -1;
            if (prc != 0) {
                fprintf(stderr, "bench_peer: the peer exited with status %d (%s)\n", prc, cmd);
                r0->failed = 1;
            }
            if (got >= 0) pv[k++] = got;
        }
        if (k && !r0->failed) r0->ms = median(pv, k);
        free(cmd);
    }
    free(pv);
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_peer [--reps N] [--peer-reps K] [--peer PATH] [--python PATH] [--python2 PATH] [--peer2 PATH]\n"
            "                  [--peer2-reps N] [--loader-only] [MODEL.json...]\n"
            "  --reps N       symshape runs per model and loader runs (median; default 21)\n"
            "  --peer-reps K  runs of the PyTorch 1.13 ShapeEnv peer per model, a fresh process each (median; default 3)\n"
            "  --peer PATH    the peer script (default %s)\n"
            "  --python PATH  the Python with torch 1.13 (default /usr/bin/python3)\n"
            "  --python2 PATH a Python with torch 2.x: adds the PyTorch 2.x ShapeEnv peer's column\n"
            "  --peer2 PATH   that peer's script (default %s)\n"
            "  --peer2-reps N runs of the 2.x peer in one process for the cleared and hot protocols (median; default 21)\n"
            "  --loader-only  only the parsing table (no peer, no trace)\n"
            "  -h, --help     this help\n"
            "Without models: the folder SY_CORPUS_DIR, else the shared corpus, else examples/.\n",
            SY_PEER_SCRIPT, SY_PEER2_SCRIPT);
}

int main(int argc, char **argv)
{
    int reps = 21, peer_reps = 3, peer2_reps = 21, loader_only = 0;
    const char *peer = SY_PEER_SCRIPT, *python = "/usr/bin/python3", *peer2 = SY_PEER2_SCRIPT, *python2 = NULL;
    char *paths[MAXM];
    int np = 0;
    static const struct option longopts[] = {{"reps", required_argument, NULL, 'r'},
                                             {"peer-reps", required_argument, NULL, 'k'},
                                             {"peer", required_argument, NULL, 'p'},
                                             {"python", required_argument, NULL, 'y'},
                                             {"python2", required_argument, NULL, 'Y'},
                                             {"peer2", required_argument, NULL, 'P'},
                                             {"peer2-reps", required_argument, NULL, 'K'},
                                             {"loader-only", no_argument, NULL, 'L'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': reps = atoi(optarg); break;
        case 'k': peer_reps = atoi(optarg); break;
        case 'p': peer = optarg; break;
        case 'y': python = optarg; break;
        case 'Y': python2 = optarg; break;
        case 'P': peer2 = optarg; break;
        case 'K': peer2_reps = atoi(optarg); break;
        case 'L': loader_only = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    for (int i = optind; i < argc && np < MAXM; i++) paths[np++] = strdup(argv[i]);
    if (reps < 1) reps = 1;
    if (peer_reps < 1) peer_reps = 1;
    if (peer2_reps < 1) peer2_reps = 1;
    if (!np) {
        const char *dir = getenv("SY_CORPUS_DIR"), *d2 = NULL;
        char *names[MAXM];
        int n = 0;
        if (dir && *dir) {
            DIR *dh = opendir(dir);
            struct dirent *de;
            while (dh && (de = readdir(dh)) && n < MAXM) {
                size_t l = strlen(de->d_name);
                if (l > 5 && !strcmp(de->d_name + l - 5, ".json") && !strstr(de->d_name, ".probes.")) names[n++] = strdup(de->d_name);
            }
            if (dh) closedir(dh);
            qsort(names, (size_t)n, sizeof *names, bench_cmps);
            d2 = dir;
        } else {
            n = bench_models(&d2, names, MAXM);
        }
        for (int i = 0; i < n; i++) {
            size_t l = strlen(d2) + strlen(names[i]) + 2;
            paths[np] = malloc(l);
            snprintf(paths[np++], l, "%s/%s", d2, names[i]);
            free(names[i]);
        }
    }
    if (!np) {
        fprintf(stderr, "bench_peer: no models (set SY_CORPUS_DIR)\n");
        return 1;
    }
    /* the peers: one process per model and run, so each runs with sympy's
     * caches cold (as a first compile does; a second pass over the same
     * graphs is mostly cache hits), each run as the script times it; the
     * median of peer_reps runs. Peer 2 (PyTorch 2.x's ShapeEnv,
     * bench/peer_shapeenv2.py) runs when --python2 names a Python with torch 2.x. */
    static peer_res pr1[MAXM], pr2[3][MAXM];
    static const char *const protos[3] = {"cold", "cleared", "hot"};
    char names[MAXM][128];
    for (int i = 0; i < np; i++) model_name(paths[i], names[i], sizeof names[i]);
    if (!loader_only) {
        if (run_peer(python, peer, NULL, paths, np, peer_reps, 0, pr1)) return 1;
        for (int q = 0; python2 && q < 3; q++)
            if (run_peer(python2, peer2, protos[q], paths, np, peer_reps, peer2_reps, pr2[q])) return 1;
    }

    double *v = malloc((size_t)reps * sizeof *v);
    if (!v) return 1;
    int status = 0;
    if (loader_only) goto parsing;
    printf("trace + produce + minimize: symshape (median of %d, fresh context each) vs PyTorch 1.13 ShapeEnv peer (median of %d, fresh process each)\n",
           reps, peer_reps);
    if (python2)
        printf("peer 2: PyTorch 2.x ShapeEnv (%s): cold = median of %d fresh processes; cleared = one process, caches "
               "cleared before each run, median of %d; hot = one process, caches kept, median of %d\n",
               peer2, peer_reps, peer2_reps, peer2_reps);
    printf("%-20s %9s %6s %10s %7s", "model", "ours ms", "guards", "peer ms", "ratio");
    if (python2)
        printf(" %7s %10s %7s %10s %7s %10s %7s", "guards2", "cold ms", "ratio", "cleared ms", "ratio", "hot ms", "ratio");
    printf(" %14s\n", "memo hits/look");
    double minratio = -1, min2[3] = {-1, -1, -1};
    int covered2 = 0;
    for (int i = 0; i < np; i++) {
        int k = 0;
        sy_trace_memo_stats mst = {0};
        size_t ng = 0;
        char outs[256] = "";
        for (int r = 0; r < reps; r++) {
            double ms = pipeline_ms(paths[i], &mst, &ng, outs, sizeof outs);
            if (ms >= 0) v[k++] = ms;
        }
        double ours = k ? median(v, k) : -1;
        printf("%-20s %9.3f %6zu ", names[i], ours, ng);
        if (pr1[i].unsupported || pr1[i].ms < 0) {
            printf("%10s %7s", pr1[i].unsupported ? "unsupported" : "failed", "-");
        } else {
            double ratio = ours > 0 ? pr1[i].ms / ours : 0;
            printf("%10.1f %6.0fx", pr1[i].ms, ratio);
            if (minratio < 0 || ratio < minratio) minratio = ratio;
        }
        if (python2) {
            long g2 = -1;
            int all = 1;
            for (int q = 0; q < 3; q++)
                if (pr2[q][i].guards >= 0) g2 = pr2[q][i].guards;
            printf(" %7ld", g2);
            for (int q = 0; q < 3; q++) {
                peer_res *r2 = &pr2[q][i];
                if (r2->unsupported || r2->ms < 0) {
                    printf(" %10s %7s", r2->unsupported ? "unsupported" : "failed", "-");
                    all = 0;
                    if (!r2->unsupported) status = 1;
                    continue;
                }
                if (strcmp(r2->out, outs)) {
                    /* the peer did other shape work than we did: its time is not comparable */
                    fprintf(stderr, "bench_peer: %s: the 2.x peer's output sizes at the example (%s, %s) differ from symshape's (%s)\n",
                            names[i], r2->out, protos[q], outs);
                    printf(" %10s %7s", "DIFFERS", "-");
                    all = 0;
                    status = 1;
                    continue;
                }
                double ratio2 = ours > 0 ? r2->ms / ours : 0;
                printf(" %10.2f %6.0fx", r2->ms, ratio2);
                if (min2[q] < 0 || ratio2 < min2[q]) min2[q] = ratio2;
            }
            covered2 += all;
        }
        printf(" %7zu/%zu\n", mst.hits, mst.lookups);
    }
    if (minratio >= 0) printf("smallest ratio to the 1.13 peer %.0fx (goal >= 300x: %s)\n", minratio, minratio >= 300 ? "met" : "NOT met");
    if (python2) {
        printf("2.x peer: %d of %d models measured with every protocol and the same output sizes\n", covered2, np);
        for (int q = 0; q < 3; q++)
            if (min2[q] >= 0)
                printf("smallest ratio to the 2.x peer, %-7s %.0fx (goal >= 1000x on every model: %s)\n", protos[q], min2[q],
                       min2[q] >= 1000 && covered2 == np ? "met" : "NOT met");
    }

    /* the two loaders alternate rep by rep (so that a change in the machine's
     * load hits both alike), thread CPU time, the minimum and the median of
     * each; bench/loader_ir.sh gives the instruction counts, which repeat */
parsing:
    printf("\nparsing: jansson json_load_file vs sy_graph_load_file (thread CPU time, %d reps alternating; min and median)\n", reps);
    printf("%-22s %12s %12s %10s %12s %12s %10s\n", "model", "jansson min", "loader min", "overhead", "jansson med", "loader med",
           "overhead");
    double maxover = -1e9;
    double *w = malloc((size_t)reps * sizeof *w);
    sy_ctx *lctx = NULL;
    if (!w || sy_ctx_new(NULL, &lctx) != SY_OK) return 1;
    for (int i = 0; i < np; i++) {
        int k = 0;
        load_ms(lctx, paths[i], 0); /* warm-up: page cache, first-call costs */
        load_ms(lctx, paths[i], 1);
        for (int r = 0; r < reps; r++) {
            double a = load_ms(lctx, paths[i], 0), b = load_ms(lctx, paths[i], 1);
            if (a >= 0 && b >= 0) v[k] = a, w[k++] = b;
        }
        if (!k) {
            printf("%-22s %12s\n", names[i], "failed");
            continue;
        }
        double jmed = median(v, k), omed = median(w, k); /* sorts: v[0], w[0] are the minima */
        double omin = (w[0] / v[0] - 1) * 100, omd = (omed / jmed - 1) * 100;
        printf("%-22s %12.3f %12.3f %9.1f%% %12.3f %12.3f %9.1f%%\n", names[i], v[0], w[0], omin, jmed, omed, omd);
        if (omin > maxover) maxover = omin;
    }
    sy_ctx_free(lctx);
    printf("largest overhead of the minima %.1f%% (goal <= 10%%: %s; by instructions: bench/loader_ir.sh)\n", maxover,
           maxover <= 10 ? "met" : "NOT met");
    cold_table(argv[0], np, paths, names, reps, v, w);
    free(w);
    free(v);
    for (int i = 0; i < np; i++) free(paths[i]);
    return status;
}
