/* The "html" backend: one self-contained HTML page of a guard report (issue 13
 * item 7), a built-in backend of libsymshape when it is built with cmark-gfm
 * (issue 33: the CLI, the Python binding and any C consumer render it). The
 * library gains no link dependency: cmark-gfm (Debian libcmark-gfm-dev,
 * GitHub's CommonMark with the table extension) is loaded when a page is
 * rendered, and Graphviz's `dot` is run as a program.
 *
 * The page is the "markdown" backend's report (inputs with dims, ranges and
 * status; the guards by kind; violations with suggested fixes; Implied;
 * totals) rendered to HTML by cmark-gfm, plus the graph drawn as SVG by `dot`
 * (run as a child process on a temporary file: Graphviz's own layout, no
 * hand-written one), with the nodes that forced guards filled and linked to
 * their guard rows (#guard-N). Raw HTML in the markdown (none is emitted: free
 * text is backslash-escaped there) is turned into text before rendering, so
 * strings from a graph file cannot inject markup; the only HTML added is the
 * backend's own anchors. A Content-Security-Policy forbids every network
 * load; there is no script. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dlfcn.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

#include "backends/html/html.h"
#include "symshape/graph.h"

/* cmark-gfm is loaded when a page is rendered (dlopen by the sonames the
 * build found, SY_CMARK_SONAME and SY_CMARK_EXT_SONAME), not linked: every
 * other command of the CLI starts without relocating it (valgrind
 * --tool=callgrind `symshape --version`: 8.65M -> 8.31M instructions). */
#define SY_CMARK_FNS(X)                                                                                              \
    X(cmark_parser_new) X(cmark_find_syntax_extension) X(cmark_parser_attach_syntax_extension) X(cmark_parser_free) \
    X(cmark_parser_feed) X(cmark_parser_finish) X(cmark_iter_new) X(cmark_iter_next) X(cmark_iter_get_node)         \
    X(cmark_iter_free) X(cmark_node_get_type) X(cmark_node_new) X(cmark_node_append_child) X(cmark_node_get_literal) \
    X(cmark_node_set_literal) X(cmark_node_replace) X(cmark_node_free) X(cmark_node_get_heading_level)              \
    X(cmark_node_get_type_string) X(cmark_node_first_child) X(cmark_node_prepend_child) X(cmark_render_html)        \
    X(cmark_parser_get_syntax_extensions)
#define SY_CMARK_EXT_FNS(X) X(cmark_gfm_core_extensions_ensure_registered)
#define SY_CM_FIELD(f) __typeof__(f) *f;
static struct {
    int state; /* 0 not tried, 1 loaded, -1 failed (err says why) */
    char err[300];
    SY_CMARK_FNS(SY_CM_FIELD)
    SY_CMARK_EXT_FNS(SY_CM_FIELD)
} cm;
#undef SY_CM_FIELD

/* 0, or -1 with cm.err set */
static int cmark_load(void)
{
    if (cm.state) return cm.state > 0 ? 0 : -1;
    cm.state = -1;
    void *core = dlopen(SY_CMARK_SONAME, RTLD_NOW | RTLD_LOCAL);
    void *ext = core ? dlopen(SY_CMARK_EXT_SONAME, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!core || !ext) {
        const char *e = dlerror();
        snprintf(cm.err, sizeof cm.err, "html: cannot load cmark-gfm (%s): %s", core ? SY_CMARK_EXT_SONAME : SY_CMARK_SONAME,
                 e ? e : "unknown error");
        return -1;
    }
    /* a data pointer converted to a function pointer: what dlsym's POSIX contract allows */
#define SY_CM_LOAD(h, f)                                                                     \
    if (!(*(void **)&cm.f = dlsym(h, #f))) {                                                 \
        snprintf(cm.err, sizeof cm.err, "html: cmark-gfm (%s) has no %s", SY_CMARK_SONAME, #f); \
        return -1;                                                                           \
    }
#define SY_CM_CORE(f) SY_CM_LOAD(core, f)
#define SY_CM_EXT(f) SY_CM_LOAD(ext, f)
    SY_CMARK_FNS(SY_CM_CORE)
    SY_CMARK_EXT_FNS(SY_CM_EXT)
#undef SY_CM_CORE
#undef SY_CM_EXT
#undef SY_CM_LOAD
    cm.state = 1;
    return 0;
}
typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} buf;

static void bput(buf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->n + n + 1) nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void bputs(buf *b, const char *s) { bput(b, s, strlen(s)); }

/* a control character (not a tab or newline) or DEL as the text \xHH, as the text report writes
 * it: no character reference can stand for it in HTML or in the SVG (XML 1.0), and raw it would
 * reach a terminal that prints the page (fix38) */
static int ctl_esc(buf *b, unsigned char c)
{
    if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n') return 0;
    char e[5];
    snprintf(e, sizeof e, "\\x%02x", c);
    bputs(b, e);
    return 1;
}

/* HTML text / attribute escaping */
static void besc(buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': bputs(b, "&amp;"); break;
        case '<': bputs(b, "&lt;"); break;
        case '>': bputs(b, "&gt;"); break;
        case '"': bputs(b, "&quot;"); break;
        default:
            if (!ctl_esc(b, (unsigned char)*s)) bput(b, s, 1);
        }
    }
}

