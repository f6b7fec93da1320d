/* Private: built-in backends. Each built-in file defines one
 * `const sy_backend sy_backend_<name>` and the list below registers them. */
#ifndef SY_BACKENDS_PRIVATE_H
#define SY_BACKENDS_PRIVATE_H
#include "symshape/backend.h"

void sy_backends_register_builtins(void);
#endif
