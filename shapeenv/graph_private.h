/* Private: graph internals (shared with tests). */
#ifndef SY_GRAPH_PRIVATE_H
#define SY_GRAPH_PRIVATE_H
#include <jansson.h>
#include "shapeenv/env_private.h"

/* A node's argument (or the outputs) as validated and parsed once at load,
 * in one walk over the JSON, so that a trace builds its sy_values without
 * jansson.
 * Values live in sy_graph.gv; a list's (or a slice's three) items are the
 * contiguous slots [first, first + n). Strings are borrowed from root. */
enum { GV_NONE, GV_BOOL, GV_INT, GV_REAL, GV_STR, GV_LIST, GV_REF, GV_SLICE, GV_ELLIPSIS, GV_DTYPE, GV_BADDTYPE };
typedef struct gval {
    unsigned char kind;
    union {
        int64_t i;      /* GV_INT; GV_BOOL: 0 or 1 */
        double f;       /* GV_REAL */
        const char *s;  /* GV_STR; GV_BADDTYPE: the unknown dtype's name */
        size_t ref;     /* GV_REF: the node index */
        sy_dtype dtype; /* GV_DTYPE */
        struct { size_t n, first; } list; /* GV_LIST, GV_SLICE (n = 3) */
    } u;
} gval;

enum { GN_CALL, GN_INPUT, GN_PARAM, GN_CONSTANT };

typedef struct gnode {
    const char *name, *op;
    json_t *j; /* the node object (borrowed from root) */
    sy_loc loc; /* the node's "loc" (strings borrowed from root); file NULL: none */
    bool read;  /* a later node or the outputs refer to it */
    /* compiled at load */
    unsigned char kind; /* GN_* */
    bool proxy;         /* a positional string argument holds "Proxy(" (trace.c resolve_proxies) */
    bool memo;          /* the trace's op memo may key it: sy_env_op_memoizable(op), no proxy, no bad dtype */
    sy_dtype dtype;     /* GN_INPUT, GN_PARAM */
    size_t ndim, shape; /* GN_INPUT, GN_PARAM: the shape is sy_graph.shapes[shape, shape + ndim) */
    bool has_values;    /* GN_PARAM with "values": its least and greatest elements vlo, vhi */
    int64_t vlo, vhi;
    int64_t vstep;      /* "values" [least, greatest, step]: the elements in row-major order are the
                         * sequence from least (step > 0) or greatest (step < 0); 0: not given */
    size_t na, args;    /* positional arguments: gv[args, args + na); GN_CONSTANT: the value, na = 1 */
    size_t nk, kw, kwv; /* keyword arguments: names kwnames[kw, kw + nk), values gv[kwv, kwv + nk) */
    size_t nref, refl;  /* memo nodes: the refs of the arguments in order, reflist[refl, refl + nref) */
    size_t tid;         /* memo nodes: equal for nodes with the same op, keyword names and arguments but for refs */
} gnode;

struct sy_graph {
    sy_ctx *ctx;
    json_t *root;
    char *name;
    gnode *nodes;
    size_t n;
    size_t *hash; /* open addressing: index + 1, 0 empty */
    size_t hcap;
    sy_graph_input *inputs;
    size_t ninputs;
    json_t *outputs;
    gval *gv; /* the compiled arguments of every node (gnode), and the outputs */
    size_t outv; /* gv[outv]: the outputs, a GV_LIST */
    size_t ngv, gvcap;
    int64_t *shapes; /* input and param shapes */
    size_t nshapes, shapecap;
    const char **kwnames; /* keyword names (borrowed from root) */
    size_t nkwn, kwncap;
    size_t *reflist; /* memo nodes' argument refs */
    size_t nreflist, reflistcap;
    int torch_version; /* "torch_version": major * 100 + minor, 0 when absent */
};

/* The node's "example" object (borrowed) or NULL. */
const json_t *sy_graph_node_example(const sy_graph *g, size_t i);
/* The interpreter value of a compiled argument or output, gv[slot]; refs are
 * resolved through vals (node values, computed in order). Errors: SY_EFORMAT
 * "unknown dtype 'NAME'", SY_ENOMEM. */
sy_status sy_graph_gvalue(sy_env *env, const sy_graph *g, size_t slot, const sy_value *vals, sy_value *out);
#endif
