/* Bytecode backend (include/symshape/bc.h, docs/bytecode.md): the golden
 * program, the loader's rejection of every truncation, byte flip and
 * crafted corruption with its exact status and offset, the VM's opcode
 * semantics at the int64 edges, API errors, the OOM loop, the registry
 * backend and concurrent checks on one shared program.
 *
 * Length (about 1,240 lines, at the tree's 1,200): one backend's tests, whose
 * corruption cases all start from the golden program defined here. */
#include <pthread.h>

#include "bc_test_util.h"

/* ------------------------------------------------------------------ the golden program */

static const char *const golden_facts[] = {"Or(Mod(s0, 4) == 0, s1 <= 16)", "s0*s1 <= 2**70"};
static const char *const golden_asserts[] = {"s1 != 3"};

static sy_gset *golden_gset(sy_graph **g) { return bt_gset("[8,6]", "[0,1]", golden_facts, 2, golden_asserts, 1, 1, g); }

static const char golden_dis[] =
    "; symshape bytecode 2.1\n"
    "; 4 slots, 7 guards, 6 constants, 3 registers, 38 instructions\n"
    "; slot s0: x.dim()\n"
    "; slot s1: x.dtype\n"
    "; slot s2: x.size()[0]\n"
    "; slot s3: x.size()[1]\n"
    "; const k0 = 2\n"
    "; const k1 = 0\n"
    "; const k2 = 1\n"
    "; const k3 = 4\n"
    "; const k4 = 16\n"
    "; const k5 = 3\n"
    "; guard g0 (tensor_match): x.dim() == 2\n"
    "; guard g1 (tensor_match): x.dtype == 0\n"
    "; guard g2 (range): 2 <= x.size()[0]\n"
    "; guard g3 (range): 2 <= x.size()[1]\n"
    "; guard g4 (relation): x.size()[0]*x.size()[1] <= 1180591620717411303424\n"
    "; guard g5 (relation): Or(Mod(x.size()[0], 4) == 0, x.size()[1] <= 16)\n"
    "; guard g6 (runtime_assert, run time only): x.size()[1] != 3\n"
    "; 1 runtime assert is checked only by the run-time check (after RTCHECKS, with the unbacked values)\n"
    "   0  LOADSLOT  r0 s0        ; r[A] := slot[Bx]                  x.dim()\n"
    "   1  LOADK     r1 k0        ; r[A] := K[Bx]                     2\n"
    "   2  EQ        r0 r0 r1     ; r[A] := r[B] == r[C]\n"
    "   3  CHECK     r0 g0        ; if r[A] == 0 then reject guard Bx x.dim() == 2\n"
    "   4  LOADSLOT  r0 s1        ; r[A] := slot[Bx]                  x.dtype\n"
    "   5  LOADK     r1 k1        ; r[A] := K[Bx]                     0\n"
    "   6  EQ        r0 r0 r1     ; r[A] := r[B] == r[C]\n"
    "   7  CHECK     r0 g1        ; if r[A] == 0 then reject guard Bx x.dtype == 0\n"
    "   8  LOADK     r0 k0        ; r[A] := K[Bx]                     2\n"
    "   9  LOADSLOT  r1 s2        ; r[A] := slot[Bx]                  x.size()[0]\n"
    "  10  LE        r0 r0 r1     ; r[A] := r[B] <= r[C]\n"
    "  11  CHECK     r0 g2        ; if r[A] == 0 then reject guard Bx 2 <= x.size()[0]\n"
    "  12  LOADK     r0 k0        ; r[A] := K[Bx]                     2\n"
    "  13  LOADSLOT  r1 s3        ; r[A] := slot[Bx]                  x.size()[1]\n"
    "  14  LE        r0 r0 r1     ; r[A] := r[B] <= r[C]\n"
    "  15  CHECK     r0 g3        ; if r[A] == 0 then reject guard Bx 2 <= x.size()[1]\n"
    "  16  LOADSLOT  r0 s2        ; r[A] := slot[Bx]                  x.size()[0]\n"
    "  17  LOADSLOT  r1 s3        ; r[A] := slot[Bx]                  x.size()[1]\n"
    "  18  MUL       r0 r0 r1     ; r[A] := r[B] * r[C]\n"
    "  19  LOADK     r0 k2        ; r[A] := K[Bx]                     1\n"
    "  20  CHECK     r0 g4        ; if r[A] == 0 then reject guard Bx x.size()[0]*x.size()[1] <= 1180591620717411303424\n"
    "  21  LOADSLOT  r0 s2        ; r[A] := slot[Bx]                  x.size()[0]\n"
    "  22  LOADK     r1 k3        ; r[A] := K[Bx]                     4\n"
    "  23  MOD       r0 r0 r1     ; r[A] := r[B] % r[C]\n"
    "  24  LOADK     r1 k1        ; r[A] := K[Bx]                     0\n"
    "  25  EQ        r0 r0 r1     ; r[A] := r[B] == r[C]\n"
    "  26  JMPNZ     r0 +4        ; if r[A] != 0 then pc += sBx       to 31\n"
    "  27  LOADSLOT  r1 s3        ; r[A] := slot[Bx]                  x.size()[1]\n"
    "  28  LOADK     r2 k4        ; r[A] := K[Bx]                     16\n"
    "  29  LE        r1 r1 r2     ; r[A] := r[B] <= r[C]\n"
    "  30  OR        r0 r0 r1     ; r[A] := r[B] or r[C]\n"
    "  31  CHECK     r0 g5        ; if r[A] == 0 then reject guard Bx Or(Mod(x.size()[0], 4) == 0, x.size()[1] <= 16)\n"
    "  32  RTCHECKS               ; sizes only: accept; run time: go on with the runtime asserts\n"
    "  33  LOADSLOT  r0 s3        ; r[A] := slot[Bx]                  x.size()[1]\n"
    "  34  LOADK     r1 k5        ; r[A] := K[Bx]                     3\n"
    "  35  NE        r0 r0 r1     ; r[A] := r[B] != r[C]\n"
    "  36  CHECK     r0 g6        ; if r[A] == 0 then reject guard Bx x.size()[1] != 3\n"
    "  37  RETURN                 ; accept\n";

/* The encoded bytes, pinned: the format is explicit little-endian, so every
 * host must produce exactly these. */
static const char golden_hex[] =
    "535942430d0a1a0a0200010001000000030000000600000004000000070000002600000065e07a8607782e64696d2829"
    "07782e64747970650b782e73697a6528295b305d0b782e73697a6528295b315d000c782e64696d2829203d3d2032000c"
    "782e6474797065203d3d2030031032203c3d20782e73697a6528295b305d031032203c3d20782e73697a6528295b315d"
    "0431782e73697a6528295b305d2a782e73697a6528295b315d203c3d2031313830353931363230373137343131333033"
    "343234042f4f72284d6f6428782e73697a6528295b305d2c203429203d3d20302c20782e73697a6528295b315d203c3d"
    "203136290510782e73697a6528295b315d20213d2033000102000000010100010400011000010300000000010100000c"
    "0000011400000000000100010101000c0000011400010001000000000102000e0000011400020001000000000103000e"
    "000001140003000000020000010300050000010100020014000400000002000101030007000001010101000c00000113"
    "00040000010300010204000e01010211000001140005001600000000000300010105000d0000011400060015000000";

typedef struct golden {
    sy_graph *g;
    sy_gset *gs;
    sy_bc_program *p;
    unsigned char *data;
    size_t len;
} golden;

static void golden_open(golden *G)
{
    G->gs = golden_gset(&G->g);
    G->p = bt_compile(G->gs);
    cr_assert(eq(int, sy_bc_encode(G->p, &G->data, &G->len), SY_OK));
}

static void golden_close(golden *G)
{
    sy_mem_free(ctx, G->data);
    sy_bc_free(G->p);
    sy_gset_free(G->gs);
    sy_graph_free(G->g);
}

static size_t code_offset(const golden *G) { return G->len - 4 * sy_bc_ninstr(G->p); }

/* VM and reference agree on a point (or the VM fails closed where stated). */
static void agree(const sy_bc_program *p, const sy_gset *gs, const int64_t *v, int want_vm, int32_t want_failed)
{
    int32_t failed = 12345;
    int r = sy_bc_check(p, v, sy_gset_nsources(gs), &failed);
    cr_assert(eq(int, r, want_vm));
    cr_assert(eq(i32, failed, want_failed));
    if (r >= 0) {
        sy_gset_result ref = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, v, sy_gset_nsources(gs), &ref), SY_OK));
        cr_assert(eq(int, ref.accept, r));
        cr_assert(eq(long, ref.failed, (long)failed));
    }
}

