/* sy_gset_source_parse: exactly NAME.dim(), NAME.dtype, NAME.size()[I]. */
#include "common.h"

Test(guards_source_parse, exact_forms_only)
{
    static const struct {
        const char *src;
        int kind;
        size_t namelen, dim;
    } t[] = {
        {"x.dim()", SY_SOURCE_DIM, 1, 0},
        {"x.dtype", SY_SOURCE_DTYPE, 1, 0},
        {"x.size()[0]", SY_SOURCE_SIZE, 1, 0},
        {"input_ids.size()[12]", SY_SOURCE_SIZE, 9, 12},
        {"a.b.size()[3]", SY_SOURCE_SIZE, 3, 3},      /* a name with a dot */
        {"x.stride()[2]", SY_SOURCE_STRIDE, 1, 2},
        {"img.stride()[10]", SY_SOURCE_STRIDE, 3, 10},
        {"x.stride()[", -1, 0, 0},
        {"x.stride()[-1]", -1, 0, 0},
        {".stride()[0]", -1, 0, 0},
        {"x.size()[1].dtype", SY_SOURCE_DTYPE, 11, 0}, /* the last suffix decides */
        {"x.dtypeZ", -1, 0, 0},
        {"x.dtyp", -1, 0, 0},
        {"x.size()[", -1, 0, 0},
        {"x.size()[]", -1, 0, 0},
        {"x.size()[-1]", -1, 0, 0},
        {"x.size()[1x]", -1, 0, 0},
        {"x.size()[99999999999999999999999]", -1, 0, 0}, /* past size_t: never wraps */
        {".dim()", -1, 0, 0},
        {".size()[0]", -1, 0, 0},
        {"x", -1, 0, 0},
        {"", -1, 0, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t nl = 77, d = 77;
        int k = sy_gset_source_parse(t[i].src, &nl, &d);
        cr_assert(eq(int, k, t[i].kind), "'%s'", t[i].src);
        if (k >= 0) {
            cr_assert(eq(sz, nl, t[i].namelen), "'%s'", t[i].src);
            cr_assert(eq(sz, d, t[i].dim), "'%s'", t[i].src);
        }
    }
    cr_assert(eq(int, sy_gset_source_parse(NULL, NULL, NULL), -1));
    cr_assert(eq(int, sy_gset_source_parse("x.size()[2]", NULL, NULL), SY_SOURCE_SIZE));
}
