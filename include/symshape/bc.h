/**
 * @file symshape/bc.h
 * @brief Bytecode for guard sets: a compiler from a guard set to a small
 *        register program, a versioned and checksummed binary format, a
 *        loader that always verifies, an allocation-free int64 VM, and a
 *        disassembler. The format and the semantics are specified in
 *        docs/bytecode.md.
 *
 * ## Model
 * A program reads the guard set's sources (its *slots*: "x.dim()",
 * "x.dtype", "x.size()[0]", ...) as int64 values and answers accept, reject
 * (with the index of the first failing guard, the same index sy_gset_check
 * reports) or *fail closed* when exact int64 evaluation is impossible
 * (overflow, division by zero). It never accepts a point that the reference
 * checker sy_gset_check rejects.
 *
 * ## Instructions
 * One 32-bit little-endian word per instruction. Bit 7 is reserved (0).
 * @verbatim
    31        24 23        16 15         8  7  6         0
   +------------+------------+------------+---+-----------+
   |     C      |     B      |     A      | 0 |  opcode   |   ABC
   +------------+------------+------------+---+-----------+
   |          Bx (16)        |     A      | 0 |  opcode   |   ABx   (unsigned)
   +-------------------------+------------+---+-----------+
   |         sBx (16)        |     A      | 0 |  opcode   |   AsBx  (two's complement)
   +-------------------------+------------+---+-----------+
   @endverbatim
 * A, B, C name registers (0..255) or, for POW, C is an immediate exponent;
 * Bx indexes the constant pool, the slot table or the guard table; sBx is
 * a jump offset relative to the next instruction, which the verifier only
 * accepts when it is >= 0 (forward) and lands inside the program. Fields an
 * opcode does not use must be 0.
 *
 * SY_OPCODES is the single table of the instruction set: the opcode enum,
 * the name table, the operand roles, the verifier and the disassembler are
 * generated from it. The opcode numbers are part of the binary format:
 * append only.
 *
 * ## Ownership and threads
 * A program (GIVE from sy_bc_compile / sy_bc_load) borrows its context and
 * is released with sy_bc_free before the context. It is immutable: any
 * number of threads may call sy_bc_check and the accessors on one program
 * at the same time. sy_bc_compile, sy_bc_load, sy_bc_encode and the
 * disassemblers allocate through the context, which is not thread-safe:
 * serialize them per context. sy_bc_check never allocates and never touches
 * the context.
 */
#ifndef SYMSHAPE_BC_H
#define SYMSHAPE_BC_H
#include "symshape/backend.h"
#include "symshape/dispatch.h"
#include "symshape/gset.h"

SY_BEGIN_DECLS

/* ------------------------------------------------------------------ format */

/** The 8-byte magic: "SYBC" then CR LF SUB LF (catches text-mode mangling). */
#define SY_BC_MAGIC "SYBC\r\n\x1a\n"
#define SY_BC_MAGIC_LEN 8u
/** Format version: this library reads major 2, minor <= 2, and writes 2.0
 *  for a program without a run-time section, 2.1 for one with (runtime
 *  asserts after an RTCHECKS instruction and the unbacked-value table),
 *  2.2 for a dispatcher (flag SY_BC_FLAG_DISPATCH: the ENTRY and ONFAIL
 *  opcodes and the dispatch section; a 2.1 reader refuses it by its minor
 *  version, before reading any instruction).
 *  Major 2 (from major 1): the MOVE opcode, with which the compiler computes
 *  each shared subterm of a guard's DAG once, and a verifier that proves
 *  every register is written before it is read on every path (format 1
 *  zeroed the registers, so a program could read one it never wrote).
 *  Programs of format 1 are rejected with SY_EVERSION: recompile them. */
#define SY_BC_VERSION_MAJOR 2u
#define SY_BC_VERSION_MINOR 2u
/** Bytes of the fixed header (magic, versions, flags, 5 counts, CRC). */
#define SY_BC_HEADER_SIZE 40u
/** Header flag: the guard set had runtime asserts, which the program does not
 *  check (they need data, not sizes). Informational. */
