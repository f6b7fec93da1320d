/* symshape diff A B: the semantic diff of two guard sets (symshape/diff.h).
 * A and B are each a graph (.json), an ONNX model (.onnx) or a guard set
 * in its JSON form ("format": "symshape.guards"); a model is traced, its
 * guard set produced and minimized as `symshape run` does with default
 * options. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "symshape/diff.h"

#define EX_WIDENS 6 /* docs/cli.md "Exit status": B accepts more, rejects nothing A accepts */

enum { OPT_MAP = 0x200, OPT_JSON, OPT_NO_DUCK, OPT_NO_01, OPT_NO_Z3 };

/* Z3 (symshape/verify.h) for the implications sy_decide and the witness search leave open */
static sy_status z3_prover(void *ud, sy_ctx *ctx, size_t n, const sy_expr *const *as, const sy_expr *goal, sy_truth *out,
                           char **point)
{
    (void)ud;
    sy_verify_verdict v = SY_VERIFY_UNKNOWN;
    char *cex = NULL;
    *out = SY_TRUTH_UNKNOWN;
    sy_status st = sy_verify_equal(ctx, n, as, goal, sy_expr_true(ctx), NULL, &v, &cex);
    if (st == SY_OK && v == SY_VERIFY_PROVEN) *out = SY_TRUTH_TRUE;
    else if (st == SY_OK && v == SY_VERIFY_REFUTED) {
        *out = SY_TRUTH_FALSE;
        *point = cex;
        cex = NULL;
    }
    sy_str_free(ctx, cex);
    return st;
}

static const struct option diff_opts[] = {{"map", required_argument, NULL, OPT_MAP},
                                          {"json", no_argument, NULL, OPT_JSON},
                                          {"output", required_argument, NULL, 'o'},
                                          {"no-duck-sizing", no_argument, NULL, OPT_NO_DUCK},
                                          {"no-specialize-01", no_argument, NULL, OPT_NO_01},
                                          {"no-z3", no_argument, NULL, OPT_NO_Z3},
                                          CLI_COMMON_OPTIONS,
                                          {0}};

typedef struct side {
    sy_graph *g;
    sy_onnx_model *om;
    sy_onnx_trace *ot;
    sy_trace *tr;
    sy_env *env;
    sy_gset *gs;
} side;

static void side_free(side *s)
{
    sy_gset_free(s->gs);
    sy_trace_free(s->tr);
    sy_onnx_trace_free(s->ot);
    sy_env_free(s->env);
    sy_graph_free(s->g);
    sy_onnx_free(s->om);
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* Load one operand into side k of the diff. */
static int load_side(sy_ctx *ctx, sy_diff *d, sy_diff_side k, const char *path, const sy_env_options *eo, side *s)
{
    const char *name = cli_file_name(path);
    if (ends_with(path, ".onnx")) {
        if (sy_onnx_load_file(ctx, path, &s->om) != SY_OK) return cli_lib_error(ctx, "cannot load model");
        sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
        if (sy_onnx_trace_relate(ctx, s->om, eo, &to, &s->env, &s->ot) != SY_OK) return cli_lib_error(ctx, name);
        if (sy_onnx_trace_related(s->ot))
            fprintf(stderr, "symshape: note: %s: the model does not run at the example (%d for every dim); traced at %s\n", name,
                    SY_ONNX_DEFAULT_EXAMPLE, sy_onnx_trace_related(s->ot));
        size_t nin;
        const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(s->ot, &nin);
        if (sy_gset_produce_inputs(s->env, sy_onnx_name(s->om), nin, ins, &s->gs) != SY_OK) return cli_lib_error(ctx, "produce guards");
    } else {
        char *text = NULL;
        size_t len = 0;
        int rc = cli_read_input("diff", path, &text, &len);
        if (rc != EX_OK) return rc;
        /* a guard set in its JSON form, or a graph */
        json_error_t err;
        json_t *root = json_loadb(text, len, 0, &err);
        json_t *fmt = root ? json_object_get(root, "format") : NULL;
        int is_gset = json_is_string(fmt) && !strcmp(json_string_value(fmt), "symshape.guards");
        json_decref(root);
        if (is_gset) {
            sy_status st = sy_diff_set_json(d, k, text, len, name);
            free(text);
            return st == SY_OK ? EX_OK : cli_lib_error(ctx, "diff");
        }
        sy_status st = sy_graph_load_text(ctx, text, len, name, &s->g);
        free(text);
        if (st != SY_OK) return cli_lib_error(ctx, "cannot load model");
        if (!(s->env = sy_env_new(ctx, eo))) return cli_lib_error(ctx, "env");
        if (sy_env_trace(s->env, s->g, 0, NULL, &s->tr) != SY_OK) return cli_lib_error(ctx, name);
        if (sy_gset_produce(s->env, s->g, &s->gs) != SY_OK) return cli_lib_error(ctx, "produce guards");
    }
    if (sy_gset_minimize(s->gs) != SY_OK) return cli_lib_error(ctx, "minimize guards");
    if (sy_diff_set_gset(d, k, s->gs) != SY_OK) return cli_lib_error(ctx, "diff");
    return EX_OK;
}

static const char *js(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : "";
}

static void print_guard(FILE *f, const char *label, json_t *g)
{
    if (!json_is_object(g)) return;
    fprintf(f, "    %s #%lld [", label, (long long)json_integer_value(json_object_get(g, "index")));
    cli_put_text(f, js(g, "kind"));
    fprintf(f, "] ");
    cli_put_text(f, js(g, "text"));
    fprintf(f, "\n");
    if (*js(g, "why")) {
        fprintf(f, "      why: ");
        cli_put_text(f, js(g, "why"));
        fprintf(f, "\n");
    }
    if (*js(g, "origin")) {
        fprintf(f, "      origin: ");
        cli_put_text(f, js(g, "origin"));
        fprintf(f, "\n");
    }
}

static void print_witness(FILE *f, const char *indent, json_t *w)
{
    if (!json_is_object(w)) return;
    const char *acc = js(w, "accepted_by");
    fprintf(f, "%switness: %s accepts, %s rejects:", indent, *acc == 'a' ? "A" : "B", *acc == 'a' ? "B" : "A");
    const char *key;
    json_t *in;
    json_object_foreach(json_object_get(w, "inputs"), key, in)
    {
        fprintf(f, " ");
        cli_put_text(f, key);
        fprintf(f, "=[");
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(in, "shape"), i, v) fprintf(f, "%s%lld", i ? ", " : "", (long long)json_integer_value(v));
        fprintf(f, "]");
        json_t *dt = json_object_get(in, "dtype");
        if (json_is_integer(dt)) fprintf(f, " %s", sy_dtype_name((sy_dtype)json_integer_value(dt)));
    }
    fprintf(f, "\n");
    json_t *r = json_object_get(w, "rejected_by");
    if (json_is_object(r)) {
        fprintf(f, "%s  first failing guard of %s: #%lld ", indent, *acc == 'a' ? "B" : "A",
                (long long)json_integer_value(json_object_get(r, "index")));
        cli_put_text(f, js(r, "text"));
        fprintf(f, "\n");
    }
}