Test(backends_bc, golden_program_disassembly_bytes_and_results, .init = ctx_setup, .fini = ctx_teardown)
{
    golden G;
    golden_open(&G);
    char *text;
    cr_assert(eq(int, sy_bc_disassemble_str(G.p, &text), SY_OK));
    cr_assert(eq(str, text, (char *)golden_dis));
    sy_str_free(ctx, text);
    /* bytes */
    char hex[2 * sizeof golden_hex];
    cr_assert(lt(sz, 2 * G.len, sizeof hex));
    for (size_t i = 0; i < G.len; i++) snprintf(hex + 2 * i, 3, "%02x", G.data[i]);
    cr_assert(eq(str, hex, (char *)golden_hex));
    /* load: the same program (same text, same bytes) */
    sy_bc_load_err err;
    sy_bc_program *q = bt_load(G.data, G.len, SY_OK, &err);
    cr_assert(eq(str, err.msg, ""));
    cr_assert(eq(int, sy_bc_disassemble_str(q, &text), SY_OK));
    cr_assert(eq(str, text, (char *)golden_dis));
    sy_str_free(ctx, text);
    unsigned char *d2;
    size_t n2;
    cr_assert(eq(int, sy_bc_encode(q, &d2, &n2), SY_OK));
    cr_assert(eq(sz, n2, G.len));
    cr_assert(eq(int, memcmp(d2, G.data, n2), 0));
    sy_mem_free(ctx, d2);
    /* results: sources x.dim(), x.dtype, x.size()[0], x.size()[1] */
    agree(q, G.gs, (int64_t[]){2, 0, 8, 6}, 1, -1);
    agree(q, G.gs, (int64_t[]){3, 0, 8, 6}, 0, 0);
    agree(q, G.gs, (int64_t[]){2, 5, 8, 6}, 0, 1);
    agree(q, G.gs, (int64_t[]){2, 0, 1, 6}, 0, 2);
    agree(q, G.gs, (int64_t[]){2, 0, 8, 3}, 1, -1);   /* the runtime assert is not checked, like the reference */
    agree(q, G.gs, (int64_t[]){2, 0, 6, 17}, 0, 5);   /* Or(Mod(6, 4) == 0, 17 <= 16) */
    agree(q, G.gs, (int64_t[]){2, 0, 6, 16}, 1, -1);
    agree(q, G.gs, (int64_t[]){2, 0, 12, 1000}, 1, -1);
    /* s0*s1 overflows int64: the VM fails closed in guard 4 */
    agree(q, G.gs, (int64_t[]){2, 0, INT64_MAX, 2}, SY_EOVERFLOW, 4);
    agree(q, G.gs, (int64_t[]){2, 0, (int64_t)1 << 32, (int64_t)1 << 30}, 1, -1);
    agree(q, G.gs, (int64_t[]){2, 0, (int64_t)1 << 32, (int64_t)1 << 31}, SY_EOVERFLOW, 4); /* 2^63 */
    cr_assert(eq(int, sy_bc_nslots(q), 4));
    cr_assert(eq(str, (char *)sy_bc_slot_name(q, 3), "x.size()[1]"));
    cr_assert(eq(sz, sy_bc_nguards(q), 7));
    cr_assert(eq(str, (char *)sy_bc_guard_text(q, 5), "Or(Mod(x.size()[0], 4) == 0, x.size()[1] <= 16)"));
    cr_assert(eq(int, sy_bc_guard_kind(q, 6), SY_GK_RUNTIME_ASSERT));
    cr_assert(eq(u32, sy_bc_flags(q), SY_BC_FLAG_UNCHECKED_ASSERTS));
    cr_assert(eq(sz, sy_bc_nregs(q), 3));
    cr_assert(eq(sz, sy_bc_nconsts(q), 6));
    cr_assert(eq(u32, sy_bc_instr(q, sy_bc_ninstr(q) - 1), SY_BC_ABC(SY_OP_RETURN, 0, 0, 0)));
    /* the run-time check also checks the runtime assert x.size()[1] != 3 (guard 6) */
    cr_assert(eq(sz, sy_bc_nunbacked(q), 0));
    int32_t failed;
    cr_assert(eq(int, sy_bc_check_runtime(q, (int64_t[]){2, 0, 8, 3}, 4, NULL, 0, &failed), SY_BC_REJECT));
    cr_assert(eq(i32, failed, 6));
    cr_assert(eq(int, sy_bc_check_runtime(q, (int64_t[]){2, 0, 8, 6}, 4, NULL, 0, &failed), SY_BC_ACCEPT));
    cr_assert(eq(int, sy_bc_check_runtime(q, (int64_t[]){2, 0, 8, 6}, 4, NULL, 1, &failed), SY_EINVAL));
    sy_gset_result ref = SY_GSET_RESULT_INIT;
    cr_assert(eq(int, sy_gset_check_runtime_si(G.gs, (int64_t[]){2, 0, 8, 3}, 4, NULL, 0, &ref), SY_OK));
    cr_assert(eq(long, ref.failed, 6));
    sy_bc_free(q);
    golden_close(&G);
}

/* ------------------------------------------------------------------ the loader */

Test(backends_bc, truncation_at_every_offset_is_a_format_error, .init = ctx_setup, .fini = ctx_teardown)
{
    golden G;
    golden_open(&G);
    for (size_t k = 0; k < G.len; k++) {
        unsigned char *cut = malloc(k ? k : 1);
        memcpy(cut, G.data, k);
        sy_bc_load_err err;
        sy_bc_program *p = (sy_bc_program *)1;
        sy_status st = sy_bc_load(ctx, cut, k, &p, &err);
        cr_assert(eq(int, st, SY_EFORMAT), "cut at %zu: %s: %s", k, sy_status_name(st), err.msg);
        cr_assert(p == NULL);
        cr_assert(le(sz, err.offset, k), "cut at %zu: offset %zu: %s", k, err.offset, err.msg);
        cr_assert(strstr(err.msg, "truncated") != NULL, "cut at %zu: %s", k, err.msg);
        cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EFORMAT));
        cr_assert(eq(long, sy_ctx_last_error_offset(ctx), (long)err.offset));
        /* the offset names the field that is cut */
        if (k < SY_BC_HEADER_SIZE) cr_assert(le(sz, k - err.offset, 7), "cut at %zu: offset %zu", k, err.offset);
        free(cut);
    }
    golden_close(&G);
}

/* Issue 38: a changed payload byte (CRC not re-sealed) is a checksum mismatch,
 * not "truncated input": a flipped LEB128 length made the structure walk run
 * past the end before the CRC was compared. Every flip of every payload byte
 * is now reported as "CRC-32 mismatch", with where parsing stopped if it did. */
Test(backends_bc, every_payload_byte_flip_is_a_crc_mismatch, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    golden G;
    golden_open(&G);
    static const unsigned masks[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF};
    unsigned char *d = malloc(G.len);
    size_t flips = 0, unparsable = 0;
    for (size_t i = SY_BC_HEADER_SIZE; i < G.len; i++)
        for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
            memcpy(d, G.data, G.len);
            d[i] ^= (unsigned char)masks[m];
            sy_bc_program *p = NULL;
            sy_bc_load_err err;
            cr_assert(eq(int, sy_bc_load(ctx, d, G.len, &p, &err), SY_EFORMAT), "flip %zu^%02x", i, masks[m]);
            cr_assert(strncmp(err.msg, "CRC-32 mismatch", 15) == 0, "flip %zu^%02x: %s", i, masks[m], err.msg);
            unparsable += strstr(err.msg, "does not parse") != NULL;
            flips++;
            sy_ctx_reset_error(ctx);
        }
    cr_assert(gt(sz, unparsable, 0)); /* some flips break the structure: they were "truncated input" */
    cr_assert(gt(sz, flips, unparsable));
    free(d);
    golden_close(&G);
}

/* Run a loaded program on a few points: no fault, a defined answer. */
static void run_safely(const sy_bc_program *p)
{
    size_t n = sy_bc_nslots(p);
    int64_t v[64];
    cr_assert(le(sz, n, 64));
    static const int64_t pick[] = {0, 1, 2, 3, 6, 8, 16, 224, -1, INT64_MAX, INT64_MIN, 3037000500};
    for (size_t t = 0; t < 12; t++) {
        for (size_t i = 0; i < n; i++) v[i] = pick[(t + i * 5) % 12];
        int32_t failed;
        int r = sy_bc_check(p, v, n, &failed);
        cr_assert(r == 1 || r == 0 || r == SY_EOVERFLOW || r == SY_EDIVZERO, "result %d", r);
        if (r == 0) cr_assert(failed >= 0 && (size_t)failed < sy_bc_nguards(p));
        if (r == 1) cr_assert(eq(i32, failed, -1));
    }
}