#define SY_BC_FLAG_UNCHECKED_ASSERTS 0x1u
/** Header flag (minor 1): the run-time section (the unbacked values'
 *  names) follows the instructions. Absent: no unbacked values. */
#define SY_BC_FLAG_RUNTIME_SECTION 0x2u
/** Header flag (minor 2): a dispatcher of N guard sets (sy_bc_dispatch_compile):
 *  run with sy_bc_dispatch, which answers an entry index; the dispatch section
 *  (the entry count, LEB128) follows the instructions. sy_bc_check refuses it. */
#define SY_BC_FLAG_DISPATCH 0x4u
/** Header flag (minor 2): a certificate section follows every other section:
 *  the format minor of the program without it (1 byte, 0 to 2), the SHA-256 of
 *  that program's encoding (32 bytes: what sy_bc_encode writes, the bytes the
 *  certificate is about), the SHA-256 of those bytes followed by the
 *  obligation's (32 bytes), and the obligation (LEB128 length, SMT-LIB 2.6 text).
 *  See sy_bc_encode_certified and docs/bytecode.md section 10. */
#define SY_BC_FLAG_CERTIFICATE 0x8u
#define SY_BC_FLAGS_KNOWN 0xFu

/** Limits of the format (the loader rejects larger counts with SY_EFORMAT,
 *  the compiler returns SY_EUNSUPPORTED). */
#define SY_BC_MAX_REGS 256u        /**< registers r0..r255 */
#define SY_BC_MAX_INDEX 65536u     /**< constants, slots, guards (Bx is 16 bits) */
#define SY_BC_MAX_INSTR (1u << 24) /**< instructions */
#define SY_BC_MAX_JUMP 32767       /**< largest forward jump offset */

/* ------------------------------------------------------------------ instruction set */

/** Instruction formats. */
typedef enum sy_bc_format {
    SY_BC_FMT_ABC = 0,  /**< three 8-bit fields */
    SY_BC_FMT_ABX = 1,  /**< A and an unsigned 16-bit Bx */
    SY_BC_FMT_ASBX = 2  /**< A and a signed 16-bit sBx */
} sy_bc_format;

/** Operand roles: what a field holds, hence how the verifier checks it. */
typedef enum sy_bc_role {
    SY_BC_ROLE_NONE = 0,  /**< unused: must be 0 */
    SY_BC_ROLE_RIN = 1,   /**< register read: < register count */
    SY_BC_ROLE_ROUT = 2,  /**< register written: < register count */
    SY_BC_ROLE_K = 3,     /**< constant index: < constant count */
    SY_BC_ROLE_SLOT = 4,  /**< slot (source) index: < slot count */
    SY_BC_ROLE_GUARD = 5, /**< guard index: < guard count */
    SY_BC_ROLE_JUMP = 6,  /**< signed offset from the next instruction: >= 0, target < instruction count */
    SY_BC_ROLE_IMM = 7,   /**< immediate (any value of the field) */
    SY_BC_ROLE_ENTRY = 8  /**< entry index of a dispatcher: < entry count */
} sy_bc_role;

/* clang-format off */
/** The instruction set: X(NAME, format, role of A, role of B or Bx, role of C,
 *  synopsis). Registers are int64; arithmetic is exact or fails closed
 *  (overflow: SY_EOVERFLOW, zero divisor: SY_EDIVZERO); booleans are 0/1 and
 *  any non-zero register counts as true. APPEND ONLY. */
