/* A direct decoder of the NodeProto wire format for the common case: a node
 * whose fields and attributes are all known, each singular field given once,
 * with the wire types onnx.proto declares. It fills the very structs
 * protobuf-c's onnx__node_proto__unpack would (Onnx__NodeProto,
 * Onnx__AttributeProto; a tensor or graph attribute is unpacked by protobuf-c
 * itself, as protobuf-c unpacks an embedded message), without protobuf-c's
 * generic per-message work (a scan into ScannedMember slabs, a pass over
 * every field descriptor to size the repeated fields and one to check the
 * required ones): callgrind, ~3,200 instructions a node with protobuf-c.
 * Anything else (an unknown field, a repeated singular field, a sparse tensor
 * or type attribute, a non-canonical tag, malformed data) makes it decline,
 * and the caller unpacks the node with protobuf-c, so errors and unusual
 * input are protobuf-c's business as before. A TensorProto (an initializer,
 * a tensor attribute) is decoded the same way: every field but segment and
 * external_data (TensorProto: dims 1, data_type 2, float_data 4, int32_data 5,
 * string_data 6, int64_data 7, name 8, raw_data 9, double_data 10,
 * uint64_data 11, doc_string 12, data_location 14).
 * Wire format: https://protobuf.dev/programming-guides/encoding/ ; field
 * numbers: onnx/onnx.proto (NodeProto: input 1, output 2, name 3, op_type 4,
 * attribute 5, doc_string 6, domain 7; AttributeProto: name 1, f 2, i 3, s 4,
 * t 5, g 6, floats 7, ints 8, strings 9, tensors 10, graphs 11,
 * doc_string 13, tp 14, type_protos 15, type 20, ref_attr_name 21,
 * sparse_tensor 22, sparse_tensors 23). protobuf-c 1.4's behaviour copied:
 * strings are copied and NUL-terminated (also when empty), bytes of length 0
 * have data NULL, a repeated field's array exists only when it has elements,
 * repeated scalars may be packed or not, an int64 is the varint's value modulo
 * 2^64 and an enum its low 32 bits. */
#include <string.h>

#include "frontends/onnx/onnx_private.h"

typedef struct {
    const uint8_t *p, *end;
} rd;

/* a varint of at most 10 bytes (protobuf-c's limit) */
static bool rd_varint(rd *r, uint64_t *v)
{
    if (r->p < r->end && !(r->p[0] & 0x80)) { /* one byte: most tags' lengths and small ints */
        *v = *r->p++;
        return true;
    }
    uint64_t x = 0;
    for (unsigned i = 0; i < 10 && r->p + i < r->end; i++) {
        uint8_t b = r->p[i];
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            r->p += i + 1;
            *v = x;
            return true;
        }
    }
    return false;
}

/* a tag of one or two bytes naming a field of 1..2047 (every field here) */
static bool rd_tag(rd *r, unsigned *field, unsigned *wt)
{
    if (r->p >= r->end) return false;
    uint8_t b0 = r->p[0];
    if (!(b0 & 0x80)) {
        if (!(b0 >> 3)) return false; /* field 0 */
        r->p++;
        *field = b0 >> 3;
        *wt = b0 & 7;
        return true;
    }
    if (r->p + 1 >= r->end || (r->p[1] & 0x80) || !r->p[1]) return false; /* longer, or a padded one-byte tag */
    *field = ((b0 & 0x7f) >> 3) | (unsigned)r->p[1] << 4;
    *wt = b0 & 7;
    r->p += 2;
    return true;
}

/* the body of a length-delimited field */
static bool rd_bytes(rd *r, const uint8_t **b, size_t *n)
{
    uint64_t len;
    if (!rd_varint(r, &len) || len > (uint64_t)(r->end - r->p)) return false;
    *b = r->p;
    *n = (size_t)len;
    r->p += len;
    return true;
}

static char *dup_str(ProtobufCAllocator *a, const uint8_t *b, size_t n)
{
    char *s = a->alloc(a->allocator_data, n + 1);
    if (!s) return NULL;
    if (n) memcpy(s, b, n);
    s[n] = 0;
    return s;
}

