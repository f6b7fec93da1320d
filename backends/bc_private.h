/* Private: the layout of a bytecode program, shared by the compiler
 * (bc_compile.c), the format code (bc_format.c: encode, load, verify,
 * disassemble) and the VM (bc_vm.c). See include/symshape/bc.h and
 * docs/bytecode.md. */
#ifndef SY_BC_PRIVATE_H
#define SY_BC_PRIVATE_H
#include "algebra/eval.h"
#include "symshape/bc.h"


/* Immutable once sy_bc_compile / sy_bc_load returns. */
struct sy_bc_program {
    sy_ctx *ctx;
    sy_block *blocks; /* every block of the program, freed together by sy_bc_free */
    uint32_t flags;
    uint32_t nregs, nconsts, nslots, nguards, ninstr;
    uint32_t *code;          /* ninstr words */
    /* constants: exact sign + little-endian magnitude (canonical: no high
     * zero byte, zero is positive with 0 bytes), and the int64 value when it
     * fits (kfits[i] = 1) */
    int64_t *k64;
    unsigned char *kfits;
    unsigned char *kneg;
    uint32_t *klen;
    unsigned char **kmag;
    char **slots;            /* NUL-terminated source names */
    char **guards;           /* NUL-terminated guard texts */
    unsigned char *gkind;    /* sy_gset_kind of each guard */
    uint32_t minor;          /* format minor version (1: may use RTCHECKS) */
    uint32_t nunbacked;      /* run-time section: unbacked values, slots nslots.. */
    char **unbacked;         /* their names */
    uint32_t nentries;       /* dispatch section (flag SY_BC_FLAG_DISPATCH, minor 2): entries */
    char *cert;              /* certificate section (flag SY_BC_FLAG_CERTIFICATE): the obligation, or NULL */
    unsigned char cert_hash[64]; /* the SHA-256s it names: of the program's bytes, of those and the
                                  * obligation's; minor is then the program's own (0 or 1) */
};

/* Operand tables generated from SY_OPCODES (bc_format.c). */
extern const unsigned char sy_bc_op_fmt[SY_OP_COUNT];
extern const unsigned char sy_bc_op_role[SY_OP_COUNT][3];

/* A new empty program in ctx (NULL on SY_ENOMEM, recorded). */
sy_bc_program *sy_bc_program_new(sy_ctx *ctx);
/* A zeroed block of n bytes owned by p (NULL on SY_ENOMEM, recorded). */
void *sy_bc_palloc(sy_bc_program *p, size_t n);
/* Allocate the tables for the counts already set in p (zeroed).
 * SY_OK or SY_ENOMEM (recorded). */
sy_status sy_bc_alloc_tables(sy_bc_program *p);
/* Set constant i from sign + magnitude bytes (copied); fills k64/kfits. */
sy_status sy_bc_set_const(sy_bc_program *p, uint32_t i, int neg, const unsigned char *mag, uint32_t nbytes);
/* Byte offset of instruction 0 in the encoded form of p. */
size_t sy_bc_code_offset(const sy_bc_program *p);
/* The verifier: one linear pass over the code (see sy_bc_load). Offsets in
 * err are those of the encoded form. SY_OK or SY_EVERIFY (err filled, not
 * recorded in the context). */
sy_status sy_bc_verify(const sy_bc_program *p, sy_bc_load_err *err);

#endif