#define SY_OPCODES(X) \
    X(LOADSLOT, SY_BC_FMT_ABX,  SY_BC_ROLE_ROUT, SY_BC_ROLE_SLOT,  SY_BC_ROLE_NONE, "r[A] := slot[Bx]") \
    X(LOADK,    SY_BC_FMT_ABX,  SY_BC_ROLE_ROUT, SY_BC_ROLE_K,     SY_BC_ROLE_NONE, "r[A] := K[Bx]") \
    X(NEG,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_NONE, "r[A] := -r[B]") \
    X(ADD,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] + r[C]") \
    X(SUB,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] - r[C]") \
    X(MUL,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] * r[C]") \
    X(FLOORDIV, SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] // r[C]") \
    X(MOD,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] % r[C]") \
    X(CEILDIV,  SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := -(-r[B] // r[C])") \
    X(MIN,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := min(r[B], r[C])") \
    X(MAX,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := max(r[B], r[C])") \
    X(POW,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_IMM,  "r[A] := r[B] ** C") \
    X(EQ,       SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] == r[C]") \
    X(NE,       SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] != r[C]") \
    X(LE,       SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] <= r[C]") \
    X(NOT,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_NONE, "r[A] := not r[B]") \
    X(AND,      SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] and r[C]") \
    X(OR,       SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_RIN,  "r[A] := r[B] or r[C]") \
    X(JMPZ,     SY_BC_FMT_ASBX, SY_BC_ROLE_RIN,  SY_BC_ROLE_JUMP,  SY_BC_ROLE_NONE, "if r[A] == 0 then pc += sBx") \
    X(JMPNZ,    SY_BC_FMT_ASBX, SY_BC_ROLE_RIN,  SY_BC_ROLE_JUMP,  SY_BC_ROLE_NONE, "if r[A] != 0 then pc += sBx") \
    X(CHECK,    SY_BC_FMT_ABX,  SY_BC_ROLE_RIN,  SY_BC_ROLE_GUARD, SY_BC_ROLE_NONE, "if r[A] == 0 then reject guard Bx") \
    X(RETURN,   SY_BC_FMT_ABC,  SY_BC_ROLE_NONE, SY_BC_ROLE_NONE,  SY_BC_ROLE_NONE, "accept") \
    X(RTCHECKS, SY_BC_FMT_ABC,  SY_BC_ROLE_NONE, SY_BC_ROLE_NONE,  SY_BC_ROLE_NONE, "sizes only: accept; run time: go on with the runtime asserts") \
    X(MOVE,     SY_BC_FMT_ABC,  SY_BC_ROLE_ROUT, SY_BC_ROLE_RIN,   SY_BC_ROLE_NONE, "r[A] := r[B]") \
    X(ENTRY,    SY_BC_FMT_ABX,  SY_BC_ROLE_NONE, SY_BC_ROLE_ENTRY, SY_BC_ROLE_NONE, "dispatcher: answer entry Bx") \
    X(ONFAIL,   SY_BC_FMT_ASBX, SY_BC_ROLE_NONE, SY_BC_ROLE_JUMP,  SY_BC_ROLE_NONE, "dispatcher: from here, a fault goes to pc + sBx")
/* clang-format on */

/** Opcodes, generated from SY_OPCODES: SY_OP_LOADSLOT = 0, ... */
typedef enum sy_bc_opcode {
#define SY_BC_X_ENUM(name, fmt, ra, rb, rc, syn) SY_OP_##name,
    SY_OPCODES(SY_BC_X_ENUM)
#undef SY_BC_X_ENUM
    SY_OP_COUNT
} sy_bc_opcode;

/* Opcodes are 7 bits. */
#ifdef __cplusplus
static_assert(SY_OP_COUNT <= 128, "opcodes must fit 7 bits");
#else
_Static_assert(SY_OP_COUNT <= 128, "opcodes must fit 7 bits");
#endif

