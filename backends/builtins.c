/* Registration of the built-in backends, through the public call. */
#include "backends/backends_private.h"
#include "symshape/backend.h"
#ifdef SY_HAVE_HTML
#include "backends/html/html.h"
#endif

/* JSON: the guard set's stable serialization (docs/guards.md). */
static sy_status render_json(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)self;
    (void)opts;
    char *s = sy_gset_to_json(gs);
    if (!s) return SY_ENOMEM;
    sy_status st = sy_output_write(out, s, __builtin_strlen(s));
    if (st == SY_OK) st = sy_output_write(out, "\n", 1);
    sy_str_free(sy_gset_ctx(gs), s);
    return st;
}

static const sy_backend json_backend = {"json", "the guard set as JSON (format symshape.guards, version 1)", render_json, NULL};

void sy_backends_register_builtins(void)
{
    sy_backend_register(&json_backend);
    sy_backend_register_c();
    sy_backend_register_report();
    sy_backend_register_bytecode();
    sy_backend_register_smtlib();
#ifdef SY_HAVE_HTML
    sy_backend_register(&sy_html_backend); /* built with cmark-gfm (CMakeLists.txt) */
#endif
}
