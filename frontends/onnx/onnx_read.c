/* The ONNX reader: map the file, drop large tensor payloads with a pre-scan
 * of the protobuf wire format (so a 350 MB model is never copied), unpack the
 * rest with protobuf-c, and list the graph inputs.
 * Wire format: https://protobuf.dev/programming-guides/encoding/ ; field
 * numbers: onnx/onnx.proto (ModelProto.graph = 7, GraphProto.node = 1,
 * .initializer = 5, .sparse_initializer = 15, NodeProto.attribute = 5,
 * AttributeProto.t = 5, .g = 6, .tensors = 10, .graphs = 11,
 * .sparse_tensor = 22, .sparse_tensors = 23, SparseTensorProto.values = 1,
 * .indices = 2, TensorProto payloads: float_data = 4, int32_data = 5,
 * string_data = 6, int64_data = 7, raw_data = 9, double_data = 10,
 * uint64_data = 11). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algebra/internal.h"
#include "frontends/onnx/onnx_private.h"

int sy_onnx_available(void) { return 1; }

/* ------------------------------------------------------------------ dtypes */

sy_dtype ox_dtype(int e)
{
    switch (e) {
    case OX_FLOAT: return SY_DT_FLOAT32;
    case OX_DOUBLE: return SY_DT_FLOAT64;
    case OX_FLOAT16: return SY_DT_FLOAT16;
    case OX_BFLOAT16: return SY_DT_BFLOAT16;
    case OX_COMPLEX64: return SY_DT_COMPLEX64;
    case OX_COMPLEX128: return SY_DT_COMPLEX128;
    case OX_INT64: case OX_UINT64: case OX_UINT32: return SY_DT_INT64;
    case OX_INT32: case OX_UINT16: return SY_DT_INT32;
    case OX_INT16: return SY_DT_INT16;
    case OX_INT8: return SY_DT_INT8;
    case OX_UINT8: return SY_DT_UINT8;
    case OX_BOOL: return SY_DT_BOOL;
    default: return SY_DT_FLOAT32;
    }
}

const char *ox_elem_name(int e)
{
    static const char *n[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
                              "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16"};
    return e >= 0 && e <= 16 ? n[e] : "unknown";
}

int ox_is_int(int e)
{
    return e == OX_INT64 || e == OX_INT32 || e == OX_INT16 || e == OX_INT8 || e == OX_UINT8 || e == OX_UINT16 ||
           e == OX_UINT32 || e == OX_UINT64 || e == OX_BOOL;
}
int ox_is_float(int e) { return e == OX_FLOAT || e == OX_DOUBLE || e == OX_FLOAT16 || e == OX_BFLOAT16; }
size_t ox_elem_size(int e)
{
    switch (e) {
    case OX_BOOL: case OX_INT8: case OX_UINT8: return 1;
    case OX_INT16: case OX_UINT16: case OX_FLOAT16: case OX_BFLOAT16: return 2;
    case OX_INT32: case OX_UINT32: case OX_FLOAT: return 4;
    case OX_COMPLEX128: return 16;
    default: return 8;
    }
}

/* ------------------------------------------------------------------ wire pre-scan */

enum { M_MODEL, M_GRAPH, M_NODE, M_ATTR, M_TENSOR, M_SPARSE };
static const char *msg_name[] = {"ModelProto", "GraphProto", "NodeProto", "AttributeProto", "TensorProto",
                                 "SparseTensorProto"};

/* The input is read through a window: from memory, or from a file with
 * pread (never mapped: a mapping of a file in the page cache can be backed
 * by huge pages, and touching one header byte would then make 2 MB of
 * weights resident). Payloads that are skipped are never read. */
#define WIN 16384
#define WIN_JUMP 4096 /* a read after a jump (a skipped payload) starts small: the next tensor's header */
#define WIN_NODES 4096 /* the trace's window (ox_nodes_open): most nodes are far smaller; a larger one is copied out */
#define WIN_NODES_MIN 2048 /* ... unless the largest node needs more (up to WIN_NODES) */
#define PRIME_MAX 8192 /* bytes of initializers the pre-scan keeps for the first trace (m->prime) */
#define WIN_NODES_PART 8 /* ... or the nodes' span is more than 8 such windows: then an eighth of it, up to WIN */
typedef struct {
    sy_ctx *ctx;
    const char *name;
    const unsigned char *mem; /* whole input in memory, or NULL */
    int fd;
    size_t flen;
    unsigned char *win;      /* wcap bytes (<= WIN) */
    size_t wcap, wstart, wlen;
    int ioerr;
    unsigned char *out;
    size_t len, cap, skipped;
    int depth;
    int dry;                 /* count the output bytes (len) without writing them */
    int full;                /* every read is a full window (the trace's nodes: no jump is a tensor's header) */
    sy_onnx_model *rec;      /* record the main graph's nodes into rec instead of copying them */
} scan;

static sy_status corrupt(scan *s, size_t at, int kind, const char *what)
{
    if (s->ioerr < 0)
        return sy_fail_st(s->ctx, SY_EFORMAT, "cannot read %s: the file ended at byte %zu or earlier, before its length when it was loaded (it changed since)",
                          s->name, at);
    if (s->ioerr) return sy_fail_st(s->ctx, SY_EFORMAT, "cannot read %s: %s", s->name, strerror(s->ioerr));
    return sy_fail_st(s->ctx, SY_EFORMAT, "%s: corrupt or truncated protobuf at byte %zu (in %s): %s", s->name, at,
                      msg_name[kind], what);
}