/* DOT string escaping (inside "..."). Graphviz refuses a quoted string longer than 16384
 * bytes ("syntax error ... longer than 16384?"), so a name has no length limit only if the
 * drawing cuts it: at most DOT_MAX bytes of text (escaped, at most twice that), cut at a UTF-8
 * character boundary and ended with "...". The report's text keeps the whole name. */
#define DOT_MAX 2000
static void dotesc(buf *b, const char *s)
{
    size_t n = 0;
    for (; s && *s; s++, n++) {
        if (n >= DOT_MAX && ((unsigned char)*s & 0xC0) != 0x80) {
            bputs(b, "...");
            return;
        }
        if (*s == '"' || *s == '\\') bput(b, "\\", 1);
        if (*s == '\n') bputs(b, " ");
        else if (*s == '\t') bputs(b, " ");
        else if (((unsigned char)*s < 0x20 || *s == 0x7f)) { /* \xHH as the page writes it, its backslash escaped */
            char e[6];
            snprintf(e, sizeof e, "\\\\x%02x", (unsigned char)*s);
            bputs(b, e);
        } else bput(b, s, 1);
    }
}

/* ---------------------------------------------------------------- markdown -> HTML */

static const char *node_text(cmark_node *n)
{
    cmark_node *c = cm.cmark_node_first_child(n);
    if (c && cm.cmark_node_get_type(c) == CMARK_NODE_TEXT) return cm.cmark_node_get_literal(c);
    if (c && cm.cmark_node_get_type(c) == CMARK_NODE_CODE) return cm.cmark_node_get_literal(c);
    return NULL;
}

