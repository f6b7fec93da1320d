/* The VM loop, included three times by bc_vm.c: SY_VM_FN is the function's name,
 * SY_VM_RUNTIME 0 for sy_bc_check (RTCHECKS accepts) and 1 for
 * sy_bc_check_runtime (the runtime asserts run, reading the unbacked values
 * as slots nslots..); SY_VM_DISPATCH 1 for sy_bc_dispatch (ENTRY answers its
 * entry, RETURN -1, a fault goes to the last ONFAIL's target or, with none,
 * ends the run). Arguments are checked by the callers. */
static SY_VM_RET SY_VM_FN(const sy_bc_program *p, const int64_t *sizes, const int64_t *unbacked, int32_t *failed)
{
    int64_t r[SY_BC_MAX_REGS];
    /* the verifier proved every register written before it is read; zeroed
     * anyway, so that nothing of an earlier call can ever leak into this one */
    memset(r, 0, (size_t)p->nregs * sizeof r[0]);
    const uint32_t *code = p->code;
    uint32_t pc = 0;
    int st;
#if SY_VM_DISPATCH
    uint32_t onfail = 0; /* 0: no handler (a target is never instruction 0) */
    (void)failed;
#define SY_VM_FAULT(s)                                            \
    {                                                             \
        if (!onfail) return (s) == SY_I64_DIVZERO ? SY_EDIVZERO : SY_EOVERFLOW; \
        pc = onfail;                                              \
    }
#else
#define SY_VM_FAULT(s) return fault(p, pc - 1, (s), failed);
#endif
#if !SY_VM_RUNTIME
    (void)unbacked;
#endif
#ifdef SY_VM_THREADED
#define X_LABEL(name, fmt, ra, rb, rc, syn) &&L_##name,
    static const void *const jumptable[SY_OP_COUNT] = {SY_OPCODES(X_LABEL)};
#undef X_LABEL
#endif
#define RA r[SY_BC_GET_A(w)]
#define RB r[SY_BC_GET_B(w)]
#define RC r[SY_BC_GET_C(w)]
#define BX SY_BC_GET_BX(w)
#define ARITH(fn)                                                   \
    if ((st = fn(RB, RC, &RA)) != SY_I64_OK) SY_VM_FAULT(st)     \
    SY_VMBREAK;
    for (;;) {
        uint32_t w = code[pc++];
        SY_VM_DEBUG_OPERANDS(p, pc - 1, w);
        SY_VMDISPATCH(SY_BC_GET_OP(w))
        {
            SY_VMCASE(LOADSLOT)
            {
#if SY_VM_RUNTIME
                RA = BX < p->nslots ? sizes[BX] : unbacked[BX - p->nslots];
#else
                RA = sizes[BX]; /* the verifier: no unbacked slot before RTCHECKS */
#endif
                SY_VMBREAK;
            }
            SY_VMCASE(LOADK)
            {
                if (!p->kfits[BX]) SY_VM_FAULT(SY_I64_OVERFLOW)
                else RA = p->k64[BX];
                SY_VMBREAK;
            }
            SY_VMCASE(NEG)
            {
                if ((st = sy_i64_sub(0, RB, &RA)) != SY_I64_OK) SY_VM_FAULT(st)
                SY_VMBREAK;
            }
            SY_VMCASE(ADD) { ARITH(sy_i64_add) }
            SY_VMCASE(SUB) { ARITH(sy_i64_sub) }
            SY_VMCASE(MUL) { ARITH(sy_i64_mul) }
            SY_VMCASE(FLOORDIV) { ARITH(sy_i64_floordiv) }
            SY_VMCASE(MOD) { ARITH(sy_i64_mod) }
            SY_VMCASE(CEILDIV) { ARITH(sy_i64_ceildiv) }
            SY_VMCASE(MIN)
            {
                RA = RB < RC ? RB : RC;
                SY_VMBREAK;
            }
            SY_VMCASE(MAX)
            {
                RA = RB > RC ? RB : RC;
                SY_VMBREAK;
            }
            SY_VMCASE(POW)
            {
                if ((st = pow_i64(RB, SY_BC_GET_C(w), &RA)) != SY_I64_OK) SY_VM_FAULT(st)
                SY_VMBREAK;
            }
            SY_VMCASE(EQ)
            {
                RA = RB == RC;
                SY_VMBREAK;
            }
            SY_VMCASE(NE)
            {
                RA = RB != RC;
                SY_VMBREAK;
            }
            SY_VMCASE(LE)
            {
                RA = RB <= RC;
                SY_VMBREAK;
            }
            SY_VMCASE(NOT)
            {
                RA = RB == 0;
                SY_VMBREAK;
            }
            SY_VMCASE(AND)
            {
                RA = (RB != 0) & (RC != 0);
                SY_VMBREAK;
            }
            SY_VMCASE(OR)
            {
                RA = (RB != 0) | (RC != 0);
                SY_VMBREAK;
            }
            SY_VMCASE(JMPZ)
            {
                if (RA == 0) pc += (uint32_t)SY_BC_GET_SBX(w);
                SY_VMBREAK;
            }
            SY_VMCASE(JMPNZ)
            {
                if (RA != 0) pc += (uint32_t)SY_BC_GET_SBX(w);
                SY_VMBREAK;
            }
            SY_VMCASE(CHECK)
            {
#if SY_VM_DISPATCH
                return SY_EINVAL; /* not reached: the verifier refuses CHECK in a dispatcher */
#endif
                if (RA == 0) {
                    if (failed) *failed = (int32_t)BX;
                    return SY_BC_REJECT;
                }
                SY_VMBREAK;
            }
            SY_VMCASE(RETURN)
            {
#if SY_VM_DISPATCH
                return -1; /* no entry accepts */
#else
                return SY_BC_ACCEPT;
#endif
            }
            SY_VMCASE(RTCHECKS)
            {
#if SY_VM_DISPATCH
                return SY_EINVAL; /* not reached: the verifier refuses RTCHECKS in a dispatcher */
#elif SY_VM_RUNTIME
                SY_VMBREAK;
#else
                return SY_BC_ACCEPT; /* the size check ends here */
#endif
            }
            SY_VMCASE(MOVE)
            {
                RA = RB;
                SY_VMBREAK;
            }
            SY_VMCASE(ENTRY)
            {
#if SY_VM_DISPATCH
                return (SY_VM_RET)BX;
#else
                return SY_EINVAL; /* not reached: the verifier refuses ENTRY outside a dispatcher */
#endif
            }
            SY_VMCASE(ONFAIL)
            {
#if SY_VM_DISPATCH
                onfail = pc + (uint32_t)SY_BC_GET_SBX(w);
                SY_VMBREAK;
#else
                return SY_EINVAL; /* not reached: the verifier refuses ONFAIL outside a dispatcher */
#endif
            }
#ifndef SY_VM_THREADED
        default: return SY_EINVAL; /* not reached: the verifier rejects unknown opcodes */
#endif
        }
    }
#undef RA
#undef RB
#undef RC
#undef BX
#undef ARITH
#undef SY_VM_FAULT
}
