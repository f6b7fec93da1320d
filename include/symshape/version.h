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
/** The optional parts compiled into the linked library, space-separated, in this order:
 *  "onnx" (the ONNX frontend, symshape/onnx.h), "html" (the html backend: loads cmark-gfm
 *  when it renders a page), "z3" (the verifier, symshape/verify.h: loads libz3 when the first
 *  obligation is set up). "" when none. What the build found, not whether a library loaded at
 *  run time is present (sy_verify_available() answers that for Z3, loading it). Static storage;
 *  never NULL. */
SY_API const char *sy_version_features(void);
SY_END_DECLS
#endif
