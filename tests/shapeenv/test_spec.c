/* The dynamic-dim spec: the command-line parser (every error with its
 * column), the graph JSON's dim-spec objects (every error with its node and
 * entry), and torch.export's semantics in the env (named dims share one
 * symbol, different names are never duck-sized, the declared range is the
 * symbol's range, min <= 1 keeps 0/1 symbolic). */
#include "common.h"

static sy_input_spec *parse_ok(const char *text)
{
    sy_input_spec *s = NULL;
    cr_assert(eq(int, sy_input_spec_parse(ctx, text, (size_t)-1, &s), SY_OK), "%s: %s", text, sy_ctx_last_error_msg(ctx));
    return s;
}

Test(shapeenv_spec, parses_names_and_ranges, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_input_spec *s = parse_ok("x=0:batch@1..1024,2:h,3:w");
    cr_assert(eq(str, (char *)s->input, "x"));
    cr_assert(eq(sz, s->ndims, 3));
    cr_assert(eq(sz, s->dims[0].dim, 0));
    cr_assert(eq(str, (char *)s->dims[0].name, "batch"));
    cr_assert(eq(i64, s->dims[0].min, 1));
    cr_assert(eq(i64, s->dims[0].max, 1024));
    cr_assert(eq(str, (char *)s->dims[1].name, "h"));
    cr_assert(eq(i64, s->dims[1].min, SY_DIM_SPEC_UNSET));
    cr_assert(eq(i64, s->dims[1].max, SY_DIM_SPEC_UNSET));
    cr_assert(eq(sz, s->dims[2].dim, 3));
    cr_assert(sy_dim_spec_declared(&s->dims[2]));
    char *p = sy_input_spec_print(ctx, s);
    cr_assert(eq(str, p, "x=0:batch@1..1024,2:h,3:w"));
    sy_str_free(ctx, p);
    sy_input_spec_free(ctx, s);
    /* either bound may be left out; a bare index is not declared */
    s = parse_ok("in_1=1@2..,2@..512,3");
    cr_assert(eq(str, (char *)s->input, "in_1"));
    cr_assert(eq(i64, s->dims[0].min, 2));
    cr_assert(eq(i64, s->dims[0].max, SY_DIM_SPEC_UNSET));
    cr_assert(eq(i64, s->dims[1].min, SY_DIM_SPEC_UNSET));
    cr_assert(eq(i64, s->dims[1].max, 512));
    cr_assert(sy_dim_spec_declared(&s->dims[1]));
    cr_assert(not(sy_dim_spec_declared(&s->dims[2])));
    p = sy_input_spec_print(ctx, s);
    cr_assert(eq(str, p, "in_1=1@2..,2@..512,3"));
    sy_str_free(ctx, p);
    sy_input_spec_free(ctx, s);
    /* an empty list: every dim static */
    s = parse_ok("x=");
    cr_assert(eq(sz, s->ndims, 0));
    sy_input_spec_free(ctx, s);
    /* len-limited input */
    cr_assert(eq(int, sy_input_spec_parse(ctx, "x=0:bXXX", 5, &s), SY_OK));
    cr_assert(eq(str, (char *)s->dims[0].name, "b"));
    sy_input_spec_free(ctx, s);
}

