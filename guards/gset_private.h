/* Private to guards/: the layout of a guard set and the helpers its files share
 * (one file per job: see gset.c). Not installed; no other module includes it. */
#ifndef SY_GSET_PRIVATE_H
#define SY_GSET_PRIVATE_H
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "algebra/eval.h"
#include "symshape/env.h"
#include "symshape/tensor.h"
#include "symshape/graph.h"
#include "symshape/gset.h"

/* How a guard's why reads: the format and its arguments, from which
 * tx_format makes the text when the set is built (texts_make). Strings are the
 * set's own (arena, sources), static, or symbol names (the context's). */
typedef enum {
    WHY_NONE = 0,   /* no why (NULL) */
    WHY_STR,        /* s[0] as it is */
    WHY_RANK,       /* "rank of input NAME": NAME = the first n[0] bytes of s[0] (its "NAME.dim()" source) */
    WHY_DTYPE,      /* NAME as for WHY_RANK, n[1] the dtype */
    WHY_01_DECL,    /* 0/1 specialization below a declared range: n[0] example, s[0] the Dim's name or source */
    WHY_01,         /* 0/1 specialization: n[0] example */
    WHY_DECL_EQ,    /* s[0] and s[1] (sources) named s[2] */
    WHY_DUCK,       /* duck sizing of s[0] and s[1] (sources), n[0] example */
    WHY_SHARED,     /* s[0] and s[1] (sources) given one symbol by the frontend (an ONNX dim_param), not by duck sizing */
    WHY_STRIDE,     /* stride n[0] of input NAME (the first n[1] bytes of s[0]), n[2] declared */
    WHY_DECL_RANGE, /* declared range [n[0], n[1]] (n[1] -1: oo) of Dim s[0] (NULL: unnamed, source s[1]) */
    WHY_01_RANGE,   /* s[0] >= 2 assumed */
    WHY_RECORDED,   /* op s[0], reason s[1], n[0] required; the sizes seen of the slots */
    WHY_NORM        /* exact range of source s[0], replacing the nm guards m */
} why_kind;

typedef struct gtext {
    const sy_expr *expr;  /* the text is its print */
    const char *legend;   /* appended to the text (unbacked symbols it reads), or NULL */
    int dtype;            /* >= 0: a dtype guard, displayed with the dtype by name */
    size_t dslot;         /* its source */
    why_kind wk;
    const char *s[3];
    int64_t n[3];
    const size_t *slots;  /* WHY_RECORDED: the guard's slots */
    size_t nslots;
    struct gtext **m;     /* WHY_NORM */
    size_t nm;
    bool done;
    const char *text, *display, *why; /* made by tx_format */
} gtext;

typedef struct gguard {
    sy_gset_guard pub;   /* text, display and why are filled from tx by the set's constructors (texts_make) */
    gtext *tx;
    sy_guard_origin *orig;
    size_t origcap;
    size_t cost; /* expr_cost, computed once per minimization */
    size_t uid;  /* stable identity (creation order), for the Implied list */
    bool dead;
} gguard;

enum { DREC_MAX = 16, DREC_VISITS = 256 };

/* A guard minimization dropped: implied by the guards imp (uids, alive when
 * it was dropped), or (normalized) replaced by its exact range guards imp. */
typedef struct drec {
    struct drec *next;
    size_t uid;
    bool normalized, partial;
    sy_gset_kind kind;
    const sy_expr *expr;
    gtext *tx;
    size_t nimp;
    size_t imp[DREC_MAX];
} drec;

typedef struct gchunk {
    struct gchunk *next;
    size_t size, used;
    max_align_t data[];
} gchunk;

typedef struct sdecl {
    bool declared;
    const char *name;
    int64_t min, max, example;
} sdecl;

struct sy_gset {
    sy_ctx *ctx;
    sdecl *decl; /* per source slot (nsrc entries) when some dim is declared, else NULL */
    sy_gset_violation *viol;
    size_t nviol;
    size_t norm_from, norm_into; /* normalization: guards replaced, exact range guards they became */
    const char *model;
    const char **sources;
    const sy_expr **vars;
    int64_t *example;          /* example value of each source (minimization's witness points) */
    unsigned char *has_example;
    size_t nsrc, srccap;
    size_t *sidx;              /* open-addressing index of sources by text: slot + 1, 0 empty */
    size_t sidx_cap;
    gguard *g;
    size_t n, cap;
    size_t recorded, dedup;
    gchunk *chunks;
    /* unbacked symbols of the env, in creation order, and their sources */
    const sy_expr **ub;
    const char **ubsrc;
    size_t nub;
    /* minimization's dropped guards (arena records), and the public Implied list built from them */
    size_t next_uid;
    drec *drops;
    sy_gset_implied *impl;
    gtext **impl_tx; /* the texts of impl[i] */
    size_t nimpl;
    sy_status text_st; /* SY_OK, or why a text could not be made (it reads "?"): sy_gset_format */
};


/* minimization's witness points (gset_witness.c) */
typedef enum { LIN_NONE = 0, LIN_EQ, LIN_NE, LIN_LE } lin_kind;