Test(backends_bc, every_byte_flip_is_rejected_or_loads_and_runs_safely, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(60))
{
    golden G;
    golden_open(&G);
    static const unsigned masks[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xFF};
    unsigned char *d = malloc(G.len);
    long loaded = 0, rejected = 0;
    for (size_t i = 0; i < G.len; i++) {
        for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
            for (int reseal = 0; reseal < 2; reseal++) {
                memcpy(d, G.data, G.len);
                d[i] ^= (unsigned char)masks[m];
                if (reseal) {
                    if (i >= 36 && i < 40) continue;
                    bt_reseal(d, G.len);
                }
                sy_bc_program *p;
                sy_bc_load_err err;
                sy_status st = sy_bc_load(ctx, d, G.len, &p, &err);
                if (st != SY_OK) {
                    cr_assert(st == SY_EFORMAT || st == SY_EVERSION || st == SY_EVERIFY, "flip %zu^%02x: %s", i, masks[m],
                              sy_status_name(st));
                    cr_assert(le(sz, err.offset, G.len));
                    rejected++;
                    continue;
                }
                /* the CRC covers every byte but its own: no flip loads without re-sealing */
                cr_assert(reseal, "flip %zu^%02x passed the CRC", i, masks[m]);
                loaded++;
                run_safely(p);
                /* the format is canonical: what loads re-encodes to the same bytes */
                unsigned char *e;
                size_t n;
                cr_assert(eq(int, sy_bc_encode(p, &e, &n), SY_OK));
                cr_assert(eq(sz, n, G.len));
                cr_assert(eq(int, memcmp(e, d, n), 0), "flip %zu^%02x does not round-trip", i, masks[m]);
                sy_mem_free(ctx, e);
                sy_bc_free(p);
            }
        }
    }
    fprintf(stderr, "byte flips: %ld rejected, %ld loaded and ran\n", rejected, loaded);
    cr_assert(lt(long, 0, rejected));
    cr_assert(lt(long, 0, loaded));
    free(d);
    golden_close(&G);
}

/* Patch instruction pc of a copy of the golden bytes, re-seal, load. */
static void expect_instr(const golden *G, uint32_t pc, uint32_t w, sy_status want, const char *msg_part)
{
    unsigned char *d = malloc(G->len);
    memcpy(d, G->data, G->len);
    size_t off = code_offset(G) + 4 * (size_t)pc;
    bt_put32(d + off, w);
    bt_reseal(d, G->len);
    sy_bc_load_err err;
    sy_bc_program *p = bt_load(d, G->len, want, &err);
    if (want == SY_OK) {
        run_safely(p);
        sy_bc_free(p);
        free(d);
        return;
    }
    cr_assert(p == NULL);
    cr_assert(eq(sz, err.offset, off), "%s", err.msg);
    cr_assert(strstr(err.msg, msg_part) != NULL, "'%s' does not say '%s'", err.msg, msg_part);
    free(d);
}

Test(backends_bc, each_corruption_has_its_exact_status_and_offset, .init = ctx_setup, .fini = ctx_teardown)
{
    golden G;
    golden_open(&G);
    unsigned char *d = malloc(G.len + 8);
    sy_bc_load_err err;
    uint32_t nregs = (uint32_t)sy_bc_nregs(G.p), nk = (uint32_t)sy_bc_nconsts(G.p), ns = (uint32_t)sy_bc_nslots(G.p),
             ng = (uint32_t)sy_bc_nguards(G.p), ni = (uint32_t)sy_bc_ninstr(G.p);
    /* bad magic, at the first wrong byte */
    for (size_t i = 0; i < 8; i++) {
        memcpy(d, G.data, G.len);
        d[i] ^= 0x20;
        bt_load(d, G.len, SY_EFORMAT, &err);
        cr_assert(eq(sz, err.offset, i));
        cr_assert(strstr(err.msg, "magic") != NULL);
    }
    /* unknown major, newer minor (checked before the CRC) */
    memcpy(d, G.data, G.len);
    bt_put16(d + 8, 3);
    bt_load(d, G.len, SY_EVERSION, &err);
    cr_assert(eq(sz, err.offset, 8));
    bt_put16(d + 8, 0);
    bt_load(d, G.len, SY_EVERSION, &err);
    cr_assert(eq(sz, err.offset, 8));
    /* a format 1 program (no MOVE, registers zeroed): rejected, naming the version */
    bt_put16(d + 8, 1);
    bt_load(d, G.len, SY_EVERSION, &err);
    cr_assert(eq(sz, err.offset, 8));
    cr_assert(eq(str, err.msg,
                 "format version 1.1 is older than 2.x, which this library reads (format 1.x has no MOVE and lets a "
                 "program read a register it never wrote): recompile the guard set"));
    memcpy(d, G.data, G.len);
    bt_put16(d + 10, SY_BC_VERSION_MINOR + 1);
    bt_load(d, G.len, SY_EVERSION, &err);
    cr_assert(eq(sz, err.offset, 10));
    cr_assert(strstr(err.msg, "newer") != NULL);
    /* the major is checked before the minor, the version before the CRC */
    bt_put16(d + 8, 7);
    d[G.len - 1] ^= 1;
    bt_load(d, G.len, SY_EVERSION, &err);
    cr_assert(eq(sz, err.offset, 8));
    /* unknown flags; counts beyond the limits */
    memcpy(d, G.data, G.len);
    bt_put32(d + 12, 0x80);
    bt_load(d, G.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 12));
    memcpy(d, G.data, G.len);
    bt_put32(d + 16, SY_BC_MAX_REGS + 1);
    bt_load(d, G.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 16));
    memcpy(d, G.data, G.len);
    bt_put32(d + 32, SY_BC_MAX_INSTR + 1);
    bt_load(d, G.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 32));
    /* CRC mismatch: a payload byte, or the CRC itself */
    memcpy(d, G.data, G.len);
    d[code_offset(&G)] ^= 0x01;
    bt_load(d, G.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 36));
    cr_assert(strstr(err.msg, "CRC") != NULL);
    memcpy(d, G.data, G.len);
    d[38] ^= 0x40;
    bt_load(d, G.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 36));
    /* trailing bytes */
    memcpy(d, G.data, G.len);
    d[G.len] = 0;
    bt_reseal(d, G.len + 1);
    bt_load(d, G.len + 1, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, G.len));
    cr_assert(strstr(err.msg, "trailing") != NULL);
    /* more registers than declared (any register field), constants, slots,
     * guards out of range */
    expect_instr(&G, 0, SY_BC_ABX(SY_OP_LOADSLOT, nregs, 0), SY_EVERIFY, "register");
    expect_instr(&G, 2, SY_BC_ABC(SY_OP_EQ, 0, nregs, 1), SY_EVERIFY, "register r3");
    expect_instr(&G, 2, SY_BC_ABC(SY_OP_EQ, 0, 1, 255), SY_EVERIFY, "register r255");
    expect_instr(&G, 1, SY_BC_ABX(SY_OP_LOADK, 1, nk), SY_EVERIFY, "constant k6");
    expect_instr(&G, 0, SY_BC_ABX(SY_OP_LOADSLOT, 0, ns), SY_EVERIFY, "slot s4");
    expect_instr(&G, 3, SY_BC_ABX(SY_OP_CHECK, 0, ng), SY_EVERIFY, "guard g7");
    /* jumps: backward, onto itself, past the end */
    expect_instr(&G, 26, SY_BC_ASBX(SY_OP_JMPNZ, 0, -3), SY_EVERIFY, "backward");
    expect_instr(&G, 26, SY_BC_ASBX(SY_OP_JMPNZ, 0, -1), SY_EVERIFY, "backward");
    expect_instr(&G, 26, SY_BC_ASBX(SY_OP_JMPZ, 0, (int)(ni - 27)), SY_EVERIFY, "past the end");
    expect_instr(&G, 26, SY_BC_ASBX(SY_OP_JMPZ, 0, 32767), SY_EVERIFY, "past the end");
    /* opcode, reserved bit, unused fields */
    expect_instr(&G, 4, SY_BC_ABC(SY_OP_COUNT, 0, 0, 0), SY_EVERIFY, "unknown opcode");
    expect_instr(&G, 4, SY_BC_ABC(127, 0, 0, 0), SY_EVERIFY, "unknown opcode");
    expect_instr(&G, 4, SY_BC_ABX(SY_OP_LOADSLOT, 0, 1) | 0x80u, SY_EVERIFY, "reserved");
    expect_instr(&G, 4, SY_BC_ABC(SY_OP_NOT, 0, 1, 2), SY_EVERIFY, "unused field C");
    expect_instr(&G, ni - 1, SY_BC_ABC(SY_OP_RETURN, 1, 0, 0), SY_EVERIFY, "unused field A");
    /* missing RETURN: the last instruction is something else */
    expect_instr(&G, ni - 1, SY_BC_ABX(SY_OP_CHECK, 0, 0), SY_EVERIFY, "not RETURN");
    /* the verifier runs even when everything else is fine: a RETURN in the
     * middle is allowed, code after it is still verified */
    expect_instr(&G, 4, SY_BC_ABC(SY_OP_RETURN, 0, 0, 0), SY_OK, "");
    free(d);
    golden_close(&G);
}