/* pointer to the bytes [off, off + n) (n <= s->wcap), or NULL past the end / on a read error */
static const unsigned char *at(scan *s, size_t off, size_t n)
{
    if (off > s->flen || n > s->flen - off) return NULL;
    if (s->mem) return s->mem + off;
    if (off >= s->wstart && off + n <= s->wstart + s->wlen) return s->win + (off - s->wstart);
    size_t want = s->flen - off < s->wcap ? s->flen - off : s->wcap, got = 0;
    /* reading on (the full window): from inside the window, or past it by no more than a small read's
     * worth (the pre-scan steps over the main graph's nodes without reading them: a jump over a node is
     * still reading on; vit_b16_hw: 4 preads of its 60 KB of nodes instead of 15) */
    bool onward = s->wlen && off >= s->wstart && off - s->wstart <= s->wlen + WIN_JUMP;
    if (!onward && !s->full && n <= WIN_JUMP && want > WIN_JUMP) want = WIN_JUMP;
    while (got < want) {
        ssize_t r = pread(s->fd, s->win + got, want - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            s->ioerr = r < 0 ? errno : -1; /* -1: the file ended before its recorded length */
            s->wlen = 0;
            return NULL;
        }
        got += (size_t)r;
    }
    s->wstart = off;
    s->wlen = got;
    return s->win;
}

/* *p holds at least need bytes: its capacity doubled from first (or from *cap), at most max
 * (need <= max); false when out of memory, *p unchanged */
static bool bytes_reserve(sy_ctx *ctx, unsigned char **p, size_t *cap, size_t need, size_t first, size_t max)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : first;
    while (nc < need) nc *= 2;
    if (nc > max) nc = max;
    unsigned char *np = sy_realloc(ctx, *p, *cap, nc);
    if (!np) return false;
    *p = np;
    *cap = nc;
    return true;
}

static bool put(scan *s, const void *p, size_t n)
{
    if (s->dry) {
        s->len += n;
        return true;
    }
    /* a node's filtered bytes: most are far smaller than 4 KiB */
    if (!bytes_reserve(s->ctx, &s->out, &s->cap, s->len + n, 256, SIZE_MAX)) return false;
    if (n) memcpy(s->out + s->len, p, n);
    s->len += n;
    return true;
}

/* append the input bytes [off, off + n) */
static bool put_range(scan *s, size_t off, size_t n)
{
    if (s->dry) {
        s->len += n;
        return true;
    }
    while (n) {
        size_t k = s->mem || n < s->wcap ? n : s->wcap;
        const unsigned char *p = at(s, off, k);
        if (!p || !put(s, p, k)) return false;
        off += k;
        n -= k;
    }
    return true;
}

static size_t put_varint(unsigned char *b, uint64_t v)
{
    size_t n = 0;
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        b[n++] = c | (v ? 0x80 : 0);
    } while (v);
    return n;
}

static int get_varint(scan *s, size_t *off, size_t end, uint64_t *v)
{
    if (*off >= end) return -1;
    size_t k = end - *off < 10 ? end - *off : 10;
    const unsigned char *p = at(s, *off, k);
    if (!p) return -1;
    uint64_t r = 0;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = p[i];
        if (i == 9 && (c & 0x7e)) return -1;
        r |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            *off += i + 1;
            *v = r;
            return 0;
        }
    }
    return -1;
}

static int child_kind(int kind, uint64_t field)
{
    switch (kind) {
    case M_MODEL: return field == 7 ? M_GRAPH : -1;
    case M_GRAPH: return field == 1 ? M_NODE : field == 5 ? M_TENSOR : field == 15 ? M_SPARSE : -1;
    case M_NODE: return field == 5 ? M_ATTR : -1;
    case M_ATTR:
        return (field == 5 || field == 10) ? M_TENSOR : (field == 6 || field == 11) ? M_GRAPH
               : (field == 22 || field == 23) ? M_SPARSE : -1;
    case M_SPARSE: return (field == 1 || field == 2) ? M_TENSOR : -1;
    default: return -1;
    }
}

static bool is_payload(uint64_t field) { return field == 4 || (field >= 5 && field <= 7) || (field >= 9 && field <= 11); }

static sy_status filter(scan *s, int kind, size_t p, size_t end);
static sy_status record_node(scan *s, size_t body, size_t blen, int kind);

#define OOM() sy_fail_st(s->ctx, SY_ENOMEM, "out of memory")
/* One pass over a message, copying it. A TensorProto's payload fields are copied while they add
 * up to at most SY_ONNX_MAX_PAYLOAD bytes; from the field that takes them past it on, every
 * payload is dropped (with drop_payload: from the start). When payload fields were copied
 * already at that point, *redo is set and the walk stops: the caller walks the tensor again with
 * drop_payload (rare: a large payload in many small fields, such as an unpacked float_data).
 * So each tensor is read once, and the output is the same as when its payload is summed first. */
