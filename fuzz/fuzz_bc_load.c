/* libFuzzer harness for the bytecode loader and verifier (sy_bc_load), and
 * for the VM on whatever passes them. Each input is tried as given, and again
 * with its CRC re-sealed so that mutations reach the structure parser
 * and the verifier instead of stopping at the checksum. A program that loads
 * must run without fault on a few points (results 1, 0 or a fail-closed code
 * only), re-encode to exactly the input bytes (the format is canonical; a
 * certificate's stored hashes aside, see below) and disassemble. Seeds: fuzz/corpus_bc/ (replayed as a Criterion test by
 * tests/backends/test_bc_fuzz_corpus.c).
 *
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DSY_BUILD_FUZZERS=ON
 *   cmake --build build-fuzz --target fuzz_bc_load
 *   build-fuzz/fuzz/fuzz_bc_load -max_total_time=60 /tmp/bc-corpus fuzz/corpus_bc
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "symshape/bc.h"
#include "symshape/symshape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(sy_ctx *fctx, const uint8_t *d, size_t n)
{
    sy_bc_program *p;
    sy_bc_load_err err;
    sy_status st = sy_bc_load(fctx, d, n, &p, &err);
    if (st != SY_OK) {
        if (st != SY_EFORMAT && st != SY_EVERSION && st != SY_EVERIFY && st != SY_ENOMEM) abort();
        if (err.code != st || err.offset > n || p) abort();
        return;
    }
    size_t ns = sy_bc_nslots(p);
    int64_t *v = malloc((ns ? ns : 1) * sizeof *v);
    static const int64_t pick[] = {0, 1, 2, 3, 7, 64, 224, -1, INT64_MAX, INT64_MIN, 3037000500, -5};
    for (int t = 0; t < 8 && v; t++) {
        for (size_t i = 0; i < ns; i++) v[i] = pick[(t * 7 + i * 3) % 12];
        int32_t failed;
        if (sy_bc_flags(p) & SY_BC_FLAG_DISPATCH) { /* a dispatcher (format 2.2): an entry, -1, or fail closed */
            long r = sy_bc_dispatch(p, v, ns);
            if (r < -1 ? r != SY_EOVERFLOW && r != SY_EDIVZERO : r >= (long)sy_bc_nentries(p)) abort();
            if (sy_bc_check(p, v, ns, &failed) != SY_EINVAL) abort();
            continue;
        }
        int r = sy_bc_check(p, v, ns, &failed);
        if (r != 1 && r != 0 && r != SY_EOVERFLOW && r != SY_EDIVZERO) abort();
        if (r == 0 && (failed < 0 || (size_t)failed >= sy_bc_nguards(p))) abort();
    }
    free(v);
    unsigned char *e;
    size_t m;
    const char *ob = NULL; /* a certified program re-encodes with its certificate */
    const unsigned char *hash = NULL;
    if ((sy_bc_certificate(p, &ob, &hash) == SY_OK ? sy_bc_encode_certified(p, ob, &e, &m) : sy_bc_encode(p, &e, &m)) == SY_OK) {
        if (m != n) abort();
        if (ob) {
            /* sy_bc_load keeps a certificate's two SHA-256s as the file states them (a wrong one is
             * verify --artifact's finding, not a load error) and the encoder writes the true ones:
             * the bytes agree but for those 64 and the CRC, and the difference is what
             * sy_bc_program_hash shows. */
            unsigned char h[64], *base = NULL;
            size_t nb = 0;
            if (sy_bc_program_hash(p, h, h + 32) != SY_OK || sy_bc_encode(p, &base, &nb) != SY_OK || nb + 65 > n) abort();
            sy_mem_free(fctx, base);
            int same = memcmp(h, hash, 64) == 0;
            if (same != (memcmp(e + nb + 1, d + nb + 1, 64) == 0)) abort();
            if (!same) { /* the rest must still be canonical */
                memcpy(e + 36, d + 36, 4);
                memcpy(e + nb + 1, d + nb + 1, 64);
            }
        }
        if (memcmp(e, d, n)) abort();
        sy_mem_free(fctx, e);
    }
    char *text;
    if (sy_bc_disassemble_str(p, &text) == SY_OK) sy_str_free(fctx, text);
    sy_bc_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sy_ctx *fctx;
    if (sy_ctx_new(NULL, &fctx) != SY_OK) return 0;
    run(fctx, data, size);
    if (size >= SY_BC_HEADER_SIZE) {
        uint8_t *d = malloc(size);
        if (d) {
            memcpy(d, data, size);
            uLong c = crc32(crc32(0L, Z_NULL, 0), d, 36);
            c = crc32(c, d + SY_BC_HEADER_SIZE, (uInt)(size - SY_BC_HEADER_SIZE));
            for (int i = 0; i < 4; i++) d[36 + i] = (uint8_t)(c >> (8 * i));
            run(fctx, d, size);
            free(d);
        }
    }
    sy_ctx_free(fctx);
    return 0;
}
