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
#endif