/* a bytes field as protobuf-c stores it: copied, data NULL when empty; false when out of memory */
static bool dup_bytes(ProtobufCAllocator *a, const uint8_t *b, size_t n, ProtobufCBinaryData *d)
{
    d->len = n;
    d->data = NULL;
    return !n || (d->data = (uint8_t *)dup_str(a, b, n)) != NULL;
}

/* the number of varints in a packed run, or -1 when one is unterminated or longer than 10 bytes */
static long packed_varints(const uint8_t *b, size_t n)
{
    rd r = {b, b + n};
    long k = 0;
    uint64_t v;
    while (r.p < r.end) {
        if (!rd_varint(&r, &v)) return -1;
        k++;
    }
    return k;
}

/* repeated scalars: elements of a varint (0), 4-byte (4) or 8-byte (8) kind, one per field or packed */
enum { R_VARINT = 0, R_FIXED32 = 4, R_FIXED64 = 8 };

/* pass 1: check one occurrence of a repeated scalar field and add its elements to *cnt */
static bool count_rep(rd *r, unsigned wt, int kind, size_t *cnt)
{
    const uint8_t *body = NULL;
    size_t len = 0;
    uint64_t v = 0;
    if (wt == 2) {
        if (!rd_bytes(r, &body, &len)) return false;
        if (kind == R_VARINT) {
            long k = packed_varints(body, len);
            if (k < 0) return false;
            *cnt += (size_t)k;
        } else {
            if (len % (size_t)kind) return false; /* protobuf-c refuses a partial element */
            *cnt += len / (size_t)kind;
        }
        return true;
    }
    if (kind == R_VARINT ? wt != 0 || !rd_varint(r, &v) : wt != (kind == R_FIXED32 ? 5u : 1u) || r->end - r->p < kind)
        return false;
    if (kind != R_VARINT) r->p += kind;
    (*cnt)++;
    return true;
}

/* pass 2: append one occurrence's elements (checked by count_rep) to arr[*n...]; a varint element is stored
 * as int64 (modulo 2^64) or, when is32, as its low 32 bits */
static void fill_rep(rd *r, unsigned wt, int kind, void *arr, size_t *n, bool is32)
{
    rd one = *r, *q = &one;
    const uint8_t *body = NULL;
    size_t len = 0;
    if (wt == 2) {
        rd_bytes(r, &body, &len);
        one.p = body;
        one.end = body + len;
    } else {
        r->p = kind == R_VARINT ? r->p : r->p + kind; /* a varint is read below, from one */
        one.end = kind == R_VARINT ? r->end : one.p + kind;
    }
    while (q->p < q->end) {
        if (kind != R_VARINT) {
            memcpy((char *)arr + *n * (size_t)kind, q->p, (size_t)kind);
            q->p += kind;
            (*n)++;
            continue;
        }
        uint64_t v = 0;
        rd_varint(q, &v);
        if (is32) ((int32_t *)arr)[(*n)++] = (int32_t)(uint32_t)v;
        else ((int64_t *)arr)[(*n)++] = (int64_t)v;
        if (wt != 2) { /* one unpacked element */
            r->p = q->p;
            break;
        }
    }
}

/* a repeated field's array of n elements (protobuf-c allocates one only when n > 0): false when out of memory */
#define REP_ALLOC(msg, fld, n) (!(n) || ((msg)->fld = a->alloc(a->allocator_data, (n) * sizeof *(msg)->fld)) != NULL)

enum { A_NAME = 1, A_F, A_I, A_S, A_T, A_G, A_FLOATS, A_INTS, A_STRINGS, A_TENSORS, A_GRAPHS, A_DOC = 13, A_TYPE = 20, A_REF = 21 };