static sy_status walk(scan *s, int kind, size_t p, size_t end, bool drop_payload, bool *redo)
{
    size_t payload = 0;
    bool copied = false;
    while (p < end) {
        size_t start = p;
        uint64_t tag, v;
        if (get_varint(s, &p, end, &tag)) return corrupt(s, start, kind, "bad field tag");
        size_t tagend = p;
        uint64_t field = tag >> 3;
        unsigned wt = tag & 7;
        if (field == 0) return corrupt(s, start, kind, "field number 0");
        size_t body = p, blen = 0;
        switch (wt) {
        case 0:
            if (get_varint(s, &p, end, &v)) return corrupt(s, start, kind, "truncated varint");
            break;
        case 1:
            if (end - p < 8) return corrupt(s, start, kind, "truncated 64-bit field");
            p += 8;
            break;
        case 5:
            if (end - p < 4) return corrupt(s, start, kind, "truncated 32-bit field");
            p += 4;
            break;
        case 2:
            if (get_varint(s, &p, end, &v)) return corrupt(s, start, kind, "truncated length");
            if (v > (uint64_t)(end - p)) return corrupt(s, start, kind, "a length-delimited field runs past the end");
            body = p;
            blen = (size_t)v;
            p += blen;
            break;
        default: return corrupt(s, start, kind, "unsupported wire type (group or invalid)");
        }
        bool pay = kind == M_TENSOR && is_payload(field);
        if (pay && !drop_payload && (payload += p - body) > SY_ONNX_MAX_PAYLOAD) {
            if (copied) {
                *redo = true;
                return SY_OK;
            }
            drop_payload = true;
        }
        if (pay && drop_payload) {
            s->skipped += p - body;
            continue;
        }
        copied |= pay;
        if (s->rec && kind == M_GRAPH && s->depth == 2 && (field == 1 || field == 5) && wt == 2) {
            /* a node or an initializer of the main graph: read when the trace reaches it (ox_node_get,
             * ox_init_get), not kept */
            sy_status st = record_node(s, body, blen, field == 1 ? M_NODE : M_TENSOR);
            if (st) return st;
            continue;
        }
        int ck = wt == 2 ? child_kind(kind, field) : -1;
        if (ck < 0) {
            if (!put_range(s, start, p - start)) return s->ioerr ? corrupt(s, start, kind, "") : OOM();
            continue;
        }
        /* a sub-message: its tag, then the filtered body behind its new length */
        if (!put_range(s, start, tagend - start)) return s->ioerr ? corrupt(s, start, kind, "") : OOM();
        size_t o = s->len;
        sy_status st = filter(s, ck, body, body + blen);
        if (st) return st;
        size_t sub = s->len - o;
        unsigned char lb[10];
        size_t ln = put_varint(lb, sub);
        if (!put(s, lb, ln)) return OOM();
        if (!s->dry) {
            memmove(s->out + o + ln, s->out + o, sub);
            memcpy(s->out + o, lb, ln);
        }
    }
    return SY_OK;
}

static sy_status filter(scan *s, int kind, size_t p, size_t end)
{
    if (++s->depth > 64) return corrupt(s, p, kind, "nesting deeper than 64 messages");
    size_t o = s->len;
    bool redo = false;
    sy_status st = walk(s, kind, p, end, false, &redo);
    if (!st && redo) {
        s->len = o; /* what the first walk copied of the tensor is dropped */
        st = walk(s, kind, p, end, true, &redo);
    }
    s->depth--;
    return st;
}

/* ------------------------------------------------------------------ protobuf-c allocations: an arena */

/* protobuf-c unpacks into many small blocks (every message, string and
 * repeated-field array); they are bump-allocated from chunks of the context's
 * allocator and released all at once (protobuf-c's free is a no-op here). */
struct ox_achunk {
    struct ox_achunk *next;
    size_t size, used;
    max_align_t data[];
};

