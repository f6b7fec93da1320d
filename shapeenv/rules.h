/* Shape rules shared by the frontends (issue 34 item 2, "one rule, one room"):
 * the torch frontend's ops (shapeenv/ops_*.c) and the ONNX frontend
 * (frontends/onnx/onnx_ops.c) compute these sizes by the same function, so a
 * model gives the same guards from both. Each rule cites the PyTorch kernel
 * and the ONNX text it follows; where the two define different semantics the
 * difference is a parameter (pads begin/end, ceil_mode), never blurred.
 *
 * A rule asks the env its questions (sy_env_evaluate_expr, a guard) with the
 * caller's provenance (node, op) and the rule's own reason; the conditions an
 * op checks (its error messages are the frontend's: PyTorch's or the ONNX
 * runtime's) stay with the caller, or are given to the rule as messages.
 *
 * Internal to the library: included by shapeenv/ and frontends/ (tests/layers.sh
 * allows frontends to include shapeenv headers other than *_private.h). */
#ifndef SY_SHAPEENV_RULES_H
#define SY_SHAPEENV_RULES_H

#include <stdint.h>

#include "symshape/env.h"

/* The reason of a requirement a rule records (which: the rule's requirement,
 * numbered in its comment), made only when it is used (a guard, a runtime
 * assert or the error): the frontend's message (PyTorch's or the ONNX
 * runtime's words), formatted on demand because formatting every passing check
 * costs about a third of a trace (op_require). Returns a string that stays valid
 * until the next call. */
typedef const char *(*sy_rule_reason)(void *arg, int which);

/* Broadcast one pair of aligned dims a, b (PyTorch aten/src/ATen/ExpandUtils.cpp
 * infer_size_impl; ONNX docs/Broadcasting.md, multidirectional): equal dims stay,
 * a 1 stretches. *out NULL (SY_OK): the example itself does not broadcast
 * (the caller fails with its message). Guards: only the one fact the chosen
 * answer needs (Eq(a, 1) -> b, Eq(b, 1) -> a, Eq(a, b) -> a), chosen by the
 * example; no negated facts; Eq(a, b) is a decision (the model also runs where
 * a side is 1). Requirement 0: a == b (the mismatch message), only with an
 * unbacked size (no example: asked a == 1, then b == 1, then required a == b). */
sy_status sy_rule_bcast_dim(sy_env *env, const sy_provenance *why, const sy_expr *a, const sy_expr *b, sy_rule_reason reason,
                            void *arg, const sy_expr **out);

/* The output size of a sliding window over d (PyTorch aten/src/ATen/native/Pool.h
 * pooling_output_shape_pad_lr; ONNX Operators.md Conv-11, MaxPool-12,
 * AveragePool-11 with explicit pads; onnxruntime core/providers/cpu/nn/
 * pool_attributes.h ComputeOutputSize):
 *   floor((d + pad_begin + pad_end - ext) / stride) + 1,  ext = dilation*(kernel - 1) + 1;
 *   ceil_mode: ceil(...) + 1 instead, minus 1 when the last window starts at or
 *   after d + pad_begin (a guard, reason "ceil_mode: does the last window start
 *   outside the input?"). Checks of the result (>= 1, window fits) are the caller's.
 * @p ext an expression (torch's conv kernel may be symbolic). */
sy_status sy_rule_window_out(sy_env *env, const sy_provenance *why, const sy_expr *d, const sy_expr *ext, int64_t stride,
                             int64_t pad_begin, int64_t pad_end, int ceil_mode, const sy_expr **out);

/* The -1 of a reshape (PyTorch aten/src/ATen/InferSize.h infer_size_impl;
 * ONNX Reshape-14, onnxruntime core/providers/cpu/tensor/reshape_helper.h):
 * numel / known, requiring (0) known != 0 and, unless numel is a polynomial
 * multiple of known, (1) numel % known == 0. */
sy_status sy_rule_infer_size(sy_env *env, const sy_provenance *why, const sy_expr *numel, const sy_expr *known,
                             sy_rule_reason reason, void *arg, const sy_expr **out);

