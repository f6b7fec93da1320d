/* Private: node layout, context internals, helpers shared by the algebra sources.
 * Nothing here is part of the public API. */
#ifndef SY_EXPR_PRIVATE_H
#define SY_EXPR_PRIVATE_H

#include <flint/flint.h>
#include <flint/fmpz.h>
#include <stdarg.h>
#include <stdbool.h>

#include "symshape/ctx.h"
#include "symshape/expr.h"
#include "algebra/eval.h"
#include "algebra/internal.h"
#include "algebra/rules.h"

/* Intrinsic bounds: every node stores an interval [lo, hi] that holds at every
 * integer point where the node is defined, independent of any assumption.
 * INT64_MIN as lo means -oo, INT64_MAX as hi means +oo. */
#define SY_NEG_INF INT64_MIN
#define SY_POS_INF INT64_MAX

typedef struct sy_term {
    fmpz coef;
    const sy_expr *mono; /* a monomial node: SYM, atom, POW or MUL */
} sy_term;

struct sy_expr {
    uint64_t hash;
    uint64_t serial;
    int64_t lo, hi;  /* intrinsic bounds */
    uint32_t n;      /* number of args / terms */
    uint32_t deg;    /* total degree of a monomial (1 for atoms), 0 otherwise */
    uint8_t kind;
    uint8_t isbool;
    uint16_t depth;  /* nesting: 0 for leaves, 1 + the deepest child's (at most SY_MAX_DEPTH) */
    uint8_t pad[4];
    union {
        fmpz value;                               /* INT */
        struct { const char *name; uint32_t id; } sym; /* SYM */
        fmpz c0;                                  /* ADD: constant term */
        uint64_t exp;                             /* POW */
    } u;
    const sy_expr *args[]; /* n children; for ADD: n sy_term (see SY_TERMS) */
};

#define SY_TERMS(e) ((sy_term *)(void *)(e)->args)
#define SY_CTERMS(e) ((const sy_term *)(const void *)(e)->args)

typedef struct sy_arena_chunk {
    struct sy_arena_chunk *next;
    size_t size;
    size_t used;
    max_align_t data[];
} sy_arena_chunk;

/* The deepest expression the context builds (sy_intern). Every recursive pass
 * (bound, simplify, evaluation, printing, substitution, decide) recurses once
 * per level, so the limit bounds their stack: about 1 KB a level under ASan. */
#define SY_MAX_DEPTH 2000

/* Integer nodes are found through a direct-mapped cache of SY_ICACHE
 * entries (by a hash of the value) before the intern table is probed: the
 * sizes a graph uses again and again (0, 1, -1, its channel counts) stay
 * found without a probe, in 1 KB (an array over -64..1024 took 8.7 KB of
 * every context and missed every larger value). */
#define SY_ICACHE 128 /* a power of two */
static inline size_t sy_icache_slot(int64_t v)
{
    return (size_t)(((uint64_t)v * 0x9e3779b97f4a7c15ull) >> 57) & (SY_ICACHE - 1);
}

