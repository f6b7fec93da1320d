/* The bytecode form of a dispatcher (format 2.2): sy_bc_dispatch_compile,
 * include/symshape/bc.h and docs/bytecode.md section 9. Reads the dispatcher
 * through its public view (symshape/dispatch.h) and emits the same decision
 * tree and the same int64 evaluation as sy_dispatch_run: an overflow or a
 * zero divisor in a guard goes to the entry's ONFAIL target, failing the
 * entry, as the node error of sy_dispatch_run does. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/bc_private.h"

typedef struct dbuild {
    sy_ctx *ctx;
    const sy_dispatch *d;
    sy_status st;
    uint32_t *code;
    size_t ncode, ccap;
    int64_t *k; /* constants */
    size_t nk, kcap;
    uint32_t *kh; /* open addressing over k: index + 1 */
    size_t khcap;
    unsigned char used[SY_BC_MAX_REGS]; /* registers in use */
    unsigned nregs;                     /* high-water mark */
    uint32_t *patch;                    /* pcs of jumps to the current entry's end */
    size_t npatch, pcap;
} dbuild;

static sy_status dfail(dbuild *b, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static sy_status dfail(dbuild *b, sy_status st, const char *fmt, ...)
{
    if (b->st) return b->st;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->st = st == SY_ENOMEM ? sy_fail_st(b->ctx, SY_ENOMEM, "out of memory") : sy_fail_st(b->ctx, st, "bc_dispatch: %s", msg);
    return b->st;
}

static int dgrow(dbuild *b, void **p, size_t *cap, size_t n, size_t el)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? 2 * *cap : 256;
    void *q = sy_realloc(b->ctx, *p, *cap * el, nc * el);
    if (!q) {
        dfail(b, SY_ENOMEM, "out of memory");
        return -1;
    }
    *p = q;
    *cap = nc;
    return 0;
}

static void demit(dbuild *b, uint32_t w)
{
    if (b->st) return;
    if (b->ncode >= SY_BC_MAX_INSTR) {
        dfail(b, SY_EUNSUPPORTED, "more than %u instructions", SY_BC_MAX_INSTR);
        return;
    }
    if (dgrow(b, (void **)&b->code, &b->ccap, b->ncode, sizeof *b->code)) return;
    b->code[b->ncode++] = w;
}

static unsigned reg_alloc(dbuild *b)
{
    for (unsigned r = 0; r < SY_BC_MAX_REGS; r++)
        if (!b->used[r]) {
            b->used[r] = 1;
            if (r + 1 > b->nregs) b->nregs = r + 1;
            return r;
        }
    dfail(b, SY_EUNSUPPORTED, "a guard needs more than %u live registers", SY_BC_MAX_REGS);
    return 0;
}

static void reg_free(dbuild *b, unsigned r) { b->used[r] = 0; }

static uint32_t kidx(dbuild *b, int64_t v)
{
    if (b->st) return 0;
    if (2 * (b->nk + 1) > b->khcap) {
        size_t nc = b->khcap ? 2 * b->khcap : 256;
        uint32_t *h = sy_alloc(b->ctx, nc * sizeof *h);
        if (!h) return dfail(b, SY_ENOMEM, "out of memory"), 0;
        memset(h, 0, nc * sizeof *h);
        for (size_t i = 0; i < b->nk; i++) {
            size_t j = (size_t)((uint64_t)b->k[i] * 0x9e3779b97f4a7c15u >> 20) & (nc - 1);
            while (h[j]) j = (j + 1) & (nc - 1);
            h[j] = (uint32_t)i + 1;
        }
        if (b->kh) sy_dealloc(b->ctx, b->kh, b->khcap * sizeof *b->kh);
        b->kh = h;
        b->khcap = nc;
    }
    size_t j = (size_t)((uint64_t)v * 0x9e3779b97f4a7c15u >> 20) & (b->khcap - 1);
    for (; b->kh[j]; j = (j + 1) & (b->khcap - 1))
        if (b->k[b->kh[j] - 1] == v) return b->kh[j] - 1;
    if (b->nk >= SY_BC_MAX_INDEX) return dfail(b, SY_EUNSUPPORTED, "more than %u constants", SY_BC_MAX_INDEX), 0;
    if (dgrow(b, (void **)&b->k, &b->kcap, b->nk, sizeof *b->k)) return 0;
    b->k[b->nk] = v;
    b->kh[j] = (uint32_t)++b->nk;
    return (uint32_t)(b->nk - 1);
}