/** Field access and construction of instruction words (see the diagram). */
#define SY_BC_GET_OP(w) ((unsigned)((w)&0x7Fu))
#define SY_BC_GET_RSV(w) ((unsigned)(((w) >> 7) & 0x1u))
#define SY_BC_GET_A(w) ((unsigned)(((w) >> 8) & 0xFFu))
#define SY_BC_GET_B(w) ((unsigned)(((w) >> 16) & 0xFFu))
#define SY_BC_GET_C(w) ((unsigned)(((w) >> 24) & 0xFFu))
#define SY_BC_GET_BX(w) ((unsigned)(((w) >> 16) & 0xFFFFu))
#define SY_BC_GET_SBX(w) ((int32_t)SY_BC_GET_BX(w) - ((SY_BC_GET_BX(w) & 0x8000u) ? 65536 : 0))
#define SY_BC_ABC(op, a, b, c) \
    ((uint32_t)(op) | ((uint32_t)(a)&0xFFu) << 8 | ((uint32_t)(b)&0xFFu) << 16 | ((uint32_t)(c)&0xFFu) << 24)
#define SY_BC_ABX(op, a, bx) ((uint32_t)(op) | ((uint32_t)(a)&0xFFu) << 8 | ((uint32_t)(bx)&0xFFFFu) << 16)
#define SY_BC_ASBX(op, a, sbx) ((uint32_t)(op) | ((uint32_t)(a)&0xFFu) << 8 | (uint32_t)(uint16_t)(sbx) << 16)

/** Name of opcode @p op ("LOADSLOT", ...), "?" when op >= SY_OP_COUNT.
 *  Static storage. Thread-safe. */
SY_API const char *sy_bc_op_name(unsigned op);
/** Synopsis of opcode @p op ("r[A] := r[B] + r[C]"), "?" when out of range.
 *  Static storage. Thread-safe. */
SY_API const char *sy_bc_op_synopsis(unsigned op);

/* ------------------------------------------------------------------ programs */

/** A compiled or loaded program (opaque, immutable). */
typedef struct sy_bc_program sy_bc_program;

/** Compile the guard set @p gs into a program.
 *
 *  Every guard gets index i of the set (sy_gset_at(gs, i)); runtime-assert
 *  guards (SY_GK_RUNTIME_ASSERT) are kept in the guard table but not
 *  compiled, exactly like sy_gset_check skips them. The program is verified
 *  before it is returned.
 *  @param[in] gs the guard set (KEEP; the program does not reference it
 *             afterwards: sources and guard texts are copied). Its context
 *             becomes the program's context.
 *  @param[out] out receives the program (GIVE: release with sy_bc_free
 *             before the context). Set to NULL on failure.
 *  @retval SY_OK
 *  @retval SY_EINVAL @p gs or @p out is NULL, or a guard mentions a symbol
 *          that is not one of the set's sources (the message names it).
 *  @retval SY_ENOMEM an allocation failed (nothing leaks).
 *  @retval SY_EUNSUPPORTED a limit of the format is exceeded (256 registers,
 *          65536 constants, slots or guards, 32767-instruction jumps, 2^24
 *          instructions, expression depth 1000), or the context's
 *          max_const_bits is below 128 (then the reference checker rejects
 *          points with values the VM computes exactly, which a program cannot
 *          reproduce).
 *  @retval SY_EVERIFY internal error: the generated code failed verification.
 *  Errors are also recorded in the context (sy_ctx_last_error_msg).
 *  Complexity: linear in the size of the guard expressions (trees; shared
 *  subexpressions are compiled once per occurrence).
 *  Thread safety: uses the guard set's context. */
SY_API sy_status sy_bc_compile(const sy_gset *gs, SY_GIVE sy_bc_program **out);

/** Serialize @p p in the format of docs/bytecode.md (little-endian fields,
 *  CRC-32 of every byte but the CRC field's own). Deterministic: equal programs give equal bytes,
 *  on every host.
 *  @param[in] p the program (KEEP).
 *  @param[out] data receives the bytes (GIVE: release with
 *             sy_mem_free(sy_bc_ctx(p), *data)); NULL on failure.
 *  @param[out] len receives the number of bytes.
 *  @retval SY_OK
 *  @retval SY_EINVAL a NULL argument.
 *  @retval SY_ENOMEM (recorded in the program's context).
 *  Thread safety: allocates through the program's context. */