Test(shapeenv_spec, every_error_names_its_column, .init = ctx_setup, .fini = ctx_teardown)
{
    static const struct { const char *text; const char *msg; } t[] = {
        {"x", "column 2: expected INPUT=DIM,... ('=' missing)"},
        {"=0", "column 1: expected the input's name"},
        {"x=a", "column 3: expected a dim index"},
        {"x=-1", "column 3: expected a dim index"},
        {"x=64", "column 3: a dim index must be <= 63"},
        {"x=0,0", "column 5: this dim is listed twice"},
        {"x=0:", "column 5: expected a dim name"},
        {"x=0:9h", "column 5: expected a dim name"},
        {"x=0:h@", "column 7: expected '..'"},
        {"x=0:h@5", "column 8: expected '..'"},
        {"x=0:h@5.6", "column 8: expected '..'"},
        {"x=0:h@..", "column 9: a range needs at least one bound"},
        {"x=0:h@9..3", "column 10: the range is empty (MIN > MAX)"},
        /* one size: torch.export's Dim refuses min == max (fix38: [0, 0] was accepted silently) */
        {"x=0:h@0..0", "column 10: the range holds one size (MIN == MAX)"},
        {"x=0@3..3", "column 8: the range holds one size (MIN == MAX)"},
        {"x=0@-1..5", "column 5: a bound of a size range must be non-negative"},
        {"x=0@2..-5", "column 8: a bound of a size range must be non-negative"},
        {"x=0:h@99999999999999999999..", "column 7: the minimum does not fit int64"},
        {"x=0:h@..99999999999999999999", "column 9: the maximum does not fit int64"},
        {"x=0,", "column 5: expected a dim after ','"},
        {"x=0;1", "column 4: expected ',', ':NAME' or '@MIN..MAX'"},
        {"x=0:h-w", "column 6: expected ','"},
        {"x=0:h\x01", "column 6: unexpected byte 0x01"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        sy_input_spec *s = (sy_input_spec *)1;
        cr_assert(eq(int, sy_input_spec_parse(ctx, t[i].text, (size_t)-1, &s), SY_EFORMAT), "%s", t[i].text);
        cr_assert(s == NULL);
        cr_assert(strstr(sy_ctx_last_error_msg(ctx), t[i].msg) != NULL, "%s: got '%s', want '%s'", t[i].text,
                  sy_ctx_last_error_msg(ctx), t[i].msg);
        sy_ctx_reset_error(ctx);
    }
    cr_assert(eq(int, sy_input_spec_parse(ctx, NULL, 0, NULL), SY_EINVAL));
    sy_ctx_reset_error(ctx);
}

static char *graph_text(const char *dynamic, const char *shape)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"t\",\"nodes\":["
             "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":%s,\"dynamic\":%s},"
             "{\"name\":\"r\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}],\"outputs\":[{\"ref\":\"r\"}]}",
             shape, dynamic);
    return buf;
}