static void loadk(dbuild *b, unsigned r, int64_t v) { demit(b, SY_BC_ABX(SY_OP_LOADK, r, kidx(b, v))); }

/* a forward jump whose target is patched later: its pc */
static uint32_t jump_here(dbuild *b, unsigned op, unsigned a)
{
    uint32_t pc = (uint32_t)b->ncode;
    demit(b, SY_BC_ASBX(op, a, 0));
    return pc;
}

static void patch_to(dbuild *b, uint32_t pc, size_t target)
{
    if (b->st) return;
    size_t off = target - pc - 1;
    if (target <= pc || off > SY_BC_MAX_JUMP) {
        dfail(b, SY_EUNSUPPORTED, "a jump over %zu instructions (the format's limit is %d)", off, SY_BC_MAX_JUMP);
        return;
    }
    uint32_t w = b->code[pc];
    b->code[pc] = SY_BC_ASBX(SY_BC_GET_OP(w), SY_BC_GET_A(w), (int32_t)off);
}

static void to_entry_end(dbuild *b, unsigned op, unsigned a)
{
    uint32_t pc = jump_here(b, op, a);
    if (b->st || dgrow(b, (void **)&b->patch, &b->pcap, b->npatch, sizeof *b->patch)) return;
    b->patch[b->npatch++] = pc;
}

/* One guard: its nodes in post-order, each in a register freed after its last use; JMPZ to the
 * entry's end when the root is 0. reg[] and last[] are indexed by position in the list. */
