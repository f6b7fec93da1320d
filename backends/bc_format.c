/* Bytecode: the tables generated from SY_OPCODES, program memory and
 * accessors, the binary format (encode, load), the verifier and the
 * disassembler. See include/symshape/bc.h and docs/bytecode.md. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "backends/backends_private.h"
#include "backends/bc_private.h"

/* ------------------------------------------------------------------ tables generated from SY_OPCODES */

#define X_NAME(name, fmt, ra, rb, rc, syn) #name,
static const char *const op_names[SY_OP_COUNT] = {SY_OPCODES(X_NAME)};
#undef X_NAME
#define X_SYN(name, fmt, ra, rb, rc, syn) syn,
static const char *const op_synopsis[SY_OP_COUNT] = {SY_OPCODES(X_SYN)};
#undef X_SYN
#define X_FMT(name, fmt, ra, rb, rc, syn) fmt,
const unsigned char sy_bc_op_fmt[SY_OP_COUNT] = {SY_OPCODES(X_FMT)};
#undef X_FMT
#define X_ROLE(name, fmt, ra, rb, rc, syn) {ra, rb, rc},
const unsigned char sy_bc_op_role[SY_OP_COUNT][3] = {SY_OPCODES(X_ROLE)};
#undef X_ROLE

/* The table must be consistent with the formats: Bx overlaps C, so wide
 * formats leave C unused; exactly the AsBx opcodes jump; registers are never
 * in Bx; the immediate role only fits C. */