/* Names, guard texts and messages come from the models: written with cli_put_text, so that a
 * name holding a newline cannot forge a line of the diff (issue 38, fourth pass). */
static void print_text(FILE *f, json_t *root)
{
    json_t *sides = json_object_get(root, "sides");
    for (int k = 0; k < 2; k++) {
        json_t *s = json_object_get(sides, k ? "b" : "a");
        fprintf(f, "%s: ", k ? "B" : "A");
        cli_put_text(f, js(s, "model"));
        fprintf(f, " (%zu guards%s)\n", json_array_size(json_object_get(s, "guards")),
                json_is_true(json_object_get(s, "empty")) ? "; accepts nothing" : "");
    }
    fprintf(f, "A accepts only what B accepts (A <= B): %s\n", js(root, "a_subset_b"));
    fprintf(f, "B accepts only what A accepts (B <= A): %s\n", js(root, "b_subset_a"));
    const char *v = js(root, "verdict");
    fprintf(f, "verdict: %s\n",
            !strcmp(v, "equal")     ? "equal (the two sets accept the same sizes)"
            : !strcmp(v, "narrows") ? "B narrows A (B rejects sizes A accepts)"
            : !strcmp(v, "widens")  ? "B only widens A (B accepts more, rejects nothing A accepts)"
                                    : "unknown (not every implication was proved or refuted)");
    print_witness(f, "  narrowing ", json_object_get(root, "narrowing_witness"));
    print_witness(f, "  widening ", json_object_get(root, "widening_witness"));
    json_t *ch = json_object_get(root, "changes");
    if (json_array_size(ch)) fprintf(f, "changes:\n");
    size_t i;
    json_t *e;
    json_array_foreach(ch, i, e)
    {
        fprintf(f, "  %s (implied by the other side: %s)\n", js(e, "change"), js(e, "implied_by_other"));
        print_guard(f, "A", json_object_get(e, "a"));
        print_guard(f, "B", json_object_get(e, "b"));
        print_witness(f, "    ", json_object_get(e, "witness"));
    }
}

