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
 * input are protobuf-c's business as before.
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
            if (wt == 5) {
                if (r.end - r.p < 4) return NULL;
                r.p += 4;
                nf++;
            } else if (wt == 2) {
                if (!rd_bytes(&r, &body, &len) || len % 4) return NULL;
                nf += len / 4;
            } else {
                return NULL;
            }
            break;
        case A_INTS:
            if (wt == 0) {
                if (!rd_varint(&r, &v)) return NULL;
                ni++;
            } else if (wt == 2) {
                long k;
                if (!rd_bytes(&r, &body, &len) || (k = packed_varints(body, len)) < 0) return NULL;
                ni += (size_t)k;
            } else {
                return NULL;
            }
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
#define ARR(cnt, fld)                                                                 \
    if (cnt && !(at->fld = a->alloc(a->allocator_data, cnt * sizeof *at->fld))) return NULL;
    ARR(nf, floats)
    ARR(ni, ints)
    ARR(ns, strings)
    ARR(nt, tensors)
    ARR(ng, graphs)
#undef ARR
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
            at->s.len = len;
            at->s.data = NULL;
            if (len && !(at->s.data = (uint8_t *)dup_str(a, body, len))) return NULL;
            break;
        case A_T:
            rd_bytes(&r, &body, &len);
            if (!(at->t = onnx__tensor_proto__unpack(a, len, body))) return NULL;
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
        case A_FLOATS:
            if (wt == 5) {
                memcpy(&at->floats[at->n_floats++], r.p, 4);
                r.p += 4;
            } else {
                rd_bytes(&r, &body, &len);
                if (len) memcpy(at->floats + at->n_floats, body, len); /* floats is NULL when nf is 0 */
                at->n_floats += len / 4;
            }
            break;
        case A_INTS:
            if (wt == 0) {
                rd_varint(&r, &v);
                at->ints[at->n_ints++] = (int64_t)v;
            } else {
                rd_bytes(&r, &body, &len);
                rd pr = {body, body + len};
                while (pr.p < pr.end) {
                    rd_varint(&pr, &v);
                    at->ints[at->n_ints++] = (int64_t)v;
                }
            }
            break;
        case A_STRINGS: {
            rd_bytes(&r, &body, &len);
            ProtobufCBinaryData *d = &at->strings[at->n_strings++];
            d->len = len;
            d->data = NULL;
            if (len && !(d->data = (uint8_t *)dup_str(a, body, len))) return NULL;
            break;
        }
        case A_TENSORS:
            rd_bytes(&r, &body, &len);
            if (!(at->tensors[at->n_tensors] = onnx__tensor_proto__unpack(a, len, body))) return NULL;
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

Onnx__NodeProto *ox_node_decode(ProtobufCAllocator *a, size_t n, const uint8_t *b)
{
    size_t nin = 0, nout = 0, nattr = 0;
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
        seen |= 1u << f;
    }
    Onnx__NodeProto *nd = a->alloc(a->allocator_data, sizeof *nd);
    if (!nd) return NULL;
    onnx__node_proto__init(nd);
    if ((nin && !(nd->input = a->alloc(a->allocator_data, nin * sizeof *nd->input))) ||
        (nout && !(nd->output = a->alloc(a->allocator_data, nout * sizeof *nd->output))) ||
        (nattr && !(nd->attribute = a->alloc(a->allocator_data, nattr * sizeof *nd->attribute))))
        return NULL;
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
        char *s = dup_str(a, body, len);
        if (!s) return NULL;
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