#define X_CHECK(name, fmt, ra, rb, rc, syn)                                                                         \
    _Static_assert((fmt) == SY_BC_FMT_ABC || (rc) == SY_BC_ROLE_NONE, #name ": C overlaps Bx");                    \
    _Static_assert(((fmt) == SY_BC_FMT_ASBX) == ((rb) == SY_BC_ROLE_JUMP), #name ": only AsBx jumps");           \
    _Static_assert((fmt) == SY_BC_FMT_ABC || ((rb) != SY_BC_ROLE_RIN && (rb) != SY_BC_ROLE_ROUT), #name ": Bx");    \
    _Static_assert((ra) == SY_BC_ROLE_NONE || (ra) == SY_BC_ROLE_RIN || (ra) == SY_BC_ROLE_ROUT, #name ": A");      \
    _Static_assert((rb) != SY_BC_ROLE_IMM && (rc) != SY_BC_ROLE_K && (rc) != SY_BC_ROLE_SLOT &&                   \
                       (rc) != SY_BC_ROLE_GUARD && (rc) != SY_BC_ROLE_JUMP,                                        \
                   #name ": roles");
SY_OPCODES(X_CHECK)
#undef X_CHECK

const char *sy_bc_op_name(unsigned op) { return op < SY_OP_COUNT ? op_names[op] : "?"; }
const char *sy_bc_op_synopsis(unsigned op) { return op < SY_OP_COUNT ? op_synopsis[op] : "?"; }

/* ------------------------------------------------------------------ program memory */

sy_bc_program *sy_bc_program_new(sy_ctx *ctx)
{
    sy_bc_program *p = sy_alloc(ctx, sizeof *p);
    if (!p) {
        sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        return NULL;
    }
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    return p;
}

void *sy_bc_palloc(sy_bc_program *p, size_t n) { return sy_blocks_alloc(p->ctx, &p->blocks, n); }

sy_bc_program *sy_bc_free(sy_bc_program *p)
{
    if (!p) return NULL;
    sy_ctx *ctx = p->ctx;
    sy_blocks_free(ctx, p->blocks);
    sy_dealloc(ctx, p, sizeof *p);
    return NULL;
}

sy_status sy_bc_alloc_tables(sy_bc_program *p)
{
    size_t nk = p->nconsts ? p->nconsts : 1, ns = p->nslots ? p->nslots : 1, ng = p->nguards ? p->nguards : 1;
    p->code = sy_bc_palloc(p, (p->ninstr ? p->ninstr : 1) * sizeof *p->code);
    p->k64 = sy_bc_palloc(p, nk * sizeof *p->k64);
    p->kfits = sy_bc_palloc(p, nk);
    p->kneg = sy_bc_palloc(p, nk);
    p->klen = sy_bc_palloc(p, nk * sizeof *p->klen);
    p->kmag = sy_bc_palloc(p, nk * sizeof *p->kmag);
    p->slots = sy_bc_palloc(p, ns * sizeof *p->slots);
    p->guards = sy_bc_palloc(p, ng * sizeof *p->guards);
    p->gkind = sy_bc_palloc(p, ng);
    if (!p->code || !p->k64 || !p->kfits || !p->kneg || !p->klen || !p->kmag || !p->slots || !p->guards || !p->gkind)
        return SY_ENOMEM;
    return SY_OK;
}

sy_status sy_bc_set_const(sy_bc_program *p, uint32_t i, int neg, const unsigned char *mag, uint32_t nbytes)
{
    unsigned char *m = sy_bc_palloc(p, nbytes);
    if (!m) return SY_ENOMEM;
    if (nbytes) memcpy(m, mag, nbytes);
    p->kmag[i] = m;
    p->klen[i] = nbytes;
    p->kneg[i] = nbytes ? (unsigned char)(neg != 0) : 0;
    uint64_t v = 0;
    int fits = nbytes <= 8;
    for (uint32_t j = 0; fits && j < nbytes; j++) v |= (uint64_t)mag[j] << (8 * j);
    if (fits) fits = p->kneg[i] ? v <= (uint64_t)1 << 63 : v <= (uint64_t)INT64_MAX;
    p->kfits[i] = (unsigned char)fits;
    if (!fits) p->k64[i] = 0;
    else if (!p->kneg[i]) p->k64[i] = (int64_t)v;
    else p->k64[i] = v == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)v;
    return SY_OK;
}

/* ------------------------------------------------------------------ accessors */

sy_ctx *sy_bc_ctx(const sy_bc_program *p) { return p ? p->ctx : NULL; }
size_t sy_bc_nslots(const sy_bc_program *p) { return p ? p->nslots : 0; }
const char *sy_bc_slot_name(const sy_bc_program *p, size_t i) { return p && i < p->nslots ? p->slots[i] : NULL; }
size_t sy_bc_nguards(const sy_bc_program *p) { return p ? p->nguards : 0; }
size_t sy_bc_nunbacked(const sy_bc_program *p) { return p ? p->nunbacked : 0; }
const char *sy_bc_unbacked_name(const sy_bc_program *p, size_t i) { return p && i < p->nunbacked ? p->unbacked[i] : NULL; }
const char *sy_bc_guard_text(const sy_bc_program *p, size_t i) { return p && i < p->nguards ? p->guards[i] : NULL; }
int sy_bc_guard_kind(const sy_bc_program *p, size_t i) { return p && i < p->nguards ? (int)p->gkind[i] : -1; }
size_t sy_bc_nregs(const sy_bc_program *p) { return p ? p->nregs : 0; }
size_t sy_bc_nconsts(const sy_bc_program *p) { return p ? p->nconsts : 0; }
size_t sy_bc_ninstr(const sy_bc_program *p) { return p ? p->ninstr : 0; }
uint32_t sy_bc_instr(const sy_bc_program *p, size_t pc) { return p && pc < p->ninstr ? p->code[pc] : 0; }
uint32_t sy_bc_flags(const sy_bc_program *p) { return p ? p->flags : 0; }
size_t sy_bc_nentries(const sy_bc_program *p) { return p && (p->flags & SY_BC_FLAG_DISPATCH) ? p->nentries : 0; }

/* ------------------------------------------------------------------ little-endian and LEB128 */

static size_t leb_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static unsigned char *put_leb(unsigned char *q, uint64_t v)
{
    do {
        unsigned char b = (unsigned char)(v & 0x7F);
        v >>= 7;
        if (v) b |= 0x80;
        *q++ = b;
    } while (v);
    return q;
}

static unsigned char *put_u16(unsigned char *q, uint32_t v)
{
    q[0] = (unsigned char)(v & 0xFF);
    q[1] = (unsigned char)((v >> 8) & 0xFF);
    return q + 2;
}

static unsigned char *put_u32(unsigned char *q, uint32_t v)
{
    for (int i = 0; i < 4; i++) q[i] = (unsigned char)((v >> (8 * i)) & 0xFF);
    return q + 4;
}

static uint32_t get_u16(const unsigned char *d) { return (uint32_t)d[0] | (uint32_t)d[1] << 8; }
static uint32_t get_u32(const unsigned char *d)
{
    return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
}

/* The checksum of an encoded program of len >= SY_BC_HEADER_SIZE bytes:
 * CRC-32 of bytes 0..35 followed by bytes 40..len-1 (everything but the CRC
 * field itself), so a corrupted header field is caught like a corrupted
 * payload. zlib's crc32 takes uInt lengths: large inputs go in pieces. */
static uint32_t crc_of(const unsigned char *d, size_t len)
{
    uLong c = crc32(crc32(0L, Z_NULL, 0), d, 36);
    d += SY_BC_HEADER_SIZE;
    size_t n = len - SY_BC_HEADER_SIZE;
    while (n) {
        uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
        c = crc32(c, d, k);
        d += k;
        n -= k;
    }
    return (uint32_t)c;
}

/* ------------------------------------------------------------------ encoding */

size_t sy_bc_code_offset(const sy_bc_program *p)
{
    size_t off = SY_BC_HEADER_SIZE;
    for (uint32_t i = 0; i < p->nslots; i++) {
        size_t n = strlen(p->slots[i]);
        off += leb_size(n) + n;
    }
    for (uint32_t i = 0; i < p->nguards; i++) {
        size_t n = strlen(p->guards[i]);
        off += 1 + leb_size(n) + n;
    }
    for (uint32_t i = 0; i < p->nconsts; i++) off += 1 + leb_size(p->klen[i]) + p->klen[i];
    return off;
}

sy_status sy_bc_encode(const sy_bc_program *p, unsigned char **data, size_t *len)
{
    if (data) *data = NULL;
    if (len) *len = 0;
    if (!p) return SY_EINVAL;
    if (!data || !len) return sy_fail_st(p->ctx, SY_EINVAL, "bc_encode: NULL argument");
    size_t code_off = sy_bc_code_offset(p), total = code_off + 4 * (size_t)p->ninstr;
    /* 1.1: the run-time section after the code (unbacked-value names) */
    uint32_t minor = p->minor; /* 0; 1 (RTCHECKS); or 2, as loaded (a plain program may declare it) */
    int section = minor && p->nunbacked; /* optional when empty */
    if (section) {
        total += leb_size(p->nunbacked);
        for (uint32_t i = 0; i < p->nunbacked; i++) total += leb_size(strlen(p->unbacked[i])) + strlen(p->unbacked[i]);
    }
    /* 2.2: a dispatcher, its section (the entry count) last */
    int disp = (p->flags & SY_BC_FLAG_DISPATCH) != 0;
    if (disp) {
        minor = 2u;
        total += leb_size(p->nentries);
    }
    unsigned char *d = sy_alloc_array(p->ctx, total);
    if (!d) return sy_fail_st(p->ctx, SY_ENOMEM, "out of memory");
    unsigned char *q = d;
    memcpy(q, SY_BC_MAGIC, SY_BC_MAGIC_LEN);
    q += SY_BC_MAGIC_LEN;
    q = put_u16(q, SY_BC_VERSION_MAJOR);
    q = put_u16(q, minor);
    q = put_u32(q, (p->flags & ~(uint32_t)(SY_BC_FLAG_RUNTIME_SECTION | SY_BC_FLAG_CERTIFICATE)) |
                       (section ? SY_BC_FLAG_RUNTIME_SECTION : 0u));
    q = put_u32(q, p->nregs);
    q = put_u32(q, p->nconsts);
    q = put_u32(q, p->nslots);
    q = put_u32(q, p->nguards);
    q = put_u32(q, p->ninstr);
    q = put_u32(q, 0); /* CRC, below */
    for (uint32_t i = 0; i < p->nslots; i++) {
        size_t n = strlen(p->slots[i]);
        q = put_leb(q, n);
        memcpy(q, p->slots[i], n);
        q += n;
    }
    for (uint32_t i = 0; i < p->nguards; i++) {
        size_t n = strlen(p->guards[i]);
        *q++ = p->gkind[i];
        q = put_leb(q, n);
        memcpy(q, p->guards[i], n);
        q += n;
    }
    for (uint32_t i = 0; i < p->nconsts; i++) {
        *q++ = p->kneg[i];
        q = put_leb(q, p->klen[i]);
        if (p->klen[i]) memcpy(q, p->kmag[i], p->klen[i]);
        q += p->klen[i];
    }
    for (uint32_t i = 0; i < p->ninstr; i++) q = put_u32(q, p->code[i]);
    if (section) {
        q = put_leb(q, p->nunbacked);
        for (uint32_t i = 0; i < p->nunbacked; i++) {
            size_t n = strlen(p->unbacked[i]);
            q = put_leb(q, n);
            memcpy(q, p->unbacked[i], n);
            q += n;
        }
    }
    if (disp) q = put_leb(q, p->nentries);
    put_u32(d + 36, crc_of(d, total));
    *data = d;
    *len = total;
    return SY_OK;
}

/* ------------------------------------------------------------------ certificates */

sy_status sy_bc_program_hash(const sy_bc_program *p, unsigned char out[32], unsigned char with_obligation[32])
{
    if (!p || !out) return SY_EINVAL;
    unsigned char *d = NULL;
    size_t n = 0;
    sy_status st = sy_bc_encode(p, &d, &n);
    if (st) return st;
    sy_sha256(d, n, out);
    if (with_obligation && p->cert) {
        size_t ol = strlen(p->cert);
        unsigned char *cat = sy_alloc_array(p->ctx, n + ol);
        if (!cat) {
            sy_mem_free(p->ctx, d);
            return sy_fail_st(p->ctx, SY_ENOMEM, "out of memory");
        }
        memcpy(cat, d, n);
        memcpy(cat + n, p->cert, ol);
        sy_sha256(cat, n + ol, with_obligation);
        sy_mem_free(p->ctx, cat);
    } else if (with_obligation) {
        memset(with_obligation, 0, 32);
    }
    sy_mem_free(p->ctx, d);
    return SY_OK;
}

sy_status sy_bc_certificate(const sy_bc_program *p, const char **obligation, const unsigned char **hash)
{
    if (!p || !p->cert) return SY_EINVAL;
    if (obligation) *obligation = p->cert;
    if (hash) *hash = p->cert_hash;
    return SY_OK;
}

sy_status sy_bc_encode_certified(const sy_bc_program *p, const char *obligation, unsigned char **data, size_t *len)
{
    if (data) *data = NULL;
    if (len) *len = 0;
    if (!p) return SY_EINVAL;
    if (!obligation || !data || !len) return sy_fail_st(p->ctx, SY_EINVAL, "bc_encode_certified: NULL argument");
    if (p->flags & SY_BC_FLAG_DISPATCH) return sy_fail_st(p->ctx, SY_EINVAL, "bc_encode_certified: a dispatcher is not certified");
    unsigned char *base = NULL;
    size_t nb = 0;
    sy_status st = sy_bc_encode(p, &base, &nb);
    if (st) return st;
    size_t ol = strlen(obligation), total = nb + 65 + leb_size(ol) + ol;
    unsigned char *d = sy_alloc_array(p->ctx, total);
    if (!d) {
        sy_mem_free(p->ctx, base);
        return sy_fail_st(p->ctx, SY_ENOMEM, "out of memory");
    }
    memcpy(d, base, nb);
    unsigned char *q = d + nb;
    *q++ = base[10]; /* the program's own minor version (0 or 1) */
    sy_sha256(base, nb, q); /* the program's bytes */
    q += 32;
    unsigned char *both = q; /* the program's bytes followed by the obligation's, below */
    q += 32;
    q = put_leb(q, ol);
    memcpy(q, obligation, ol);
    unsigned char *cat = sy_alloc_array(p->ctx, nb + ol);
    if (!cat) {
        sy_mem_free(p->ctx, base);
        sy_mem_free(p->ctx, d);
        return sy_fail_st(p->ctx, SY_ENOMEM, "out of memory");
    }
    memcpy(cat, base, nb);
    memcpy(cat + nb, obligation, ol);
    sy_sha256(cat, nb + ol, both);
    sy_mem_free(p->ctx, cat);
    put_u16(d + 10, 2u);
    put_u32(d + 12, get_u32(d + 12) | SY_BC_FLAG_CERTIFICATE);
    put_u32(d + 36, crc_of(d, total));
    sy_mem_free(p->ctx, base);
    *data = d;
    *len = total;
    return SY_OK;
}

/* ------------------------------------------------------------------ loading */

typedef struct reader {
    const unsigned char *d;
    size_t len, pos;
    sy_bc_load_err *err;
} reader;

static sy_status set_err(sy_bc_load_err *err, sy_status st, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static sy_status set_err(sy_bc_load_err *err, sy_status st, size_t off, const char *fmt, ...)
{
    err->code = st;
    err->offset = off;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return st;
}

/* n more bytes for `what` (a table entry), or a truncation error */
static sy_status need(reader *r, size_t n, const char *what, uint32_t idx)
{
    if (r->len - r->pos >= n) return SY_OK;
    return set_err(r->err, SY_EFORMAT, r->pos, "truncated input: %s %u at offset %zu needs %zu bytes, %zu left", what, idx,
                   r->pos, n, r->len - r->pos);
}

static sy_status get_leb(reader *r, const char *what, uint32_t idx, uint32_t *out)
{
    size_t start = r->pos;
    uint64_t v = 0;
    for (unsigned i = 0;; i++) {
        if (i == 5) return set_err(r->err, SY_EFORMAT, start, "LEB128 overflow: %s %u at offset %zu", what, idx, start);
        if (r->pos >= r->len)
            return set_err(r->err, SY_EFORMAT, start, "truncated input: %s %u at offset %zu (LEB128 length)", what, idx,
                           start);
        unsigned char b = r->d[r->pos++];
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (v > UINT32_MAX)
            return set_err(r->err, SY_EFORMAT, start, "LEB128 overflow: %s %u at offset %zu", what, idx, start);
        if (!(b & 0x80)) {
            if (i > 0 && b == 0)
                return set_err(r->err, SY_EFORMAT, start, "over-long LEB128: %s %u at offset %zu", what, idx, start);
            break;
        }
    }
    *out = (uint32_t)v;
    return SY_OK;
}

/* A string table entry: LEB128 length and bytes without NUL. */
static sy_status get_str(reader *r, sy_bc_program *p, const char *what, uint32_t idx, char **out)
{
    uint32_t n = 0;
    sy_status st = get_leb(r, what, idx, &n);
    if (!st) st = need(r, n, what, idx);
    if (st) return st;
    const unsigned char *s = r->d + r->pos;
    if (n && memchr(s, 0, n))
        return set_err(r->err, SY_EFORMAT, r->pos, "%s %u at offset %zu contains a NUL byte", what, idx, r->pos);
    if (p) {
        char *c = sy_bc_palloc(p, (size_t)n + 1);
        if (!c) return set_err(r->err, SY_ENOMEM, r->pos, "out of memory");
        if (n) memcpy(c, s, n);
        c[n] = 0;
        *out = c;
    }
    r->pos += n;
    return SY_OK;
}

/* Walk the payload: validate its structure; with p, also store it. */
static sy_status walk_payload(reader *r, sy_bc_program *p, const uint32_t *counts, uint32_t section, uint32_t disp, uint32_t cert)
{
    sy_status st;
    uint32_t nconsts = counts[1], nslots = counts[2], nguards = counts[3], ninstr = counts[4];
    for (uint32_t i = 0; i < nslots; i++)
        if ((st = get_str(r, p, "slot name", i, p ? &p->slots[i] : NULL))) return st;
    for (uint32_t i = 0; i < nguards; i++) {
        if ((st = need(r, 1, "guard kind", i))) return st;
        unsigned kind = r->d[r->pos];
        if (kind > SY_GK_RUNTIME_ASSERT)
            return set_err(r->err, SY_EFORMAT, r->pos, "guard %u at offset %zu: unknown kind %u", i, r->pos, kind);
        if (p) p->gkind[i] = (unsigned char)kind;
        r->pos++;
        if ((st = get_str(r, p, "guard text", i, p ? &p->guards[i] : NULL))) return st;
    }
    for (uint32_t i = 0; i < nconsts; i++) {
        if ((st = need(r, 1, "constant sign", i))) return st;
        size_t at = r->pos;
        unsigned sign = r->d[r->pos++];
        if (sign > 1) return set_err(r->err, SY_EFORMAT, at, "constant %u at offset %zu: sign byte %u is not 0 or 1", i, at, sign);
        uint32_t n;
        if ((st = get_leb(r, "constant length", i, &n)) || (st = need(r, n, "constant magnitude", i))) return st;
        const unsigned char *mag = r->d + r->pos;
        if (n == 0 && sign)
            return set_err(r->err, SY_EFORMAT, at, "constant %u at offset %zu: negative zero (not canonical)", i, at);
        if (n && mag[n - 1] == 0)
            return set_err(r->err, SY_EFORMAT, at, "constant %u at offset %zu: high zero byte (not canonical)", i, at);
        if (p && sy_bc_set_const(p, i, (int)sign, mag, n)) return set_err(r->err, SY_ENOMEM, at, "out of memory");
        r->pos += n;
    }
    if (r->len - r->pos < 4 * (size_t)ninstr) {
        size_t k = (r->len - r->pos) / 4;
        size_t at = r->pos + 4 * k;
        return set_err(r->err, SY_EFORMAT, at, "truncated input: instruction %zu of %u at offset %zu needs 4 bytes, %zu left",
                       k, ninstr, at, r->len - at);
    }
    if (p)
        for (uint32_t i = 0; i < ninstr; i++) p->code[i] = get_u32(r->d + r->pos + 4 * (size_t)i);
    r->pos += 4 * (size_t)ninstr;
    if (section) { /* run-time section (flag SY_BC_FLAG_RUNTIME_SECTION) */
        uint32_t nu;
        size_t at = r->pos;
        if ((st = get_leb(r, "unbacked count", 0, &nu))) return st;
        if (nu > SY_BC_MAX_INDEX || (uint64_t)nu + counts[2] > SY_BC_MAX_INDEX)
            return set_err(r->err, SY_EFORMAT, at, "unbacked count %u at offset %zu exceeds the slot limit %u", nu, at,
                           SY_BC_MAX_INDEX);
        if (p) {
            p->nunbacked = nu;
            p->unbacked = sy_bc_palloc(p, (nu ? nu : 1) * sizeof *p->unbacked);
            if (!p->unbacked) return set_err(r->err, SY_ENOMEM, at, "out of memory");
        }
        for (uint32_t i = 0; i < nu; i++)
            if ((st = get_str(r, p, "unbacked name", i, p ? &p->unbacked[i] : NULL))) return st;
    }
    if (disp) { /* dispatch section (flag SY_BC_FLAG_DISPATCH) */
        uint32_t ne;
        size_t at = r->pos;
        if ((st = get_leb(r, "entry count", 0, &ne))) return st;
        if (ne == 0 || ne > SY_BC_MAX_INDEX)
            return set_err(r->err, SY_EFORMAT, at, "entry count %u at offset %zu: a dispatcher has 1 to %u entries", ne, at,
                           SY_BC_MAX_INDEX);
        if (p) p->nentries = ne;
    }
    if (cert) { /* certificate section (flag SY_BC_FLAG_CERTIFICATE) */
        size_t at = r->pos;
        if ((st = need(r, 65, "certificate header", 0))) return st;
        unsigned bm = r->d[r->pos];
        if (bm > 2 || (section && bm < 1))
            return set_err(r->err, SY_EFORMAT, at, "certificate at offset %zu: the program's own minor version %u is not %s", at, bm,
                           section ? "1 or 2 (it has a run-time section)" : "0, 1 or 2");
        if (p) {
            p->minor = bm;
            memcpy(p->cert_hash, r->d + r->pos + 1, 64);
        }
        r->pos += 65;
        if ((st = get_str(r, p, "certificate obligation", 0, p ? &p->cert : NULL))) return st;
    }
    if (r->pos != r->len)
        return set_err(r->err, SY_EFORMAT, r->pos, "%zu trailing bytes after the last instruction or section at offset %zu",
                       r->len - r->pos, r->pos);
    return SY_OK;
}

static const struct {
    size_t off, size;
    const char *name;
} header_fields[] = {{0, 8, "magic"},           {8, 2, "major version"},   {10, 2, "minor version"},
                     {12, 4, "flags"},          {16, 4, "register count"}, {20, 4, "constant count"},
                     {24, 4, "slot count"},     {28, 4, "guard count"},    {32, 4, "instruction count"},
                     {36, 4, "CRC-32"}};

static sy_status load_raw(sy_ctx *ctx, const unsigned char *d, size_t len, sy_bc_program **out, sy_bc_load_err *err)
{
    /* 1. header present */
    if (len < SY_BC_HEADER_SIZE) {
        size_t f = 0;
        while (header_fields[f].off + header_fields[f].size <= len) f++;
        return set_err(err, SY_EFORMAT, header_fields[f].off,
                       "truncated input: header field %s at offset %zu needs %zu bytes, input has %zu in all",
                       header_fields[f].name, header_fields[f].off, header_fields[f].size, len);
    }
    /* 2. magic */
    for (size_t i = 0; i < SY_BC_MAGIC_LEN; i++)
        if (d[i] != (unsigned char)SY_BC_MAGIC[i])
            return set_err(err, SY_EFORMAT, i, "bad magic at offset %zu: not a symshape bytecode program", i);
    /* 3-4. version */
    uint32_t major = get_u16(d + 8), minor = get_u16(d + 10);
    if (major < SY_BC_VERSION_MAJOR)
        return set_err(err, SY_EVERSION, 8,
                       "format version %u.%u is older than %u.x, which this library reads (format %u.x has no MOVE and "
                       "lets a program read a register it never wrote): recompile the guard set",
                       major, minor, SY_BC_VERSION_MAJOR, major);
    if (major != SY_BC_VERSION_MAJOR)
        return set_err(err, SY_EVERSION, 8, "unknown format major version %u (this library reads %u)", major,
                       SY_BC_VERSION_MAJOR);
    if (minor > SY_BC_VERSION_MINOR)
        return set_err(err, SY_EVERSION, 10, "format version %u.%u is newer than %u.%u (this library)", major, minor,
                       SY_BC_VERSION_MAJOR, SY_BC_VERSION_MINOR);
    /* 5. flags and counts */
    uint32_t flags = get_u32(d + 12);
    if (flags & ~(uint32_t)SY_BC_FLAGS_KNOWN) return set_err(err, SY_EFORMAT, 12, "unknown flags 0x%x", (unsigned)flags);
    static const uint32_t limits[5] = {SY_BC_MAX_REGS, SY_BC_MAX_INDEX, SY_BC_MAX_INDEX, SY_BC_MAX_INDEX, SY_BC_MAX_INSTR};
    uint32_t counts[5];
    for (int i = 0; i < 5; i++) {
        counts[i] = get_u32(d + 16 + 4 * i);
        if (counts[i] > limits[i])
            return set_err(err, SY_EFORMAT, (size_t)(16 + 4 * i), "%s %u exceeds the limit %u", header_fields[4 + i].name,
                           counts[i], limits[i]);
    }
    /* 6. payload structure, without storing anything */
    reader r = {d, len, SY_BC_HEADER_SIZE, err};
    uint32_t section = (flags & SY_BC_FLAG_RUNTIME_SECTION) != 0;
    if (section && minor < 1)
        return set_err(err, SY_EFORMAT, 12, "flag 0x%x (run-time section) in a format %u.0 program",
                       (unsigned)SY_BC_FLAG_RUNTIME_SECTION, SY_BC_VERSION_MAJOR);
    uint32_t disp = (flags & SY_BC_FLAG_DISPATCH) != 0;
    if (disp && minor < 2)
        return set_err(err, SY_EFORMAT, 12, "flag 0x%x (dispatcher) in a format %u.%u program", (unsigned)SY_BC_FLAG_DISPATCH,
                       SY_BC_VERSION_MAJOR, minor);
    uint32_t cert = (flags & SY_BC_FLAG_CERTIFICATE) != 0;
    if (cert && (minor < 2 || disp))
        return set_err(err, SY_EFORMAT, 12, "flag 0x%x (certificate) in a format %u.%u %s", (unsigned)SY_BC_FLAG_CERTIFICATE,
                       SY_BC_VERSION_MAJOR, minor, disp ? "dispatcher" : "program");
    sy_status st = walk_payload(&r, NULL, counts, section, disp, cert);
    uint32_t want = get_u32(d + 36), got = crc_of(d, len);
    if (st) {
        /* A payload that does not parse and whose CRC does not match was changed or cut: the
         * walk alone cannot tell which (a flipped LEB128 length reads past the end as a cut
         * does), so the mismatch is named first, then where parsing stopped (issue 38: a
         * corrupted byte was reported as truncated input). A structure error under a matching
         * CRC is the writer's: reported as is. */
        if (want != got && st == SY_EFORMAT) {
            char walk[sizeof err->msg];
            memcpy(walk, err->msg, sizeof walk);
            return set_err(err, SY_EFORMAT, err->offset,
                           "CRC-32 mismatch: the file says 0x%08x, its bytes have 0x%08x (changed or cut; its payload does "
                           "not parse: %.170s)",
                           (unsigned)want, (unsigned)got, walk);
        }
        return st;
    }
    /* 7. checksum */
    if (want != got)
        return set_err(err, SY_EFORMAT, 36, "CRC-32 mismatch: the file says 0x%08x, its bytes have 0x%08x", (unsigned)want,
                       (unsigned)got);
    /* decode */
    sy_bc_program *p = sy_bc_program_new(ctx);
    if (!p) return set_err(err, SY_ENOMEM, 0, "out of memory");
    p->flags = flags;
    p->nregs = counts[0];
    p->nconsts = counts[1];
    p->nslots = counts[2];
    p->nguards = counts[3];
    p->ninstr = counts[4];
    p->minor = minor;
    if (sy_bc_alloc_tables(p)) {
        sy_bc_free(p);
        return set_err(err, SY_ENOMEM, 0, "out of memory");
    }
    r.pos = SY_BC_HEADER_SIZE;
    if ((st = walk_payload(&r, p, counts, section, disp, cert)) || (st = sy_bc_verify(p, err))) {
        sy_bc_free(p);
        return st;
    }
    *out = p;
    return SY_OK;
}

sy_status sy_bc_load(sy_ctx *ctx, const unsigned char *data, size_t len, sy_bc_program **out, sy_bc_load_err *err)
{
    sy_bc_load_err local;
    if (!err) err = &local;
    err->code = SY_OK;
    err->msg[0] = 0;
    err->offset = 0;
    if (out) *out = NULL;
    if (!ctx) return set_err(err, SY_EINVAL, 0, "bc_load: NULL context");
    if (!out || (!data && len)) {
        set_err(err, SY_EINVAL, 0, "bc_load: NULL argument");
        return sy_fail_st(ctx, SY_EINVAL, "bc_load: NULL argument");
    }
    sy_status st = load_raw(ctx, data, len, out, err);
    if (st) {
        sy_fail_st(ctx, st, "bytecode: %s", err->msg);
        sy_set_error_offset(ctx, (long)err->offset);
    }
    return st;
}

/* ------------------------------------------------------------------ verifier */

static const char field_names[3] = {'A', 'B', 'C'};

/* Check one field of instruction pc against its role. */
static sy_status check_field(const sy_bc_program *p, sy_bc_load_err *err, size_t off, uint32_t pc, int f, unsigned role,
                             unsigned v, int32_t sv, int wide, int runtime)
{
    const char *fname = wide ? (role == SY_BC_ROLE_JUMP ? "sBx" : "Bx") : (const char[2]){field_names[f], 0};
    const char *op = op_names[SY_BC_GET_OP(p->code[pc])];
    switch (role) {
    case SY_BC_ROLE_NONE:
        if (v) return set_err(err, SY_EVERIFY, off, "instruction %u (%s): unused field %s is %u, must be 0", pc, op, fname, v);
        return SY_OK;
    case SY_BC_ROLE_RIN:
    case SY_BC_ROLE_ROUT:
        if (v >= p->nregs)
            return set_err(err, SY_EVERIFY, off, "instruction %u (%s): register r%u out of range (%u registers)", pc, op, v,
                           p->nregs);
        return SY_OK;
    case SY_BC_ROLE_K:
        if (v >= p->nconsts)
            return set_err(err, SY_EVERIFY, off, "instruction %u (%s): constant k%u out of range (%u constants)", pc, op, v,
                           p->nconsts);
        return SY_OK;
    case SY_BC_ROLE_SLOT: /* the unbacked values are slots only after RTCHECKS */
        if (v >= p->nslots + (runtime ? p->nunbacked : 0))
            return set_err(err, SY_EVERIFY, off, "instruction %u (%s): slot s%u out of range (%u slots%s)", pc, op, v,
                           p->nslots + (runtime ? p->nunbacked : 0), runtime ? " with the unbacked values" : "");
        return SY_OK;
    case SY_BC_ROLE_GUARD:
        if (v >= p->nguards)
            return set_err(err, SY_EVERIFY, off, "instruction %u (%s): guard g%u out of range (%u guards)", pc, op, v,
                           p->nguards);
        return SY_OK;
    case SY_BC_ROLE_ENTRY:
        if (v >= p->nentries)
            return set_err(err, SY_EVERIFY, off, "instruction %u (%s): entry e%u out of range (%u entries)", pc, op, v,
                           p->nentries);
        return SY_OK;
    case SY_BC_ROLE_JUMP:
        if (sv < 0) return set_err(err, SY_EVERIFY, off, "instruction %u (%s): backward jump by %d", pc, op, (int)sv);
        if ((uint64_t)pc + 1 + (uint64_t)sv >= p->ninstr)
            return set_err(err, SY_EVERIFY, off, "instruction %u (%s): jump to %llu past the end (%u instructions)", pc, op,
                           (unsigned long long)((uint64_t)pc + 1 + (uint64_t)sv), p->ninstr);
        return SY_OK;
    default: return SY_OK; /* SY_BC_ROLE_IMM */
    }
}

/* Definite assignment: every register an instruction reads was written on
 * every path from the entry. Jumps only go forward, so one pass in program
 * order sees every predecessor of an instruction before it: the set of
 * registers written on entry to pc is the intersection of the fall-through
 * set (unless pc - 1 is RETURN or ENTRY) and the sets of the jumps to pc, kept
 * per jump target (pool: one 256-bit set per target, at most one per jump).
 * Unreachable code reads nothing at run time and is not checked. O(ninstr)
 * time, 4 bytes per instruction plus 36 per jump target of memory (only
 * when the program jumps). The fields were checked already.
 *
 * A dispatcher (format 2.2) also tracks the fault handler, the target of the
 * last ONFAIL on every path to pc (NO_HANDLER before any; MIXED where paths
 * disagree): an instruction that can fault (arithmetic, a constant beyond
 * int64) is an edge to its handler, which must lie after it (forward, like
 * every jump) and be the same on every path (MIXED is refused); the edge
 * carries the registers written before the instruction. Without a handler a
 * fault ends the run (fail closed). */
#define REGW (SY_BC_MAX_REGS / 64)
#define NO_HANDLER 0u
#define MIXED_HANDLER UINT32_MAX
typedef struct vstate {
    uint64_t w[REGW];
    uint32_t hnd;
} vstate;

static int can_fault(const sy_bc_program *p, uint32_t w)
{
    switch (SY_BC_GET_OP(w)) {
    case SY_OP_LOADK: return !p->kfits[SY_BC_GET_BX(w)];
    case SY_OP_NEG:
    case SY_OP_ADD:
    case SY_OP_SUB:
    case SY_OP_MUL:
    case SY_OP_FLOORDIV:
    case SY_OP_MOD:
    case SY_OP_CEILDIV:
    case SY_OP_POW: return 1;
    default: return 0;
    }
}

/* merge state cur into the target t's pool set */
static void flow_to(uint32_t *slot, vstate *pool, uint32_t *npool, uint32_t t, const vstate *cur)
{
    if (!slot[t]) {
        slot[t] = ++*npool;
        pool[*npool - 1] = *cur;
        return;
    }
    vstate *in = &pool[slot[t] - 1];
    for (unsigned i = 0; i < REGW; i++) in->w[i] &= cur->w[i];
    if (in->hnd != cur->hnd) in->hnd = MIXED_HANDLER;
}

static sy_status verify_written(const sy_bc_program *p, sy_bc_load_err *err, uint32_t njumps)
{
    size_t base = sy_bc_code_offset(p);
    int disp = (p->flags & SY_BC_FLAG_DISPATCH) != 0;
    uint32_t *slot = NULL; /* per pc: 1 + its set's index in pool, 0 none */
    vstate *pool = NULL;
    uint32_t npool = 0;
    if (njumps) {
        slot = sy_alloc(p->ctx, (size_t)p->ninstr * sizeof *slot);
        pool = sy_alloc(p->ctx, (size_t)njumps * sizeof *pool);
        if (!slot || !pool) {
            if (slot) sy_dealloc(p->ctx, slot, (size_t)p->ninstr * sizeof *slot);
            if (pool) sy_dealloc(p->ctx, pool, (size_t)njumps * sizeof *pool);
            return set_err(err, SY_ENOMEM, 0, "out of memory (verifier)");
        }
        memset(slot, 0, (size_t)p->ninstr * sizeof *slot);
    }
    vstate cur;
    memset(&cur, 0, sizeof cur);
    int reach = 1; /* the fall-through path into pc exists */
    sy_status st = SY_OK;
    for (uint32_t pc = 0; pc < p->ninstr && !st; pc++) {
        if (slot && slot[pc]) {
            const vstate *in = &pool[slot[pc] - 1];
            if (reach) {
                for (unsigned i = 0; i < REGW; i++) cur.w[i] &= in->w[i];
                if (cur.hnd != in->hnd) cur.hnd = MIXED_HANDLER;
            } else {
                cur = *in;
            }
            reach = 1;
        }
        if (!reach) continue;
        uint32_t w = p->code[pc];
        unsigned op = SY_BC_GET_OP(w);
        const unsigned char *role = sy_bc_op_role[op];
        unsigned f[3] = {SY_BC_GET_A(w), SY_BC_GET_B(w), SY_BC_GET_C(w)};
        unsigned nf = sy_bc_op_fmt[op] == SY_BC_FMT_ABC ? 3 : 1;
        size_t off = base + 4 * (size_t)pc;
        for (unsigned k = 0; k < nf; k++)
            if (role[k] == SY_BC_ROLE_RIN && !(cur.w[f[k] / 64] >> (f[k] % 64) & 1)) {
                st = set_err(err, SY_EVERIFY, off,
                             "instruction %u at offset %zu (%s): register r%u is read before it is written on some path",
                             pc, off, op_names[op], f[k]);
                break;
            }
        if (!st && disp && cur.hnd != NO_HANDLER && can_fault(p, w)) {
            if (cur.hnd == MIXED_HANDLER)
                st = set_err(err, SY_EVERIFY, off,
                             "instruction %u at offset %zu (%s): can fault, and the paths to it set different ONFAIL handlers",
                             pc, off, op_names[op]);
            else if (cur.hnd <= pc)
                st = set_err(err, SY_EVERIFY, off,
                             "instruction %u at offset %zu (%s): can fault, and its ONFAIL handler %u is not after it", pc,
                             off, op_names[op], cur.hnd);
            else
                flow_to(slot, pool, &npool, cur.hnd, &cur);
        }
        for (unsigned k = 0; k < nf && !st; k++)
            if (role[k] == SY_BC_ROLE_ROUT) cur.w[f[k] / 64] |= (uint64_t)1 << (f[k] % 64);
        if (role[1] == SY_BC_ROLE_JUMP) {
            uint32_t t = pc + 1 + (uint32_t)SY_BC_GET_SBX(w);
            if (op == SY_OP_ONFAIL) cur.hnd = t; /* an edge only from the instructions that fault */
            else if (t > pc + 1) flow_to(slot, pool, &npool, t, &cur); /* a jump to the next instruction is a fall-through */
        }
        if (op == SY_OP_RETURN || op == SY_OP_ENTRY) reach = 0;
    }
    if (slot) sy_dealloc(p->ctx, slot, (size_t)p->ninstr * sizeof *slot);
    if (pool) sy_dealloc(p->ctx, pool, (size_t)njumps * sizeof *pool);
    return st;
}

sy_status sy_bc_verify(const sy_bc_program *p, sy_bc_load_err *err)
{
    sy_bc_load_err local;
    if (!err) err = &local;
    size_t base = sy_bc_code_offset(p);
    sy_status st;
    int runtime = 0; /* after RTCHECKS */
    int disp = (p->flags & SY_BC_FLAG_DISPATCH) != 0;
    uint32_t njumps = 0;
    for (uint32_t pc = 0; pc < p->ninstr; pc++) {
        uint32_t w = p->code[pc];
        size_t off = base + 4 * (size_t)pc;
        unsigned op = SY_BC_GET_OP(w);
        if (op >= SY_OP_COUNT)
            return set_err(err, SY_EVERIFY, off, "instruction %u at offset %zu: unknown opcode %u", pc, off, op);
        if (op == SY_OP_RTCHECKS) {
            if (p->minor < 1)
                return set_err(err, SY_EVERIFY, off, "instruction %u at offset %zu: RTCHECKS in a format %u.0 program", pc, off,
                               SY_BC_VERSION_MAJOR);
            if (runtime)
                return set_err(err, SY_EVERIFY, off, "instruction %u at offset %zu: a second RTCHECKS", pc, off);
            runtime = 1;
        }
        if (SY_BC_GET_RSV(w)) return set_err(err, SY_EVERIFY, off, "instruction %u at offset %zu: reserved bit set", pc, off);
        int disp_op = op == SY_OP_ENTRY || op == SY_OP_ONFAIL;
        if (disp_op && !disp)
            return set_err(err, SY_EVERIFY, off, "instruction %u at offset %zu: %s outside a dispatcher (flag 0x%x)", pc, off,
                           op_names[op], (unsigned)SY_BC_FLAG_DISPATCH);
        if (disp && (op == SY_OP_CHECK || op == SY_OP_RTCHECKS))
            return set_err(err, SY_EVERIFY, off, "instruction %u at offset %zu: %s in a dispatcher", pc, off, op_names[op]);
        njumps += sy_bc_op_role[op][1] == SY_BC_ROLE_JUMP;
        const unsigned char *role = sy_bc_op_role[op];
        if ((st = check_field(p, err, off, pc, 0, role[0], SY_BC_GET_A(w), 0, 0, runtime))) return st;
        if (sy_bc_op_fmt[op] == SY_BC_FMT_ABC) {
            if ((st = check_field(p, err, off, pc, 1, role[1], SY_BC_GET_B(w), 0, 0, runtime))) return st;
            if ((st = check_field(p, err, off, pc, 2, role[2], SY_BC_GET_C(w), 0, 0, runtime))) return st;
        } else {
            if ((st = check_field(p, err, off, pc, 1, role[1], SY_BC_GET_BX(w), SY_BC_GET_SBX(w), 1, runtime))) return st;
        }
    }
    if (p->ninstr == 0 || SY_BC_GET_OP(p->code[p->ninstr - 1]) != SY_OP_RETURN) {
        size_t off = p->ninstr ? base + 4 * ((size_t)p->ninstr - 1) : base;
        return set_err(err, SY_EVERIFY, off, "the last instruction is not RETURN (%u instructions)", p->ninstr);
    }
    return verify_written(p, err, njumps);
}

/* ------------------------------------------------------------------ disassembler */

typedef struct sink {
    sy_status (*put)(void *ud, const char *s, size_t n);
    void *ud;
    sy_status st;
} sink;

static void sk_put(sink *k, const char *s, size_t n)
{
    if (!k->st && n) k->st = k->put(k->ud, s, n);
}

static void sk_printf(sink *k, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sk_printf(sink *k, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    sk_put(k, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A string from the program (its first n bytes, or up to its NUL), control bytes escaped (one line
 * stays one line; sy_bc_escape). */
static void sk_textn(sink *k, const char *s, size_t n)
{
    const char *run = s, *end = s + strnlen(s, n);
    for (; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != 0x7F && c != '\\') continue;
        sk_put(k, run, (size_t)(s - run));
        if (c == '\\') sk_put(k, "\\\\", 2);
        else sk_printf(k, "\\x%02x", c);
        run = s + 1;
    }
    sk_put(k, run, (size_t)(s - run));
}

static void sk_text(sink *k, const char *s) { sk_textn(k, s, SIZE_MAX); }

static void sk_const(sink *k, const sy_bc_program *p, uint32_t i)
{
    if (p->kfits[i]) {
        sk_printf(k, "%lld", (long long)p->k64[i]);
        return;
    }
    fmpz_t v;
    fmpz_init(v);
    for (uint32_t j = p->klen[i]; j-- > 0;) {
        fmpz_mul_2exp(v, v, 8);
        fmpz_add_ui(v, v, p->kmag[i][j]);
    }
    if (p->kneg[i]) fmpz_neg(v, v);
    char *s = fmpz_get_str(NULL, 10, v);
    if (s) sk_put(k, s, strlen(s));
    else k->st = SY_ENOMEM;
    flint_free(s);
    fmpz_clear(v);
}

static void operand(char *buf, size_t cap, size_t *pos, unsigned role, unsigned v, int32_t sv)
{
    static const char pre[] = {0, 'r', 'r', 'k', 's', 'g', 0, 0, 'e'};
    int n = 0;
    if (role == SY_BC_ROLE_NONE) return;
    if (role == SY_BC_ROLE_JUMP) n = snprintf(buf + *pos, cap - *pos, "%s%+d", *pos ? " " : "", (int)sv);
    else if (role == SY_BC_ROLE_IMM) n = snprintf(buf + *pos, cap - *pos, "%s%u", *pos ? " " : "", v);
    else n = snprintf(buf + *pos, cap - *pos, "%s%c%u", *pos ? " " : "", pre[role], v);
    if (n > 0 && (size_t)n < cap - *pos) *pos += (size_t)n;
}

static sy_status disassemble(const sy_bc_program *p, sink *k)
{
    int disp = (p->flags & SY_BC_FLAG_DISPATCH) != 0;
    sk_printf(k, "; symshape bytecode %u.%u%s\n", SY_BC_VERSION_MAJOR, disp ? 2u : p->minor,
              disp ? " (dispatcher)" : "");
    if (disp) sk_printf(k, "; %u entries: ENTRY answers one; RETURN answers none (-1)\n", p->nentries);
    sk_printf(k, "; %u slots, %u guards, %u constants, %u registers, %u instructions\n", p->nslots, p->nguards, p->nconsts,
              p->nregs, p->ninstr);
    for (uint32_t i = 0; i < p->nslots; i++) {
        sk_printf(k, "; slot s%u: ", i);
        sk_text(k, p->slots[i]);
        sk_put(k, "\n", 1);
    }
    for (uint32_t i = 0; i < p->nunbacked; i++) {
        sk_printf(k, "; slot s%u (unbacked, run time only): ", p->nslots + i);
        sk_text(k, p->unbacked[i]);
        sk_put(k, "\n", 1);
    }
    for (uint32_t i = 0; i < p->nconsts; i++) {
        sk_printf(k, "; const k%u = ", i);
        sk_const(k, p, i);
        sk_put(k, "\n", 1);
    }
    uint32_t unchecked = 0;
    for (uint32_t i = 0; i < p->nguards; i++) {
        int ra = p->gkind[i] == SY_GK_RUNTIME_ASSERT;
        unchecked += (uint32_t)ra;
        sk_printf(k, "; guard g%u (%s%s): ", i, sy_gset_kind_name((sy_gset_kind)p->gkind[i]),
                  ra ? (p->minor >= 1 ? ", run time only" : ", not checked") : "");
        sk_text(k, p->guards[i]);
        sk_put(k, "\n", 1);
    }
    if (p->minor >= 1 && unchecked)
        sk_printf(k, "; %u runtime assert%s checked only by the run-time check (after RTCHECKS, with the unbacked values)\n",
                  unchecked, unchecked == 1 ? " is" : "s are");
    else if (unchecked || (p->flags & SY_BC_FLAG_UNCHECKED_ASSERTS))
        sk_printf(k, "; %u runtime assert%s not checked here: they need the data, not the sizes\n", unchecked,
                  unchecked == 1 ? " is" : "s are");
    for (uint32_t pc = 0; pc < p->ninstr; pc++) {
        uint32_t w = p->code[pc];
        unsigned op = SY_BC_GET_OP(w);
        if (op >= SY_OP_COUNT) { /* only reachable for unverified programs */
            sk_printf(k, "%4u  ?%-8u 0x%08x\n", pc, op, (unsigned)w);
            continue;
        }
        const unsigned char *role = sy_bc_op_role[op];
        char ops[64];
        size_t pos = 0;
        ops[0] = 0;
        operand(ops, sizeof ops, &pos, role[0], SY_BC_GET_A(w), 0);
        if (sy_bc_op_fmt[op] == SY_BC_FMT_ABC) {
            operand(ops, sizeof ops, &pos, role[1], SY_BC_GET_B(w), 0);
            operand(ops, sizeof ops, &pos, role[2], SY_BC_GET_C(w), 0);
        } else {
            operand(ops, sizeof ops, &pos, role[1], SY_BC_GET_BX(w), SY_BC_GET_SBX(w));
        }
        unsigned bx = SY_BC_GET_BX(w);
        int ann = op == SY_OP_LOADSLOT || op == SY_OP_LOADK || op == SY_OP_CHECK || op == SY_OP_JMPZ || op == SY_OP_JMPNZ ||
                  op == SY_OP_ONFAIL;
        sk_printf(k, ann ? "%4u  %-9s %-12s ; %-34s" : "%4u  %-9s %-12s ; %s", pc, op_names[op], ops, op_synopsis[op]);
        if (op == SY_OP_LOADSLOT && bx < p->nslots) sk_text(k, p->slots[bx]);
        else if (op == SY_OP_LOADSLOT && bx - p->nslots < p->nunbacked) sk_text(k, p->unbacked[bx - p->nslots]);
        else if (op == SY_OP_LOADK && bx < p->nconsts) sk_const(k, p, bx);
        else if (op == SY_OP_CHECK && bx < p->nguards) sk_text(k, p->guards[bx]);
        else if (op == SY_OP_JMPZ || op == SY_OP_JMPNZ || op == SY_OP_ONFAIL)
            sk_printf(k, "to %lld", (long long)pc + 1 + SY_BC_GET_SBX(w));
        sk_put(k, "\n", 1);
    }
    return k->st;
}

static sy_status put_output(void *ud, const char *s, size_t n) { return sy_output_write(ud, s, n); }

sy_status sy_bc_disassemble(const sy_bc_program *p, sy_output *out)
{
    if (!p) return SY_EINVAL;
    if (!out) return sy_fail_st(p->ctx, SY_EINVAL, "bc_disassemble: NULL output");
    sink k = {put_output, out, SY_OK};
    sy_status st = disassemble(p, &k);
    return st ? sy_fail_st(p->ctx, st, "out of memory") : SY_OK;
}

typedef struct strbuf {
    sy_ctx *ctx;
    char *p;
    size_t len, cap;
} strbuf;

static sy_status put_strbuf(void *ud, const char *s, size_t n)
{
    strbuf *b = ud;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 1024;
        while (nc < b->len + n + 1) nc *= 2;
        char *np = sy_realloc(b->ctx, b->p, b->cap, nc);
        if (!np) return SY_ENOMEM;
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return SY_OK;
}

char *sy_bc_escape(sy_ctx *ctx, const char *s, size_t n)
{
    if (!ctx) return NULL;
    strbuf b = {ctx, NULL, 0, 0};
    sink k = {put_strbuf, &b, SY_OK};
    sk_textn(&k, s ? s : "?", n);
    char *r = k.st ? NULL : sy_alloc(ctx, b.len + 1); /* exactly strlen + 1 bytes, as sy_str_free releases it */
    if (r) {
        if (b.len) memcpy(r, b.p, b.len);
        r[b.len] = 0;
    }
    if (b.p) sy_dealloc(ctx, b.p, b.cap);
    if (!r) sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    return r;
}

sy_status sy_bc_disassemble_str(const sy_bc_program *p, char **text)
{
    if (text) *text = NULL;
    if (!p) return SY_EINVAL;
    if (!text) return sy_fail_st(p->ctx, SY_EINVAL, "bc_disassemble_str: NULL argument");
    strbuf b = {p->ctx, NULL, 0, 0};
    sink k = {put_strbuf, &b, SY_OK};
    sy_status st = disassemble(p, &k);
    char *r = NULL;
    if (!st) { /* exactly strlen + 1 bytes, as sy_str_free releases it */
        r = sy_alloc(p->ctx, b.len + 1);
        if (r) {
            if (b.len) memcpy(r, b.p, b.len);
            r[b.len] = 0;
        } else {
            st = SY_ENOMEM;
        }
    }
    if (b.p) sy_dealloc(p->ctx, b.p, b.cap);
    if (st) return sy_fail_st(p->ctx, st, "out of memory");
    *text = r;
    return SY_OK;
}