/* one AttributeProto; NULL to decline */
static Onnx__AttributeProto *attr_decode(ProtobufCAllocator *a, const uint8_t *b, size_t n)
{
    /* pass 1: check every field, count the repeated ones */
    size_t nf = 0, ni = 0, ns = 0, nt = 0, ng = 0;
    uint32_t seen = 0;
    rd r = {b, b + n};
    while (r.p < r.end) {
        unsigned f = 0, wt = 0;
        uint64_t v = 0;
        const uint8_t *body = NULL;
        size_t len = 0;
        if (!rd_tag(&r, &f, &wt)) return NULL;
        switch (f) {
        case A_NAME: case A_S: case A_T: case A_G: case A_DOC: case A_REF:
            if (wt != 2 || (seen >> f & 1u) || !rd_bytes(&r, &body, &len)) return NULL;
            break;
        case A_F:
            if (wt != 5 || (seen >> f & 1u) || r.end - r.p < 4) return NULL;
            r.p += 4;
            break;
        case A_I:
        case A_TYPE:
            if (wt != 0 || (seen >> f & 1u) || !rd_varint(&r, &v)) return NULL;
            break;
        case A_FLOATS:
            if (!count_rep(&r, wt, R_FIXED32, &nf)) return NULL;
            break;
        case A_INTS:
            if (!count_rep(&r, wt, R_VARINT, &ni)) return NULL;
            break;
        case A_STRINGS: case A_TENSORS: case A_GRAPHS:
            if (wt != 2 || !rd_bytes(&r, &body, &len)) return NULL;
            if (f == A_STRINGS) ns++;
            else if (f == A_TENSORS) nt++;
            else ng++;
            break;
        default: return NULL; /* tp, type_protos, sparse tensors, unknown fields */
        }
        if (f < 32) seen |= 1u << f;
    }
    /* pass 2: fill */
    Onnx__AttributeProto *at = a->alloc(a->allocator_data, sizeof *at);
    if (!at) return NULL;
    onnx__attribute_proto__init(at);
    if (!REP_ALLOC(at, floats, nf) || !REP_ALLOC(at, ints, ni) || !REP_ALLOC(at, strings, ns) ||
        !REP_ALLOC(at, tensors, nt) || !REP_ALLOC(at, graphs, ng))
        return NULL;
    r.p = b;
    while (r.p < r.end) {
        unsigned f = 0, wt = 0;
        uint64_t v = 0;
        const uint8_t *body = NULL;
        size_t len = 0;
        rd_tag(&r, &f, &wt); /* checked in pass 1 */
        switch (f) {
        case A_NAME: case A_DOC: case A_REF: {
            rd_bytes(&r, &body, &len);
            char *s = dup_str(a, body, len);
            if (!s) return NULL;
            if (f == A_NAME) at->name = s;
            else if (f == A_DOC) at->doc_string = s;
            else at->ref_attr_name = s;
            break;
        }
        case A_S:
            rd_bytes(&r, &body, &len);
            at->has_s = 1;
            if (!dup_bytes(a, body, len, &at->s)) return NULL;
            break;
        case A_T:
            rd_bytes(&r, &body, &len);
            if (!(at->t = ox_tensor_unpack(a, len, body))) return NULL;
            break;
        case A_G:
            rd_bytes(&r, &body, &len);
            if (!(at->g = onnx__graph_proto__unpack(a, len, body))) return NULL;
            break;
        case A_F:
            memcpy(&at->f, r.p, 4);
            r.p += 4;
            at->has_f = 1;
            break;
        case A_I:
            rd_varint(&r, &v);
            at->i = (int64_t)v;
            at->has_i = 1;
            break;
        case A_TYPE:
            rd_varint(&r, &v);
            at->type = (Onnx__AttributeProto__AttributeType)(int32_t)(uint32_t)v;
            at->has_type = 1;
            break;
        case A_FLOATS: fill_rep(&r, wt, R_FIXED32, at->floats, &at->n_floats, false); break;
        case A_INTS: fill_rep(&r, wt, R_VARINT, at->ints, &at->n_ints, false); break;
        case A_STRINGS: {
            rd_bytes(&r, &body, &len);
            if (!dup_bytes(a, body, len, &at->strings[at->n_strings++])) return NULL;
            break;
        }
        case A_TENSORS:
            rd_bytes(&r, &body, &len);
            if (!(at->tensors[at->n_tensors] = ox_tensor_unpack(a, len, body))) return NULL;
            at->n_tensors++;
            break;
        case A_GRAPHS:
            rd_bytes(&r, &body, &len);
            if (!(at->graphs[at->n_graphs] = onnx__graph_proto__unpack(a, len, body))) return NULL;
            at->n_graphs++;
            break;
        default: return NULL; /* not reached: pass 1 declined */
        }
    }
    return at;
}