static void emit_guard(dbuild *b, size_t gi, unsigned *reg, size_t *last, uint32_t *pos_of, unsigned char *mark)
{
    uint32_t root;
    const uint32_t *list;
    size_t nl;
    if (sy_dispatch_get_guard(b->d, gi, &root, &list, &nl, NULL) != SY_OK) {
        dfail(b, SY_EINVAL, "guard %zu", gi);
        return;
    }
    /* last use of each list position (the root: the final JMPZ, past the end) */
    for (size_t i = 0; i < nl; i++) {
        pos_of[list[i]] = (uint32_t)i;
        mark[list[i]] = 1;
        last[i] = list[i] == root ? nl : i;
    }
    for (size_t i = 0; i < nl; i++) {
        sy_dispatch_node n;
        sy_dispatch_get_node(b->d, list[i], &n);
        for (size_t a = 0; a < n.nargs; a++) {
            size_t p = pos_of[n.args[a]];
            if (last[p] < i) last[p] = i;
        }
    }
    for (size_t i = 0; i < nl && !b->st; i++) {
        sy_dispatch_node n;
        sy_dispatch_get_node(b->d, list[i], &n);
        unsigned r = reg_alloc(b), t;
        reg[i] = r;
#define A(j) reg[pos_of[n.args[j]]]
        switch (n.op) {
        case SY_DOP_CONST: loadk(b, r, n.k); break;
        case SY_DOP_SLOT: demit(b, SY_BC_ABX(SY_OP_LOADSLOT, r, (uint32_t)n.k)); break;
        case SY_DOP_ADD: /* as sy_dispatch_run: x = k; x += coef * arg, each step checked */
            loadk(b, r, n.k);
            for (size_t a = 0; a < n.nargs; a++) {
                if (n.coef[a] == 1) {
                    demit(b, SY_BC_ABC(SY_OP_ADD, r, r, A(a)));
                    continue;
                }
                t = reg_alloc(b);
                loadk(b, t, n.coef[a]);
                demit(b, SY_BC_ABC(SY_OP_MUL, t, t, A(a)));
                demit(b, SY_BC_ABC(SY_OP_ADD, r, r, t));
                reg_free(b, t);
            }
            break;
        case SY_DOP_MUL:
            if (!n.nargs) loadk(b, r, 1);
            for (size_t a = 0; a < n.nargs; a++) demit(b, a ? SY_BC_ABC(SY_OP_MUL, r, r, A(a)) : SY_BC_ABC(SY_OP_MOVE, r, A(0), 0));
            break;
        case SY_DOP_POW: {
            /* POW's exponent is 8 bits: past 255, a base of magnitude >= 2 overflows either way and
             * 0, 1, -1 depend only on the exponent's parity, so 254 or 255 answers the same */
            unsigned e = n.k <= 255 ? (unsigned)n.k : 254u + (unsigned)(n.k & 1);
            demit(b, SY_BC_ABC(SY_OP_POW, r, A(0), e));
            break;
        }
        case SY_DOP_FLOORDIV: demit(b, SY_BC_ABC(SY_OP_FLOORDIV, r, A(0), A(1))); break;
        case SY_DOP_MOD: demit(b, SY_BC_ABC(SY_OP_MOD, r, A(0), A(1))); break;
        case SY_DOP_CEILDIV: demit(b, SY_BC_ABC(SY_OP_CEILDIV, r, A(0), A(1))); break;
        case SY_DOP_MIN:
        case SY_DOP_MAX:
            demit(b, SY_BC_ABC(SY_OP_MOVE, r, A(0), 0));
            for (size_t a = 1; a < n.nargs; a++) demit(b, SY_BC_ABC(n.op == SY_DOP_MIN ? SY_OP_MIN : SY_OP_MAX, r, r, A(a)));
            break;
        case SY_DOP_EQ:
        case SY_DOP_NE:
        case SY_DOP_LE:
            t = reg_alloc(b);
            loadk(b, t, 0);
            demit(b, SY_BC_ABC(n.op == SY_DOP_EQ ? SY_OP_EQ : n.op == SY_DOP_NE ? SY_OP_NE : SY_OP_LE, r, A(0), t));
            reg_free(b, t);
            break;
        case SY_DOP_AND:
        case SY_DOP_OR:
            if (!n.nargs) loadk(b, r, n.op == SY_DOP_AND);
            for (size_t a = 0; a < n.nargs; a++)
                demit(b, SY_BC_ABC(n.op == SY_DOP_AND ? SY_OP_AND : SY_OP_OR, r, a ? r : A(0), A(a)));
            break;
        default: /* not representable in int64: the guard fails, as in sy_dispatch_run */
            loadk(b, r, 0);
            to_entry_end(b, SY_OP_JMPZ, r);
            break;
        }
#undef A
        /* free the arguments whose last use this was */
        for (size_t a = 0; a < n.nargs; a++) {
            size_t p = pos_of[n.args[a]];
            if (last[p] == i && mark[n.args[a]]) {
                reg_free(b, reg[p]);
                mark[n.args[a]] = 0;
            }
        }
        if (last[i] == i) { /* never read (cannot happen in a post-order list but the root) */
            reg_free(b, r);
            mark[list[i]] = 0;
        }
    }
    if (b->st) return;
    unsigned rr = reg[pos_of[root]];
    to_entry_end(b, SY_OP_JMPZ, rr);
    for (size_t i = 0; i < nl; i++)
        if (mark[list[i]]) {
            reg_free(b, reg[i]);
            mark[list[i]] = 0;
        }
}

static sy_status dbuild_program(dbuild *b, sy_bc_program **out);

