/** @file symshape/symshape.h @brief Umbrella header: includes every public header. */
#ifndef SYMSHAPE_SYMSHAPE_H
#define SYMSHAPE_SYMSHAPE_H
#include "symshape/types.h"
#include "symshape/version.h"
#include "symshape/ctx.h"
#include "symshape/expr.h"
#include "symshape/decide.h"
#include "symshape/cases.h"
#include "symshape/env.h"
#include "symshape/tensor.h"
#include "symshape/graph.h"
#include "symshape/gset.h"
#include "symshape/diff.h"
#include "symshape/dispatch.h"
#include "symshape/backend.h"
#include "symshape/cgen.h"
#include "symshape/bc.h"
#include "symshape/verify.h"
#include "symshape/onnx.h"
#include "symshape/deploy.h"
#endif