enum { N_INPUT = 1, N_OUTPUT, N_NAME, N_OP_TYPE, N_ATTRIBUTE, N_DOC, N_DOMAIN };

/* The node, its input, output and attribute arrays and its strings are one allocation (the strings
 * packed after the arrays, each NUL-terminated): one call of the allocator a node instead of one for
 * each (~30 instructions a call; with the one-byte varint path of rd_varint, callgrind on the reduced
 * vit_b16: 1.46M -> 1.42M instructions a read + trace + guards run). */
Onnx__NodeProto *ox_node_decode(ProtobufCAllocator *a, size_t n, const uint8_t *b)
{
    size_t nin = 0, nout = 0, nattr = 0, sbytes = 0;
    uint32_t seen = 0;
    rd r = {b, b + n};
    while (r.p < r.end) {
        unsigned f = 0, wt = 0;
        const uint8_t *body = NULL;
        size_t len = 0;
        if (!rd_tag(&r, &f, &wt) || f < N_INPUT || f > N_DOMAIN || wt != 2 || !rd_bytes(&r, &body, &len)) return NULL;
        if (f == N_INPUT) nin++;
        else if (f == N_OUTPUT) nout++;
        else if (f == N_ATTRIBUTE) nattr++;
        else if (seen >> f & 1u) return NULL;
        if (f != N_ATTRIBUTE) sbytes += len + 1;
        seen |= 1u << f;
    }
    size_t head = (sizeof(Onnx__NodeProto) + 7) & ~(size_t)7, arrays = (nin + nout + nattr) * sizeof(void *);
    char *blk = a->alloc(a->allocator_data, head + arrays + sbytes);
    if (!blk) return NULL;
    Onnx__NodeProto *nd = (Onnx__NodeProto *)(void *)blk;
    onnx__node_proto__init(nd);
    void **arr = (void **)(void *)(blk + head);
    if (nin) nd->input = (char **)arr;
    if (nout) nd->output = (char **)arr + nin;
    if (nattr) nd->attribute = (Onnx__AttributeProto **)(arr + nin + nout);
    char *sp = blk + head + arrays;
    r.p = b;
    while (r.p < r.end) {
        unsigned f = 0, wt = 0;
        const uint8_t *body = NULL;
        size_t len = 0;
        rd_tag(&r, &f, &wt);
        rd_bytes(&r, &body, &len);
        if (f == N_ATTRIBUTE) {
            if (!(nd->attribute[nd->n_attribute] = attr_decode(a, body, len))) return NULL;
            nd->n_attribute++;
            continue;
        }
        char *s = sp;
        if (len) memcpy(s, body, len);
        s[len] = 0;
        sp += len + 1;
        switch (f) {
        case N_INPUT: nd->input[nd->n_input++] = s; break;
        case N_OUTPUT: nd->output[nd->n_output++] = s; break;
        case N_NAME: nd->name = s; break;
        case N_OP_TYPE: nd->op_type = s; break;
        case N_DOC: nd->doc_string = s; break;
        default: nd->domain = s; break;
        }
    }
    return nd;
}

enum { T_DIMS = 1, T_DATA_TYPE, T_FLOAT = 4, T_INT32, T_STRING, T_INT64, T_NAME, T_RAW, T_DOUBLE, T_UINT64, T_DOC,
       T_LOCATION = 14 };