Test(backends_bc, crafted_payload_errors, .init = ctx_setup, .fini = ctx_teardown)
{
    bt_prog b;
    sy_bc_load_err err;
    const uint32_t RET = SY_BC_ABC(SY_OP_RETURN, 0, 0, 0);
    /* the smallest program: RETURN */
    bt_header(&b, 0, 0, 0, 0, 1);
    bt_instr(&b, RET);
    bt_finish(&b);
    sy_bc_program *p = bt_load(b.d, b.len, SY_OK, &err);
    cr_assert(eq(int, sy_bc_check(p, NULL, 0, NULL), 1));
    sy_bc_free(p);
    /* no instruction at all: no RETURN */
    bt_header(&b, 0, 0, 0, 0, 0);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EVERIFY, &err);
    cr_assert(eq(sz, err.offset, 40));
    cr_assert(strstr(err.msg, "not RETURN") != NULL);
    /* LEB128: over-long, overflowing, past the end */
    bt_header(&b, 0, 0, 1, 0, 1);
    bt_byte(&b, 0x81);
    bt_byte(&b, 0x00);
    bt_bytes(&b, "a", 1);
    bt_instr(&b, RET);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 40));
    cr_assert(strstr(err.msg, "over-long") != NULL, "%s", err.msg);
    bt_header(&b, 0, 0, 1, 0, 1);
    bt_bytes(&b, "\xff\xff\xff\xff\x1f", 5);
    bt_instr(&b, RET);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 40));
    cr_assert(strstr(err.msg, "overflow") != NULL, "%s", err.msg);
    bt_header(&b, 0, 0, 1, 0, 1);
    bt_bytes(&b, "\x80\x80\x80\x80\x80\x80\x01", 7);
    bt_instr(&b, RET);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EFORMAT, &err);
    cr_assert(strstr(err.msg, "overflow") != NULL, "%s", err.msg);
    bt_header(&b, 0, 0, 1, 0, 1);
    bt_leb(&b, 1000);
    bt_bytes(&b, "ab", 2);
    bt_instr(&b, RET);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 42));
    cr_assert(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
    /* a NUL inside a name */
    bt_header(&b, 0, 0, 1, 0, 1);
    bt_leb(&b, 3);
    bt_bytes(&b, "a\0b", 3);
    bt_instr(&b, RET);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 41));
    cr_assert(strstr(err.msg, "NUL") != NULL, "%s", err.msg);
    /* an unknown guard kind */
    bt_header(&b, 0, 0, 0, 1, 1);
    bt_byte(&b, 6);
    bt_str(&b, "g");
    bt_instr(&b, RET);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 40));
    cr_assert(strstr(err.msg, "kind") != NULL, "%s", err.msg);
    /* constants: bad sign byte, negative zero, a high zero byte */
    static const char *const bad_consts[3][2] = {{"\x02\x01\x05", "sign"}, {"\x01\x00", "negative zero"},
                                                 {"\x00\x02\x05\x00", "high zero"}};
    static const size_t bad_len[3] = {3, 2, 4};
    for (int i = 0; i < 3; i++) {
        bt_header(&b, 0, 1, 0, 0, 1);
        bt_bytes(&b, bad_consts[i][0], bad_len[i]);
        bt_instr(&b, RET);
        bt_finish(&b);
        bt_load(b.d, b.len, SY_EFORMAT, &err);
        cr_assert(eq(sz, err.offset, 40));
        cr_assert(strstr(err.msg, bad_consts[i][1]) != NULL, "%s", err.msg);
    }
    /* a truncated instruction names its index and offset */
    bt_header(&b, 0, 0, 0, 0, 2);
    bt_instr(&b, RET);
    bt_bytes(&b, "\x00\x00", 2);
    bt_finish(&b);
    bt_load(b.d, b.len, SY_EFORMAT, &err);
    cr_assert(eq(sz, err.offset, 44));
    cr_assert(strstr(err.msg, "instruction 1") != NULL, "%s", err.msg);
    /* NULL arguments */
    cr_assert(eq(int, sy_bc_load(NULL, b.d, b.len, &p, &err), SY_EINVAL));
    cr_assert(eq(int, sy_bc_load(ctx, b.d, b.len, NULL, &err), SY_EINVAL));
    cr_assert(eq(int, sy_bc_load(ctx, NULL, 5, &p, NULL), SY_EINVAL));
    cr_assert(p == NULL);
    cr_assert(eq(int, sy_bc_load(ctx, NULL, 0, &p, &err), SY_EFORMAT)); /* empty input: truncated */
    cr_assert(eq(sz, err.offset, 0));
}

/* ------------------------------------------------------------------ the VM */

/* A program computing `w` (A = 2, B = 0 reads slot a, C = 1 reads slot b or
 * an immediate) and accepting iff the result equals `want`. */
static int run_op(uint32_t w, int64_t a, int64_t bv, int64_t want, int32_t *failed)
{
    bt_prog b;
    bt_header(&b, 4, 1, 2, 1, 7);
    bt_str(&b, "a");
    bt_str(&b, "b");
    bt_byte(&b, SY_GK_RELATION);
    bt_str(&b, "result == want");
    bt_const_si(&b, want);
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADSLOT, 0, 0));
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADSLOT, 1, 1));
    bt_instr(&b, w);
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADK, 3, 0));
    bt_instr(&b, SY_BC_ABC(SY_OP_EQ, 2, 2, 3));
    bt_instr(&b, SY_BC_ABX(SY_OP_CHECK, 2, 0));
    bt_instr(&b, SY_BC_ABC(SY_OP_RETURN, 0, 0, 0));
    bt_finish(&b);
    sy_bc_load_err err;
    sy_bc_program *p = bt_load(b.d, b.len, SY_OK, &err);
    int r = sy_bc_check(p, (int64_t[]){a, bv}, 2, failed);
    sy_bc_free(p);
    return r;
}

#define OVF INT64_C(0x7eadbeef) /* marks an expected overflow */
#define DZ INT64_C(0x7eadbeee)  /* marks an expected division by zero */

typedef struct op_case {
    unsigned op;
    int64_t a, b, want;
} op_case;

Test(backends_bc, opcode_semantics_at_the_int64_edges, .init = ctx_setup, .fini = ctx_teardown)
{
    static const op_case cases[] = {
        {SY_OP_ADD, INT64_MAX, 1, OVF},
        {SY_OP_ADD, INT64_MIN, -1, OVF},
        {SY_OP_ADD, INT64_MAX, INT64_MIN, -1},
        {SY_OP_SUB, INT64_MIN, 1, OVF},
        {SY_OP_SUB, 0, INT64_MIN, OVF},
        {SY_OP_SUB, -1, INT64_MAX, INT64_MIN},
        {SY_OP_MUL, 3037000500, 3037000500, OVF},
        {SY_OP_MUL, 3037000499, 3037000499, INT64_C(9223372030926249001)},
        {SY_OP_MUL, INT64_MIN, -1, OVF},
        {SY_OP_MUL, -1, INT64_MAX, -INT64_MAX},
        {SY_OP_FLOORDIV, 7, 2, 3},
        {SY_OP_FLOORDIV, -7, 2, -4},
        {SY_OP_FLOORDIV, 7, -2, -4},
        {SY_OP_FLOORDIV, -7, -2, 3},
        {SY_OP_FLOORDIV, INT64_MIN, -1, OVF},
        {SY_OP_FLOORDIV, INT64_MIN, 2, -(INT64_C(1) << 62)},
        {SY_OP_FLOORDIV, 5, 0, DZ},
        {SY_OP_MOD, -7, 2, 1},
        {SY_OP_MOD, 7, -2, -1},
        {SY_OP_MOD, INT64_MIN, -1, 0},
        {SY_OP_MOD, 5, INT64_MIN, INT64_MIN + 5},
        {SY_OP_MOD, -1, INT64_MIN, -1},
        {SY_OP_MOD, 7, 0, DZ},
        {SY_OP_CEILDIV, 7, 2, 4},
        {SY_OP_CEILDIV, -7, 2, -3},
        {SY_OP_CEILDIV, 7, -2, -3},
        {SY_OP_CEILDIV, INT64_MIN, -1, OVF},
        {SY_OP_CEILDIV, 1, 0, DZ},
        {SY_OP_MIN, INT64_MIN, INT64_MAX, INT64_MIN},
        {SY_OP_MAX, INT64_MIN, INT64_MAX, INT64_MAX},
        {SY_OP_EQ, INT64_MIN, INT64_MIN, 1},
        {SY_OP_NE, INT64_MIN, INT64_MAX, 1},
        {SY_OP_LE, INT64_MAX, INT64_MIN, 0},
        {SY_OP_LE, INT64_MIN, INT64_MAX, 1},
        {SY_OP_AND, 5, -3, 1},
        {SY_OP_AND, 5, 0, 0},
        {SY_OP_OR, 0, 0, 0},
        {SY_OP_OR, 0, INT64_MIN, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const op_case *c = &cases[i];
        int32_t failed;
        int r = run_op(SY_BC_ABC(c->op, 2, 0, 1), c->a, c->b, c->want == OVF || c->want == DZ ? 0 : c->want, &failed);
        int want = c->want == OVF ? SY_EOVERFLOW : c->want == DZ ? SY_EDIVZERO : 1;
        cr_assert(eq(int, r, want), "%s(%lld, %lld): got %d", sy_bc_op_name(c->op), (long long)c->a, (long long)c->b, r);
        cr_assert(eq(i32, failed, want == 1 ? -1 : 0)); /* a fault names the guard being evaluated */
    }
    static const op_case unary[] = {
        /* op, a, immediate C, want */
        {SY_OP_NEG, INT64_MIN, 0, OVF},  {SY_OP_NEG, 5, 0, -5},          {SY_OP_NEG, INT64_MAX, 0, -INT64_MAX},
        {SY_OP_NOT, 0, 0, 1},            {SY_OP_NOT, INT64_MIN, 0, 0},   {SY_OP_POW, 2, 62, INT64_C(1) << 62},
        {SY_OP_POW, 2, 63, OVF},         {SY_OP_POW, -2, 63, INT64_MIN}, {SY_OP_POW, -1, 255, -1},
        {SY_OP_POW, -1, 254, 1},         {SY_OP_POW, 0, 0, 1},           {SY_OP_POW, 0, 255, 0},
        {SY_OP_POW, 3, 40, OVF},         {SY_OP_POW, -3, 39, INT64_C(-4052555153018976267)},
        {SY_OP_POW, 10, 18, INT64_C(1000000000000000000)}, {SY_OP_POW, 10, 19, OVF}, {SY_OP_POW, INT64_MIN, 1, INT64_MIN},
        {SY_OP_POW, INT64_MIN, 2, OVF},
    };
    for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++) {
        const op_case *c = &unary[i];
        int32_t failed;
        int r = run_op(SY_BC_ABC(c->op, 2, 0, c->op == SY_OP_POW ? c->b : 0), c->a, 0,
                       c->want == OVF || c->want == DZ ? 0 : c->want, &failed);
        int want = c->want == OVF ? SY_EOVERFLOW : 1;
        cr_assert(eq(int, r, want), "%s(%lld, %lld): got %d", sy_bc_op_name(c->op), (long long)c->a, (long long)c->b, r);
    }
}