SY_API sy_status sy_bc_encode(const sy_bc_program *p, SY_GIVE unsigned char **data, size_t *len);

/** Details of a load failure. */
typedef struct sy_bc_load_err {
    sy_status code;  /**< the status returned (SY_OK on success) */
    char msg[256];   /**< what was wrong, "" on success */
    size_t offset;   /**< byte offset in the input the error refers to */
} sy_bc_load_err;

/** Decode and verify a program.
 *
 *  Checks, in this order, each failure with its status and the byte offset
 *  of the offending field:
 *   1. a header shorter than SY_BC_HEADER_SIZE: SY_EFORMAT ("truncated",
 *      offset of the first incomplete header field);
 *   2. bad magic: SY_EFORMAT (offset of the first wrong byte);
 *   3. unknown major version: SY_EVERSION (offset 8);
 *   4. minor version newer than SY_BC_VERSION_MINOR: SY_EVERSION (offset 10);
 *   5. unknown flags or counts beyond the limits: SY_EFORMAT (offset of the
 *      field);
 *   6. the payload structure (tables, LEB128 lengths, instructions):
 *      truncated input, over-long or overflowing LEB128, a non-canonical
 *      constant, a NUL in a string, an unknown guard kind, trailing bytes:
 *      SY_EFORMAT (offset of the field);
 *   7. CRC-32 mismatch: SY_EFORMAT (offset 36, the CRC field);
 *   8. the verifier, always, one linear pass: an opcode >= SY_OP_COUNT, the
 *      reserved bit, a register >= the register count, a constant, slot or
 *      guard index out of range, a non-zero unused field, a backward jump
 *      (sBx < 0) or one past the end, a last instruction that is not RETURN,
 *      a register read on some path before any instruction wrote it (a
 *      forward data-flow pass over the 256-register sets, one set kept per
 *      jump target): SY_EVERIFY (offset of the instruction word).
 *  @param[in] ctx the context the program will live in (KEEP); the error is
 *             also recorded there.
 *  @param[in] data @p len bytes (KEEP; not referenced after the call). May
 *             be NULL when len is 0.
 *  @param[out] out receives the program (GIVE: sy_bc_free), NULL on failure.
 *  @param[out] err SY_NULL: details of the failure, or code SY_OK.
 *  @retval SY_OK
 *  @retval SY_EFORMAT, SY_EVERSION, SY_EVERIFY as listed above.
 *  @retval SY_EINVAL @p ctx or @p out is NULL, or @p data is NULL with len > 0.
 *  @retval SY_ENOMEM
 *  Complexity: O(len). Thread safety: uses @p ctx. */
SY_API sy_status sy_bc_load(sy_ctx *ctx, const unsigned char *data, size_t len, SY_GIVE sy_bc_program **out,
                            SY_NULL sy_bc_load_err *err);

/** Release @p p. Accepts NULL; returns NULL (`p = sy_bc_free(p);`). */
SY_API sy_bc_program *sy_bc_free(SY_TAKE SY_NULL sy_bc_program *p);

/** Result codes of sy_bc_check. The negative ones are sy_status values: the
 *  check *fails closed* (the caller must treat them as "do not reuse"). */
#define SY_BC_ACCEPT 1
#define SY_BC_REJECT 0

