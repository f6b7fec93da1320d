/* The reader's direct NodeProto decoder (frontends/onnx/onnx_node.c) against
 * protobuf-c's onnx__node_proto__unpack: on every node of the ONNX fuzzing
 * corpus, and on every truncation and many byte changes of each, whenever the
 * decoder accepts the bytes, protobuf-c accepts them too and both structs
 * pack to the same bytes, with the same NULL / non-NULL strings (packing
 * leaves a NULL optional string out and writes an empty one); the same for
 * the TensorProto decoder on every initializer. The decoders must accept
 * the corpus's plain nodes and initializers, or they would save nothing. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontends/onnx/onnx_private.h"
#include "symshape/symshape.h"

/* every block in one list, freed at once */
typedef struct blk { struct blk *next; max_align_t data[]; } blk;
static void *t_alloc(void *ud, size_t n)
{
    blk *b = malloc(sizeof *b + (n ? n : 1));
    if (!b) return NULL;
    b->next = *(blk **)ud;
    *(blk **)ud = b;
    return b->data;
}
static void t_free(void *ud, void *p) { (void)ud; (void)p; }
static void t_release(blk **l)
{
    while (*l) {
        blk *n = (*l)->next;
        free(*l);
        *l = n;
    }
}

static unsigned char *pack(const ProtobufCMessage *m, size_t *n)
{
    *n = protobuf_c_message_get_packed_size(m);
    unsigned char *b = malloc(*n ? *n : 1);
    cr_assert(b);
    cr_assert_eq(protobuf_c_message_pack(m, b), *n);
    return b;
}

static void same_tensor_nulls(const Onnx__TensorProto *x, const Onnx__TensorProto *y)
{
    cr_assert_eq(!x->name, !y->name);
    cr_assert_eq(!x->doc_string, !y->doc_string);
    cr_assert_eq(x->has_raw_data, y->has_raw_data);
    cr_assert_eq(!x->raw_data.data, !y->raw_data.data);
}

static void same_nulls(const Onnx__NodeProto *a, const Onnx__NodeProto *b)
{
    cr_assert_eq(!a->name, !b->name);
    cr_assert_eq(!a->op_type, !b->op_type);
    cr_assert_eq(!a->domain, !b->domain);
    cr_assert_eq(!a->doc_string, !b->doc_string);
    cr_assert_eq(a->n_attribute, b->n_attribute);
    for (size_t i = 0; i < a->n_attribute; i++) {
        const Onnx__AttributeProto *x = a->attribute[i], *y = b->attribute[i];
        cr_assert_eq(!x->name, !y->name);
        cr_assert_eq(!x->doc_string, !y->doc_string);
        cr_assert_eq(!x->ref_attr_name, !y->ref_attr_name);
        cr_assert_eq(x->has_s, y->has_s);
        cr_assert_eq(!x->s.data, !y->s.data);
        cr_assert_eq(!x->t, !y->t);
        if (x->t) same_tensor_nulls(x->t, y->t);
    }
}

/* 1 when the decoder accepted the bytes (and agrees with protobuf-c); tensor: as a TensorProto, else a NodeProto */
static int check(int tensor, const unsigned char *data, size_t len)
{
    blk *l1 = NULL, *l2 = NULL;
    ProtobufCAllocator a1 = {t_alloc, t_free, &l1}, a2 = {t_alloc, t_free, &l2};
    ProtobufCMessage *mine = tensor ? (ProtobufCMessage *)sy_ox_tensor_decode(&a1, len, data)
                                    : (ProtobufCMessage *)sy_ox_node_decode(&a1, len, data);
    ProtobufCMessage *ref = tensor ? (ProtobufCMessage *)onnx__tensor_proto__unpack(&a2, len, data)
                                   : (ProtobufCMessage *)onnx__node_proto__unpack(&a2, len, data);
    int ok = mine != NULL;
    if (mine) {
        cr_assert(ref, "the decoder accepted %zu bytes protobuf-c refuses", len);
        size_t n1, n2;
        unsigned char *p1 = pack(mine, &n1), *p2 = pack(ref, &n2);
        cr_assert(n1 == n2 && !memcmp(p1, p2, n1), "the decoder and protobuf-c disagree on a %s of %zu bytes",
                  tensor ? "tensor" : "node", len);
        free(p1);
        free(p2);
        if (tensor) same_tensor_nulls((Onnx__TensorProto *)mine, (Onnx__TensorProto *)ref);
        else same_nulls((Onnx__NodeProto *)mine, (Onnx__NodeProto *)ref);
    }
    t_release(&l1);
    t_release(&l2);
    return ok;
}

/* check the item, every truncation of it and a changed byte at each offset; the item's and the changed
 * items' acceptance counted */
static void check_all(int tensor, const unsigned char *b, size_t n, unsigned *seed, size_t *accepted, size_t *mutants,
                      size_t *accepted_mutants)
{
    *accepted += (size_t)check(tensor, b, n);
    unsigned char *mut = malloc(n ? n : 1);
    cr_assert(mut);
    for (size_t k = 0; k < n; k++) {
        check(tensor, b, k);
        memcpy(mut, b, n);
        *seed = *seed * 1103515245u + 12345u;
        mut[k] = (unsigned char)(*seed >> 16);
        *accepted_mutants += (size_t)check(tensor, mut, n);
        *mutants += 2;
    }
    free(mut);
}

Test(onnx_node, decoder_agrees_with_protobuf_c)
{
    DIR *d = opendir(SY_TESTS_DIR "/../fuzz/corpus_onnx");
    cr_assert(d);
    struct dirent *e;
    size_t nodes = 0, accepted = 0, mutants = 0, accepted_mutants = 0, inits = 0, accepted_inits = 0;
    unsigned seed = 15;
    while ((e = readdir(d))) {
        if (!strstr(e->d_name, ".onnx")) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", SY_TESTS_DIR "/../fuzz/corpus_onnx", e->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert(f);
        static unsigned char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        sy_ctx *ctx = NULL;
        cr_assert_eq(sy_ctx_new(NULL, &ctx), SY_OK);
        sy_onnx_model *m = NULL;
        if (sy_onnx_load_mem(ctx, buf, n, e->d_name, &m) == SY_OK) {
            /* loaded from memory: the nodes' and initializers' (filtered) bytes are in m->mem */
            for (size_t i = 0; i < m->nnodes; i++, nodes++)
                check_all(0, m->mem + m->nodes[i].off, m->nodes[i].len, &seed, &accepted, &mutants, &accepted_mutants);
            for (size_t i = 0; i < m->ninits; i++, inits++)
                check_all(1, m->mem + m->inits[i].off, m->inits[i].len, &seed, &accepted_inits, &mutants,
                          &accepted_mutants);
        }
        sy_onnx_free(m);
        sy_ctx_free(ctx);
    }
    closedir(d);
    cr_assert_gt(nodes, 50);
    cr_assert_gt(inits, 20);
    cr_assert_gt(mutants, 1000);
    cr_assert_gt(accepted_mutants, mutants / 10); /* changed bytes in names and values: compared too */
    /* the corpus's nodes and initializers are plain */
    cr_assert_geq(accepted * 10, nodes * 9, "the decoder accepted %zu of %zu nodes", accepted, nodes);
    cr_assert_geq(accepted_inits * 10, inits * 9, "the decoder accepted %zu of %zu initializers", accepted_inits, inits);
}