typedef struct {
    size_t guard, slot;
    lin_kind kind;
    int has_value; /* NE: the forbidden value exists (a divides r) */
    int64_t value; /* NE: forbidden t; LE: bound (upper when upper) */
    int upper;     /* LE: t <= value (else t >= value) */
} lin_entry;

typedef struct {
    sy_ctx *ctx;
    sy_gset *gs;
    sy_binding b;
    bool ready;
    lin_entry *lin;   /* every (fact guard, slot) pair, sorted by slot */
    size_t nlin;
    size_t *slot_at;  /* nsrc + 1: first entry of each slot */
    /* classes of sources equal by a fact guard `a - b == 0` (duck sizing), or NULL when there is no such guard:
     * per slot its class's root and the next slot of its class (SIZE_MAX: the last), and per root its first slot */
    size_t *cls, *cls_next, *cls_head;
} witness;

typedef struct {
    size_t slot;
    int up; /* 1: v >= thr; 0: v <= thr */
    int64_t thr;
} halfline;

/* the half-lines of the fact guards, grouped by (source, side), strongest first */
typedef struct {
    halfline *hl;   /* per guard */
    bool *has;      /* per guard */
    size_t *ord;    /* guards with a half-line, grouped, strongest first */
    size_t *grp;    /* per guard: its group's first position in ord */
    size_t *cur;    /* per group start: first entry not known dead */
    size_t *end;    /* per group start: one past its last entry */
    size_t n, nord;
} hlindex;

/* Helpers shared between the files of the set, grouped below by the file that defines them. Each
 * keeps its short name in the code; its linkage name is sy_gs_NAME, so the static archive defines
 * only sy_ names (tests/namespace.sh), as env_private.h does for the op helpers. */
#define galloc sy_gs_galloc
#define gstrdup sy_gs_gstrdup
#define add_source sy_gs_add_source
#define slot_of_var sy_gs_slot_of_var
#define print_show sy_gs_print_show
#define add_guard_fs sy_gs_add_guard_fs
#define add_guard_why sy_gs_add_guard_why
#define add_origin sy_gs_add_origin
#define as_bound sy_gs_as_bound
#define collect_divisors sy_gs_collect_divisors
#define uf_find sy_gs_uf_find
#define is_fact_guard sy_gs_is_fact_guard
#define compact sy_gs_compact
#define add_drop sy_gs_add_drop
#define drop_imp sy_gs_drop_imp
#define tx_format sy_gs_tx_format
#define texts_make sy_gs_texts_make
#define normalize sy_gs_normalize
#define find_violations sy_gs_find_violations
#define witness_clear sy_gs_witness_clear
#define witness_init sy_gs_witness_init
#define has_witness sy_gs_has_witness
#define hl_clear sy_gs_hl_clear
#define hl_init sy_gs_hl_init
#define hl_implied sy_gs_hl_implied
#define hl_classes sy_gs_hl_classes
#define hl_is_class_edge sy_gs_hl_is_class_edge

/* gset.c */
void *galloc(sy_gset *gs, size_t size);
const char *gstrdup(sy_gset *gs, const char *s);
long add_source(sy_gset *gs, const char *text);
long slot_of_var(const sy_gset *gs, const sy_expr *v);
char *print_show(sy_ctx *ctx, const sy_expr *e);
gguard *add_guard_fs(sy_gset *gs, sy_gset_kind kind, const sy_expr *e, const sy_expr *const *fs, size_t nfs);
gguard *add_guard_why(sy_gset *gs, sy_gset_kind kind, const sy_expr *e, why_kind wk, const char *s0,
                      const char *s1, const char *s2, int64_t n0, int64_t n1, int64_t n2);
bool add_origin(sy_gset *gs, gguard *gg, const sy_guard_origin *o);

/* gset_minimize.c */
bool as_bound(const sy_expr *e, const sy_expr **v, int *upper, fmpz_t c);
void collect_divisors(sy_ctx *ctx, const sy_expr *e, const sy_expr **out, size_t *n, size_t cap);
size_t uf_find(size_t *parent, size_t x);
bool is_fact_guard(const gguard *g);
void compact(sy_gset *gs);
drec *add_drop(sy_gset *gs, const gguard *g, bool normalized);
void drop_imp(drec *d, size_t uid);

/* gset_text.c */
bool tx_format(sy_gset *gs, gtext *t);
sy_status texts_make(sy_gset *gs);

/* gset_normalize.c */
sy_status normalize(sy_gset *gs);

/* gset_spec.c */
sy_status find_violations(sy_gset *gs);

/* gset_witness.c */
void witness_clear(witness *w);
bool witness_init(witness *w, sy_gset *gs);
bool has_witness(witness *w, size_t ci);
void hl_clear(sy_ctx *ctx, hlindex *x);
bool hl_init(hlindex *x, witness *w);
bool hl_implied(hlindex *x, const sy_gset *gs, size_t ci);
bool hl_classes(hlindex *c, const hlindex *x, const sy_gset *gs);
bool hl_is_class_edge(const gguard *g);

#endif
