/* The op registry (issue 34 item 1): one row per op. Every row has a handler, a name is in one
 * row of one table (a second row would never be found), every name resolves to its own row through
 * the index and through sy_env_has_op, the flags and layout classes are in range, and the names the
 * memo and the layout rules rely on are there with their properties. */
#include "common.h"
#include "shapeenv/env_private.h"

Test(shapeenv_optable, every_row_has_a_handler_and_a_name_one_row)
{
    size_t rows = 0, bad = 0;
    for (int t = 0; sy_op_tables[t]; t++)
        for (const opentry *e = sy_op_tables[t]; e->name; e++, rows++) {
            const char *why = NULL;
            if (!e->fn) why = "no handler";
            else if (sy_env_op_row(e->name) != e) why = "the name is in an earlier row";
            else if (!sy_env_has_op(e->name)) why = "sy_env_has_op does not find it";
            else if (e->flags & ~(unsigned)(OP_IMPURE | OP_MEMO | OP_CARRIES)) why = "unknown flags";
            else if ((e->flags & OP_IMPURE) && (e->flags & OP_MEMO)) why = "impure and memoizable";
            else if (e->layout < OPL_DEFAULT || e->layout > OPL_VIEW) why = "layout class out of range";
            if (why) {
                cr_log_error("table %d, row '%s': %s", t, e->name, why);
                bad++;
            }
        }
    size_t listed = 0;
    for (const char *const *p = sy_env_op_names(); *p; p++) {
        cr_expect(sy_env_op_row(*p) != NULL, "sy_env_op_names lists '%s', which resolves to no row", *p);
        listed++;
    }
    cr_assert(eq(sz, bad, 0), "%zu bad rows of %zu", bad, rows);
    cr_assert(eq(sz, listed, rows), "sy_env_op_names lists %zu names, the tables hold %zu rows", listed, rows);
    cr_assert(gt(sz, rows, 500), "only %zu rows: a table is missing from sy_op_tables", rows);
    cr_assert(sy_env_op_row("no_such_op") == NULL && !sy_env_has_op("no_such_op") && !sy_env_op_memoizable(NULL));
}

/* The properties the trace's memo and the layout rule depend on, by name: a row that lost its
 * flag would make the memo reuse a data-dependent result or the layout wrong. */
Test(shapeenv_optable, properties_of_known_ops)
{
    static const struct { const char *name; int memo; int impure; int layout; int carries; } want[] = {
        {"conv2d", 1, 0, OPL_MEMFMT, 0},   {"max_pool2d", 1, 0, OPL_MEMFMT, 0},  {"relu", 1, 0, OPL_DEFAULT, 1},
        {"nonzero", 0, 1, OPL_DEFAULT, 0}, {"item", 0, 1, OPL_DEFAULT, 0},       {"unique", 0, 1, OPL_DEFAULT, 0},
        {"_assert", 0, 1, OPL_DEFAULT, 0}, {"max_unpool2d", 0, 1, OPL_FRESH, 0}, {"tensor_split", 0, 1, OPL_OWN, 1},
        {"view", 0, 0, OPL_OWN, 0},        {"sum", 0, 0, OPL_FRESH, 0},          {"unfold", 0, 0, OPL_OWN, 1},
        {"add", 0, 0, OPL_DEFAULT, 1},     {"cat", 0, 0, OPL_MEMFMT, 0},         {"unbind", 0, 0, OPL_OWN, 1},
        {"getitem", 0, 0, OPL_OWN, 1},     {"reshape", 0, 0, OPL_OWN, 0},        {"linear", 0, 0, OPL_FRESH, 0},
        {"real", 0, 0, OPL_VIEW, 0},       {"diagonal", 0, 0, OPL_OWN, 1},       {"unflatten", 0, 0, OPL_OWN, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const opentry *e = sy_env_op_row(want[i].name);
        cr_assert(e != NULL, "%s: no row", want[i].name);
        cr_expect(eq(int, sy_env_op_memoizable(want[i].name), want[i].memo), "%s: memoizable", want[i].name);
        cr_expect(eq(int, !!(e->flags & OP_IMPURE), want[i].impure), "%s: impure", want[i].name);
        cr_expect(eq(int, e->layout, want[i].layout), "%s: layout class", want[i].name);
        cr_expect(eq(int, !!(e->flags & OP_CARRIES), want[i].carries), "%s: carries deferred strides", want[i].name);
    }
}

/* the index itself: the first row of a name wins, a full index refuses, NULL names are refused */
Test(shapeenv_optable, strindex)
{
    typedef struct { const char *name; int v; } row;
    static const row rows[] = {{"a", 1}, {"b", 2}, {"a", 3}, {"c", 4}, {"d", 5}};
    const void *slots[8] = {0};
    sy_strindex ix = SY_STRINDEX_INIT(slots);
    cr_assert(eq(int, sy_strindex_add(&ix, &rows[0]), 1));
    cr_assert(eq(int, sy_strindex_add(&ix, &rows[1]), 1));
    cr_assert(eq(int, sy_strindex_add(&ix, &rows[2]), 0));
    cr_assert(eq(int, sy_strindex_add(&ix, &rows[3]), 1));
    cr_assert(eq(int, sy_strindex_add(&ix, &rows[4]), 1));
    static const row e = {"e", 6}, nul = {NULL, 0};
    cr_assert(eq(int, sy_strindex_add(&ix, &e), -1), "more than half of 8 slots");
    cr_assert(eq(int, sy_strindex_add(&ix, &nul), -1));
    cr_assert(eq(int, ((const row *)sy_strindex_find(&ix, "a"))->v, 1));
    cr_assert(eq(int, ((const row *)sy_strindex_find(&ix, "d"))->v, 5));
    cr_assert(sy_strindex_find(&ix, "e") == NULL && sy_strindex_find(&ix, "") == NULL && sy_strindex_find(&ix, NULL) == NULL);
}