static int md_to_html(const char *md, size_t len, buf *out)
{
    cm.cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *p = cm.cmark_parser_new(CMARK_OPT_DEFAULT);
    cmark_syntax_extension *table = cm.cmark_find_syntax_extension("table");
    if (!p || !table || !cm.cmark_parser_attach_syntax_extension(p, table)) {
        if (p) cm.cmark_parser_free(p);
        return -1;
    }
    cm.cmark_parser_feed(p, md, len);
    cmark_node *doc = cm.cmark_parser_finish(p);
    if (!doc) {
        cm.cmark_parser_free(p);
        return -1;
    }
    /* collect first (the tree changes below) */
    size_t cap = 1024, nn = 0;
    cmark_node **nodes = malloc(cap * sizeof *nodes);
    cmark_iter *it = cm.cmark_iter_new(doc);
    cmark_event_type ev;
    while (nodes && (ev = cm.cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        if (ev != CMARK_EVENT_ENTER) continue;
        if (nn == cap) {
            cmark_node **nx = realloc(nodes, (cap *= 2) * sizeof *nodes);
            if (!nx) {
                free(nodes);
                nodes = NULL;
                break;
            }
            nodes = nx;
        }
        nodes[nn++] = cm.cmark_iter_get_node(it);
    }
    cm.cmark_iter_free(it);
    int rc = nodes ? 0 : -1;
    int in_guards = 0; /* inside the "Guards" section: rows "| N | ..." get id guard-N */
    for (size_t i = 0; i < nn && !rc; i++) {
        cmark_node *n = nodes[i];
        cmark_node_type t = cm.cmark_node_get_type(n);
        if (t == CMARK_NODE_HTML_INLINE || t == CMARK_NODE_HTML_BLOCK) {
            /* never pass markup from the report's text through */
            cmark_node *txt = cm.cmark_node_new(CMARK_NODE_TEXT), *rep = txt;
            if (txt && t == CMARK_NODE_HTML_BLOCK) { /* a block needs a paragraph around its text */
                rep = cm.cmark_node_new(CMARK_NODE_PARAGRAPH);
                if (rep && !cm.cmark_node_append_child(rep, txt)) rep = NULL;
            }
            const char *lit = cm.cmark_node_get_literal(n);
            if (!txt || !rep || !cm.cmark_node_set_literal(txt, lit ? lit : "") || !cm.cmark_node_replace(n, rep)) {
                rc = -1;
                break;
            }
            cm.cmark_node_free(n);
            continue;
        }
        if (t == CMARK_NODE_HEADING && cm.cmark_node_get_heading_level(n) == 2) {
            const char *h = node_text(n);
            in_guards = h && !strcmp(h, "Guards");
        }
        if (in_guards && !strcmp(cm.cmark_node_get_type_string(n), "table_row")) {
            cmark_node *cell = cm.cmark_node_first_child(n);
            const char *num = cell ? node_text(cell) : NULL;
            if (num && *num && strspn(num, "0123456789") == strlen(num)) {
                char a[64];
                snprintf(a, sizeof a, "<a id=\"guard-%s\"></a>", num);
                cmark_node *h = cm.cmark_node_new(CMARK_NODE_HTML_INLINE);
                if (!h || !cm.cmark_node_set_literal(h, a) || !cm.cmark_node_prepend_child(cell, h)) rc = -1;
            }
        }
    }
    free(nodes);
    if (!rc) {
        char *html = cm.cmark_render_html(doc, CMARK_OPT_UNSAFE, cm.cmark_parser_get_syntax_extensions(p));
        if (html) {
            bputs(out, html);
            free(html);
        } else {
            rc = -1;
        }
    }
    cm.cmark_node_free(doc);
    cm.cmark_parser_free(p);
    return rc;
}

/* ---------------------------------------------------------------- the graph as SVG */

/* The guards each node forced (their origins), as "#guard-N" link and a title. */
static void node_guards(const sy_gset *gs, const char *node, long *first, buf *title)
{
    *first = -1;
    for (size_t i = 0; i < sy_gset_size(gs); i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        for (size_t o = 0; o < g->norigins; o++)
            if (g->origins[o].node && !strcmp(g->origins[o].node, node)) {
                if (*first < 0) *first = (long)i;
                char h[32];
                snprintf(h, sizeof h, "%s[%zu] ", title->n ? "; " : "", i);
                bputs(title, h);
                bputs(title, g->display);
                break;
            }
    }
}

/* The CPU seconds dot may spend laying out the graph: SYMSHAPE_DOT_CPU_SECONDS (1 to 86400),
 * else 60. dot's layout is super-linear (a 250-node chain whose nodes all read the input took
 * over 100 s: issue 38, fourth pass), so it runs under `ulimit -t`; CPU time, not wall time, so a
 * loaded machine does not cut a drawing that an idle one finishes. */
static long dot_cpu_seconds(void)
{
    const char *e = getenv("SYMSHAPE_DOT_CPU_SECONDS");
    char *end = NULL;
    long v = e && *e ? strtol(e, &end, 10) : 0;
    return e && *e && end && !*end && v >= 1 && v <= 86400 ? v : 60;
}

/* dot -Tsvg on a temporary file; the SVG (without its XML prolog) appended to
 * out. Returns 0; 1 when dot used up its CPU seconds (*secs, nothing appended); or -1 with a
 * message in err. */
static int run_dot(const char *dot, size_t len, buf *out, long *secs, char *err, size_t errlen)
{
    const char *tmpdir = getenv("TMPDIR");
    char path[400];
    if (!tmpdir || !*tmpdir || strlen(tmpdir) > 300 || strchr(tmpdir, '\'')) tmpdir = "/tmp";
    snprintf(path, sizeof path, "%s/symshape-html-XXXXXX", tmpdir);
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, errlen, "html: cannot create a temporary file in %s", tmpdir);
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    int ok = f && fwrite(dot, 1, len, f) == len;
    if (f) ok &= fclose(f) == 0;
    else close(fd);
    if (!ok) {
        unlink(path);
        snprintf(err, errlen, "html: cannot write the graph to %.300s", path);
        return -1;
    }
    char cmd[520];
    *secs = dot_cpu_seconds();
    snprintf(cmd, sizeof cmd, "ulimit -t %ld 2>/dev/null; exec dot -Tsvg '%s' 2>&1", *secs, path);
    FILE *pp = popen(cmd, "r");
    buf svg = {0};
    char chunk[65536];
    size_t r;
    while (pp && (r = fread(chunk, 1, sizeof chunk, pp)) > 0) bput(&svg, chunk, r);
    int status = pp ? pclose(pp) : -1;
    unlink(path);
    if (status >= 0 && WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)) {
        free(svg.p);
        return 1;
    }
    int code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 0 || svg.oom) {
        if (code == 127)
            snprintf(err, errlen, "html: the graph is laid out by Graphviz's 'dot', which is not on PATH "
                                  "(apt-get install graphviz)");
        else
            snprintf(err, errlen, "html: dot -Tsvg failed (exit %d): %.300s", code, svg.p ? svg.p : "");
        free(svg.p);
        return -1;
    }
    const char *s = svg.p ? strstr(svg.p, "<svg") : NULL;
    if (!s) {
        snprintf(err, errlen, "html: dot -Tsvg wrote no <svg>");
        free(svg.p);
        return -1;
    }
    bputs(out, s);
    free(svg.p);
    return 0;
}

