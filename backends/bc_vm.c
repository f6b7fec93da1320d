/* The bytecode VM: sy_bc_check. Registers live on the stack; nothing is
 * allocated and the program and context are only read, so any number of
 * threads may run one program. The program was verified (sy_bc_compile and
 * sy_bc_load always verify), so operands are in range, jumps go forward and
 * land inside the code, and the last instruction is RETURN: the loop ends.
 * Arithmetic uses the checked helpers of algebra/sy_int64.h, shared with
 * exact evaluation and the C backend. */
#include <stdlib.h>
#include <string.h>

#include "algebra/sy_int64.h"
#include "backends/bc_private.h"

/* Dispatch: on GCC and Clang, threaded code (computed goto: each handler
 * fetches the next instruction and jumps to its handler, so the branch
 * predictor sees one indirect jump per handler; 5.3-7.0 ns per guard on the
 * corpus against 8.9-11.2 with the switch, bench_backends). Elsewhere, or
 * with SY_VM_SWITCH defined, a portable switch in a loop. The ASan build of
 * scripts/test.sh uses the switch, so both forms run the whole test suite. */
#if defined(__GNUC__) && !defined(SY_VM_SWITCH)
#define SY_VM_THREADED 1
#endif
#ifdef SY_VM_THREADED
#define SY_VMDISPATCH(op) goto *jumptable[op];
#define SY_VMCASE(name) L_##name:
/* threaded: each handler fetches and dispatches the next instruction itself */
#define SY_VMBREAK                                  \
    do {                                            \
        w = code[pc++];                             \
        SY_VM_DEBUG_OPERANDS(p, pc - 1, w);         \
        goto *jumptable[SY_BC_GET_OP(w)];           \
    } while (0)
#else
#define SY_VMDISPATCH(op) switch (op)
#define SY_VMCASE(name) case SY_OP_##name:
#define SY_VMBREAK continue
#endif

#ifdef SY_DEBUG
/* Debug builds re-check each operand against its role before executing. */
static void debug_operands(const sy_bc_program *p, uint32_t pc, uint32_t w)
{
    unsigned op = SY_BC_GET_OP(w);
    const unsigned char *role = sy_bc_op_role[op];
    unsigned f[3] = {SY_BC_GET_A(w), SY_BC_GET_B(w), SY_BC_GET_C(w)};
    int n = 3;
    if (sy_bc_op_fmt[op] != SY_BC_FMT_ABC) {
        f[1] = SY_BC_GET_BX(w);
        n = 2;
    }
    for (int i = 0; i < n; i++) {
        int ok = 1;
        switch (role[i]) {
        case SY_BC_ROLE_RIN:
        case SY_BC_ROLE_ROUT: ok = f[i] < p->nregs; break;
        case SY_BC_ROLE_K: ok = f[i] < p->nconsts; break;
        case SY_BC_ROLE_SLOT: ok = f[i] < p->nslots + p->nunbacked; break;
        case SY_BC_ROLE_GUARD: ok = f[i] < p->nguards; break;
        case SY_BC_ROLE_JUMP: ok = SY_BC_GET_SBX(w) >= 0 && pc + 1 + (uint32_t)SY_BC_GET_SBX(w) < p->ninstr; break;
        default: break;
        }
        if (!ok) abort();
    }
}
#define SY_VM_DEBUG_OPERANDS(p, pc, w) debug_operands(p, pc, w)
#else
#define SY_VM_DEBUG_OPERANDS(p, pc, w) ((void)0)
#endif

/* b ** k, exact or overflow. |b| >= 2 overflows within 64 steps, and the
 * magnitudes grow, so an intermediate overflows only when the result does. */
static int pow_i64(int64_t b, unsigned k, int64_t *r)
{
    if (k == 0) {
        *r = 1;
        return SY_I64_OK;
    }
    if (b == 0 || b == 1) {
        *r = b;
        return SY_I64_OK;
    }
    if (b == -1) {
        *r = (k & 1u) ? -1 : 1;
        return SY_I64_OK;
    }
    int64_t acc = 1;
    while (k--)
        if (sy_i64_mul(acc, b, &acc)) return SY_I64_OVERFLOW;
    *r = acc;
    return SY_I64_OK;
}

/* A fail-closed result: *failed names the guard whose evaluation faulted,
 * the one of the next CHECK (code of one guard is contiguous). */
static int fault(const sy_bc_program *p, uint32_t pc, int st, int32_t *failed)
{
    if (failed) {
        *failed = -1;
        for (uint32_t i = pc; i < p->ninstr; i++)
            if (SY_BC_GET_OP(p->code[i]) == SY_OP_CHECK) {
                *failed = (int32_t)SY_BC_GET_BX(p->code[i]);
                break;
            }
    }
    return st == SY_I64_DIVZERO ? SY_EDIVZERO : SY_EOVERFLOW;
}

#define SY_VM_RET int
#define SY_VM_DISPATCH 0
#define SY_VM_FN vm_sizes
#define SY_VM_RUNTIME 0
#include "backends/bc_vm_loop.h"
#undef SY_VM_FN
#undef SY_VM_RUNTIME
#define SY_VM_FN vm_runtime
#define SY_VM_RUNTIME 1
#include "backends/bc_vm_loop.h"
#undef SY_VM_FN
#undef SY_VM_RUNTIME
#undef SY_VM_DISPATCH
#undef SY_VM_RET
#define SY_VM_RET long
#define SY_VM_DISPATCH 1
#define SY_VM_FN vm_dispatch
#define SY_VM_RUNTIME 0
#include "backends/bc_vm_loop.h"
#undef SY_VM_FN
#undef SY_VM_RUNTIME
#undef SY_VM_DISPATCH
#undef SY_VM_RET

int sy_bc_check(const sy_bc_program *p, const int64_t *sizes, size_t n, int32_t *failed)
{
    if (failed) *failed = -1;
    if (!p || (n && !sizes) || n != p->nslots || (p->flags & SY_BC_FLAG_DISPATCH)) return SY_EINVAL;
    return vm_sizes(p, sizes, NULL, failed);
}

int sy_bc_check_runtime(const sy_bc_program *p, const int64_t *sizes, size_t n, const int64_t *unbacked, size_t m,
                        int32_t *failed)
{
    if (failed) *failed = -1;
    if (!p || (n && !sizes) || n != p->nslots || (m && !unbacked) || m != p->nunbacked || (p->flags & SY_BC_FLAG_DISPATCH))
        return SY_EINVAL;
    return vm_runtime(p, sizes, unbacked, failed);
}

long sy_bc_dispatch(const sy_bc_program *p, const int64_t *sizes, size_t n)
{
    if (!p || !(p->flags & SY_BC_FLAG_DISPATCH) || (n && !sizes) || n != p->nslots) return SY_EINVAL;
    return vm_dispatch(p, sizes, NULL, NULL);
}
