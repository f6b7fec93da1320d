/* Private: built-in backends. Each built-in file provides a
 * sy_backend_register_<name>() that registers it through the public
 * sy_backend_register(); builtins.c calls them on first use of the registry. */
#ifndef SY_BACKENDS_PRIVATE_H
#define SY_BACKENDS_PRIVATE_H
#include "symshape/backend.h"

void sy_backends_register_builtins(void);
/* backends/cgen.c: the "c" backend */
sy_status sy_backend_register_c(void);
/* backends/report.c: the "report" and "markdown" backends */
sy_status sy_backend_register_report(void);
void sy_backend_register_bytecode(void);
/* backends/smtlib.c: the "smtlib" backend */
sy_status sy_backend_register_smtlib(void);
/* backends/registry.c: an output buffer of the library's own (certificates): new (NULL on
 * SY_ENOMEM, not recorded), and its text as a string released with sy_str_free (NULL on
 * SY_ENOMEM or when *st is already an error, set in *st); the buffer is freed either way. */
sy_output *sy_output_mem_new(sy_ctx *ctx);
char *sy_output_mem_take(sy_output *out, sy_status *st);
/* backends/sha256.c: SHA-256 of n bytes (FIPS 180-4) into out[32]. */
void sy_sha256(const unsigned char *data, size_t n, unsigned char out[32]);
#endif