static int graph_svg(const sy_gset *gs, const sy_graph *g, buf *out, size_t *nforced, long *secs, char *err,
                     size_t errlen)
{
    buf d = {0};
    bputs(&d, "digraph G {\n  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=10];\n"
              "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=9, "
              "height=0.2];\n  edge [arrowsize=0.5, color=\"#888888\"];\n");
    size_t nn = sy_graph_nnodes(g);
    long refs[64];
    *nforced = 0;
    for (size_t i = 0; i < nn; i++) {
        const char *name = sy_graph_node_name(g, i), *op = sy_graph_node_op(g, i);
        long first;
        buf title = {0};
        node_guards(gs, name, &first, &title);
        char id[32];
        snprintf(id, sizeof id, "n%zu", i);
        bputs(&d, "  ");
        bputs(&d, id);
        bputs(&d, " [id=\"node-");
        dotesc(&d, name);
        bputs(&d, "\", label=\"");
        dotesc(&d, name);
        if (op && strcmp(op, name)) {
            bputs(&d, "\\n");
            dotesc(&d, op);
        }
        bputs(&d, "\"");
        if (!strcmp(op ? op : "", "input")) bputs(&d, ", fillcolor=\"#dbeafe\"");
        if (first >= 0) {
            char u[128];
            snprintf(u, sizeof u, ", URL=\"#guard-%ld\", fillcolor=\"#fca5a5\", penwidth=2, class=\"forced\"", first);
            bputs(&d, u);
            bputs(&d, ", tooltip=\"forced ");
            dotesc(&d, title.p);
            bputs(&d, "\"");
            (*nforced)++;
        }
        free(title.p);
        bputs(&d, "];\n");
        size_t nr = sy_graph_node_refs(g, i, refs, 64);
        for (size_t k = 0; k < nr && k < 64; k++) {
            bool dup = false;
            for (size_t q = 0; q < k && !dup; q++) dup = refs[q] == refs[k];
            if (dup) continue;
            char e[64];
            snprintf(e, sizeof e, "  n%ld -> n%zu;\n", refs[k], i);
            bputs(&d, e);
        }
    }
    bputs(&d, "}\n");
    int rc = d.oom ? (snprintf(err, errlen, "out of memory"), -1) : run_dot(d.p, d.n, out, secs, err, errlen);
    free(d.p);
    return rc;
}