static void *ar_alloc(void *ud, size_t size)
{
    ox_arena *a = ud;
    size = (size + 7) & ~(size_t)7; /* protobuf-c's structs hold pointers, int64 and double: 8 bytes of alignment */
    if (!size) size = 8;
    ox_achunk *c = a->chunks;
    if (!c || c->size - c->used < size) {
        /* 512 bytes first, growing by a quarter to 8 KiB: a small model's skeleton stays small, the last chunk's slack too */
        size_t cs = sy_arena_next(c ? c->size : 0, 512, 8192);
        if (cs < size) cs = size;
        ox_achunk *nc = sy_alloc(a->ctx, sizeof *nc + cs);
        if (!nc) {
            a->oom = 1;
            return NULL;
        }
        nc->size = cs;
        nc->used = 0;
        nc->next = c;
        a->chunks = c = nc;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    return p;
}
static void ar_free(void *ud, void *ptr)
{
    (void)ud;
    (void)ptr;
}
/* release every chunk but the newest (the largest: sizes grow), which is kept for reuse */
static void ar_reset(ox_arena *a, int all)
{
    ox_achunk *c = a->chunks, *keep = NULL;
    if (c && !all) {
        keep = c;
        c = c->next;
        keep->next = NULL;
        keep->used = 0;
    }
    while (c) {
        ox_achunk *n = c->next;
        sy_dealloc(a->ctx, c, sizeof *c + c->size);
        c = n;
    }
    a->chunks = keep;
}

/* ------------------------------------------------------------------ model */

static char *dupstr(sy_ctx *ctx, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = sy_alloc(ctx, n);
    if (d) memcpy(d, s, n);
    return d;
}

/* the primed node bytes are freed and not primed again (later traces read the file) */
static void nprime_drop(sy_onnx_model *m)
{
    if (m->nprime) sy_dealloc(m->ctx, m->nprime, m->nprime_cap);
    m->nprime = NULL;
    m->nprime_len = m->nprime_cap = 0;
    m->nprime_off = 1;
}

static void prime_free(sy_onnx_model *m)
{
    if (m->prime) sy_dealloc(m->ctx, m->prime, m->prime_cap);
    if (m->prime_at) sy_dealloc(m->ctx, m->prime_at, m->prime_atcap * sizeof *m->prime_at);
    nprime_drop(m);
    m->prime = NULL;
    m->prime_at = NULL;
    m->prime_len = m->prime_cap = m->prime_atcap = 0;
}

sy_onnx_model *sy_onnx_free(sy_onnx_model *m)
{
    if (!m) return NULL;
    sy_ctx *ctx = m->ctx;
    ar_reset(&m->arena, 1);
    for (size_t i = 0; i < m->ninputs; i++) {
        sy_onnx_input *in = &m->inputs[i];
        if (in->dims) sy_dealloc(ctx, (void *)in->dims, (in->ndim ? in->ndim : 1) * sizeof *in->dims);
        if (in->params) sy_dealloc(ctx, (void *)in->params, (in->ndim ? in->ndim : 1) * sizeof *in->params);
    }
    if (m->inputs) sy_dealloc(ctx, m->inputs, m->ninputs * sizeof *m->inputs);
    if (m->kept) sy_dealloc(ctx, m->kept, m->kept_cap);
    if (m->nodes) sy_dealloc(ctx, m->nodes, m->nodecap * sizeof *m->nodes);
    if (m->inits) sy_dealloc(ctx, m->inits, m->initcap * sizeof *m->inits);
    if (m->init_names) sy_dealloc(ctx, m->init_names, m->namecap * sizeof *m->init_names);
    if (m->tmp) sy_dealloc(ctx, m->tmp, m->tmpcap);
    prime_free(m);
    if (m->mem) sy_dealloc(ctx, m->mem, m->mem_cap);
    if (m->name) sy_dealloc(ctx, m->name, strlen(m->name) + 1);
    if (m->fd >= 0) close(m->fd);
    sy_dealloc(ctx, m, sizeof *m);
    return NULL;
}

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >>= 7) n++;
    return n;
}

/* a node of the main graph: its range in the file, and whether reading it
 * must drop a payload (a Constant with a large tensor); from memory, the
 * filtered node is copied to m->mem (the input is only read during the load) */
/* the bytes of a small graph's nodes as the pre-scan's window holds them when it steps over each node:
 * the first trace's node window starts with them (ox_nodes_open) instead of a pread; given up (and freed)
 * when they span more than WIN_NODES_MIN bytes or one is not in the window */
static sy_status node_prime(scan *s, sy_onnx_model *m, size_t body, size_t blen)
{
    if (!m->nnodes) m->nprime_lo = body;
    size_t from = (size_t)m->nprime_lo + m->nprime_len, to = body + blen;
    if (to < from || to - (size_t)m->nprime_lo > WIN_NODES_MIN || from < s->wstart || to > s->wstart + s->wlen) {
        nprime_drop(m);
        return SY_OK;
    }
    size_t need = to - (size_t)m->nprime_lo;
    if (!bytes_reserve(s->ctx, &m->nprime, &m->nprime_cap, need, 256, WIN_NODES_MIN)) return OOM();
    /* a node of length 0 at the start adds nothing: m->nprime is still NULL then, and
     * memcpy(NULL, ..., 0) is undefined (issue 38: fuzz/regress_onnx/crash-b327..., from a file) */
    if (to > from) memcpy(m->nprime + m->nprime_len, s->win + (from - s->wstart), to - from);
    m->nprime_len = need;
    return SY_OK;
}