/* onnxruntime's floor-mode pool size (1.32 core/providers/cpu/nn/pool_attributes.h
 * ComputeOutputSize, ceil_mode 0: "numerator / stride + 1" in C division, then
 * ORT_ENFORCE(out_size >= 0)): with t = d + pad_begin + pad_end - ext, trunc(t / stride) + 1,
 * which is the floor rule's floor(t / stride) + 1 for t >= 0, but 1 for -stride < t < 0 (a
 * window that does not fit: MaxPool kernel 3, dilation 2, stride 3 on d = 3 gives 1) and 0
 * for -2*stride < t <= -stride (kernel 3 on d = 2: 0). No guard: where the facts prove t >= 0
 * it is sy_rule_window_out's floor result, where they prove t < 0 CeilDiv(t, stride) + 1, else
 * FloorDiv(Max(t, 0), stride) + CeilDiv(Min(t, 0), stride) + 1 (t + 1 for stride 1). The caller requires the result
 * >= 0 (t >= 1 - 2*stride). */
sy_status sy_rule_window_out_trunc(sy_env *env, const sy_provenance *why, const sy_expr *d, const sy_expr *ext, int64_t stride,
                                   int64_t pad_begin, int64_t pad_end, const sy_expr **out);

/* One padded dim (PyTorch aten/src/ATen/native/PadNd.cpp constant_pad_nd /
 * _pad_circular; ONNX Pad-18, onnxruntime core/providers/cpu/tensor/pad.cc):
 * *out = d + before + after; *kept (if not NULL) = d + min(before, 0) +
 * min(after, 0), the input left after negative pads crop it. Pure construction:
 * each caller requires what its runtime checks. */
sy_status sy_rule_pad_dim(sy_env *env, const sy_expr *d, const sy_expr *before, const sy_expr *after, const sy_expr **out,
                          const sy_expr **kept);

/* One bound of a slice with a positive step over a dim of length len >= 0
 * (Python's PySlice_AdjustIndices; PyTorch aten/src/ATen/native/TensorShape.cpp
 * slice / torch/_meta_registrations.py slice: a negative x counts from the end,
 * then the index is clamped to [0, len]; ONNX Slice-13: "start < 0 -> start +
 * dim", clamped to [0, dim] for a positive step). x NULL (None): def (0 for a
 * start, len for a stop). No guard: the facts answer what they prove
 * (sy_env_try_decide), every other clamp stays in the result as Min/Max, so
 * the index is exact at every size. */
sy_status sy_rule_slice_bound(sy_env *env, const sy_expr *x, const sy_expr *len, const sy_expr *def, const sy_expr **out);

/* The start index and the length of x[start:stop:step] on a dim of length len
 * (start, stop NULL for None), Python's slicing. step >= 1: the bounds by
 * sy_rule_slice_bound, then max(stop - start, 0) (PyTorch's slice: "if (end <
 * start) end = start"; ONNX: max(0, ceil((end - start) / step))) divided by step
 * rounding up. step <= -1 (Python's PySlice_AdjustIndices for a negative step):
 * a negative bound + len, then clamped to [-1, len - 1] (None: len - 1 for the
 * start, -1 for the stop), the length max(start - stop, 0) divided by -step
 * rounding up. No guard: x[1:] on a length L is Max(L - 1, 0) where the facts
 * do not prove L >= 1, as torch clamps. step 0: SY_EINVAL (INT64_MIN divides
 * as 2^63). PyTorch's tensor slicing refuses a step <= 0 before this. */
sy_status sy_rule_slice_len(sy_env *env, const sy_expr *start, const sy_expr *stop, int64_t step, const sy_expr *len,
                            const sy_expr **start_out, const sy_expr **n);

/* ONNX Slice-13's start and length on one axis: sy_rule_slice_len, except that a
 * negative step clamps the start to [0, len - 1] (Python: [-1, len - 1]; so
 * starts -10, ends -10, steps -1 on a dim of 5 take element 0, as onnxruntime's
 * slice_helper.h does), and to -1 on a dim of 0 (the empty range: nothing
 * taken). */
sy_status sy_rule_slice_len_onnx(sy_env *env, const sy_expr *start, const sy_expr *stop, int64_t step, const sy_expr *len,
                                 const sy_expr **start_out, const sy_expr **n);

#endif
