/* Private to cli/: the options and the tracing the model commands share
 * (run, probe, verify, infer), defined in model.c. */
#ifndef SY_CLI_MODEL_H
#define SY_CLI_MODEL_H
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

/* options shared by run and probe */
typedef struct {
    const char *model;
    sy_env_options eo;
    sy_trace_override *ov; /* input malloc'ed, spec parsed in pctx */
    size_t nov, cap;
    sy_ctx *pctx; /* owns the parsed --dynamic specs */
    sy_onnx_example *ex;   /* --example (ONNX): input and shape malloc'ed */
    size_t nex, excap;
    json_t *exnames;       /* the --example inputs (a set: one lookup per --example, not a scan) */
} model_opts;


/* the long-only options (values past any char), one code per option: a command handles only its own */
enum {
    OPT_DYNAMIC = 0x100,
    OPT_STATIC,
    OPT_NO_DUCK,
    OPT_NO_01,
    OPT_PREFIX,
    OPT_STATS,
    OPT_LIST_UNSUPPORTED,
    OPT_POINTS,
    OPT_JSON,
    OPT_FAIL_ON_REJECT,
    OPT_STRIDES,
    OPT_TIMEOUT,
    OPT_EXAMPLE,
    OPT_MAX_CASES,
    OPT_RLIMIT,
    OPT_CASES,
    OPT_CERTIFY,
    OPT_ARTIFACT
};
#define MODEL_OPTIONS                                                                                                \
    {"dynamic", required_argument, NULL, OPT_DYNAMIC}, {"static", required_argument, NULL, OPT_STATIC},              \
        {"no-duck-sizing", no_argument, NULL, OPT_NO_DUCK}, {"no-specialize-01", no_argument, NULL, OPT_NO_01},     \
        {"example", required_argument, NULL, OPT_EXAMPLE}


typedef struct {
    sy_ctx *ctx;
    sy_graph *g;
    sy_onnx_model *om; /* an ONNX model instead of g */
    sy_onnx_trace *ot;
    sy_env *env;
    sy_trace *tr;
    sy_gset *gs;
    double t_parse, t_trace, t_produce, t_minimize;
    size_t produced;
} traced;


#define MODEL_HELP                                                                                                  \
    "      --dynamic 'NAME=D[:DIM][@MIN..MAX],...'\n"                                                             \
    "                           the dims of input NAME that get symbols (replaces the graph's\n"               \
    "                           list); :DIM names a Dim (one name on several dims declares them\n"            \
    "                           equal), @MIN..MAX its range (either bound may be left out); ONNX:\n"         \
    "                           a Dim on a dim with a dim_param declares every dim with it\n"                \
    "      --static NAME        every dim of input NAME is static\n"                                            \
    "      --no-duck-sizing     equal example sizes do not share a symbol\n"                                    \
    "      --no-specialize-01   example sizes 0 and 1 stay symbolic (range [0, oo))\n"                          \
    "      --example NAME=D,..  ONNX: the example sizes (hints) of input NAME's dims (default: its\n"           \
    "                           dim_value, 224 for a symbolic dim)\n"                                        \
    "  -h, --help               this help;  -V, --version  the version\n"


/* model.c */
double now(void);
void model_opts_free(model_opts *m);
int is_onnx(const char *path);
char *default_model(void);
int model_option(const char *cmd, model_opts *m, int o, const char *v);
void traced_free(traced *t);
int trace_model(const char *cmd, model_opts *m, traced *t);
int shape_values(const traced *t, size_t n, const char *const *names, const size_t *ranks,
                 const int64_t *const *shapes, sy_dtype *dts, int64_t *vals, const char *where);
int origin_required(const sy_guard_origin *o);
/* The guard set produced from t's trace again, before minimization (t->gs is minimized): over the
 * graph's inputs, or the ONNX trace's (sy_onnx_trace_gset_inputs), as trace_model did; *ins and
 * *ni (may be NULL) the inputs it was produced over (KEEP: t's, or *owned, freed with free()). */
int produce_recorded(const char *cmd, traced *t, sy_gset **out, const sy_graph_input *const **ins, size_t *ni,
                     const sy_graph_input ***owned);

#endif