static sy_status record_node(scan *s, size_t body, size_t blen, int kind)
{
    sy_onnx_model *m = s->rec;
    if (kind == M_NODE && m->fd >= 0 && !m->nprime_off) {
        sy_status pst = node_prime(s, m, body, blen);
        if (pst) return pst;
    }
    ox_range **list = kind == M_NODE ? &m->nodes : &m->inits;
    size_t *n = kind == M_NODE ? &m->nnodes : &m->ninits, *cap = kind == M_NODE ? &m->nodecap : &m->initcap;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16; /* shrunk to fit after the pre-scan */
        if (kind == M_TENSOR && m->fd >= 0) { /* prime_at: initcap entries, as long as the primed bytes */
            ox_span *pa = sy_realloc(s->ctx, m->prime_at, *cap * sizeof *pa, nc * sizeof *pa);
            if (!pa) return OOM();
            m->prime_at = pa;
            m->prime_atcap = nc;
        }
        ox_range *nn = sy_realloc(s->ctx, *list, *cap * sizeof *nn, nc * sizeof *nn);
        if (!nn) return OOM();
        *list = nn;
        *cap = nc;
    }
    if (kind == M_TENSOR && m->ninits == m->namecap) {
        size_t nc = m->namecap ? m->namecap * 2 : 16;
        const char **na = sy_realloc(s->ctx, m->init_names, m->namecap * sizeof *na, nc * sizeof *na);
        if (!na) return OOM();
        m->init_names = na;
        m->namecap = nc;
    }
    ox_range *r = &(*list)[*n];
    const char *what = kind == M_NODE ? "a node of 4 GiB or more" : "an initializer of 4 GiB or more (after dropping payloads)";
    sy_status st;
    /* the filtered item: measured (dry) for a node from a file, kept in m->mem from memory, and for an
     * initializer written to a scratch buffer too, to read its name */
    int keep = m->fd < 0, scratch = kind == M_TENSOR && !keep;
    size_t flen = blen;
    unsigned char *o = s->out;
    size_t ol = s->len, oc = s->cap, start = 0;
    if (keep) {
        s->out = m->mem;
        s->len = m->mem_len;
        s->cap = m->mem_cap;
    } else if (scratch) {
        s->out = m->tmp;
        s->len = 0;
        s->cap = m->tmpcap;
    }
    start = s->len;
    if (keep || scratch || blen > SY_ONNX_MAX_PAYLOAD) { /* a node of <= 4096 bytes holds no payload to drop */
        int dry0 = s->dry;
        s->dry = !keep && !scratch;
        st = filter(s, kind, body, body + blen);
        s->dry = dry0;
        flen = s->len - start;
    } else {
        st = SY_OK;
    }
    if (keep) {
        m->mem = s->out;
        m->mem_len = s->len;
        m->mem_cap = s->cap;
    } else if (scratch) {
        m->tmp = s->out;
        m->tmpcap = s->cap;
    }
    const unsigned char *fb = s->out ? s->out + start : NULL;
    s->out = o;
    s->len = ol;
    s->cap = oc;
    if (st) return st;
    if ((keep ? flen : blen) > UINT32_MAX) return corrupt(s, body, kind, what);
    r->off = keep ? start : body;
    r->len = (uint32_t)(keep ? flen : blen);
    r->filter = !keep && flen != blen;
    if (kind == M_TENSOR) { /* its name, for the inputs that are initializers and for the trace's values */
        ox_arena tmp = {s->ctx, NULL, 0};
        ProtobufCAllocator a = {ar_alloc, ar_free, &tmp};
        Onnx__TensorProto *tp = ox_tensor_unpack(&a, flen, fb ? fb : (const unsigned char *)"");
        const char *nm = tp && tp->name ? tp->name : NULL;
        char *c = nm && *nm ? ar_alloc(&m->arena, strlen(nm) + 1) : NULL;
        if (c) memcpy(c, nm, strlen(nm) + 1);
        int oom = tmp.oom || m->arena.oom;
        ar_reset(&tmp, 1);
        if (oom) return OOM();
        if (!tp) return corrupt(s, body, kind, "not a valid TensorProto");
        if (!c) return sy_fail_st(s->ctx, SY_EFORMAT, "%s: initializer %zu has no name", m->name, *n);
        m->init_names[*n] = c;
        m->node_bytes += 1 + varint_size(flen) + flen;
        if (scratch) { /* primed for the first trace while they fit: no second read of the file (a pread costs
                        * ~1.2 us; these are far apart when payloads lie between them) */
            ox_span *pa = &m->prime_at[*n];
            pa->off = 0;
            pa->len = UINT32_MAX;
            if (flen <= PRIME_MAX - m->prime_len) {
                if (!bytes_reserve(s->ctx, &m->prime, &m->prime_cap, m->prime_len + flen, 512, PRIME_MAX)) return OOM();
                if (flen) memcpy(m->prime + m->prime_len, fb, flen);
                pa->off = (uint32_t)m->prime_len;
                pa->len = (uint32_t)flen;
                m->prime_len += flen;
            }
        }
    } else {
        m->node_bytes += 1 + varint_size(flen) + flen; /* tag of GraphProto.node, length, body */
    }
    (*n)++;
    return SY_OK;
}

/* ------------------------------------------------------------------ nodes, read one at a time */

struct ox_nodes {
    const sy_onnx_model *m;
    scan s;       /* the file window and the node's filtered bytes (s.out) */
    ox_arena arena;
    int nodes_begun; /* ox_node_get was called */
    unsigned char *prime; /* the model's primed initializer bytes (taken by the first trace), or NULL */
    size_t prime_cap, prime_ncap;
    ox_span *prime_at;
};