Test(backends_bc, jumps_constants_and_fault_reporting, .init = ctx_setup, .fini = ctx_teardown)
{
    bt_prog b;
    sy_bc_load_err err;
    /* slots a; guards g0, g1; constants 0, INT64_MIN, 2^64, -(2^64) */
    bt_header(&b, 2, 4, 1, 2, 13);
    bt_str(&b, "a");
    bt_byte(&b, SY_GK_RELATION);
    bt_str(&b, "g0");
    bt_byte(&b, SY_GK_RANGE);
    bt_str(&b, "g1");
    bt_const_si(&b, 0);
    bt_const_si(&b, INT64_MIN);
    bt_bytes(&b, "\x00\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01", 11); /* 2^64 */
    bt_bytes(&b, "\x01\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01", 11); /* -(2^64) */
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADSLOT, 0, 0));  /*  0: r0 := a */
    bt_instr(&b, SY_BC_ASBX(SY_OP_JMPNZ, 0, 1));    /*  1: a != 0: to 3 */
    bt_instr(&b, SY_BC_ABC(SY_OP_RETURN, 0, 0, 0)); /*  2: a == 0: accept */
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADK, 1, 1));     /*  3: r1 := INT64_MIN */
    bt_instr(&b, SY_BC_ABC(SY_OP_EQ, 1, 0, 1));     /*  4: r1 := a == INT64_MIN */
    bt_instr(&b, SY_BC_ASBX(SY_OP_JMPZ, 1, 0));     /*  5: (offset 0: the next one) */
    bt_instr(&b, SY_BC_ASBX(SY_OP_JMPNZ, 1, 3));    /*  6: a == INT64_MIN: to 10 */
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADK, 1, 0));     /*  7: r1 := 0 */
    bt_instr(&b, SY_BC_ABX(SY_OP_CHECK, 1, 0));     /*  8: reject g0 */
    bt_instr(&b, SY_BC_ABC(SY_OP_RETURN, 0, 0, 0)); /*  9 */
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADK, 1, 2));     /* 10: 2^64: fails closed in g1 */
    bt_instr(&b, SY_BC_ABX(SY_OP_CHECK, 1, 1));     /* 11 */
    bt_instr(&b, SY_BC_ABC(SY_OP_RETURN, 0, 0, 0)); /* 12 */
    bt_finish(&b);
    sy_bc_program *p = bt_load(b.d, b.len, SY_OK, &err);
    int32_t failed;
    cr_assert(eq(int, sy_bc_check(p, (int64_t[]){0}, 1, &failed), 1));
    cr_assert(eq(int, sy_bc_check(p, (int64_t[]){3}, 1, &failed), 0));
    cr_assert(eq(i32, failed, 0));
    cr_assert(eq(int, sy_bc_check(p, (int64_t[]){INT64_MIN}, 1, &failed), SY_EOVERFLOW));
    cr_assert(eq(i32, failed, 1));
    cr_assert(eq(int, sy_bc_check(p, (int64_t[]){INT64_MIN}, 1, NULL), SY_EOVERFLOW));
    /* wrong arguments fail closed too */
    cr_assert(eq(int, sy_bc_check(p, (int64_t[]){0, 0}, 2, &failed), SY_EINVAL));
    cr_assert(eq(i32, failed, -1));
    cr_assert(eq(int, sy_bc_check(p, NULL, 1, &failed), SY_EINVAL));
    cr_assert(eq(int, sy_bc_check(NULL, NULL, 0, &failed), SY_EINVAL));
    /* the big constants are exact in the pool */
    char *text;
    cr_assert(eq(int, sy_bc_disassemble_str(p, &text), SY_OK));
    cr_assert(strstr(text, "; const k1 = -9223372036854775808\n") != NULL, "%s", text);
    cr_assert(strstr(text, "; const k2 = 18446744073709551616\n") != NULL, "%s", text);
    cr_assert(strstr(text, "; const k3 = -18446744073709551616\n") != NULL, "%s", text);
    cr_assert(strstr(text, "   1  JMPNZ     r0 +1        ; if r[A] != 0 then pc += sBx       to 3\n") != NULL, "%s", text);
    cr_assert(strstr(text, "   5  JMPZ      r1 +0        ; if r[A] == 0 then pc += sBx       to 6\n") != NULL, "%s", text);
    sy_str_free(ctx, text);
    unsigned char *e;
    size_t n;
    cr_assert(eq(int, sy_bc_encode(p, &e, &n), SY_OK));
    cr_assert(eq(sz, n, b.len));
    cr_assert(eq(int, memcmp(e, b.d, n), 0));
    sy_mem_free(ctx, e);
    sy_bc_free(p);
    /* a fault with no CHECK after it names no guard */
    bt_header(&b, 1, 1, 0, 0, 2);
    bt_bytes(&b, "\x00\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01", 11);
    bt_instr(&b, SY_BC_ABX(SY_OP_LOADK, 0, 0));
    bt_instr(&b, SY_BC_ABC(SY_OP_RETURN, 0, 0, 0));
    bt_finish(&b);
    p = bt_load(b.d, b.len, SY_OK, &err);
    failed = 7;
    cr_assert(eq(int, sy_bc_check(p, NULL, 0, &failed), SY_EOVERFLOW));
    cr_assert(eq(i32, failed, -1));
    sy_bc_free(p);
}

/* ------------------------------------------------------------------ compiler: big constants, short-circuits */

