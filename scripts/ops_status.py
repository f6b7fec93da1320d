#!/usr/bin/python3
"""The status table of PyTorch's ops in docs/ops.md (section 9).

Lists every public callable of torch.nn.functional, torch.* and torch.Tensor
(PyTorch 1.13, introspected) and classifies it: supported (the op has a
shape rule in the shapeenv tables: the `{"name", fn}` entries of
shapeenv/ops*.c), not shape-relevant (returns no tensor whose sizes a guard
could depend on, or only changes global/autograd/device state), or
unsupported with the reason. The table sits between the markers
<!-- ops-status:begin --> and <!-- ops-status:end -->.

usage: ops_status.py REPO [--check]   (--check: exit 1 if docs/ops.md is stale)
"""
import inspect
import os
import re
import sys

import torch
import torch.nn.functional as F

BEGIN, END = "<!-- ops-status:begin -->", "<!-- ops-status:end -->"

# ---- not shape-relevant: Python values, metadata, autograd, devices, memory, state
NOT_RELEVANT_EXACT = {
    "backward", "register_hook", "retain_grad", "requires_grad", "data_ptr", "storage", "storage_offset", "storage_type",
    "untyped_storage", "element_size", "get_device", "type", "numpy", "pin_memory",
    "share_memory_", "record_stream", "apply_", "map_", "map2_", "dim_order", "ndimension", "nelement", "nbytes",
    "itemsize", "manual_seed", "seed", "initial_seed", "save", "load", "compile", "typename", "no_grad", "enable_grad",
    "inference_mode", "autocast", "can_cast", "promote_types", "result_type", "set_grad_enabled", "detach_",
    "default_generator", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "vmap", "cond",
    "from_numpy", "frombuffer", "from_dlpack", "to_dlpack", "__config__", "__future__", "chain_matmul_", "tensordot_",
    "cpp", "classproperty", "lobpcg", "pca_lowrank", "svd_lowrank", "lu_unpack_", "broadcast_shapes", "equal",
    "allclose", "dsplit_", "sym_float", "sym_int", "sym_not", "resize_", "resize_as_", "set_", "sparse_resize_",
    "sparse_resize_and_clear_", "coalesce", "align_as", "align_to", "refine_names", "rename", "rename_", "unflatten_",
    "has_names", "names", "new", "grad_fn", "is_leaf", "output_nr", "rule", "module_load", "dtype", "layout",
    "device", "qscheme", "q_scale", "q_zero_point", "q_per_channel_scales", "q_per_channel_zero_points",
    "q_per_channel_axis", "tolist_", "item_", "__torch_function__", "as_subclass", "smm_", "unsafe_chunk_",
    "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "import_ir_module", "import_ir_module_from_buffer",
    "merge_type_from_type_comment", "parse_ir", "parse_schema", "parse_type_comment", "unify_type_list",
    "fork", "wait", "from_file", "empty_quantized", "dequantize_", "sym_max", "sym_min", "is_grad_enabled",
    "is_inference_mode_enabled", "is_warn_always_enabled", "set_warn_always", "is_storage", "is_tensor",
    "is_nonzero", "is_same_size", "is_set_to", "is_signed", "is_complex", "is_floating_point", "is_conj", "is_neg",
    "is_inference", "is_pinned", "is_shared", "is_coalesced", "is_distributed", "is_vulkan_available",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "is_autocast_enabled", "is_autocast_cpu_enabled",
    "is_autocast_cache_enabled", "set_anomaly_enabled", "set_autocast_enabled", "set_autocast_cpu_enabled",
    "set_autocast_cpu_dtype", "set_autocast_gpu_dtype", "set_autocast_cache_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting", "set_flush_denormal", "set_num_threads",
    "get_num_threads", "set_num_interop_threads", "get_num_interop_threads", "set_default_dtype",
    "get_default_dtype", "set_default_tensor_type", "set_printoptions", "get_rng_state", "set_rng_state",
    "set_deterministic_debug_mode", "get_deterministic_debug_mode", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "get_file_path", "prepare_multiprocessing_environment", "init_num_threads",
    "set_vital", "vitals_enabled", "read_vitals", "has_cuda", "has_cudnn", "has_mkl", "has_lapack", "has_mps",
    "has_openmp", "has_spectral", "has_mkldnn", "use_deterministic_algorithms", "is_deterministic_algorithms_warn_only_enabled",
    "cuda", "to_mkldnn", "is_mkldnn", "is_cuda", "is_ipu", "is_xpu", "is_sparse", "is_sparse_csr", "is_quantized",
    "is_meta", "is_nested", "is_mps", "is_ort", "is_hpu", "is_vulkan", "ipu", "xpu", "hpu", "mps", "hip",
    "register_after_fork", "random_", "cauchy_", "geometric_", "log_normal_", "get_default_dtype", "sym_sqrt",
    "assert_async", "assert_int_or_pair", "annotate", "unique_dim_", "has_torch_function", "has_torch_function_unary",
    "has_torch_function_variadic", "handle_torch_function", "boolean_dispatch", "is_scripting",
}
NOT_RELEVANT_PREFIX = ("is_", "set_", "get_", "_", "has_", "register_", "to_sparse", "fbgemm_", "quantize",
                       "dequantize", "q_", "int_repr", "sparse_", "_sparse", "ccol_", "crow_", "col_indices",
                       "row_indices", "indices", "values", "nested_", "to_padded_tensor", "mkldnn_", "miopen_",
                       "cudnn_", "native_batch_norm_", "batch_norm_", "choose_qparams", "fake_quantize",
                       "fused_moving_avg", "segment_reduce", "conv_tbc", "quantized_", "is_vulkan")