Test(shapeenv_spec, json_dim_objects_and_their_errors, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    const char *txt = graph_text("[{\"dim\":0,\"name\":\"batch\",\"min\":1,\"max\":1024},2,{\"dim\":3,\"name\":\"w\"}]", "[2,3,8,8]");
    cr_assert(eq(int, sy_graph_load_text(ctx, txt, strlen(txt), "t", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_graph_input *in = sy_graph_input_at(g, 0);
    cr_assert(eq(sz, in->nspec, 3));
    cr_assert(eq(str, (char *)in->spec[0].name, "batch"));
    cr_assert(eq(i64, in->spec[0].max, 1024));
    cr_assert(not(sy_dim_spec_declared(&in->spec[1])));
    cr_assert(eq(sz, in->spec[2].dim, 3));
    cr_assert(in->dynamic[0] && !in->dynamic[1] && in->dynamic[2] && in->dynamic[3]);
    sy_graph_free(g);
    static const struct { const char *dyn; const char *msg; } t[] = {
        {"[{\"name\":\"b\"}]", "node 'x': dynamic entry 0: a dim spec needs \"dim\""},
        {"[0,{\"dim\":1,\"size\":3}]", "dynamic entry 1: unknown field \"size\""},
        {"[{\"dim\":0,\"name\":\"9b\"}]", "dynamic entry 0: \"name\" must be an identifier"},
        {"[{\"dim\":0,\"name\":7}]", "dynamic entry 0: \"name\" must be an identifier"},
        {"[{\"dim\":0,\"min\":-1}]", "dynamic entry 0: \"min\" must be a non-negative integer"},
        {"[{\"dim\":0,\"max\":\"a\"}]", "dynamic entry 0: \"max\" must be a non-negative integer"},
        {"[{\"dim\":0,\"min\":9,\"max\":3}]", "dynamic entry 0: the range is empty (min 9 > max 3)"},
        {"[{\"dim\":0,\"min\":0,\"max\":0}]", "dynamic entry 0: the range [0, 0] holds one size"},
        {"[{\"dim\":0,\"min\":4,\"max\":4}]", "dynamic entry 0: the range [4, 4] holds one size"},
        {"[{\"dim\":4}]", "dynamic entry 0, 4, is not a dim index of a 4-D input"},
        {"[0,{\"dim\":0,\"name\":\"b\"}]", "dynamic entry 1: dim 0 is listed twice"},
        {"[{\"dim\":0,\"name\":\"b\"},0]", "dynamic entry 1: dim 0 is listed twice"},
        {"{\"dim\":0}", "\"dynamic\" must be a list"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        txt = graph_text(t[i].dyn, "[2,3,8,8]");
        cr_assert(eq(int, sy_graph_load_text(ctx, txt, strlen(txt), "t", &g), SY_EFORMAT), "%s", t[i].dyn);
        cr_assert(strstr(sy_ctx_last_error_msg(ctx), t[i].msg) != NULL, "%s: got '%s'", t[i].dyn, sy_ctx_last_error_msg(ctx));
        sy_ctx_reset_error(ctx);
    }
    /* more entries than dims, the bad one after a good one: the entry is checked before it
     * is stored (fuzz_graph found a heap overflow here under ASan) */
    txt = graph_text("[0,2,3]", "[4]");
    cr_assert(eq(int, sy_graph_load_text(ctx, txt, strlen(txt), "t", &g), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "dynamic entry 1, 2, is not a dim index of a 1-D input") != NULL, "got '%s'",
              sy_ctx_last_error_msg(ctx));
    sy_ctx_reset_error(ctx);
}

/* trace the relu graph with a spec; returns the env (caller frees) or NULL with the error in ctx */
static sy_env *trace_with(const char *dynamic, const char *shape, const char *cli, sy_status *st)
{
    sy_graph *g;
    const char *txt = graph_text(dynamic, shape);
    cr_assert(eq(int, sy_graph_load_text(ctx, txt, strlen(txt), "t", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_input_spec *s = NULL;
    sy_trace_override ov = {"x", 0, 0, NULL, NULL};
    if (cli) {
        cr_assert(eq(int, sy_input_spec_parse(ctx, cli, (size_t)-1, &s), SY_OK));
        ov.spec = s;
    }
    sy_trace *tr = NULL;
    *st = sy_env_trace(env, g, cli ? 1 : 0, &ov, &tr);
    sy_trace_free(tr);
    sy_input_spec_free(ctx, s);
    sy_graph_free(g);
    if (*st) {
        sy_env_free(env);
        return NULL;
    }
    return env;
}

static const sy_input_dim *dim_of(sy_env *env, size_t i) { return sy_env_input_dim(env, i); }

Test(shapeenv_spec, named_dims_share_one_symbol_and_are_never_duck_sized, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_status st;
    /* h and w: same example, different names -> two symbols; plain dims still duck-size */
    sy_env *env = trace_with("[0,1,2,3]", "[8,8,8,8]", "x=0,1,2:h,3:w", &st);
    cr_assert(env != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(dim_of(env, 0)->expr == dim_of(env, 1)->expr); /* duck */
    cr_assert(dim_of(env, 2)->expr != dim_of(env, 3)->expr);
    cr_assert(dim_of(env, 2)->expr != dim_of(env, 0)->expr);
    const sy_symbol_info *si = sy_env_symbol_of(env, dim_of(env, 2)->expr);
    cr_assert(eq(str, (char *)si->dim_name, "h"));
    cr_assert(eq(int, si->declared, 1));
    cr_assert(eq(str, (char *)dim_of(env, 2)->spec->name, "h"));
    cr_assert(dim_of(env, 0)->spec == NULL);
    sy_env_free(env);
    /* one name on two dims: one symbol (declared equal) */
    env = trace_with("[{\"dim\":2,\"name\":\"s\"},{\"dim\":3,\"name\":\"s\"}]", "[1,3,8,8]", NULL, &st);
    cr_assert(env != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(dim_of(env, 2)->expr == dim_of(env, 3)->expr);
    si = sy_env_symbol_of(env, dim_of(env, 2)->expr);
    cr_assert(eq(sz, si->nsources, 2));
    sy_env_free(env);
}

Test(shapeenv_spec, declared_range_is_the_symbols_range, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_status st;
    sy_env *env = trace_with("[]", "[4,3,8,8]", "x=0:batch@1..1024,2:h", &st);
    cr_assert(env != NULL, "%s", sy_ctx_last_error_msg(ctx));
    const sy_expr *lo, *hi;
    cr_assert(eq(int, sy_facts_get_range(sy_env_facts(env), dim_of(env, 0)->expr, &lo, &hi), SY_OK));
    int64_t l, h;
    sy_expr_get_si(lo, &l);
    sy_expr_get_si(hi, &h);
    cr_assert(eq(i64, l, 1));
    cr_assert(eq(i64, h, 1024));
    /* a dim declared without a range: [2, oo) */
    cr_assert(eq(int, sy_facts_get_range(sy_env_facts(env), dim_of(env, 2)->expr, &lo, &hi), SY_OK));
    sy_expr_get_si(lo, &l);
    cr_assert(eq(i64, l, 2));
    cr_assert(hi == NULL);
    sy_env_free(env);
    /* min=1: an example of 1 stays symbolic */
    env = trace_with("[{\"dim\":0,\"min\":1}]", "[1,3,8,8]", NULL, &st);
    cr_assert(env != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(not(sy_expr_is_int(dim_of(env, 0)->expr)));
    sy_env_free(env);
    /* without a min, 1 is 0/1-specialized (the guard set reports it) */
    env = trace_with("[{\"dim\":0,\"name\":\"b\"}]", "[1,3,8,8]", NULL, &st);
    cr_assert(env != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(sy_expr_is_int(dim_of(env, 0)->expr));
    cr_assert(eq(str, (char *)dim_of(env, 0)->spec->name, "b"));
    sy_env_free(env);
}

Test(shapeenv_spec, an_example_outside_its_spec_is_an_error, .init = ctx_setup, .fini = ctx_teardown)
{
    static const struct { const char *dyn, *shape, *cli, *msg; } t[] = {
        {"[]", "[2000,3,8,8]", "x=0:batch@1..1024", "x.size()[0] = 2000 at the example is outside 'batch''s declared range [1, 1024]"},
        {"[]", "[4,3,8,8]", "x=0@5..", "x.size()[0] = 4 at the example is outside x.size()[0]'s declared range [5, oo)"},
        {"[]", "[4,3,8,9]", "x=2:h,3:h", "dims named 'h' are declared equal, but x.size()[2] = 8 and x.size()[3] = 9 at the example"},
        {"[]", "[4,3,8,8]", "x=2:h@2..64,3:h@2..32", "'h' is declared with two ranges: [2, 64] (at x.size()[2]) and [2, 32] (at x.size()[3])"},
        {"[]", "[4,3,8,8]", "x=4:h", "dynamic spec of input 'x': no dim 4 (it is 4-D)"},
        {"[]", "[1,3,8,8]", "x=0@..1", "x.size()[0]'s declared range @..1 is empty: without a minimum a size symbol starts at 2 "
                                      "(0/1 specialization); give the minimum (@0..1) or use --no-specialize-01"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        sy_status st;
        sy_env *env = trace_with(t[i].dyn, t[i].shape, t[i].cli, &st);
        cr_assert(env == NULL);
        cr_assert(eq(int, st, SY_EINVAL));
        cr_assert(strstr(sy_ctx_last_error_msg(ctx), t[i].msg) != NULL, "%s: got '%s'", t[i].cli, sy_ctx_last_error_msg(ctx));
        sy_ctx_reset_error(ctx);
    }
}