Test(backends_bc, constants_beyond_int64_stay_exact, .init = ctx_setup, .fini = ctx_teardown)
{
    /* comparisons with constants beyond int64 compile to their known truth
     * once the other side is computed without overflow; a coefficient beyond
     * int64 fails closed */
    static const char *const facts[] = {"s0*s1 - 2**70 != 0", "s0*s1*s2 <= 2**70", "s0*s1 - 2**64*s2 != 5",
                                        "s0*s1*s2 >= -2**65"};
    sy_graph *g;
    sy_gset *gs = bt_gset("[64,48,7]", "[0,1,2]", facts, 4, NULL, 0, 0, &g);
    sy_bc_program *p = bt_compile(gs);
    char *text;
    cr_assert(eq(int, sy_bc_disassemble_str(p, &text), SY_OK));
    cr_assert(strstr(text, "; const k3 = 18446744073709551616\n") != NULL, "%s", text);
    cr_assert(strstr(text, "1180591620717411303424\n") != NULL, "%s", text); /* in guard texts, */
    for (const char *k = strstr(text, "; const k"); k; k = strstr(k + 1, "; const k")) /* not in the pool */
        cr_assert(strncmp(strchr(k, '=') + 2, "1180591620717411303424", 22) != 0, "%s", text);
    sy_str_free(ctx, text);
    size_t ns = sy_gset_nsources(gs);
    cr_assert(eq(sz, ns, 5));
    long idx = -1;
    for (size_t i = 0; i < sy_gset_size(gs); i++)
        if (strstr(sy_gset_at(gs, i)->text, "18446744073709551616")) idx = (long)i;
    cr_assert(ge(long, idx, 0));
    int32_t failed;
    /* every point reaching the 2^64 coefficient fails closed there */
    cr_assert(eq(int, sy_bc_check(p, (int64_t[]){3, 0, 64, 48, 7}, ns, &failed), SY_EOVERFLOW));
    cr_assert(eq(i32, failed, (int32_t)idx));
    /* the products overflow: fail closed in the first such guard */
    cr_assert(eq(int, sy_bc_check(p, (int64_t[]){3, 0, INT64_C(1) << 40, INT64_C(1) << 40, 7}, ns, &failed), SY_EOVERFLOW));
    sy_gset_result ref = SY_GSET_RESULT_INIT;
    cr_assert(eq(int, sy_gset_check_si(gs, (int64_t[]){3, 0, INT64_C(1) << 40, INT64_C(1) << 40, 7}, ns, &ref), SY_OK));
    cr_assert(le(long, (long)failed, ref.accept ? (long)sy_gset_size(gs) : ref.failed));
    sy_bc_free(p);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(backends_bc, short_circuit_only_over_operands_that_cannot_fail, .init = ctx_setup, .fini = ctx_teardown)
{
    /* Or(a, b): when b may divide by zero, the reference evaluates it even
     * when a holds (and then rejects): the VM must not skip it */
    static const char *const facts[] = {"Or(s0 == 64, FloorDiv(100, s1 - 40) == 12)", "Or(s2 == 7, Mod(s0, 8) == 0)"};
    sy_graph *g;
    sy_gset *gs = bt_gset("[64,48,7]", "[0,1,2]", facts, 2, NULL, 0, 0, &g);
    sy_bc_program *p = bt_compile(gs);
    char *text;
    cr_assert(eq(int, sy_bc_disassemble_str(p, &text), SY_OK));
    /* exactly one jump: the Or whose other operand is safe */
    const char *j = strstr(text, "JMPNZ");
    cr_assert(j != NULL, "%s", text);
    cr_assert(strstr(j + 1, "JMPNZ") == NULL, "%s", text);
    sy_str_free(ctx, text);
    size_t ns = sy_gset_nsources(gs);
    long idx = -1;
    for (size_t i = 0; i < sy_gset_size(gs); i++)
        if (strstr(sy_gset_at(gs, i)->text, "FloorDiv(100")) idx = (long)i;
    cr_assert(ge(long, idx, 0));
    /* s1 = 40: the divisor is 0; the reference rejects, the VM fails closed */
    int64_t v[5] = {3, 0, 64, 40, 7};
    sy_gset_result ref = SY_GSET_RESULT_INIT;
    cr_assert(eq(int, sy_gset_check_si(gs, v, ns, &ref), SY_OK));
    cr_assert(eq(int, ref.accept, 0));
    cr_assert(eq(long, ref.failed, idx));
    int32_t failed;
    cr_assert(eq(int, sy_bc_check(p, v, ns, &failed), SY_EDIVZERO));
    cr_assert(eq(i32, failed, (int32_t)idx));
    v[3] = 49;
    agree(p, gs, v, 1, -1);
    sy_bc_free(p);
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* ------------------------------------------------------------------ API */

Test(backends_bc, argument_errors_and_accessors, .init = ctx_setup, .fini = ctx_teardown)
{
    golden G;
    golden_open(&G);
    sy_bc_program *p = (sy_bc_program *)1;
    cr_assert(eq(int, sy_bc_compile(NULL, &p), SY_EINVAL));
    cr_assert(p == NULL);
    cr_assert(eq(int, sy_bc_compile(G.gs, NULL), SY_EINVAL));
    unsigned char *d = (unsigned char *)1;
    size_t n = 9;
    cr_assert(eq(int, sy_bc_encode(NULL, &d, &n), SY_EINVAL));
    cr_assert(d == NULL);
    cr_assert(eq(sz, n, 0));
    cr_assert(eq(int, sy_bc_encode(G.p, NULL, &n), SY_EINVAL));
    cr_assert(eq(int, sy_bc_encode(G.p, &d, NULL), SY_EINVAL));
    char *t = (char *)1;
    cr_assert(eq(int, sy_bc_disassemble_str(NULL, &t), SY_EINVAL));
    cr_assert(t == NULL);
    cr_assert(eq(int, sy_bc_disassemble_str(G.p, NULL), SY_EINVAL));
    cr_assert(eq(int, sy_bc_disassemble(NULL, NULL), SY_EINVAL));
    cr_assert(eq(int, sy_bc_disassemble(G.p, NULL), SY_EINVAL));
    cr_assert(sy_bc_free(NULL) == NULL);
    cr_assert(sy_bc_ctx(G.p) == ctx);
    cr_assert(sy_bc_ctx(NULL) == NULL);
    cr_assert(eq(sz, sy_bc_nslots(NULL), 0));
    cr_assert(sy_bc_slot_name(G.p, 4) == NULL);
    cr_assert(sy_bc_guard_text(G.p, 7) == NULL);
    cr_assert(eq(int, sy_bc_guard_kind(G.p, 7), -1));
    cr_assert(eq(u32, sy_bc_instr(G.p, 1000), 0));
    cr_assert(eq(str, (char *)sy_bc_op_name(SY_OP_CEILDIV), "CEILDIV"));
    cr_assert(eq(str, (char *)sy_bc_op_name(SY_OP_COUNT), "?"));
    cr_assert(eq(str, (char *)sy_bc_op_synopsis(SY_OP_ADD), "r[A] := r[B] + r[C]"));
    cr_assert(eq(str, (char *)sy_bc_op_synopsis(500), "?"));
    /* a context whose bignum budget is below 128 bits cannot be compiled for */
    sy_ctx_options o = SY_CTX_OPTIONS_INIT;
    o.max_const_bits = 100;
    sy_ctx *small;
    cr_assert(eq(int, sy_ctx_new(&o, &small), SY_OK));
    sy_ctx *saved = ctx;
    ctx = small;
    sy_graph *g2;
    sy_gset *gs2 = bt_gset("[8,6]", "[0,1]", NULL, 0, NULL, 0, 0, &g2);
    cr_assert(eq(int, sy_bc_compile(gs2, &p), SY_EUNSUPPORTED));
    cr_assert(strstr(sy_ctx_last_error_msg(small), "max_const_bits") != NULL);
    sy_gset_free(gs2);
    sy_graph_free(g2);
    ctx = saved;
    sy_ctx_free(small);
    golden_close(&G);
}

Test(backends_bc, out_of_memory_at_every_allocation, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    golden G;
    golden_open(&G); /* also interns every constant the compiler asks for */
    long base = g_alloc.live, n;
    for (n = 0;; n++) {
        g_alloc.count = 0;
        g_alloc.fail_at = n;
        sy_bc_program *p = NULL, *q = NULL;
        unsigned char *d = NULL;
        size_t len = 0;
        char *text = NULL;
        sy_status st = sy_bc_compile(G.gs, &p);
        if (!st) st = sy_bc_encode(p, &d, &len);
        if (!st) st = sy_bc_load(ctx, d, len, &q, NULL);
        if (!st) st = sy_bc_disassemble_str(q, &text);
        g_alloc.fail_at = -1;
        sy_str_free(ctx, text);
        sy_mem_free(ctx, d);
        sy_bc_free(q);
        sy_bc_free(p);
        cr_assert(eq(long, g_alloc.live, base), "allocation %ld: leaked %ld blocks", n, g_alloc.live - base);
        if (st == SY_OK) break;
        cr_assert(eq(int, st, SY_ENOMEM), "allocation %ld: %s", n, sy_status_name(st));
    }
    cr_assert(lt(long, 10, n));
    /* the context is still usable */
    sy_bc_program *p = bt_compile(G.gs);
    sy_bc_free(p);
    golden_close(&G);
}

/* ------------------------------------------------------------------ the registry backend */

static sy_status render_disasm(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)self;
    (void)opts;
    sy_bc_program *p;
    sy_status st = sy_bc_compile(gs, &p);
    if (!st) st = sy_bc_disassemble(p, out);
    sy_bc_free(p);
    return st;
}
static const sy_backend disasm_backend = {"test-bc-disasm", "bytecode listing (test)", render_disasm, NULL};

Test(backends_bc, registry_backend_writes_the_encoded_program, .init = ctx_setup, .fini = ctx_teardown)
{
    golden G;
    golden_open(&G);
    const sy_backend *b = sy_backend_find("bytecode");
    cr_assert(b != NULL);
    cr_assert(strstr(b->description, "bytecode") != NULL);
    unsigned char *data;
    size_t len;
    cr_assert(eq(int, sy_backend_render("bytecode", G.gs, NULL, &data, &len), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, len, G.len));
    cr_assert(eq(int, memcmp(data, G.data, len), 0));
    sy_mem_free(ctx, data);
    /* sy_bc_disassemble into a backend's output gives the string form */
    if (!sy_backend_find(disasm_backend.name)) cr_assert(eq(int, sy_backend_register(&disasm_backend), SY_OK));
    cr_assert(eq(int, sy_backend_render(disasm_backend.name, G.gs, NULL, &data, &len), SY_OK));
    cr_assert(eq(str, (char *)data, (char *)golden_dis));
    sy_mem_free(ctx, data);
    golden_close(&G);
}

/* ------------------------------------------------------------------ threads */

typedef struct thread_job {
    const sy_bc_program *p;
    const int64_t *points; /* npoints x nslots */
    const int *want;
    size_t npoints, nslots;
    long mismatches;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    for (int rep = 0; rep < 20; rep++)
        for (size_t i = 0; i < j->npoints; i++) {
            int32_t failed;
            int r = sy_bc_check(j->p, j->points + i * j->nslots, j->nslots, &failed);
            if (r != j->want[2 * i] || failed != j->want[2 * i + 1]) j->mismatches++;
        }
    return NULL;
}

Test(backends_bc, concurrent_checks_on_one_shared_program, .init = ctx_setup, .fini = ctx_teardown)
{
    golden G;
    golden_open(&G);
    enum { NPTS = 500, NTHR = 4 };
    size_t ns = sy_bc_nslots(G.p);
    int64_t *pts = malloc(NPTS * ns * sizeof *pts);
    int *want = malloc(2 * NPTS * sizeof *want);
    uint64_t s = test_seed() | 1;
    for (size_t i = 0; i < NPTS; i++) {
        int64_t *v = pts + i * ns;
        v[0] = 2;
        v[1] = 0;
        v[2] = (int64_t)(bt_rand(&s) % 40);
        v[3] = (i % 7 == 0) ? INT64_MAX - (int64_t)(bt_rand(&s) % 3) : (int64_t)(bt_rand(&s) % 40);
        int32_t f;
        want[2 * i] = sy_bc_check(G.p, v, ns, &f);
        want[2 * i + 1] = f;
    }
    pthread_t th[NTHR];
    thread_job jobs[NTHR];
    for (int t = 0; t < NTHR; t++) {
        jobs[t] = (thread_job){G.p, pts, want, NPTS, ns, 0};
        cr_assert(eq(int, pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0));
    }
    for (int t = 0; t < NTHR; t++) {
        pthread_join(th[t], NULL);
        cr_assert(eq(long, jobs[t].mismatches, 0));
    }
    free(pts);
    free(want);
    golden_close(&G);
}

/* ------------------------------------------------------------------ the run-time check (format 2.1) */

/* unique() of x has the data-dependent length u0, viewed as (3, -1) and
 * broadcast against y: two runtime asserts on u0 after RTCHECKS. */
Test(backends_bc, check_runtime_takes_the_unbacked_values, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"ub\",\"nodes\":["
                    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"int64\",\"shape\":[4,6],\"dynamic\":[0,1]},"
                    "{\"name\":\"y\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[5],\"dynamic\":[0]},"
                    "{\"name\":\"uq\",\"op\":\"unique\",\"args\":[{\"ref\":\"x\"}]},"
                    "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"uq\"},3,-1]},"
                    "{\"name\":\"c\",\"op\":\"add\",\"args\":[{\"ref\":\"uq\"},{\"ref\":\"y\"}]}],"
                    "\"outputs\":[{\"ref\":\"v\"},{\"ref\":\"c\"}]}";
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "ub", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    sy_trace_free(t);
    sy_env_free(env);
    sy_bc_program *p = bt_compile(gs);
    cr_assert(eq(sz, sy_bc_nunbacked(p), 1));
    cr_assert(eq(str, (char *)sy_bc_unbacked_name(p, 0), "uq.size()[0] (from unique at node uq)"));
    /* encode, load: the same program */
    unsigned char *d;
    size_t len;
    cr_assert(eq(int, sy_bc_encode(p, &d, &len), SY_OK));
    cr_assert(eq(int, d[10], 1)); /* minor version 1 */
    cr_assert(eq(int, d[12] & SY_BC_FLAG_RUNTIME_SECTION, SY_BC_FLAG_RUNTIME_SECTION));
    sy_bc_load_err err;
    sy_bc_program *q = bt_load(d, len, SY_OK, &err);
    cr_assert(eq(str, (char *)sy_bc_unbacked_name(q, 0), "uq.size()[0] (from unique at node uq)"));
    size_t ns = sy_gset_nsources(gs);
    for (int64_t ysz = 2; ysz <= 9; ysz++)
        for (int64_t u0 = 0; u0 <= 10; u0++) {
            int64_t v[7] = {2, SY_DT_INT64, 4, 6, 1, SY_DT_FLOAT32, ysz}, uv[1] = {u0};
            sy_gset_result ref = SY_GSET_RESULT_INIT;
            cr_assert(eq(int, sy_gset_check_runtime_si(gs, v, ns, uv, 1, &ref), SY_OK));
            int32_t failed = 99;
            int rc = sy_bc_check_runtime(q, v, ns, uv, 1, &failed);
            cr_assert(eq(int, rc, ref.accept), "y=%lld u0=%lld: %s", (long long)ysz, (long long)u0, ref.message);
            cr_assert(eq(long, (long)failed, ref.failed));
            cr_assert(eq(int, ref.accept, u0 == ysz && u0 % 3 == 0));
            cr_assert(eq(int, sy_bc_check(q, v, ns, &failed), SY_BC_ACCEPT)); /* sizes only */
        }
    int64_t v[7] = {2, SY_DT_INT64, 4, 6, 1, SY_DT_FLOAT32, 6};
    cr_assert(eq(int, sy_bc_check_runtime(q, v, ns, NULL, 1, NULL), SY_EINVAL));
    cr_assert(eq(int, sy_bc_check_runtime(q, v, ns, (int64_t[]){6}, 0, NULL), SY_EINVAL));
    /* the verifier: an unbacked slot read before RTCHECKS; a second RTCHECKS;
     * RTCHECKS or the section flag in a 2.0 program */
    size_t base = len - 4 * sy_bc_ninstr(q) - (1 + 1 + strlen(sy_bc_unbacked_name(q, 0)));
    unsigned char *e = malloc(len);
    cr_assert(e != NULL);
    memcpy(e, d, len);
    bt_put32(e + base, SY_BC_ABX(SY_OP_LOADSLOT, 0, (uint32_t)ns));
    bt_reseal(e, len);
    bt_load(e, len, SY_EVERIFY, &err);
    cr_assert(strstr(err.msg, "slot s7 out of range (7 slots)") != NULL, "%s", err.msg);
    cr_assert(eq(sz, err.offset, base));
    memcpy(e, d, len);
    bt_put32(e + base, SY_BC_ABC(SY_OP_RTCHECKS, 0, 0, 0));
    bt_reseal(e, len);
    bt_load(e, len, SY_EVERIFY, &err); /* instruction 0 and the compiled one */
    cr_assert(strstr(err.msg, "a second RTCHECKS") != NULL, "%s", err.msg);
    memcpy(e, d, len);
    bt_put16(e + 10, 0);
    bt_reseal(e, len);
    bt_load(e, len, SY_EFORMAT, &err);
    cr_assert(strstr(err.msg, "in a format 2.0 program") != NULL, "%s", err.msg);
    cr_assert(eq(sz, err.offset, 12));
    free(e);
    sy_mem_free(ctx, d);
    sy_bc_free(q);
    sy_bc_free(p);
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* ------------------------------------------------------------------ shared subterms (issue 14) */

/* VM against the reference at one point: equal when the VM answers, and a
 * fail-closed answer names the guard the reference fails (these chains have
 * no int64 overflow below |s| = 3*10^9, only divisions by zero). Counts
 * accept / reject / fail-closed in n[3]. */
static void chain_point(const sy_bc_program *p, const sy_gset *gs, int64_t *v, long n[3])
{
    size_t ns = sy_gset_nsources(gs);
    sy_gset_result ref = SY_GSET_RESULT_INIT;
    cr_assert(eq(int, sy_gset_check_si(gs, v, ns, &ref), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    int32_t failed = 12345;
    int r = sy_bc_check(p, v, ns, &failed);
    if (r == SY_BC_ACCEPT || r == SY_BC_REJECT) {
        cr_assert(eq(int, r, ref.accept), "s = %lld", (long long)v[ns - 1]);
        cr_assert(eq(long, (long)failed, ref.failed), "s = %lld", (long long)v[ns - 1]);
        n[r == SY_BC_ACCEPT ? 0 : 1]++;
        return;
    }
    cr_assert(r == SY_EOVERFLOW || r == SY_EDIVZERO, "s = %lld: %d", (long long)v[ns - 1], r);
    cr_assert(eq(int, ref.accept, 0), "s = %lld: the VM failed closed where the reference accepts", (long long)v[ns - 1]);
    cr_assert(eq(long, (long)failed, ref.failed), "s = %lld", (long long)v[ns - 1]);
    n[2]++;
}

/* 1200 points: every size 0..400, 600 random ones up to 5000 and 200 up to
 * 3*10^9, plus the negative -1..-5 (the slot is any int64). */
static void chain_points(const sy_bc_program *p, const sy_gset *gs, long n[3])
{
    size_t ns = sy_gset_nsources(gs);
    int64_t v[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    cr_assert(le(sz, ns, 8));
    cr_assert(eq(str, (char *)sy_gset_source(gs, ns - 1), "x.size()[0]"));
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 1200; i++) {
        int64_t s = i <= 400 ? i : i < 1000 ? (int64_t)(bt_rand(&seed) % 5001) : i < 1195 ? (int64_t)(bt_rand(&seed) % 3000000000ull) : 400 - i;
        v[ns - 1] = s;
        chain_point(p, gs, v, n);
    }
}

/* Issue 14's 69-node graph (tests/guards/data/floordiv_chain69.json): its
 * relation guard LAYER6 <= x.size()[0] is a DAG of about 30 shared nodes
 * whose tree has millions. Before: SY_EUNSUPPORTED "more than 16777216
 * instructions" after 1.75 s. Each shared subterm is now computed once into
 * a register: 248 instructions, 7 registers, and the program verifies
 * (written before read on every path) and round-trips through the bytes. */
Test(backends_bc, floordiv_chain_69_computes_each_shared_subterm_once, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(120))
{
    sy_graph *g;
    sy_gset *gs = bt_chain69_gset(&g);
    cr_assert(eq(sz, sy_gset_size(gs), 5)); /* with the int64 guard of a product of the chain (issue 38) */
    sy_bc_program *c = bt_compile(gs);
    cr_assert(eq(sz, sy_bc_ninstr(c), 256));
    cr_assert(eq(sz, sy_bc_nregs(c), 7));
    cr_assert(eq(sz, sy_bc_nconsts(c), 11));
    unsigned char *d;
    size_t len;
    cr_assert(eq(int, sy_bc_encode(c, &d, &len), SY_OK));
    cr_assert(eq(sz, len, 3604));
    sy_bc_load_err err;
    sy_bc_program *p = bt_load(d, len, SY_OK, &err);
    long n[3] = {0, 0, 0};
    chain_points(p, gs, n);
    /* LAYER6 <= s holds at every size >= 0 (test_gset's chain69_value), so
     * the rejects are guard 2 (s < 2: 0, 1, -1..-5); nothing fails closed */
    cr_assert(eq(long, n[0], 1193));
    cr_assert(eq(long, n[1], 7));
    cr_assert(eq(long, n[2], 0));
    sy_bc_free(p);
    sy_mem_free(ctx, d);
    sy_bc_free(c);
    sy_gset_free(gs);
    sy_graph_free(g);
}

Test(backends_bc, issue_chain_6_layers_as_a_guard, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    sy_graph *g;
    sy_gset *gs = bt_chain_gset(6, &g);
    sy_bc_program *p = bt_compile(gs);
    cr_assert(eq(sz, sy_bc_ninstr(p), 212));
    long n[3] = {0, 0, 0};
    chain_points(p, gs, n);
    /* fails closed at the 8 sizes 22..29 of the 0..400 sweep and 2 random
     * ones; rejects s < 2 (guard 1) */
    cr_assert(eq(long, n[0], 1183));
    cr_assert(eq(long, n[1], 7));
    cr_assert(eq(long, n[2], 10));
    cr_assert(eq(sz, sy_bc_nregs(p), 8));
    sy_bc_free(p);
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* Definite assignment (format 2): a register read before it is written on
 * some path is SY_EVERIFY at the reading instruction's offset. Payload of
 * these programs: slot "a" (2 bytes), guard (1 + 2 bytes): code at 45. */
static void da_prog(bt_prog *b, uint32_t nregs, const uint32_t *code, uint32_t n)
{
    bt_header(b, nregs, 0, 1, 1, n);
    bt_str(b, "a");
    bt_byte(b, 3);
    bt_str(b, "g");
    for (uint32_t i = 0; i < n; i++) bt_instr(b, code[i]);
    bt_finish(b);
}

Test(backends_bc, verifier_proves_every_register_written_before_read, .init = ctx_setup, .fini = ctx_teardown)
{
    bt_prog b;
    sy_bc_load_err err;
    const uint32_t RET = SY_BC_ABC(SY_OP_RETURN, 0, 0, 0);
    /* straight line: r1 never written */
    const uint32_t c1[] = {SY_BC_ABX(SY_OP_LOADSLOT, 0, 0), SY_BC_ABC(SY_OP_MOVE, 0, 1, 0), RET};
    da_prog(&b, 2, c1, 3);
    bt_load(b.d, b.len, SY_EVERIFY, &err);
    cr_assert(eq(sz, err.offset, 45 + 4));
    cr_assert(eq(str, err.msg,
                 "instruction 1 at offset 49 (MOVE): register r1 is read before it is written on some path"));
    /* written on the fall-through path only: the jump to 3 skips it */
    const uint32_t c2[] = {SY_BC_ABX(SY_OP_LOADSLOT, 0, 0), SY_BC_ASBX(SY_OP_JMPZ, 0, 1), SY_BC_ABX(SY_OP_LOADSLOT, 1, 0),
                           SY_BC_ABX(SY_OP_CHECK, 1, 0), RET};
    da_prog(&b, 2, c2, 5);
    bt_load(b.d, b.len, SY_EVERIFY, &err);
    cr_assert(eq(sz, err.offset, 45 + 12));
    cr_assert(strstr(err.msg, "instruction 3 at offset 57 (CHECK): register r1") != NULL, "%s", err.msg);
    /* written on both paths (before the jump): loads and runs */
    const uint32_t c3[] = {SY_BC_ABX(SY_OP_LOADSLOT, 0, 0), SY_BC_ABC(SY_OP_MOVE, 1, 0, 0), SY_BC_ASBX(SY_OP_JMPZ, 0, 1),
                           SY_BC_ABX(SY_OP_LOADSLOT, 1, 0), SY_BC_ABX(SY_OP_CHECK, 1, 0), RET};
    da_prog(&b, 2, c3, 6);
    sy_bc_program *p = bt_load(b.d, b.len, SY_OK, &err);
    int64_t v = 0;
    int32_t failed;
    cr_assert(eq(int, sy_bc_check(p, &v, 1, &failed), SY_BC_REJECT));
    v = 5;
    cr_assert(eq(int, sy_bc_check(p, &v, 1, &failed), SY_BC_ACCEPT));
    sy_bc_free(p);
    /* two jumps to one target: the intersection of what both wrote */
    const uint32_t c4[] = {SY_BC_ABX(SY_OP_LOADSLOT, 0, 0), SY_BC_ASBX(SY_OP_JMPZ, 0, 2), SY_BC_ABX(SY_OP_LOADSLOT, 1, 0),
                           SY_BC_ASBX(SY_OP_JMPNZ, 0, 0), SY_BC_ABC(SY_OP_MOVE, 0, 1, 0), RET};
    da_prog(&b, 2, c4, 6);
    bt_load(b.d, b.len, SY_EVERIFY, &err);
    cr_assert(eq(sz, err.offset, 45 + 16), "%s", err.msg);
    /* code after a RETURN that no jump reaches never runs: not checked */
    const uint32_t c5[] = {RET, SY_BC_ABC(SY_OP_MOVE, 0, 1, 0), RET};
    da_prog(&b, 2, c5, 3);
    p = bt_load(b.d, b.len, SY_OK, &err);
    cr_assert(eq(int, sy_bc_check(p, &v, 1, &failed), SY_BC_ACCEPT));
    sy_bc_free(p);
}

/* More than 256 shared values live at once: FloorDiv(s0*s1, k) for
 * k = 2..301 is read by fact k and again by the last fact's sum, so all are
 * live until the end. The compiler then compiles every use (as format 1
 * did) instead of failing for want of registers, and the program agrees
 * with the reference. */
Test(backends_bc, more_live_shared_values_than_registers_fall_back_to_recomputing, .init = ctx_setup,
     .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    enum { N = 300 };
    static char facts[N + 1][64];
    static char sum[N * 32 + 16];
    const char *fp[N + 1];
    size_t len = 0;
    for (int i = 0; i < N; i++) {
        snprintf(facts[i], sizeof facts[i], "FloorDiv(s0*s1, %d) != 1000", i + 2);
        fp[i] = facts[i];
        len += (size_t)snprintf(sum + len, sizeof sum - len, "%sFloorDiv(s0*s1, %d)", i ? " + " : "", i + 2);
    }
    snprintf(sum + len, sizeof sum - len, " != 70");
    fp[N] = sum;
    sy_graph *g;
    sy_gset *gs = bt_gset("[8,6]", "[0,1]", fp, N + 1, NULL, 0, 0, &g);
    sy_bc_program *p = bt_compile(gs);
    cr_assert(lt(sz, sy_bc_nregs(p), (size_t)8));
    size_t ns = sy_gset_nsources(gs);
    int64_t v[8] = {0};
    cr_assert(le(sz, ns, (size_t)8));
    long acc = 0, rej = 0;
    for (int64_t a = 0; a < 12; a++)
        for (int64_t c = 0; c < 12; c++) {
            for (size_t q = 0; q < ns; q++) {
                const char *src = sy_gset_source(gs, q);
                v[q] = strstr(src, ".dim()") ? 2 : strstr(src, ".dtype") ? 0 : strstr(src, "[0]") ? a : c;
            }
            sy_gset_result ref = SY_GSET_RESULT_INIT;
            cr_assert(eq(int, sy_gset_check_si(gs, v, ns, &ref), SY_OK));
            int32_t failed;
            int r = sy_bc_check(p, v, ns, &failed);
            cr_assert(eq(int, r, ref.accept), "%lld x %lld", (long long)a, (long long)c);
            cr_assert(eq(long, (long)failed, ref.failed));
            acc += r == 1;
            rej += r == 0;
        }
    cr_assert(gt(long, acc, 0));
    cr_assert(gt(long, rej, 0));
    sy_bc_free(p);
    sy_gset_free(gs);
    sy_graph_free(g);
}
