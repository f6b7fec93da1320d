/* The "html" backend (backends/html/html.c): a built-in backend of
 * libsymshape when it is built with cmark-gfm (SY_HAVE_HTML), registered
 * with the others (backends/builtins.c). */
#ifndef SY_BACKENDS_HTML_H
#define SY_BACKENDS_HTML_H
#include "symshape/backend.h"

/** The backend: name "html". Rendering needs the graph in
 *  sy_backend_options.graph for the SVG (without one the page says so) and
 *  Graphviz's `dot` on PATH (missing: SY_EUNSUPPORTED, "... 'dot', which is
 *  not on PATH (apt-get install graphviz)"). */
extern const sy_backend sy_html_backend;
#endif
