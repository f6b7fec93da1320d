/* Certificates of bytecode programs (bc.h, docs/bytecode.md section 10): the
 * SHA-256 that binds them (FIPS 180-4 test vectors), the obligation's form,
 * and the certified encoding: format 2.2 with the certificate section, loaded
 * back to the same program, whose plain encoding and hashes are those the
 * certificate names. tests/cli/verify.sh replays the obligation with Z3 and
 * refuses tampered artifacts. */
#include <string.h>

#include "backends/backends_private.h"
#include "bc_test_util.h"

TestSuite(certificate, .init = ctx_setup, .fini = ctx_teardown);

static void hex(char out[65], const unsigned char *h)
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
}

Test(certificate, sha256_fips_vectors)
{
    static const struct {
        const char *msg;
        const char *want;
    } v[] = {{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
             {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
             {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"}};
    unsigned char h[32];
    char got[65];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sy_sha256((const unsigned char *)v[i].msg, strlen(v[i].msg), h);
        hex(got, h);
        cr_assert(eq(str, got, (char *)v[i].want), "\"%s\"", v[i].msg);
    }
    size_t n = 1000000; /* a million 'a': 15,625 blocks */
    unsigned char *a = malloc(n);
    memset(a, 'a', n);
    sy_sha256(a, n, h);
    hex(got, h);
    cr_assert(eq(str, got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    free(a);
}

Test(certificate, certified_program_round_trip)
{
    sy_graph *g = NULL;
    cr_assert(eq(int, sy_graph_load_file(ctx, SY_TESTS_DIR "/../examples/resnet18.json", &g), SY_OK));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t = NULL;
    sy_gset *fin = NULL, *rec = NULL;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK));
    cr_assert(eq(int, sy_gset_produce(env, g, &fin), SY_OK));
    cr_assert(eq(int, sy_gset_produce(env, g, &rec), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(fin), SY_OK));
    char *ob = sy_bc_certificate_obligation(fin, rec);
    cr_assert(ob != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(strstr(ob, "\n(assert (not (= |min_all| |rec_all|)))\n(check-sat)\n") != NULL);
    for (size_t i = 0; i < sy_gset_size(fin); i++) { /* every program guard named by its text */
        char line[512];
        snprintf(line, sizeof line, "\n; min_%zu: %s\n", i, sy_gset_at(fin, i)->text);
        cr_assert(strstr(ob, line) != NULL, "%s", line);
    }
    cr_assert(strstr(ob, "(assert (>= |x.size()[0]| 0))") != NULL); /* the domain: sizes >= 0 */
    cr_assert(strstr(ob, "(assert (>= |x.dtype| 0))") == NULL);     /* a dtype is any code */
    sy_bc_program *p = NULL, *q = NULL;
    cr_assert(eq(int, sy_bc_compile(fin, &p), SY_OK));
    unsigned char *plain = NULL, *cert = NULL, *again = NULL;
    size_t np = 0, nc = 0, na = 0;
    cr_assert(eq(int, sy_bc_encode(p, &plain, &np), SY_OK));
    cr_assert(eq(int, sy_bc_encode_certified(p, ob, &cert, &nc), SY_OK));
    cr_assert(eq(int, cert[10], 2));
    cr_assert(eq(u32, bt_get32(cert + 12) & SY_BC_FLAG_CERTIFICATE, SY_BC_FLAG_CERTIFICATE));
    cr_assert(memcmp(plain + 40, cert + 40, np - 40) == 0); /* the program's bytes, then the section */
    sy_bc_load_err err;
    cr_assert(eq(int, sy_bc_load(ctx, cert, nc, &q, &err), SY_OK), "%s", err.msg);
    const char *lob = NULL;
    const unsigned char *hs = NULL;
    cr_assert(eq(int, sy_bc_certificate(q, &lob, &hs), SY_OK));
    cr_assert(eq(str, (char *)lob, ob));
    unsigned char h1[32], h2[32], hp[32];
    cr_assert(eq(int, sy_bc_program_hash(q, h1, h2), SY_OK));
    sy_sha256(plain, np, hp);
    cr_assert(memcmp(h1, hp, 32) == 0 && memcmp(hs, h1, 32) == 0 && memcmp(hs + 32, h2, 32) == 0);
    cr_assert(eq(int, sy_bc_encode(q, &again, &na), SY_OK)); /* the plain bytes again */
    cr_assert(eq(sz, na, np));
    cr_assert(memcmp(again, plain, np) == 0);
    cr_assert(eq(int, sy_bc_certificate(p, NULL, NULL), SY_EINVAL)); /* a compiled program has none */
    /* the same answers */
    int64_t v[6] = {4, 0, 2, 3, 224, 224};
    int32_t f1, f2;
    for (int k = 0; k < 64; k++) {
        v[2] = k % 8;
        v[4] = v[5] = 1 + 7 * k;
        cr_assert(eq(int, sy_bc_check(q, v, 6, &f1), sy_bc_check(p, v, 6, &f2)));
    }
    /* a dispatcher is not certified here */
    const char *js = "{\"format\": \"symshape.guards\", \"version\": 1, \"sources\": [\"x.dim()\"], \"guards\": []}";
    size_t len = (size_t)-1;
    sy_dispatch *d = NULL;
    sy_bc_program *dp = NULL;
    unsigned char *dd = NULL;
    size_t dn = 0;
    cr_assert(eq(int, sy_dispatch_new_json(ctx, 1, &js, &len, &d), SY_OK));
    cr_assert(eq(int, sy_bc_dispatch_compile(d, &dp), SY_OK));
    cr_assert(eq(int, sy_bc_encode_certified(dp, ob, &dd, &dn), SY_EINVAL));
    sy_bc_free(dp);
    sy_dispatch_free(d);
    sy_mem_free(ctx, plain);
    sy_mem_free(ctx, cert);
    sy_mem_free(ctx, again);
    sy_str_free(ctx, ob);
    sy_bc_free(p);
    sy_bc_free(q);
    sy_gset_free(fin);
    sy_gset_free(rec);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}