NOT_RELEVANT_REASONS = [
    (lambda n: n.startswith(("is_", "has_")), "a predicate or metadata (a Python value)"),
    (lambda n: n.startswith(("set_", "get_", "register_", "manual_seed")) or n in NOT_RELEVANT_EXACT,
     "metadata, autograd, device, memory, RNG or global state (no new sizes)"),
]

# ---- unsupported, with reasons (the rest: "not implemented")
REASONS = [
    (("sparse", "csr", "csc", "bsr", "bsc", "coo", "to_dense", "_nnz", "crow_indices", "ccol_indices",
      "row_indices", "col_indices", "smm", "sspaddmm", "hspmm", "spmm"), "sparse layouts are not modelled"),
    (("_with_indices",), "not implemented (the functional form with return_indices is supported)"),
    (("quantize", "q_", "int_repr", "fbgemm", "qscheme", "fake_quant", "choose_qparams", "quantized"),
     "quantized tensors are not modelled"),
    (("nested", "to_padded_tensor"), "nested tensors are not modelled"),
    (("mkldnn", "miopen", "cudnn", "vulkan", "mps"), "backend-specific kernel"),
    (("svd", "qr", "eig", "lu", "cholesky", "lstsq", "solve", "inverse", "pinverse", "det", "slogdet", "logdet",
      "matrix_exp", "matrix_power", "geqrf", "ormqr", "orgqr", "householder", "triangular_solve", "symeig",
      "cholesky_inverse", "cholesky_solve", "linalg"), "linear-algebra decomposition / solver: not implemented"),
    (("nonzero_static", "argwhere", "unique_dim"), "data-dependent output size"),
    (("histogram", "histc", "bucketize", "searchsorted"), "not implemented (histograms and search)"),
]