/** Run @p p on one point.
 *  @param[in] p a program (KEEP).
 *  @param[in] sizes array of @p n int64 values, one per slot in slot order
 *             (sy_bc_slot_name; for a compiled program the guard set's
 *             sources, see sy_gset_values_from_shapes). May be NULL when n = 0.
 *  @param[in] n number of values; must equal sy_bc_nslots(p).
 *  @param[out] failed SY_NULL: on reject the index of the first failing
 *             guard (the index sy_gset_check reports); on a fail-closed
 *             result the guard being evaluated (-1 if unknown); on accept -1.
 *  @return SY_BC_ACCEPT (1); SY_BC_REJECT (0); or, failing closed:
 *          SY_EOVERFLOW (-4) a value of the computation does not fit int64
 *          (including a constant of the pool that does not), SY_EDIVZERO
 *          (-5) a divisor is 0, SY_EINVAL (-3) p is NULL, sizes is NULL
 *          with n > 0, or n != sy_bc_nslots(p).
 *  Whenever the result is 0 or 1 it equals sy_gset_check_si's verdict on
 *  the guards at the same values (for a program compiled from that set);
 *  the VM never accepts a point whose guards the reference rejects. The
 *  reference's other rule, an input whose numel is past int64 cannot
 *  exist (failed = -1), is not checked here: sy_gset_numel_check_si is that
 *  rule alone (`symshape check` applies it first; docs/guards.md).
 *  No allocation (registers live on the stack), no access to the context;
 *  thread-safe on a shared program. O(instructions). */
SY_API int sy_bc_check(const sy_bc_program *p, const int64_t *sizes, size_t n, int32_t *failed);

/** The run-time check, once the data exists: like sy_bc_check, and then
 *  the runtime asserts (the code after RTCHECKS), which read the unbacked
 *  values as slots nslots .. nslots + m - 1.
 *  @param[in] unbacked array of @p m int64: unbacked[i] is the value of the
 *             i-th unbacked symbol (sy_bc_unbacked_name; sy_gset_unbacked_var
 *             of the set). May be NULL when m = 0.
 *  @param[in] m must equal sy_bc_nunbacked(p).
 *  @return as sy_bc_check (SY_EINVAL also for a wrong m or a NULL
 *          @p unbacked with m > 0). Whenever the result is 0 or 1 it equals
 *          sy_gset_check_runtime_si on the same values. Same thread-safety
 *          and cost as sy_bc_check. */
SY_API int sy_bc_check_runtime(const sy_bc_program *p, const int64_t *sizes, size_t n, const int64_t *unbacked, size_t m,
                               int32_t *failed);

/** Disassemble @p p into @p out (the sy_output of a backend render): a header
 *  of comment lines (';': version, counts, slots, constants, guards, and
 *  the runtime asserts that are not checked), then one line per instruction:
 *  pc, name, operands (rN registers, kN constants, sN slots, gN guards, +N
 *  jumps), "; " and the synopsis, then the slot name, constant value, guard
 *  text or jump target it refers to. Deterministic.
 *  @retval SY_OK @retval SY_EINVAL NULL argument @retval SY_ENOMEM
 *  Thread safety: read-only on @p p; @p out allocates through its context. */
SY_API sy_status sy_bc_disassemble(const sy_bc_program *p, sy_output *out);

/** Same text as sy_bc_disassemble, as a new NUL-terminated string.
 *  @param[out] text GIVE: release with sy_str_free(sy_bc_ctx(p), *text).
 *  @retval SY_OK @retval SY_EINVAL NULL argument @retval SY_ENOMEM
 *  Thread safety: allocates through the program's context. */
SY_API sy_status sy_bc_disassemble_str(const sy_bc_program *p, SY_GIVE char **text);

/** @p s (its first @p n bytes, or up to its NUL: SIZE_MAX for all; NULL is "?") as the disassembly
 *  shows a program's strings: control bytes and DEL as \xNN, a backslash as \\, the rest as is, so one
 *  line stays one line and a corrupt (CRC-valid) file cannot write control sequences to a terminal.
 *  @return GIVE: a new string, released with sy_str_free(ctx, r); NULL when @p ctx is NULL or out of
 *  memory (SY_ENOMEM recorded in ctx).
 *  Thread safety: allocates through @p ctx. */
SY_API SY_GIVE char *sy_bc_escape(sy_ctx *ctx, SY_NULL const char *s, size_t n);

/* ------------------------------------------------------------------ dispatchers (format 2.2) */

