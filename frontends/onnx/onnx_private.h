/* Private: the ONNX frontend's reader, values and op table. */
#ifndef SY_ONNX_PRIVATE_H
#define SY_ONNX_PRIVATE_H
#include <stdbool.h>
#include "onnx.pb-c.h"
#include "symshape/onnx.h"

/* Internal helpers shared by the reader's files: their short names are macros for
 * sy_ox_* so that the static library defines only sy_-prefixed globals
 * (tests/namespace.sh; a new helper needs a line here). */
#define ox_alloc sy_ox_alloc
#define ox_attr sy_ox_attr
#define ox_attr_float sy_ox_attr_float
#define ox_attr_floats sy_ox_attr_floats
#define ox_attr_int sy_ox_attr_int
#define ox_attr_ints sy_ox_attr_ints
#define ox_attr_string sy_ox_attr_string
#define ox_check_types sy_ox_check_types
#define ox_dtype sy_ox_dtype
#define ox_elem_name sy_ox_elem_name
#define ox_elem_size sy_ox_elem_size
#define ox_err sy_ox_err
#define ox_find_op sy_ox_find_op
#define ox_is_float sy_ox_is_float
#define ox_is_int sy_ox_is_int
#define ox_keep_bounds sy_ox_keep_bounds
#define ox_run_graph sy_ox_run_graph
#define ox_tensor sy_ox_tensor
#define ox_tensor_made sy_ox_tensor_made
#define ox_tensor_val sy_ox_tensor_val
#define ox_materialize sy_ox_materialize
#define ox_nodes_open sy_ox_nodes_open
#define ox_node_get sy_ox_node_get
#define ox_init_get sy_ox_init_get
#define ox_nodes_close sy_ox_nodes_close
#define ox_node_decode sy_ox_node_decode
#define ox_tensor_decode sy_ox_tensor_decode
#define ox_tensor_unpack sy_ox_tensor_unpack
#define ox_trace_keep sy_ox_trace_keep
#define ox_trace_set_related sy_ox_trace_set_related
#define ox_trace_concrete sy_ox_trace_concrete

/* ONNX TensorProto.DataType codes (onnx.proto) */
enum {
    OX_UNDEF = 0, OX_FLOAT = 1, OX_UINT8 = 2, OX_INT8 = 3, OX_UINT16 = 4, OX_INT16 = 5, OX_INT32 = 6, OX_INT64 = 7,
    OX_STRING = 8, OX_BOOL = 9, OX_FLOAT16 = 10, OX_DOUBLE = 11, OX_UINT32 = 12, OX_UINT64 = 13, OX_COMPLEX64 = 14,
    OX_COMPLEX128 = 15, OX_BFLOAT16 = 16
};

/* protobuf-c's allocations of one unpack, released at once (onnx_read.c) */
typedef struct ox_arena ox_arena;
typedef struct ox_achunk ox_achunk;
struct ox_arena {
    sy_ctx *ctx;
    ox_achunk *chunks;
    int oom;
};

/* a node of the main graph: its bytes in the file (or in mem) */
typedef struct ox_range {
    uint64_t off;
    uint32_t len;    /* a NodeProto over 4 GiB is refused */
    uint32_t filter; /* a payload to drop when reading it */
} ox_range;

typedef struct ox_span {
    uint32_t off, len;
} ox_span;

struct sy_onnx_model {
    sy_ctx *ctx;
    char *name;
    int fd;                    /* the file (sy_onnx_load_file), open until sy_onnx_free; -1: from memory */
    size_t flen;
    unsigned char *kept;       /* during the load: the filtered protobuf bytes without the nodes */
    size_t kept_len, kept_cap, skipped;
    ox_range *nodes;           /* the main graph's nodes, read one at a time (ox_node_get) */
    size_t nnodes, nodecap, node_bytes;
    ox_range *inits;           /* the main graph's initializers, read one at a time (ox_init_get) */
    size_t ninits, initcap, namecap;
    const char **init_names;   /* their names (in arena) */
    unsigned char *prime;      /* from a file: the initializers' filtered bytes the pre-scan had read (up to
                                  PRIME_MAX bytes in all), until the first trace's nodes begin: its ox_init_get
                                  decodes them from here instead of reading the file again (NULL: read the file) */
    size_t prime_len, prime_cap, prime_atcap;
    ox_span *prime_at;         /* initcap entries: initializer i's bytes in prime; len UINT32_MAX: not primed */
    unsigned char *nprime;     /* from a file whose nodes span at most WIN_NODES_MIN bytes, all of them in the
                                  pre-scan's window as it stepped over them: the file's bytes [nprime_lo, + nprime_len),
                                  until the first trace opens its nodes (its node window starts with them) */
    uint64_t nprime_lo;
    size_t nprime_len, nprime_cap;
    int nprime_off;            /* the nodes are not primed (larger, or not in the window) */
    unsigned char *tmp;        /* during the load: an initializer's filtered bytes */
    size_t tmpcap;
    unsigned char *mem;        /* from memory: the filtered nodes (ox_range into it) */
    size_t mem_len, mem_cap;
    ox_arena arena;            /* the unpacked skeleton */
    Onnx__ModelProto *proto;   /* the skeleton: everything but the main graph's nodes */
    const Onnx__GraphProto *graph;
    int64_t opset;
    sy_onnx_input *inputs;
    size_t ninputs;
};

