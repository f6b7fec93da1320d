/* One symbol per source: the env's table from source text to the backed symbol that owns it, and
 * the check every symbol creation makes before it gives a symbol a source (split from env.c, which
 * keeps the symbols themselves). */
#include <stdint.h>
#include <string.h>

#include "shapeenv/env_private.h"

static uint64_t src_text_hash(const char *t)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *t; t++) h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

/* The entry of source text @p source in env->srcown: its owner, or the empty slot where it goes.
 * NULL: out of memory (the table grows before it is half full). */
struct sy_env_srcown *sy_env_srcown_slot(sy_env *env, const char *source)
{
    if ((env->srcownn + 1) * 2 > env->srcowncap) {
        size_t nc = env->srcowncap ? env->srcowncap * 2 : 64;
        struct sy_env_srcown *nt = sy_alloc(env->ctx, nc * sizeof *nt);
        if (!nt) return NULL;
        memset(nt, 0, nc * sizeof *nt);
        for (size_t i = 0; i < env->srcowncap; i++) {
            if (!env->srcown[i].text) continue;
            size_t j = (size_t)src_text_hash(env->srcown[i].text) & (nc - 1);
            while (nt[j].text) j = (j + 1) & (nc - 1);
            nt[j] = env->srcown[i];
        }
        if (env->srcown) sy_dealloc(env->ctx, env->srcown, env->srcowncap * sizeof *env->srcown);
        env->srcown = nt;
        env->srcowncap = nc;
    }
    size_t j = (size_t)src_text_hash(source) & (env->srcowncap - 1);
    while (env->srcown[j].text && strcmp(env->srcown[j].text, source)) j = (j + 1) & (env->srcowncap - 1);
    return &env->srcown[j];
}

/* One symbol per source (issue 38): a backed symbol is read by its first source (sy_env_show, the
 * guard set's legends of runtime asserts, verify's names, probe), and a guard set checks one value
 * per source. A source spelled like an env symbol's own name (s<k>, u<k>: the next symbol may get
 * it) would read as that symbol (s0 created for "s1" made s0 == s1 show as s1 == s1), and a source
 * another backed symbol already has would make two symbols one. @p will: the symbol that gets the
 * source (an existing one shared by duck sizing or a Dim name), NULL for a new one. false: refused
 * (SY_EINVAL, the message names the source) or out of memory. */
bool sy_env_source_ok(sy_env *env, const char *source, const symrec *will)
{
    if (!source) return true;
    const char *p = source;
    if ((*p == 's' || *p == 'u') && p[1] >= '0' && p[1] <= '9') {
        for (p++; *p >= '0' && *p <= '9'; p++) {}
        if (!*p) {
            sy_fail(env->ctx, SY_EINVAL, "source '%s' is spelled like a symbol's name (s<k>, u<k>): a symbol is shown by its source, so "
                    "it would read as symbol %s; name the input property (e.g. x.size()[0])", source, source);
            return false;
        }
    }
    struct sy_env_srcown *o = sy_env_srcown_slot(env, source);
    if (!o) {
        sy_oom(env->ctx);
        return false;
    }
    if (o->text && &env->syms[o->owner - 1] != will) {
        sy_fail(env->ctx, SY_EINVAL, "source '%s' already belongs to symbol %s: one source is one size, so two symbols cannot "
                "have it (create the symbol once, or give the other dim its own source)", source,
                sy_expr_sym_name(env->syms[o->owner - 1].info.sym));
        return false;
    }
    return true;
}
