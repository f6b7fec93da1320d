/** @file symshape/version.h @brief Library version. */
#ifndef SYMSHAPE_VERSION_H
#define SYMSHAPE_VERSION_H
#include "symshape/types.h"

#define SY_VERSION_MAJOR 0
#define SY_VERSION_MINOR 1
#define SY_VERSION_PATCH 0
#define SY_VERSION_NUMBER (SY_VERSION_MAJOR * 10000 + SY_VERSION_MINOR * 100 + SY_VERSION_PATCH)
#define SY_VERSION_STRING "0.1.0"

SY_BEGIN_DECLS
/** The version number of the library actually linked (SY_VERSION_NUMBER of
 *  its build); compare against SY_VERSION_NUMBER to detect a header/library
 *  mismatch. */
SY_API int sy_version_number(void);
/** The version string of the linked library; static storage. */
SY_API const char *sy_version_string(void);
SY_END_DECLS
#endif