#define SY_RELC_MIN 32  /* entries of the relation memo when first used (a power of two) */
#define SY_RELC_MAX 512 /* entries it grows to at most */
struct sy_ctx {
    sy_allocator alc;
    sy_ctx_options opts;
    /* errors */
    sy_status err;
    long erroff;
    char errmsg[512];
    /* intern table (open addressing, linear probing) */
    const sy_expr **table;
    size_t cap, count;
    /* node arena */
    sy_arena_chunk *chunks;
    size_t arena_bytes;
    uint64_t next_serial;
    size_t live_blocks;
    /* symbols by id */
    const sy_expr **syms;
    size_t nsyms, symcap;
    /* cached constants: integer nodes whose value is not a bignum, by sy_icache_slot */
    const sy_expr *icache[SY_ICACHE];
    const sy_expr *etrue, *efalse;
    /* scratch node used to build interning candidates */
    sy_expr *scratch;
    size_t scratch_cap; /* in args slots */
    /* rewrite rules switched off (tests) and applications counted (rules.h) */
    sy_rule_state rules;
    uint32_t rules_epoch; /* bumped when a rule is switched: constructions memoized before are stale */
    /* sy_expr_rel's results on (op, a, b), direct-mapped on the operands'
     * content hashes: an op's checks build the same relations over the same
     * sizes again and again (conv: L + 2p >= d*(k-1) + 1 per layer). An
     * entry holds for the gen and rules_epoch it was made in (a rollback
     * may free its nodes; a switched rule changes results). A hit does not
     * count the rules the construction applied again.
     * The table starts with SY_RELC_MIN entries (a small graph builds few
     * relations) and doubles, emptied, each time it has stored twice its
     * size, up to SY_RELC_MAX; it is outside the node accounting (like
     * ilog), the new table replaces the old one (a failed operation leaves
     * the allocator's block count as it was), and a failed allocation
     * keeps the smaller table. */
    struct sy_relc { const sy_expr *a, *b, *r; uint64_t gen; uint32_t repoch; int op; } *relc;
    size_t relc_cap, relc_stores;
    /* per-operation work budgets (budget.c) */
    int op_depth;       /* nesting of sy_op_begin */
    int halves_depth;   /* nesting of sy_terms_halves (bounded) */
    bool op_pure;       /* the outermost operation may be rolled back */
    bool op_over;       /* a budget of the current operation is spent */
    uint64_t op_steps, op_terms;
    int64_t op_bytes;   /* allocated minus freed within the operation */
    uint64_t gen;       /* rollbacks so far: memos on node identity compare it */
    char quota_msg[256];
    struct {
        uint64_t serial;
        size_t count, cap, nsyms, arena_bytes, used;
        sy_arena_chunk *chunk;
    } mark;             /* the context when the outermost pure operation began */
    size_t *ilog;       /* table slots interned since the mark (not through the allocator's count) */
    size_t ilog_n, ilog_cap;
    bool ilog_bad;      /* the log is incomplete: roll back by a full scan */
};

/* ---- work budgets (budget.c). An operation is bracketed by sy_op_begin and
 * sy_op_end; pure operations (which store nothing outside the intern table
 * and memos compared against ctx->gen) are rolled back when they fail. */
/* (sy_op_begin and sy_op_end_st are declared in algebra/internal.h) */
/* Ends the operation; ok says whether it succeeded. Returns ok unless a
 * budget was spent (then SY_EQUOTA is the recorded error). The outermost
 * failed pure operation releases every node it interned. */
bool sy_op_end(sy_ctx *ctx, bool ok);
const sy_expr *sy_op_end_e(sy_ctx *ctx, const sy_expr *e);
bool sy_budget_over(sy_ctx *ctx, int which, uint64_t amount);
void sy_ilog_push(sy_ctx *ctx, size_t slot);
static inline bool sy_step(sy_ctx *c_)
{
    if (!c_->op_depth) return true;
    if (++c_->op_steps > c_->opts.max_steps) return sy_budget_over(c_, 0, c_->op_steps);
    return !c_->op_over;
}
static inline bool sy_charge_terms(sy_ctx *c_, uint64_t n)
{
    if (!c_->op_depth) return true;
    if ((c_->op_terms += n) > c_->opts.max_work_terms) return sy_budget_over(c_, 1, c_->op_terms);
    return !c_->op_over;
}
static inline bool sy_charge_bytes(sy_ctx *c_, int64_t n)
{
    if ((c_->op_bytes += n) > (int64_t)c_->opts.max_work_bytes) {
        c_->op_bytes -= n;
        return sy_budget_over(c_, 2, (uint64_t)(c_->op_bytes + n));
    }
    return !c_->op_over;
}



/* ---- interning */
/* A candidate node with room for @p n children; valid until the next call. */
sy_expr *sy_scratch(sy_ctx *ctx, size_t n);
/* Intern the candidate (hash already computed with sy_hash_node). Deep-copies
 * fmpz fields; the caller keeps ownership of the candidate's fmpz values. */
const sy_expr *sy_intern(sy_ctx *ctx, const sy_expr *cand);
uint64_t sy_hash_node(const sy_expr *cand);
const sy_expr *sy_node2(sy_ctx *ctx, sy_expr_kind kind, const sy_expr *a, const sy_expr *b);
const sy_expr *sy_node_n(sy_ctx *ctx, sy_expr_kind kind, size_t n, const sy_expr *const *args);