/* ---------------------------------------------------------------- the page */

static const char css[] =
    "body{font-family:system-ui,Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:90em;padding:0 1em;color:#111}"
    "table{border-collapse:collapse;margin:.5em 0 1.2em}th,td{border:1px solid #ccc;padding:.25em .5em;"
    "vertical-align:top;font-size:.9em}th{background:#f3f4f6}code{font-family:ui-monospace,monospace;"
    "background:#f3f4f6;padding:0 .2em}tr:target,tr:has(a:target){background:#fef3c7}"
    "#graph{overflow:auto;border:1px solid #ccc;max-height:80em}#graph svg{max-width:none}"
    "g.forced polygon,g.forced path{stroke:#b91c1c}";

static sy_status render_html(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)self;
    sy_ctx *ctx = sy_gset_ctx(gs);
    unsigned char *md = NULL;
    size_t mdlen = 0;
    sy_status st = sy_backend_render("markdown", gs, opts, &md, &mdlen);
    if (st) return st;
    buf page = {0};
    const char *model = sy_gset_model(gs);
    bputs(&page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                 "<title>symshape guard report: ");
    besc(&page, model ? model : "model");
    bputs(&page, "</title>\n<style>");
    bputs(&page, css);
    bputs(&page, "</style>\n</head>\n<body>\n<main id=\"report\">\n");
    if (cmark_load()) {
        sy_mem_free(ctx, md);
        free(page.p);
        return sy_backend_fail(gs, SY_EUNSUPPORTED, "%s", cm.err);
    }
    int rc = md_to_html((const char *)md, mdlen, &page);
    sy_mem_free(ctx, md);
    if (rc) {
        free(page.p);
        return sy_backend_fail(gs, SY_ENOMEM, "html: cmark-gfm could not render the report");
    }
    bputs(&page, "</main>\n<section id=\"graph-section\">\n<h2>Graph</h2>\n");
    const sy_graph *g = opts ? opts->graph : NULL;
    if (g) {
        size_t nforced = 0;
        buf svg = {0};
        char err[512] = "";
        long secs = 0;
        int drc = graph_svg(gs, g, &svg, &nforced, &secs, err, sizeof err);
        if (drc < 0) {
            free(svg.p);
            free(page.p);
            return sy_backend_fail(gs, SY_EUNSUPPORTED, "%s", err);
        }
        char line[320];
        if (drc > 0) /* the drawing is the page's only unbounded part; the report above is whole */
            snprintf(line, sizeof line,
                     "<p>%zu nodes, not drawn: Graphviz's dot used its %ld s of CPU time "
                     "(SYMSHAPE_DOT_CPU_SECONDS) laying them out. The report above is complete.</p>\n",
                     sy_graph_nnodes(g), secs);
        else
            snprintf(line, sizeof line,
                     "<p>%zu nodes, laid out by Graphviz (dot); the %zu filled red forced guards: each links to its guard.</p>\n",
                     sy_graph_nnodes(g), nforced);
        bputs(&page, line);
        if (drc == 0) {
            bputs(&page, "<div id=\"graph\">\n");
            bput(&page, svg.p ? svg.p : "", svg.n);
            bputs(&page, "</div>\n");
        }
        free(svg.p);
    } else {
        bputs(&page, "<p>No graph was given to the renderer (an ONNX model, or a guard set without its model).</p>\n");
    }
    bputs(&page, "</section>\n</body>\n</html>\n");
    if (page.oom) {
        free(page.p);
        return sy_backend_fail(gs, SY_ENOMEM, "out of memory");
    }
    st = sy_output_write(out, page.p, page.n);
    free(page.p);
    return st ? sy_backend_fail(gs, st, "out of memory") : SY_OK;
}

const sy_backend sy_html_backend = {
    "html",
    "one self-contained HTML page: the report (inputs, guards by kind, violations and fixes, implied), the graph as SVG "
    "(Graphviz dot) with the nodes that forced guards linked to them",
    render_html, NULL};