/* reading the main graph's nodes one at a time: each ox_node_get returns a
 * node valid until the next call or ox_nodes_close */
typedef struct ox_nodes ox_nodes;
sy_status ox_nodes_open(const sy_onnx_model *m, ox_nodes **out);
sy_status ox_node_get(ox_nodes *r, size_t i, const Onnx__NodeProto **out);
sy_status ox_init_get(ox_nodes *r, size_t i, const Onnx__TensorProto **out);
void ox_nodes_close(ox_nodes *r);

/* a NodeProto decoded directly (onnx_node.c) into what onnx__node_proto__unpack would give, allocated
 * from a; NULL when it declines (the node has something else than the common fields, or is malformed, or
 * memory ran out): the caller unpacks it with protobuf-c then */
Onnx__NodeProto *ox_node_decode(ProtobufCAllocator *a, size_t len, const uint8_t *data);
/* the same for a TensorProto (what onnx__tensor_proto__unpack would give; NULL: declined), except that
 * raw_data is not copied: it points into data, so the tensor's raw_data is valid while data is (a node's
 * bytes, as long as the node; an initializer's, until the next ox_init_get) */
Onnx__TensorProto *ox_tensor_decode(ProtobufCAllocator *a, size_t len, const uint8_t *data);
/* ox_tensor_decode, or protobuf-c's unpack where it declines (NULL: not a valid TensorProto, or out of memory);
 * raw_data valid while data is */
Onnx__TensorProto *ox_tensor_unpack(ProtobufCAllocator *a, size_t len, const uint8_t *data);

sy_dtype ox_dtype(int elem);
const char *ox_elem_name(int elem);
int ox_is_int(int elem);
int ox_is_float(int elem);
size_t ox_elem_size(int elem);

/* ---- trace values */
typedef struct ox_val {       /* 48 bytes: one per value of the graph */
    const char *name;
    const sy_tensor *t;        /* shape */
    const sy_expr **iv;        /* integer / boolean element values, or NULL */
    union {                    /* never both (a tensor with kv holds its values): read through ox_kv and ox_eb */
        const int64_t *kv;     /* constant integer element values not yet built as iv (a constant tensor holding a
                                  value beyond FLINT's small integers, |x| >= 2^62, such as Slice's INT64_MAX end:
                                  building it would make FLINT allocate its first bignum block, ~167 KB), or NULL;
                                  ox_materialize builds iv from it */
        const sy_expr *const *eb; /* an integer tensor whose values are not held: eb[0] <= every element <= eb[1]
                                  (Range's first and last element, kept through the ops that only move elements,
                                  ox_keep_bounds, and mapped by Add/Sub/Mul/Div/Min/Max with a scalar and Neg),
                                  or NULL; Gather, GatherElements, ScatterElements and depth-1 GatherND/ScatterND
                                  check their indices against them when they are tight (has_eb 1) */
    } u;
    double *fv;                /* floating constant element values, or NULL */
    int32_t elem;              /* ONNX elem type */
    uint16_t nv;               /* number of element values held (== numel when held; <= SY_ONNX_MAX_VALUES) */
    uint8_t role;              /* 1 input, 2 initializer, 3 output, 0 other */
    uint8_t has_eb;            /* 1: u is eb, tight (some element is eb[0] and some is eb[1] when the tensor is
                                  not empty); 2: u is eb, loose (a subset's: Gather); 3: u is eb, tight,
                                  and the elements are affine in the index (ox_aff): eb[2 + 1 + j] for each dim j
                                  of t, element (k_0, ...) = eb[2] + sum eb[3 + j] * k_j (a Range, and what
                                  Slice, Reshape, Transpose, Expand, Add/Sub/Mul with a scalar, Neg make of
                                  it); 0: u is kv */
} ox_val;
static inline const int64_t *ox_kv(const ox_val *v) { return v->has_eb ? NULL : v->u.kv; }
static inline const sy_expr *const *ox_eb(const ox_val *v) { return v->has_eb ? v->u.eb : NULL; }
static inline void ox_set_kv(ox_val *v, const int64_t *kv) { v->u.kv = kv, v->has_eb = 0; }
static inline void ox_set_eb(ox_val *v, const sy_expr *const *eb, int loose) { v->u.eb = eb, v->has_eb = loose ? 2 : 1; }
/* the affine form of v's elements (has_eb 3): a[0] the element at index 0, a[1 + j] the step along dim j; or NULL */
static inline const sy_expr *const *ox_aff(const ox_val *v) { return v->has_eb == 3 ? v->u.eb + 2 : NULL; }