Onnx__TensorProto *ox_tensor_decode(ProtobufCAllocator *a, size_t n, const uint8_t *b)
{
    /* pass 1: check every field, count the repeated ones (indexed by field number) */
    size_t cnt[12] = {0};
    uint32_t seen = 0;
    rd r = {b, b + n};
    while (r.p < r.end) {
        unsigned f = 0, wt = 0;
        uint64_t v = 0;
        const uint8_t *body = NULL;
        size_t len = 0;
        if (!rd_tag(&r, &f, &wt)) return NULL;
        switch (f) {
        case T_DIMS: case T_INT32: case T_INT64: case T_UINT64:
            if (!count_rep(&r, wt, R_VARINT, &cnt[f])) return NULL;
            break;
        case T_FLOAT:
            if (!count_rep(&r, wt, R_FIXED32, &cnt[f])) return NULL;
            break;
        case T_DOUBLE:
            if (!count_rep(&r, wt, R_FIXED64, &cnt[f])) return NULL;
            break;
        case T_STRING:
            if (wt != 2 || !rd_bytes(&r, &body, &len)) return NULL;
            cnt[f]++;
            break;
        case T_NAME: case T_RAW: case T_DOC:
            if (wt != 2 || (seen >> f & 1u) || !rd_bytes(&r, &body, &len)) return NULL;
            break;
        case T_DATA_TYPE: case T_LOCATION:
            if (wt != 0 || (seen >> f & 1u) || !rd_varint(&r, &v)) return NULL;
            break;
        default: return NULL; /* segment, external_data, unknown fields */
        }
        seen |= 1u << f;
    }
    Onnx__TensorProto *t = a->alloc(a->allocator_data, sizeof *t);
    if (!t) return NULL;
    onnx__tensor_proto__init(t);
    if (!REP_ALLOC(t, dims, cnt[T_DIMS]) || !REP_ALLOC(t, float_data, cnt[T_FLOAT]) ||
        !REP_ALLOC(t, int32_data, cnt[T_INT32]) || !REP_ALLOC(t, string_data, cnt[T_STRING]) ||
        !REP_ALLOC(t, int64_data, cnt[T_INT64]) || !REP_ALLOC(t, double_data, cnt[T_DOUBLE]) ||
        !REP_ALLOC(t, uint64_data, cnt[T_UINT64]))
        return NULL;
    r.p = b;
    while (r.p < r.end) {
        unsigned f = 0, wt = 0;
        uint64_t v = 0;
        const uint8_t *body = NULL;
        size_t len = 0;
        rd_tag(&r, &f, &wt); /* checked in pass 1 */
        switch (f) {
        case T_DIMS: fill_rep(&r, wt, R_VARINT, t->dims, &t->n_dims, false); break;
        case T_INT32: fill_rep(&r, wt, R_VARINT, t->int32_data, &t->n_int32_data, true); break;
        case T_INT64: fill_rep(&r, wt, R_VARINT, t->int64_data, &t->n_int64_data, false); break;
        case T_UINT64: fill_rep(&r, wt, R_VARINT, t->uint64_data, &t->n_uint64_data, false); break;
        case T_FLOAT: fill_rep(&r, wt, R_FIXED32, t->float_data, &t->n_float_data, false); break;
        case T_DOUBLE: fill_rep(&r, wt, R_FIXED64, t->double_data, &t->n_double_data, false); break;
        case T_STRING: {
            rd_bytes(&r, &body, &len);
            if (!dup_bytes(a, body, len, &t->string_data[t->n_string_data++])) return NULL;
            break;
        }
        case T_RAW: /* not copied: the payload stays in the input bytes (a bias of 1000 floats is 4000 bytes) */
            rd_bytes(&r, &body, &len);
            t->has_raw_data = 1;
            t->raw_data.len = len;
            t->raw_data.data = len ? (uint8_t *)(uintptr_t)body : NULL;
            break;
        case T_NAME: case T_DOC: {
            rd_bytes(&r, &body, &len);
            char *s = dup_str(a, body, len);
            if (!s) return NULL;
            if (f == T_NAME) t->name = s;
            else t->doc_string = s;
            break;
        }
        case T_DATA_TYPE:
            rd_varint(&r, &v);
            t->data_type = (int32_t)(uint32_t)v;
            t->has_data_type = 1;
            break;
        default: /* T_LOCATION */
            rd_varint(&r, &v);
            t->data_location = (Onnx__TensorProto__DataLocation)(int32_t)(uint32_t)v;
            t->has_data_location = 1;
            break;
        }
    }
    return t;
}

Onnx__TensorProto *ox_tensor_unpack(ProtobufCAllocator *a, size_t n, const uint8_t *b)
{
    Onnx__TensorProto *t = ox_tensor_decode(a, n, b);
    return t ? t : onnx__tensor_proto__unpack(a, n, b);
}