def tables(repo):
    names = set()
    for f in sorted(os.listdir(os.path.join(repo, "shapeenv"))):
        if not (f.startswith("ops") and f.endswith(".c")):
            continue
        src = open(os.path.join(repo, "shapeenv", f)).read()
        found = re.findall(r"const opentry sy_ops_\w+\[\]\s*=", src)
        parsed = 0
        for m in re.finditer(r"const opentry sy_ops_\w+\[\]\s*=\s*\{(.*?)OP_END,?\s*\};", src, re.S):
            # rows OP_ROW("name", handler[, flags, layout, kernel]) (shapeenv/env_private.h)
            names.update(re.findall(r'OP_ROW\("([A-Za-z_0-9]+)",', m.group(1)))
            parsed += 1
        if parsed != len(found):  # a table this parser does not read would drop its ops silently
            sys.exit("ops_status: shapeenv/%s: %d op tables, %d read (rows OP_ROW(...), ended by OP_END};)" % (f, len(found), parsed))
    return names


def public(obj):
    out = set()
    for n in dir(obj):
        if n.startswith("_") or n[0].isupper():  # typing names (F.Callable, ...), not ops
            continue
        v = getattr(obj, n, None)
        if v is None or inspect.isclass(v) or inspect.ismodule(v) or not callable(v):
            continue
        out.add(n)
    return out


def classify(n, supported):
    base = n[:-1] if n.endswith("_") and not n.endswith("__") else n
    if n in supported:
        return "supported", ""
    if base in supported and n.endswith("_"):
        return "unsupported", f"in-place form of `{base}` (use the out-of-place op)"
    for pred, why in NOT_RELEVANT_REASONS:
        if pred(n):
            return "not shape-relevant", why
    if n in ("indices", "values"):
        return "unsupported", "sparse layouts are not modelled"
    for keys, why in REASONS:
        if any(k in n for k in keys):
            return "unsupported", why
    return "unsupported", "not implemented"


def table(repo):
    supported = tables(repo)
    fns, tfs, tms = public(F), public(torch), public(torch.Tensor)
    allnames = sorted(fns | tfs | tms)
    rows, counts = [], {}
    for n in allnames:
        st, why = classify(n, supported)
        counts[st] = counts.get(st, 0) + 1
        where = " ".join(x for x, s in (("F", fns), ("torch", tfs), ("Tensor", tms)) if n in s)
        rows.append(f"| `{n}` | {where} | {st}{': ' + why if why else ''} |")
    extra = sorted(supported - set(allnames))
    lines = [BEGIN, "", "Generated by `scripts/ops_status.py` (checked by ctest `ops_status`) from PyTorch "
             f"{torch.__version__.split('+')[0]}'s public callables of `torch.nn.functional` (F, {len(fns)}), `torch` ({len(tfs)}) "
             f"and `torch.Tensor` ({len(tms)}): {len(allnames)} names. **{counts.get('supported', 0)} supported**, "
             f"{counts.get('unsupported', 0)} unsupported (with the reason), {counts.get('not shape-relevant', 0)} not shape-relevant. "
             f"The op tables hold {len(supported)} names in all; {len(extra)} of them are graph-level names that are not "
             "public callables of these namespaces (Python operators, `getitem`, `_assert`, `guard_bool`, aliases "
             "such as `concat`): " + ", ".join(f"`{e}`" for e in extra) + ".", "",
             "| op | namespaces | status |", "|---|---|---|"] + rows + ["", END]
    return "\n".join(lines)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    repo = sys.argv[1]
    path = os.path.join(repo, "docs", "ops.md")
    doc = open(path).read()
    new = table(repo)
    if BEGIN in doc:
        a, b = doc.index(BEGIN), doc.index(END) + len(END)
        updated = doc[:a] + new + doc[b:]
    else:
        updated = doc.rstrip("\n") + "\n\n## Status of PyTorch's ops\n\n" + new + "\n"
    # the op count of the introduction (every row of every table: sy_env_op_names)
    updated = re.sub(r"(`sy_env_op_names\(\)` lists \*\*)\d+( ops\*\*)",
                     lambda m: m.group(1) + str(len(tables(repo))) + m.group(2), updated)
    if "--check" in sys.argv:
        if updated != doc:
            print("docs/ops.md: the ops status table is stale; run scripts/ops_status.py " + repo)
            return 1
        print("docs/ops.md: the ops status table is current")
        return 0
    open(path, "w").write(updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