sy_status sy_bc_dispatch_compile(const sy_dispatch *d, sy_bc_program **out)
{
    if (out) *out = NULL;
    if (!d || !out) return SY_EINVAL;
    sy_ctx *ctx = sy_dispatch_ctx(d);
    dbuild b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.d = d;
    size_t ntn = sy_dispatch_ntree(d), nn = sy_dispatch_nnodes(d), ng = 0, nent = sy_dispatch_nentries(d);
    sy_dispatch_stats(d, &ng, NULL, NULL, NULL, NULL, NULL);
    if (nent > SY_BC_MAX_INDEX || ng > SY_BC_MAX_INDEX || sy_dispatch_nsources(d) > SY_BC_MAX_INDEX)
        return sy_fail_st(ctx, SY_EUNSUPPORTED, "bc_dispatch: %zu entries, %zu guards, %zu sources (the format's limit is %u each)",
                          nent, ng, sy_dispatch_nsources(d), SY_BC_MAX_INDEX);
    /* the tree in topological order (reverse DFS post-order), so every jump goes forward */
    size_t ntmp = ntn + 1, nmax = (nn > ntn ? nn : ntn) + 1;
    uint32_t *order = sy_alloc(ctx, ntmp * sizeof *order), *stack = sy_alloc(ctx, (2 * ntmp + 1) * sizeof *stack);
    uint32_t *start = sy_alloc(ctx, ntmp * sizeof *start), *pos_of = sy_alloc(ctx, nmax * sizeof *pos_of);
    unsigned char *seen = sy_alloc(ctx, nmax);
    unsigned *reg = sy_alloc(ctx, nmax * sizeof *reg);
    size_t *last = sy_alloc(ctx, nmax * sizeof *last);
    uint32_t *fix = sy_alloc(ctx, 2 * ntmp * sizeof *fix); /* per inner node: its two jump pcs */
    if (!order || !stack || !start || !pos_of || !seen || !reg || !last || !fix) {
        dfail(&b, SY_ENOMEM, "out of memory");
        goto done;
    }
    memset(seen, 0, nmax);
    size_t no = 0, sp = 0;
    stack[sp++] = (uint32_t)sy_dispatch_root(d) << 1;
    while (sp) { /* iterative DFS, each node expanded once; popped (post-order) after its children */
        uint32_t top = stack[sp - 1], node = top >> 1;
        if (top & 1) {
            order[no++] = node;
            sp--;
            continue;
        }
        if (seen[node]) { /* pushed twice, expanded already */
            sp--;
            continue;
        }
        seen[node] = 1;
        stack[sp - 1] = top | 1;
        sy_dispatch_tnode t;
        sy_dispatch_get_tnode(d, node, &t);
        if (t.leaf) continue;
        uint32_t ch[2] = {t.hi, t.lo};
        for (int c = 0; c < 2; c++)
            if (!seen[ch[c]]) stack[sp++] = ch[c] << 1;
    }
    memset(seen, 0, nmax);
    for (size_t oi = no; oi-- > 0 && !b.st;) {
        uint32_t ti = order[oi];
        sy_dispatch_tnode t;
        sy_dispatch_get_tnode(d, ti, &t);
        start[ti] = (uint32_t)b.ncode;
        if (!t.leaf) {
            unsigned rv = reg_alloc(&b), rt = reg_alloc(&b), rc = reg_alloc(&b);
            demit(&b, SY_BC_ABX(SY_OP_LOADSLOT, rv, (uint32_t)t.slot));
            loadk(&b, rt, t.thr);
            demit(&b, SY_BC_ABC(SY_OP_LE, rc, rt, rv)); /* thr <= v */
            fix[2 * ti] = jump_here(&b, SY_OP_JMPZ, rc);      /* v < thr: lo */
            fix[2 * ti + 1] = jump_here(&b, SY_OP_JMPNZ, rc); /* else hi */
            reg_free(&b, rv), reg_free(&b, rt), reg_free(&b, rc);
            continue;
        }
        for (size_t e = 0; e < t.nent && !b.st; e++) {
            const uint32_t *gl;
            size_t ngl;
            sy_dispatch_get_entry(d, t.ent[e], &gl, &ngl);
            b.npatch = 0;
            uint32_t onf = jump_here(&b, SY_OP_ONFAIL, 0);
            for (size_t j = 0; j < ngl && !b.st; j++) {
                size_t rank = sy_dispatch_guard_rank(d, gl[j]);
                if (rank != SIZE_MAX && rank < t.kdone) continue; /* decided by the tree */
                emit_guard(&b, gl[j], reg, last, pos_of, seen);
            }
            demit(&b, SY_BC_ABX(SY_OP_ENTRY, 0, t.ent[e]));
            patch_to(&b, onf, b.ncode);
            for (size_t k = 0; k < b.npatch; k++) patch_to(&b, b.patch[k], b.ncode);
        }
        demit(&b, SY_BC_ABC(SY_OP_RETURN, 0, 0, 0));
    }
    for (size_t oi = 0; oi < no && !b.st; oi++) {
        sy_dispatch_tnode t;
        sy_dispatch_get_tnode(d, order[oi], &t);
        if (t.leaf) continue;
        patch_to(&b, fix[2 * order[oi]], start[t.lo]);
        patch_to(&b, fix[2 * order[oi] + 1], start[t.hi]);
    }
    if (!b.st) dbuild_program(&b, out);
done:
    if (order) sy_dealloc(ctx, order, ntmp * sizeof *order);
    if (stack) sy_dealloc(ctx, stack, (2 * ntmp + 1) * sizeof *stack);
    if (start) sy_dealloc(ctx, start, ntmp * sizeof *start);
    if (pos_of) sy_dealloc(ctx, pos_of, nmax * sizeof *pos_of);
    if (seen) sy_dealloc(ctx, seen, nmax);
    if (reg) sy_dealloc(ctx, reg, nmax * sizeof *reg);
    if (last) sy_dealloc(ctx, last, nmax * sizeof *last);
    if (fix) sy_dealloc(ctx, fix, 2 * ntmp * sizeof *fix);
    if (b.code) sy_dealloc(ctx, b.code, b.ccap * sizeof *b.code);
    if (b.k) sy_dealloc(ctx, b.k, b.kcap * sizeof *b.k);
    if (b.kh) sy_dealloc(ctx, b.kh, b.khcap * sizeof *b.kh);
    if (b.patch) sy_dealloc(ctx, b.patch, b.pcap * sizeof *b.patch);
    return b.st;
}