/** Compile the dispatcher @p d (symshape/dispatch.h) into a program of format 2.2
 *  (flag SY_BC_FLAG_DISPATCH): the same decision tree (inner node: LOADSLOT, LOADK, LE,
 *  JMPNZ/JMPZ; shared subtrees emitted once, in topological order, so every jump goes
 *  forward), and at each leaf, for each of its entries, ONFAIL to the next entry, the code of
 *  each guard the tree has not decided, JMPZ to the next entry when it is false, then ENTRY.
 *  A fault (overflow, zero divisor) in a guard jumps to the ONFAIL target: it fails that
 *  guard and so the entry, as sy_dispatch_run does (fail closed). The guard table holds the
 *  pooled guards (their texts over the slots _s0 ..), the slot table the sources.
 *  @param[in] d the dispatcher (KEEP); its context becomes the program's.
 *  @param[out] out the program (GIVE: sy_bc_free), verified; NULL on failure.
 *  @retval SY_OK @retval SY_EINVAL a NULL argument @retval SY_ENOMEM
 *  @retval SY_EUNSUPPORTED a limit of the format: 256 registers (a guard that needs more
 *          live values), 65536 constants, slots, guards or entries, a jump over more than
 *          32767 instructions, 2^24 instructions (the message names it)
 *  @retval SY_EVERIFY internal error: the code failed verification.
 *  Cost: linear in the tree's nodes plus, per leaf entry, its guards' node lists. */
SY_API sy_status sy_bc_dispatch_compile(const sy_dispatch *d, SY_GIVE sy_bc_program **out);

/** Run the dispatcher @p p (a program with SY_BC_FLAG_DISPATCH) on one point.
 *  @param sizes @p n int64 values, one per slot (sy_bc_slot_name: the dispatcher's sources).
 *  @return the first entry that accepts (0 .. sy_bc_nentries - 1), -1 when none does, or,
 *          failing closed, SY_EOVERFLOW / SY_EDIVZERO (a fault outside any ONFAIL: only a
 *          hand-made program, never a compiled one), SY_EINVAL (p NULL, not a dispatcher,
 *          sizes NULL with n > 0, n != sy_bc_nslots). For a program compiled from d it equals
 *          sy_dispatch_run(d, ...) at every point. No allocation; thread-safe on a shared
 *          program. O(instructions on the path). */
SY_API long sy_bc_dispatch(const sy_bc_program *p, const int64_t *sizes, size_t n);

/** Number of entries of a dispatcher (0 for another program or NULL). */
SY_API size_t sy_bc_nentries(const sy_bc_program *p);

/* ------------------------------------------------------------------ certificates (format 2.2) */

/** The obligation of a certificate (SMT-LIB 2.6, the smtlib backend's encoding): the guards of
 *  @p final (the minimized set the program is compiled from; comment lines "; min_I: TEXT" in
 *  its order, TEXT as sy_gset_guard.text) are equivalent to those of @p recorded (the set
 *  produced from the trace, before minimization; "; rec_J: TEXT") for every value of the sources
 *  with sizes, ranks and strides >= 0, runtime asserts excluded; asserted negated, so Z3 answers
 *  unsat when it holds. Sources are matched by their text.
 *  @param final, recorded KEEP, the same context.
 *  @return the text (GIVE: sy_str_free with the sets' context), or NULL (SY_EINVAL NULL or
 *          different contexts, SY_ENOMEM, or the error of formatting a guard's text). */
SY_API SY_GIVE char *sy_bc_certificate_obligation(const sy_gset *final, const sy_gset *recorded);

/** Serialize @p p with a certificate: the bytes of sy_bc_encode(p) turned into format 2.2 (flag
 *  SY_BC_FLAG_CERTIFICATE) with the certificate section: the program's own minor version, the
 *  SHA-256 of sy_bc_encode(p)'s bytes, the SHA-256 of those bytes followed by @p obligation's,
 *  and @p obligation (KEEP, NUL-terminated, no NUL inside). The hashes are not a signature:
 *  they bind the obligation to the program against changes and mix-ups, not against a forger
 *  who recomputes them (docs/bytecode.md section 10).
 *  A 2.1 reader refuses the file by its minor version; sy_bc_load reads it back, after which
 *  sy_bc_encode gives the uncertified bytes again and sy_bc_certificate the section.
 *  @param[out] data GIVE: sy_mem_free(sy_bc_ctx(p), *data); @param[out] len its bytes.
 *  @retval SY_OK @retval SY_EINVAL a NULL argument, or @p p a dispatcher (not certified here)
 *  @retval SY_ENOMEM */