/* ---- term lists (polynomial building) */
#define SY_TERMS_INLINE 8
typedef struct sy_terms {
    sy_term *t; /* inl until more than SY_TERMS_INLINE terms (never copy the struct) */
    size_t n, cap;
    fmpz_t c0;
    sy_term inl[SY_TERMS_INLINE];
} sy_terms;
void sy_terms_init(sy_terms *ts);
void sy_terms_clear(sy_ctx *ctx, sy_terms *ts);
bool sy_terms_push(sy_ctx *ctx, sy_terms *ts, const fmpz_t c, const sy_expr *mono);
/* Append c * e (e any integer expression). */
bool sy_terms_add_expr(sy_ctx *ctx, sy_terms *ts, const fmpz_t c, const sy_expr *e);
/* Canonicalise (sort, merge, drop zeros) and intern; clears ts. */
const sy_expr *sy_terms_build(sy_ctx *ctx, sy_terms *ts);
/* Rule ADD_HALVES (div.c) on the first k terms of ts (sorted, merged, no zero): when two or
 * more FloorDiv/Mod-by-2 atoms over the same monomials occur, *res is the sum built with them
 * replaced by one; 1 then, 0 when nothing applies (ts untouched), -1 on error. */
int sy_terms_halves(sy_ctx *ctx, sy_terms *ts, size_t k, const sy_expr **res);

/* ---- helpers on canonical polynomials */
bool sy_is_int(const sy_expr *e);
bool sy_is_zero(const sy_expr *e);
bool sy_is_one(const sy_expr *e);
bool sy_is_monomial(const sy_expr *e); /* SYM, atom, POW, MUL */
bool sy_is_atom(const sy_expr *e);     /* SYM, FLOORDIV, MOD, CEILDIV, MIN, MAX */
/* gcd of all coefficients including the constant term (>= 0; 0 for 0). */
void sy_content(fmpz_t g, const sy_expr *e);
/* gcd of the non-constant coefficients (0 if constant). */
void sy_content_nonconst(fmpz_t g, const sy_expr *e);
/* sign of the first (leading) non-constant coefficient, or of the constant. */
int sy_leading_sign(const sy_expr *e);
/* constant term of e into c */
void sy_const_term(fmpz_t c, const sy_expr *e);
const sy_expr *sy_scale_fmpz(sy_ctx *ctx, const sy_expr *e, const fmpz_t c);
/* e / c, exact (caller guarantees c divides every coefficient) */
const sy_expr *sy_divexact_fmpz(sy_ctx *ctx, const sy_expr *e, const fmpz_t c);
const sy_expr *sy_add_fmpz(sy_ctx *ctx, const sy_expr *e, const fmpz_t c);
/* e without its constant term */
const sy_expr *sy_nonconst_part(sy_ctx *ctx, const sy_expr *e);
int sy_mono_cmp(const sy_expr *a, const sy_expr *b);
/* the order of atoms (SYM first, by natural name order), the factor order of a MUL */
int sy_atom_cmp(const sy_expr *a, const sy_expr *b);
const sy_expr *sy_mono_mul(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);

/* ---- intrinsic bounds */
void sy_compute_bounds(sy_expr *cand);

/* ---- polynomial bridge (poly.c) */
/* gcd of two polynomials; returns NULL on error. */
const sy_expr *sy_poly_gcd_raw(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
/* exact division test: 1 divisible (q set), 0 not, -1 error */
int sy_poly_divides_raw(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, const sy_expr **q);

/* ---- internal symbols: sy_sym_internal is in algebra/internal.h */

/* ---- misc */
bool sy_check_int(sy_ctx *ctx, const sy_expr *e, const char *what);
bool sy_check_bool(sy_ctx *ctx, const sy_expr *e, const char *what);
uint64_t sy_hash_fmpz(const fmpz_t v);
uint64_t sy_mix(uint64_t h, uint64_t v);
bool sy_reserved_name(const char *name, size_t len);

/* A lower bound on the bits of a^k (a != 0, +-1): (bits(a) - 1) * k + 1,
 * exact when |a| is a power of two; UINT64_MAX when that overflows. The
 * constant-power checks refuse on it and check the computed value's bits
 * after (issue 38: bits(a) * k counted 2**2081 as 4162 bits, it has 2082). */
static inline uint64_t sy_pow_bits_lo(const fmpz_t a, uint64_t k)
{
    uint64_t b = (uint64_t)fmpz_bits(a) - 1;
    if (b && k > (UINT64_MAX - 1) / b) return UINT64_MAX;
    return b * k + 1;
}

#endif