typedef struct ox_scope ox_scope;

typedef struct ox_call {
    struct sy_onnx_trace *tr;
    sy_env *env;
    sy_ctx *ctx;
    ox_scope *scope;
    const Onnx__NodeProto *node;
    const char *nname;         /* node name or "#index" */
    int64_t opset;
    size_t nin;
    ox_val **in;               /* NULL entries: absent optional inputs */
    size_t nout;
    ox_val *out;               /* filled by the rule (name set by the caller) */
    sy_provenance why;
} ox_call;

typedef sy_status (*ox_rule)(ox_call *c);
typedef struct ox_op {
    const char *name;
    ox_rule rule;
    int min_in, max_in;        /* input count bounds (max -1: variadic) */
    unsigned raw;              /* bit k: the rule reads input k's ox_val.kv itself (else run_node builds iv first) */
} ox_op;
/* after a node's rule: output 0 gets input 0's element bounds (its eb, or the Min and Max of its held values)
 * when the op only moves elements of input 0 (a table in onnx_ops.c: Identity, Unsqueeze, Squeeze, Reshape,
 * Flatten, Expand, Tile, Transpose, Slice, Gather, Dropout, Cast, CastLike; an affine form (ox_aff) through the
 * ops that keep the index map, Slice's own rule aside), output 0 holds no values and its
 * element type is input 0's or int64 (a Cast that cannot wrap); SY_ENOMEM (or the algebra's error) when
 * building Min/Max fails */
sy_status ox_keep_bounds(ox_call *c);
const ox_op *ox_find_op(const char *name);
/* the ONNX type constraints of the node's inputs (onnx_types.c, from the operator schemas): SY_EINVAL naming
 * the node, the input and the types when an input's element type is not one its schema allows, or differs
 * from another input of the same type letter; inputs of unknown element type are not checked */
sy_status ox_check_types(ox_call *c);

/* helpers the rules use (onnx_trace.c) */
sy_status ox_err(ox_call *c, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
const Onnx__AttributeProto *ox_attr(ox_call *c, const char *name);
sy_status ox_attr_int(ox_call *c, const char *name, int64_t dflt, int64_t *out);
sy_status ox_attr_float(ox_call *c, const char *name, double dflt, double *out);
sy_status ox_attr_ints(ox_call *c, const char *name, size_t *n, const int64_t **v); /* *n = 0, *v = NULL when absent */
sy_status ox_attr_floats(ox_call *c, const char *name, size_t *n, const float *const **unused, const float **v);
sy_status ox_attr_string(ox_call *c, const char *name, const char *dflt, char *buf, size_t cap);
/* a TensorProto as a value; errors name it "KIND 'NAME'" (NAME NULL: KIND alone) */
/* builds v->iv from v->kv when only kv is held (a no-op otherwise) */
sy_status ox_materialize(struct sy_onnx_trace *tr, ox_val *v);
sy_status ox_trace_keep(sy_env *env, const sy_onnx_model *m, const sy_onnx_trace_options *opts, sy_onnx_trace **out,
                        sy_onnx_trace **failed);
sy_status ox_trace_set_related(struct sy_onnx_trace *t, const char *note);
/* 1: the trace is a concrete run (sy_onnx_trace_options.concrete: every input dim static at a point,
 * probe's real outputs), where a constant size is the point's, not necessarily the model's */
int ox_trace_concrete(const struct sy_onnx_trace *tr);
sy_status ox_tensor_val(struct sy_onnx_trace *tr, const Onnx__TensorProto *tp, const char *kind, const char *name, ox_val *out);
/* the trace's tensor of dtype and sizes (no strides), shared by every value of that shape; NULL on error */
const sy_tensor *ox_tensor(struct sy_onnx_trace *tr, sy_dtype dt, size_t nd, const sy_expr *const *sz);
/* ox_tensor, and *made = 1 when this call made the tensor (its shape is new to the trace), else 0
 * (also when out of memory lost the sharing: then the tensor is made again next time) */
const sy_tensor *ox_tensor_made(struct sy_onnx_trace *tr, sy_dtype dt, size_t nd, const sy_expr *const *sz, int *made);
void *ox_alloc(ox_call *c, size_t size);
sy_status ox_run_graph(struct sy_onnx_trace *tr, ox_scope *parent, const Onnx__GraphProto *g, size_t nbind,
                       const char *const *bind_names, ox_val *const *bind_vals, ox_val ***outs, ox_scope **scope_out);
#endif