SY_API sy_status sy_bc_encode_certified(const sy_bc_program *p, const char *obligation, SY_GIVE unsigned char **data, size_t *len);

/** The certificate of a loaded program: its obligation (KEEP, NUL-terminated) and the two SHA-256s
 *  it names (@p hash: 64 bytes, KEEP: of the program's bytes, then of those and the obligation's).
 *  @retval SY_OK @retval SY_EINVAL NULL, or no certificate. */
SY_API sy_status sy_bc_certificate(const sy_bc_program *p, SY_KEEP const char **obligation,
                                   SY_KEEP const unsigned char **hash);

/** SHA-256 (FIPS 180-4) of @p n bytes at @p data into @p out (32 bytes): the hash of the
 *  certificates, also for the C backend's (symshape run -b c --certify). Thread-safe. */
SY_API void sy_bc_sha256(const void *data, size_t n, unsigned char out[32]);

/** The SHA-256 of sy_bc_encode(p) into @p out (32 bytes) and, when @p with_obligation is not
 *  NULL, that of those bytes followed by the certificate's obligation (all zero without one):
 *  compare with sy_bc_certificate's hashes. @retval SY_OK @retval SY_EINVAL NULL p or out
 *  @retval SY_ENOMEM */
SY_API sy_status sy_bc_program_hash(const sy_bc_program *p, unsigned char out[32], SY_NULL unsigned char with_obligation[32]);

/* ------------------------------------------------------------------ accessors (all O(1), thread-safe) */

/** The context of @p p (KEEP); NULL for NULL. */
SY_API SY_KEEP sy_ctx *sy_bc_ctx(const sy_bc_program *p);
/** Number of slots (input values of sy_bc_check); 0 for NULL. */
SY_API size_t sy_bc_nslots(const sy_bc_program *p);
/** Source name of slot @p i ("x.size()[2]"); KEEP, lives as long as @p p;
 *  NULL when out of range. */
SY_API const char *sy_bc_slot_name(const sy_bc_program *p, size_t i);
/** Number of unbacked values the run-time check takes; 0 for NULL. */
SY_API size_t sy_bc_nunbacked(const sy_bc_program *p);
/** What produced unbacked value @p i ("nz.size()[0] (from nonzero at node
 *  nz)"); KEEP; NULL when out of range. */
SY_API const char *sy_bc_unbacked_name(const sy_bc_program *p, size_t i);
/** Number of guards (all guards of the set, checked or not); 0 for NULL. */
SY_API size_t sy_bc_nguards(const sy_bc_program *p);
/** Text of guard @p i ("x.size()[2] == 224"), for failure messages; KEEP;
 *  NULL when out of range. */
SY_API const char *sy_bc_guard_text(const sy_bc_program *p, size_t i);
/** Kind of guard @p i (SY_GK_RUNTIME_ASSERT guards are not checked); -1 when
 *  out of range. */
SY_API int sy_bc_guard_kind(const sy_bc_program *p, size_t i);
/** Number of registers, constants and instructions; 0 for NULL. */
SY_API size_t sy_bc_nregs(const sy_bc_program *p);
SY_API size_t sy_bc_nconsts(const sy_bc_program *p);
SY_API size_t sy_bc_ninstr(const sy_bc_program *p);
/** Instruction word @p pc (0 when out of range). */
SY_API uint32_t sy_bc_instr(const sy_bc_program *p, size_t pc);
/** Header flags (SY_BC_FLAG_*). */
SY_API uint32_t sy_bc_flags(const sy_bc_program *p);

SY_END_DECLS
#endif