sy_status ox_nodes_open(const sy_onnx_model *m, ox_nodes **out)
{
    sy_ctx *ctx = m->ctx;
    ox_nodes *r = sy_alloc(ctx, sizeof *r);
    if (!r) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    memset(r, 0, sizeof *r);
    r->m = m;
    r->arena.ctx = ctx;
    r->s.ctx = ctx;
    r->s.name = m->name;
    r->s.fd = m->fd;
    r->s.flen = m->flen;
    /* the window spans the nodes' bytes, at most WIN_NODES: a small graph in a
     * large file (its weights elsewhere) reads its nodes with a small one; and
     * it is no larger than WIN_NODES_MIN or the largest node read whole
     * (unfiltered): nodes of a few hundred bytes are read 2 KiB at a time (lstm:
     * a 2,048-byte window instead of all its 3,284 node bytes; swin_hw: 418
     * preads instead of 279), unless the nodes span more than WIN_NODES_PART such
     * windows: then the window is that part of the span, up to WIN (a pread
     * costs ~1.2 us however small: vit_b16_hw reads its 60 KB of nodes in 8
     * instead of 30, swin_hw 81 preads in all instead of 416; the window is freed when the
     * trace's nodes end, mostly before the peak). An initializer larger than the
     * window is copied out (s.out), and that copy is released when the nodes
     * begin (ox_node_get) */
    if (m->fd >= 0) {
        uint64_t lo = UINT64_MAX, hi = 0;
        size_t big = WIN_NODES_MIN;
        for (size_t i = 0; i < m->nnodes; i++) {
            if (m->nodes[i].off < lo) lo = m->nodes[i].off;
            if (m->nodes[i].off + m->nodes[i].len > hi) hi = m->nodes[i].off + m->nodes[i].len;
            if (!m->nodes[i].filter && m->nodes[i].len > big) big = m->nodes[i].len;
        }
        size_t span = hi > lo ? (size_t)(hi - lo) : 0, part = span / WIN_NODES_PART;
        size_t w = big < WIN_NODES ? big : WIN_NODES;
        if (part > w) w = part < WIN ? part : WIN;
        if (span && span < w) w = span;
        r->s.wcap = w < 256 ? 256 : w;
    }
    if (m->fd >= 0 && !(r->s.win = sy_alloc(ctx, r->s.wcap))) {
        sy_dealloc(ctx, r, sizeof *r);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    if (m->nprime || m->nprime_off) { /* the first trace's window starts with the node bytes the pre-scan read */
        sy_onnx_model *mm = (sy_onnx_model *)m;
        if (mm->nprime && r->s.win && mm->nprime_len <= r->s.wcap) {
            memcpy(r->s.win, mm->nprime, mm->nprime_len);
            r->s.wstart = (size_t)mm->nprime_lo;
            r->s.wlen = mm->nprime_len;
        }
        nprime_drop(mm);
    }
    if (m->prime_at) { /* the first trace takes the primed bytes (a model is not thread-safe: onnx.h); later ones read the file */
        sy_onnx_model *mm = (sy_onnx_model *)m;
        r->prime = mm->prime;
        r->prime_cap = mm->prime_cap;
        r->prime_at = mm->prime_at;
        r->prime_ncap = mm->prime_atcap;
        mm->prime = NULL;
        mm->prime_at = NULL;
        mm->prime_len = mm->prime_cap = mm->prime_atcap = 0;
    }
    *out = r;
    return SY_OK;
}

static void nodes_unprime(ox_nodes *r)
{
    sy_ctx *ctx = r->m->ctx;
    if (r->prime) sy_dealloc(ctx, r->prime, r->prime_cap);
    if (r->prime_at) sy_dealloc(ctx, r->prime_at, r->prime_ncap * sizeof *r->prime_at);
    r->prime = NULL;
    r->prime_at = NULL;
}

void ox_nodes_close(ox_nodes *r)
{
    if (!r) return;
    sy_ctx *ctx = r->m->ctx;
    nodes_unprime(r);
    ar_reset(&r->arena, 1);
    if (r->s.win) sy_dealloc(ctx, r->s.win, r->s.wcap);
    if (r->s.out) sy_dealloc(ctx, r->s.out, r->s.cap);
    sy_dealloc(ctx, r, sizeof *r);
}

static sy_status item_bytes(ox_nodes *r, const ox_range *g, int kind, const unsigned char **data, size_t *len);

sy_status ox_init_get(ox_nodes *r, size_t i, const Onnx__TensorProto **out)
{
    const sy_onnx_model *m = r->m;
    ar_reset(&r->arena, 0);
    const unsigned char *data;
    size_t len;
    sy_status st = SY_OK;
    if (r->prime_at && r->prime_at[i].len != UINT32_MAX) {
        data = r->prime ? r->prime + r->prime_at[i].off : (const unsigned char *)"";
        len = r->prime_at[i].len;
    } else if ((st = item_bytes(r, &m->inits[i], M_TENSOR, &data, &len))) {
        return st;
    }
    ProtobufCAllocator a = {ar_alloc, ar_free, &r->arena};
    Onnx__TensorProto *tp = ox_tensor_unpack(&a, len, data);
    if (!tp) {
        if (r->arena.oom) return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
        return sy_fail_st(m->ctx, SY_EFORMAT, "%s: initializer %zu is not a valid TensorProto (protobuf-c could not unpack it)", m->name, i);
    }
    *out = tp;
    return SY_OK;
}

/* the filtered bytes of a recorded item: read from the file (through the window), or in m->mem */
static sy_status item_bytes(ox_nodes *r, const ox_range *g, int kind, const unsigned char **data, size_t *len)
{
    const sy_onnx_model *m = r->m;
    if (m->fd >= 0) {
        scan *s = &r->s;
        s->len = 0;
        s->depth = 1;
        sy_status st = SY_OK;
        if (g->filter) {
            st = filter(s, kind, g->off, g->off + g->len);
        } else if (g->len <= s->wcap) { /* unpacked from the window itself: no copy */
            const unsigned char *p = at(s, g->off, g->len);
            if (!p) return s->ioerr ? corrupt(s, g->off, kind, "") : OOM();
            *data = p;
            *len = g->len;
            return SY_OK;
        } else if (!put_range(s, g->off, g->len)) {
            st = s->ioerr ? corrupt(s, g->off, kind, "") : OOM();
        }
        if (st) return st;
        *data = s->out ? s->out : (const unsigned char *)"";
        *len = s->len;
    } else if (!m->mem || !g->len) { /* an empty item (of a model read from 0 bytes: m->mem NULL): no arithmetic on NULL */
        *data = (const unsigned char *)"";
        *len = 0;
    } else {
        *data = m->mem + g->off;
        *len = g->len;
    }
    return SY_OK;
}

sy_status ox_node_get(ox_nodes *r, size_t i, const Onnx__NodeProto **out)
{
    const sy_onnx_model *m = r->m;
    ar_reset(&r->arena, 0);
    if (!r->nodes_begun) { /* the initializers' copied-out bytes are no longer needed (ox_init_get's lifetime) */
        r->nodes_begun = 1;
        r->s.full = 1;
        nodes_unprime(r);
        if (r->s.out) sy_dealloc(m->ctx, r->s.out, r->s.cap);
        r->s.out = NULL;
        r->s.cap = r->s.len = 0;
    }
    const unsigned char *data;
    size_t len;
    sy_status st = item_bytes(r, &m->nodes[i], M_NODE, &data, &len);
    if (st) return st;
    ProtobufCAllocator a = {ar_alloc, ar_free, &r->arena};
    Onnx__NodeProto *nd = ox_node_decode(&a, len, data);
    if (!nd) { /* declined: protobuf-c unpacks it (and fails where it is not a valid NodeProto) */
        ar_reset(&r->arena, 0);
        r->arena.oom = 0;
        nd = onnx__node_proto__unpack(&a, len, data);
    }
    if (!nd) {
        if (r->arena.oom) return sy_fail_st(m->ctx, SY_ENOMEM, "out of memory");
        return sy_fail_st(m->ctx, SY_EFORMAT, "%s: node %zu is not a valid NodeProto (protobuf-c could not unpack it)", m->name, i);
    }
    *out = nd;
    return SY_OK;
}

static bool is_initializer(const sy_onnx_model *m, const char *name)
{
    for (size_t i = 0; i < m->ninits; i++)
        if (!strcmp(m->init_names[i], name)) return true;
    return false;
}

static sy_status list_inputs(sy_onnx_model *m)
{
    sy_ctx *ctx = m->ctx;
    const Onnx__GraphProto *g = m->graph;
    m->inputs = g->n_input ? sy_alloc(ctx, g->n_input * sizeof *m->inputs) : NULL;
    if (g->n_input && !m->inputs) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        const char *nm = vi->name ? vi->name : "";
        if (!*nm) return sy_fail_st(ctx, SY_EFORMAT, "%s: graph input %zu has no name", m->name, i);
        if (is_initializer(m, nm)) continue;
        const Onnx__TypeProto *tp = vi->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
            return sy_fail_st(ctx, SY_EUNSUPPORTED, "%s: input '%s' is not a tensor (sequences, maps and optionals are not supported)",
                              m->name, nm);
        const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
        if (!sh) return sy_fail_st(ctx, SY_EUNSUPPORTED, "%s: input '%s' has no shape (its rank is unknown)", m->name, nm);
        sy_onnx_input *in = &m->inputs[m->ninputs++];
        memset(in, 0, sizeof *in);
        in->name = nm;
        in->elem_type = tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : OX_UNDEF;
        /* sy_dtype has no uint16/uint32/uint64/string: a nearby dtype would make the
         * input's dtype guard (x.dtype == ...) wrong, so such an input is refused */
        if (in->elem_type <= OX_UNDEF || in->elem_type == OX_UINT16 || in->elem_type == OX_UINT32 || in->elem_type == OX_UINT64 ||
            in->elem_type == OX_STRING || in->elem_type > 16)
            return sy_fail_st(ctx, SY_EUNSUPPORTED, "%s: input '%s' has element type %s, which symshape's dtypes cannot represent",
                              m->name, nm, ox_elem_name(in->elem_type));
        in->dtype = ox_dtype(in->elem_type);
        in->ndim = sh->n_dim;
        int64_t *dims = sy_alloc(ctx, (in->ndim ? in->ndim : 1) * sizeof *dims);
        const char **params = sy_alloc(ctx, (in->ndim ? in->ndim : 1) * sizeof *params);
        in->dims = dims;
        in->params = params;
        if (!dims || !params) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        for (size_t d = 0; d < in->ndim; d++) {
            const Onnx__TensorShapeProto__Dimension *dm = sh->dim[d];
            dims[d] = -1;
            params[d] = NULL;
            if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
                if (dm->dim_value < 0)
                    return sy_fail_st(ctx, SY_EFORMAT, "%s: input '%s' dim %zu has a negative dim_value %lld", m->name, nm, d,
                                      (long long)dm->dim_value);
                dims[d] = dm->dim_value;
            } else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dm->dim_param &&
                       *dm->dim_param) {
                params[d] = dm->dim_param;
            }
        }
    }
    return SY_OK;
}

