/* Replays the bytecode fuzzing corpus (fuzz/corpus_bc/) and the inputs the
 * fuzzer once failed on (fuzz/regress_bc/) as an ordinary test:
 * every file goes through the libFuzzer harness itself (included below) and
 * through a leak-checked load in a counting-allocator context; whatever
 * verifies runs on a few size vectors. Looks for crashes, sanitizer reports
 * and leaks, not for particular outputs. The seeds are golden programs, so
 * each must load: a seed that stops loading means the format changed and
 * the seeds need regenerating (docs/bytecode.md, "Fuzzing"). */
#include <dirent.h>

#include "bc_test_util.h"
#include "fuzz_replay.h"

/* the harness: LLVMFuzzerTestOneInput, same code as fuzz/fuzz_bc_load */
#include "../../fuzz/fuzz_bc_load.c"

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "%s", path);
    size_t cap = 4096, n = 0;
    unsigned char *d = malloc(cap);
    size_t k;
    while ((k = fread(d + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) d = realloc(d, cap *= 2);
    }
    fclose(f);
    *len = n;
    return d;
}

static void replay_sizes(const sy_bc_program *p)
{
    size_t ns = sy_bc_nslots(p);
    int64_t *v = malloc((ns ? ns : 1) * sizeof *v);
    static const int64_t vals[] = {0, 1, 2, 3, 4, 7, 8, 16, 64, 224, 299, 4096, -1, INT64_MAX, INT64_MIN};
    for (size_t t = 0; t < 30; t++) {
        for (size_t i = 0; i < ns; i++) v[i] = vals[(t * 5 + i * 7 + (t > 15 ? i * i : 0)) % 15];
        int32_t failed;
        if (sy_bc_flags(p) & SY_BC_FLAG_DISPATCH) {
            long e = sy_bc_dispatch(p, v, ns);
            cr_assert(e >= -1 && e < (long)sy_bc_nentries(p), "entry %ld", e);
            continue;
        }
        int r = sy_bc_check(p, v, ns, &failed);
        cr_assert(r == 1 || r == 0 || r == SY_EOVERFLOW || r == SY_EDIVZERO, "result %d", r);
        if (r == 0) cr_assert(failed >= 0 && (size_t)failed < sy_bc_nguards(p));
    }
    free(v);
}

Test(backends_bc_fuzz, corpus_replays_without_crash_or_leak, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    const char *dir_path = SY_TESTS_DIR "/../fuzz/corpus_bc";
    DIR *dir = opendir(dir_path);
    cr_assert(dir != NULL, "no corpus at %s", dir_path);
    struct dirent *de;
    int files = 0, loaded = 0;
    while ((de = readdir(dir))) {
        if (de->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir_path, de->d_name);
        size_t len;
        unsigned char *d = read_file(path, &len);
        files++;
        cr_assert(eq(int, LLVMFuzzerTestOneInput(d, len), 0));
        sy_bc_program *p;
        sy_bc_load_err err;
        sy_status st = sy_bc_load(ctx, d, len, &p, &err);
        cr_assert(eq(int, st, SY_OK), "seed %s does not load: %s (offset %zu)", de->d_name, err.msg, err.offset);
        loaded++;
        replay_sizes(p);
        char *text;
        cr_assert(eq(int, sy_bc_disassemble_str(p, &text), SY_OK));
        cr_assert(strncmp(text, "; symshape bytecode ", 20) == 0);
        sy_str_free(ctx, text);
        sy_bc_free(p);
        /* and every prefix of it, as the fuzzer's first mutations would */
        for (size_t k = 0; k < len; k += 7) {
            cr_assert(eq(int, sy_bc_load(ctx, d, k, &p, &err), SY_EFORMAT));
            cr_assert(eq(int, LLVMFuzzerTestOneInput(d, k), 0));
        }
        free(d);
    }
    closedir(dir);
    fprintf(stderr, "bytecode corpus: %d files, %d loaded\n", files, loaded);
    cr_assert(le(int, 5, files));
    cr_assert(eq(int, loaded, files));
}

/* fuzz/regress_bc/: inputs that once failed the harness (certificate-hash-shuffled: a certified
 * program whose stored SHA-256 bytes were shuffled and whose CRC was re-sealed; it loads, and
 * re-encodes with the true hashes). */
Test(backends_bc_fuzz, regressions_replay, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    size_t n = fuzz_replay_dir(SY_TESTS_DIR "/../fuzz/regress_bc", LLVMFuzzerTestOneInput);
    cr_assert(le(sz, (size_t)1, n), "only %zu regression inputs", n);
}
