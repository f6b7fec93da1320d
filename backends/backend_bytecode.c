/* The "bytecode" backend: the guard set compiled (sy_bc_compile) and
 * serialized (sy_bc_encode, docs/bytecode.md). The output is binary. */
#include "backends/backends_private.h"
#include "symshape/bc.h"

static sy_status render_bytecode(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)self;
    (void)opts;
    sy_bc_program *p;
    sy_status st = sy_bc_compile(gs, &p);
    if (st) return st;
    unsigned char *data;
    size_t len;
    st = sy_bc_encode(p, &data, &len);
    if (!st) {
        st = sy_output_write(out, data, len);
        sy_mem_free(sy_gset_ctx(gs), data);
    }
    sy_bc_free(p);
    return st;
}

static const sy_backend bytecode_backend = {
    "bytecode", "the guard set compiled to verified bytecode (binary, docs/bytecode.md)", render_bytecode, NULL};

void sy_backend_register_bytecode(void) { sy_backend_register(&bytecode_backend); }