static sy_status load(sy_ctx *ctx, const unsigned char *data, int fd, size_t len, const char *name, sy_onnx_model **out)
{
    sy_onnx_model *m = sy_alloc(ctx, sizeof *m);
    if (!m) {
        if (fd >= 0) close(fd);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->fd = fd; /* owned from here: closed by sy_onnx_free */
    m->flen = len;
    m->arena.ctx = ctx;
    if (!(m->name = dupstr(ctx, name))) {
        sy_onnx_free(m);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    /* the pre-scan: the model without payloads and without the main graph's
     * nodes (recorded by range, read one at a time by the trace) */
    scan s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.name = m->name;
    s.mem = data;
    s.fd = fd;
    s.flen = len;
    s.rec = m;
    s.wcap = len < WIN ? (len < 256 ? 256 : len) : WIN;
    if (!data && !(s.win = sy_alloc(ctx, s.wcap))) {
        sy_onnx_free(m);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    sy_status st = filter(&s, M_MODEL, 0, len);
    if (s.win) sy_dealloc(ctx, s.win, s.wcap);
    if (m->tmp) sy_dealloc(ctx, m->tmp, m->tmpcap);
    m->tmp = NULL;
    m->tmpcap = 0;
    /* the lists live as long as the model: no slack (a failed shrink keeps the larger block) */
    if (!st && m->nnodes && m->nnodes < m->nodecap) {
        ox_range *nn = sy_realloc(ctx, m->nodes, m->nodecap * sizeof *nn, m->nnodes * sizeof *nn);
        if (nn) {
            m->nodes = nn;
            m->nodecap = m->nnodes;
        }
    }
    if (!st && m->ninits && m->ninits < m->initcap) {
        ox_range *nn = sy_realloc(ctx, m->inits, m->initcap * sizeof *nn, m->ninits * sizeof *nn);
        if (nn) {
            m->inits = nn;
            m->initcap = m->ninits;
        }
    }
    if (!st && m->ninits && m->ninits < m->namecap) {
        const char **na = sy_realloc(ctx, m->init_names, m->namecap * sizeof *na, m->ninits * sizeof *na);
        if (na) {
            m->init_names = na;
            m->namecap = m->ninits;
        }
    }
    m->kept = s.out;
    m->kept_len = s.len;
    m->kept_cap = s.cap;
    m->skipped = s.skipped;
    if (st) {
        sy_onnx_free(m);
        return st;
    }
    ProtobufCAllocator a = {ar_alloc, ar_free, &m->arena};
    m->proto = onnx__model_proto__unpack(&a, m->kept_len, m->kept);
    /* protobuf-c copied what it needs: the bytes go */
    if (m->kept) sy_dealloc(ctx, m->kept, m->kept_cap);
    m->kept = NULL;
    m->kept_cap = 0;
    if (!m->proto) {
        int oom = m->arena.oom;
        sy_onnx_free(m);
        if (oom) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        return sy_fail_st(ctx, SY_EFORMAT, "%s: not a valid ONNX ModelProto (protobuf-c could not unpack it)", name);
    }
    if (!m->proto->graph) {
        sy_onnx_free(m);
        return sy_fail_st(ctx, SY_EFORMAT, "%s: the model has no graph (not an ONNX model?)", name);
    }
    m->graph = m->proto->graph;
    m->opset = -1;
    for (size_t i = 0; i < m->proto->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->proto->opset_import[i];
        if (!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) m->opset = o->has_version ? o->version : 1;
    }
    /* 19-21 changed no shape rule of an op this frontend has (docs/onnx.md "Opsets"): types (float8,
     * int4, bfloat16), AveragePool-19's dilations (read for every pool), Pad-19's "wrap" mode and
     * Resize-19's half_pixel_symmetric (the same output sizes), GroupNormalization-21's scale and
     * bias of C entries (not read); the ops new in them (DeformConv, AffineGrid, DFT-20, GridSample,
     * ...) are unknown ops, rejected by name, except Gelu-20 (elementwise) */
    if (m->opset < 11 || m->opset > 21) {
        long long v = (long long)m->opset;
        sy_onnx_free(m);
        if (v < 0) return sy_fail_st(ctx, SY_EFORMAT, "%s: no opset_import for the default domain", name);
        return sy_fail_st(ctx, SY_EUNSUPPORTED, "%s: opset %lld of the default domain is not supported (11-21 are)", name, v);
    }
    if ((st = list_inputs(m))) {
        sy_onnx_free(m);
        return st;
    }
    *out = m;
    return SY_OK;
}

sy_status sy_onnx_load_mem(sy_ctx *ctx, const void *data, size_t len, const char *name, sy_onnx_model **out)
{
    if (!ctx) return SY_EINVAL;
    if (!out || (!data && len)) return sy_fail_st(ctx, SY_EINVAL, "onnx: NULL argument");
    *out = NULL;
    return load(ctx, data ? data : (const void *)"", -1, len, name ? name : "model", out);
}

sy_status sy_onnx_load_file(sy_ctx *ctx, const char *path, sy_onnx_model **out)
{
    if (!ctx) return SY_EINVAL;
    if (!path || !out) return sy_fail_st(ctx, SY_EINVAL, "onnx: NULL argument");
    *out = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return sy_fail_st(ctx, SY_EFORMAT, "cannot open %s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int e = errno;
        close(fd);
        return sy_fail_st(ctx, SY_EFORMAT, "cannot read %s: %s", path, S_ISDIR(sb.st_mode) ? "Is a directory" : strerror(e));
    }
    const char *base = strrchr(path, '/');
    return load(ctx, NULL, fd, (size_t)sb.st_size, base ? base + 1 : path, out); /* the model owns fd, even on error */
}

const char *sy_onnx_name(const sy_onnx_model *m)
{
    if (!m) return NULL;
    return m->graph->name && *m->graph->name ? m->graph->name : m->name;
}
int64_t sy_onnx_opset(const sy_onnx_model *m) { return m ? m->opset : -1; }
size_t sy_onnx_nnodes(const sy_onnx_model *m) { return m ? m->nnodes : 0; }
void sy_onnx_sizes(const sy_onnx_model *m, size_t *kept, size_t *skipped)
{
    if (kept) *kept = m ? m->kept_len + m->node_bytes : 0;
    if (skipped) *skipped = m ? m->skipped : 0;
}
size_t sy_onnx_ninputs(const sy_onnx_model *m) { return m ? m->ninputs : 0; }
const sy_onnx_input *sy_onnx_input_at(const sy_onnx_model *m, size_t i)
{
    return m && i < m->ninputs ? &m->inputs[i] : NULL;
}