static sy_status dbuild_program(dbuild *b, sy_bc_program **out)
{
    const sy_dispatch *d = b->d;
    sy_bc_program *p = sy_bc_program_new(b->ctx);
    if (!p) return dfail(b, SY_ENOMEM, "out of memory");
    size_t ng = 0;
    sy_dispatch_stats(d, &ng, NULL, NULL, NULL, NULL, NULL);
    p->flags = SY_BC_FLAG_DISPATCH;
    p->minor = 2;
    p->nregs = b->nregs ? b->nregs : 1;
    p->nconsts = (uint32_t)b->nk;
    p->nslots = (uint32_t)sy_dispatch_nsources(d);
    p->nguards = (uint32_t)ng;
    p->ninstr = (uint32_t)b->ncode;
    p->nentries = (uint32_t)sy_dispatch_nentries(d);
    sy_status st = sy_bc_alloc_tables(p);
    if (!st) memcpy(p->code, b->code, b->ncode * sizeof *b->code);
    for (uint32_t i = 0; i < p->nconsts && !st; i++) {
        unsigned char mag[8];
        uint64_t m = b->k[i] < 0 ? (uint64_t)0 - (uint64_t)b->k[i] : (uint64_t)b->k[i];
        uint32_t nb = 0;
        while (m) {
            mag[nb++] = (unsigned char)(m & 0xFF);
            m >>= 8;
        }
        st = sy_bc_set_const(p, i, b->k[i] < 0, mag, nb);
    }
    for (uint32_t i = 0; i < p->nslots && !st; i++) {
        const char *s = sy_dispatch_source(d, i);
        size_t n = strlen(s);
        if (!(p->slots[i] = sy_bc_palloc(p, n + 1))) st = SY_ENOMEM;
        else memcpy(p->slots[i], s, n + 1);
    }
    for (uint32_t i = 0; i < p->nguards && !st; i++) {
        char *text = NULL;
        st = sy_dispatch_get_guard(d, i, NULL, NULL, NULL, &text);
        if (st) break;
        size_t n = strlen(text);
        if (!(p->guards[i] = sy_bc_palloc(p, n + 1))) st = SY_ENOMEM;
        else memcpy(p->guards[i], text, n + 1);
        sy_str_free(b->ctx, text);
        p->gkind[i] = SY_GK_RELATION;
    }
    sy_bc_load_err err;
    sy_status vs = st ? SY_OK : sy_bc_verify(p, &err);
    if (st == SY_ENOMEM || vs == SY_ENOMEM) st = dfail(b, SY_ENOMEM, "out of memory");
    else if (st) st = dfail(b, st, "%s", sy_ctx_last_error_msg(b->ctx));
    else if (vs) st = dfail(b, SY_EVERIFY, "internal error: the program fails verification: %s", err.msg);
    if (st) {
        sy_bc_free(p);
        return st;
    }
    *out = p;
    return SY_OK;
}