static int run_diff(int argc, char **argv)
{
    const char *out = NULL;
    int json = 0, rc = EX_OK, o, z3 = 1;
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    char **maps = calloc((size_t)argc + 1, sizeof *maps);
    size_t nmaps = 0;
    if (!maps) return cli_oom();
    while ((o = cli_getopt(&cmd_diff, argc, argv, "o:" CLI_COMMON_SHORT, diff_opts, &rc)) != -1) {
        if (o == CLI_STOP) goto done;
        if (o == 'o') out = optarg;
        else if (o == OPT_JSON) json = 1;
        else if (o == OPT_NO_DUCK) eo.duck_sizing = 0;
        else if (o == OPT_NO_01) eo.specialize_zero_one = 0;
        else if (o == OPT_NO_Z3) z3 = 0;
        else if (o == OPT_MAP) {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || !eq[1]) {
                rc = cli_usage_error("diff", "--map expects OLD=NEW input names (got '%s')", optarg);
                goto done;
            }
            maps[nmaps++] = optarg;
        }
    }
    if (argc - optind != 2) {
        rc = cli_usage_error("diff", "expects two operands A and B (got %d)", argc - optind);
        goto done;
    }
    sy_ctx *ctx = cli_ctx();
    sy_diff *d = NULL;
    side sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    if (sy_diff_new(ctx, &d) != SY_OK) rc = cli_lib_error(ctx, "diff");
    if (rc == EX_OK && z3 && sy_verify_available() && sy_diff_set_prover(d, z3_prover, NULL) != SY_OK) rc = cli_lib_error(ctx, "diff");
    for (size_t i = 0; rc == EX_OK && i < nmaps; i++) {
        char *eq = strchr(maps[i], '=');
        *eq = '\0';
        if (sy_diff_map(d, maps[i], eq + 1) != SY_OK) rc = cli_lib_error(ctx, "diff");
        *eq = '=';
    }
    if (rc == EX_OK) rc = load_side(ctx, d, SY_DIFF_A, argv[optind], &eo, &sa);
    if (rc == EX_OK) rc = load_side(ctx, d, SY_DIFF_B, argv[optind + 1], &eo, &sb);
    if (rc == EX_OK && sy_diff_run(d) != SY_OK) rc = cli_lib_error(ctx, "diff");
    char *text = rc == EX_OK ? sy_diff_to_json(d) : NULL;
    if (rc == EX_OK && !text) rc = cli_lib_error(ctx, "diff");
    if (rc == EX_OK) {
        json_error_t err;
        json_t *root = json_loads(text, 0, &err);
        if (!root) rc = cli_oom();
        else {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = json ? NULL : open_memstream(&buf, &len);
            if (json) { /* one write: cli_write_output opens FILE afresh, so a second call truncated the JSON */
                size_t tl = strlen(text);
                char *j = malloc(tl + 2);
                if (!j) rc = cli_oom();
                else {
                    memcpy(j, text, tl);
                    j[tl] = '\n';
                    rc = cli_write_output(out, j, tl + 1);
                    free(j);
                }
            } else if (!f) rc = cli_oom();
            else {
                print_text(f, root);
                fclose(f);
                rc = cli_write_output(out, buf, len);
                free(buf);
            }
            const char *v = js(root, "verdict");
            if (rc == EX_OK)
                rc = !strcmp(v, "equal") ? EX_OK : !strcmp(v, "narrows") ? EX_FALSE : !strcmp(v, "widens") ? EX_WIDENS : EX_UNKNOWN;
            json_decref(root);
        }
    }
    sy_str_free(ctx, text);
    sy_diff_free(d);
    side_free(&sa);
    side_free(&sb);
    sy_ctx_free(ctx);
done:
    free(maps);
    return rc;
}

const cli_cmd cmd_diff = {"diff", "compare two guard sets by meaning, with witness sizes",
    "usage: symshape diff [options] A B\n\n"
    "Compares what A (old) and B (new) accept: each is a graph (.json), an ONNX\n"
    "model (.onnx) or a guard set in its JSON form (symshape run -b json). A model is\n"
    "traced and its guard set minimized as 'symshape run' does. Inputs are matched by\n"
    "name. Decides both implications (A <= B, B <= A) with the decision procedure;\n"
    "lists the guards added, dropped, narrowed, widened and restated (in one side\n"
    "only but implied by the other) with their provenance in both versions, and for\n"
    "each difference a witness: sizes one side accepts and the other rejects, with\n"
    "the first guard that rejects them. 'unknown' when neither proved nor refuted.\n\n"
    "      --map OLD=NEW        input OLD of A is input NEW of B (repeatable)\n"
    "      --json               the result as JSON (\"symshape.diff\" version 1)\n"
    "  -o, --output FILE        write there instead of stdout ('-': stdout)\n"
    "      --no-duck-sizing     trace models without duck sizing\n"
    "      --no-specialize-01   trace models without 0/1 specialization\n"
    "      --no-z3              do not ask Z3 (when the library has it) about the implications\n"
    "                           the decision procedure and the witness search leave open\n"
    CLI_EXIT_HEAD
    "  0  equal: both accept exactly the same sizes\n"
    "  1  B narrows A: B rejects a size A accepts (witness shown); B may also widen\n"
    CLI_EXIT_USAGE
    "  3  bad input (unreadable file, malformed model or guard set JSON)\n"
    CLI_EXIT_INTERNAL
    "  5  unknown: an implication was neither proved nor refuted\n"
    "  6  B only widens A: B accepts every size A accepts, and more (witness shown)\n",
    run_diff, 0};
