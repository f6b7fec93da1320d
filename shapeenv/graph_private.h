/* Private: graph internals (shared with tests). */
#ifndef SY_GRAPH_PRIVATE_H
#define SY_GRAPH_PRIVATE_H
#include <jansson.h>
#include "shapeenv/env_private.h"

typedef struct gnode {
    const char *name, *op;
    json_t *j; /* the node object (borrowed from root) */
    sy_loc loc; /* the node's "loc" (strings borrowed from root); file NULL: none */
    bool read;  /* a later node or the outputs refer to it */
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
    /* every {"ref": NAME} object of the document -> the index of NAME's node,
     * by the object's address (filled while the loader validates the refs):
     * sy_graph_value resolves a ref without looking up "ref" and hashing and
     * comparing the name again on every trace */
    struct gref { const json_t *obj; size_t node; } *refs;
    size_t nrefs, refcap;
};

/* The node's "example" object (borrowed) or NULL. */
const json_t *sy_graph_node_example(const sy_graph *g, size_t i);
/* Convert a JSON value of the graph into an interpreter value; refs are
 * resolved through vals (node values, computed in order). */
sy_status sy_graph_value(sy_env *env, const sy_graph *g, const json_t *j, const sy_value *vals, sy_value *out);
#endif
