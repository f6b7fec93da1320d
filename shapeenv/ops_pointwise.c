/* Pointwise ops (PyTorch 1.13): the result has the input's sizes (unary,
 * the ATen structured meta functions / TensorIterator with one input) or the
 * broadcast of the tensor operands (binary and ternary, TensorIterator's
 * compute_shape = ExpandUtils.cpp infer_size). The layout follows
 * TensorIterator (sy_unary_layout / sy_elementwise_binary); in-place forms
 * (NAME_) alias their input. Dtype: the input's, except the predicates
 * (isnan ... -> bool), the complex-to-real ops (abs/angle/real/imag of a
 * complex input), the logical ops (bool) and true division of integers
 * (float32). An in-place binary op needs the broadcast sizes to equal
 * self's ("output with shape [..] doesn't match the broadcast shape"). */
#include <string.h>

#include "shapeenv/env_private.h"


static int in_list(const char *op, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(op, *names)) return 1;
    return 0;
}

static const char *const bool_result[] = {"isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal", "signbit",
                                          "logical_not", "logical_and", "logical_or", "logical_xor", "isclose",
                                          "greater", "greater_equal", "less", "less_equal", "not_equal", "eq_", NULL};
static const char *const real_of_complex[] = {"abs", "absolute", "angle", "real", "imag", NULL};
static const char *const float_result[] = {"true_divide", "divide", "float_power", "xlogy", "atan2", "arctan2", "hypot", "logaddexp",
                                           "logaddexp2", NULL};

static sy_dtype fix_dtype(const char *op, sy_dtype dt)
{
    char base[64];
    size_t n = strlen(op);
    snprintf(base, sizeof base, "%.*s", (int)(n > 1 && op[n - 1] == '_' ? n - 1 : n), op);
    if (in_list(base, bool_result)) return SY_DT_BOOL;
    if (in_list(base, real_of_complex)) return dt == SY_DT_COMPLEX64 ? SY_DT_FLOAT32 : dt == SY_DT_COMPLEX128 ? SY_DT_FLOAT64 : dt;
    if (in_list(base, float_result) && !op_is_floating(dt) && !op_is_complex(dt)) return SY_DT_FLOAT32;
    if (!strcmp(base, "float_power")) return op_is_complex(dt) ? SY_DT_COMPLEX128 : SY_DT_FLOAT64;
    return dt;
}

static sy_status pw_unary(opcall *c)
{
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    if (!strncmp(c->op, "celu", 4)) { /* Activation.cpp celu: alpha != 0 */
        double alpha;
        if ((st = op_num_def(c, 1, "alpha", 1.0, &alpha))) return st;
        if (alpha == 0.0) return op_err(c, SY_EINVAL, "ZeroDivisionError: alpha cannot be 0 for CELU");
    } else if (!strncmp(c->op, "rrelu", 5)) { /* Activation.cpp rrelu_with_noise: lower <= upper */
        double lo, hi;
        if ((st = op_num_def(c, 1, "lower", 1.0 / 8, &lo)) || (st = op_num_def(c, 2, "upper", 1.0 / 3, &hi))) return st;
        if (lo > hi) return op_err(c, SY_EINVAL, "Lower bound should be less than or equal to the upper bound");
    }
    /* ~x (operator.invert, recorded by the exporter as "invert") is bitwise_not (Python's
     * __invert__ on a Tensor, torch/_tensor.py); UnaryOps.cpp bitwise_not: bool and integer only */
    if ((!strncmp(c->op, "bitwise_not", 11) || !strcmp(c->op, "invert")) && (op_is_floating(x->dtype) || op_is_complex(x->dtype)))
        return op_err(c, SY_EINVAL, "bitwise_not is only supported for integer and boolean tensors");
    return sy_unary_layout(c, x, fix_dtype(c->op, x->dtype));
}

/* op(input, other): broadcast; in place: the result must have self's sizes */
static sy_status pw_binary(opcall *c)
{
    const sy_value *a = op_arg(c, 0, "input"), *b = op_arg(c, 1, "other");
    if (!b) b = op_arg(c, (size_t)-1, "exponent");
    if (!a || !b) return op_err(c, SY_EINVAL, "expected %s(input, other)", c->op);
    sy_status st = sy_elementwise_binary(c, a, b);
    if (st) return st;
    const sy_tensor *r = c->out->u.t;
    size_t n = strlen(c->op);
    if (c->op[n - 1] == '_') {
        if (a->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "in-place op on a non-tensor");
        const sy_tensor *x = a->u.t;
        int same = r->ndim == x->ndim;
        for (size_t i = 0; same && i < x->ndim; i++) same = r->sizes[i] == x->sizes[i];
        if (!same) {
            if (r->ndim != x->ndim) return op_err(c, SY_EINVAL, "output with shape of rank %zu doesn't match the broadcast shape of rank %zu", x->ndim, r->ndim);
            for (size_t i = 0; i < x->ndim; i++)
                if ((st = op_require(c, sy_expr_eq(c->env->ctx, r->sizes[i], x->sizes[i]),
                                     "output with shape [..., %s, ...] doesn't match the broadcast shape [..., %s, ...] at dim %zu",
                                     sy_env_show(c->env, x->sizes[i]), sy_env_show(c->env, r->sizes[i]), i)))
                    return st;
        }
        return op_set_strided(c, x->dtype, x->ndim, x->sizes, x->strides);
    }
    sy_dtype dt = fix_dtype(c->op, r->dtype);
    if (dt == r->dtype) return SY_OK;
    return op_set_strided(c, dt, r->ndim, r->sizes, r->strides);
}

/* op(input, t1, t2) (addcmul, addcdiv, lerp, clamp with tensor bounds): all three broadcast */
static sy_status pw_ternary(opcall *c)
{
    const char *k1 = !strcmp(c->op, "lerp") ? "end" : !strncmp(c->op, "clamp", 5) || !strncmp(c->op, "clip", 4) ? "min" : "tensor1";
    const char *k2 = !strcmp(c->op, "lerp") ? "weight" : !strncmp(c->op, "clamp", 5) || !strncmp(c->op, "clip", 4) ? "max" : "tensor2";
    const sy_value *a = op_arg(c, 0, "input"), *b = op_arg(c, 1, k1), *d = op_arg(c, 2, k2);
    if (!a || a->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "argument 'input' must be a tensor");
    sy_value none = sy_value_none(), ab, abd;
    if (!b || b->kind == SY_V_NONE) b = &none;
    if (!d || d->kind == SY_V_NONE) d = &none;
    if (b->kind == SY_V_NONE && d->kind == SY_V_NONE && strncmp(c->op, "clamp", 5) && strncmp(c->op, "clip", 4))
        return op_err(c, SY_EINVAL, "expected %s(input, %s, %s)", c->op, k1, k2);
    if (!strncmp(c->op, "clamp", 5) || !strncmp(c->op, "clip", 4)) {
        if (b->kind == SY_V_NONE && d->kind == SY_V_NONE) return op_err(c, SY_EINVAL, "torch.clamp: At least one of 'min' or 'max' must not be None");
    }
    opcall c1 = *c;
    c1.out = &ab;
    sy_status st = sy_elementwise_binary(&c1, a, b->kind == SY_V_NONE ? a : b);
    if (st) return st;
    c1.out = &abd;
    /* lerp(input, end, weight) with a number weight: TensorIterator on (input, end) alone
     * (Lerp.cpp TORCH_META_FUNC(lerp_Scalar)), the number is no operand */
    if (!strncmp(c->op, "lerp", 4) && d->kind != SY_V_TENSOR) abd = ab;
    else if ((st = sy_elementwise_binary(&c1, &ab, d->kind == SY_V_NONE ? &ab : d))) return st;
    const sy_tensor *r = abd.u.t;
    size_t n = strlen(c->op);
    if (c->op[n - 1] == '_') {
        const sy_tensor *x = a->u.t;
        if (r->ndim != x->ndim) return op_err(c, SY_EINVAL, "output with shape of rank %zu doesn't match the broadcast shape of rank %zu", x->ndim, r->ndim);
        for (size_t i = 0; i < x->ndim; i++)
            if (r->sizes[i] != x->sizes[i] && (st = op_require(c, sy_expr_eq(c->env->ctx, r->sizes[i], x->sizes[i]),
                                                               "output with shape doesn't match the broadcast shape at dim %zu", i)))
                return st;
        return op_set_strided(c, x->dtype, x->ndim, x->sizes, x->strides);
    }
    *c->out = abd;
    if (r->dtype != a->u.t->dtype) return op_set_strided(c, a->u.t->dtype, r->ndim, r->sizes, r->strides);
    return SY_OK;
}

const opentry sy_ops_pointwise[] = {
    /* unary (and the F activations with scalar parameters) */
    OP_ROW("acos", pw_unary),
    OP_ROW("arccos", pw_unary),
    OP_ROW("acosh", pw_unary),
    OP_ROW("arccosh", pw_unary),
    OP_ROW("asin", pw_unary),
    OP_ROW("arcsin", pw_unary),
    OP_ROW("asinh", pw_unary),
    OP_ROW("arcsinh", pw_unary),
    OP_ROW("atan", pw_unary),
    OP_ROW("arctan", pw_unary),
    OP_ROW("atanh", pw_unary),
    OP_ROW("arctanh", pw_unary),
    OP_ROW("cos", pw_unary),
    OP_ROW("cosh", pw_unary),
    OP_ROW("sin", pw_unary),
    OP_ROW("sinh", pw_unary),
    OP_ROW("tan", pw_unary),
    OP_ROW("sinc", pw_unary),
    OP_ROW("absolute", pw_unary),
    OP_ROW("angle", pw_unary),
    OP_ROW("real", pw_unary, 0, OPL_VIEW),
    OP_ROW("imag", pw_unary, 0, OPL_VIEW),
    OP_ROW("conj", pw_unary),
    OP_ROW("conj_physical", pw_unary),
    OP_ROW("deg2rad", pw_unary),
    OP_ROW("rad2deg", pw_unary),
    OP_ROW("digamma", pw_unary),
    OP_ROW("lgamma", pw_unary),
    OP_ROW("erfc", pw_unary),
    OP_ROW("erfinv", pw_unary),
    OP_ROW("exp2", pw_unary),
    OP_ROW("expm1", pw_unary),
    OP_ROW("fix", pw_unary),
    OP_ROW("frac", pw_unary),
    OP_ROW("i0", pw_unary),
    OP_ROW("log10", pw_unary),
    OP_ROW("log1p", pw_unary),
    OP_ROW("log2", pw_unary),
    OP_ROW("logit", pw_unary),
    OP_ROW("nan_to_num", pw_unary),
    OP_ROW("negative", pw_unary),
    OP_ROW("positive", pw_unary),
    OP_ROW("reciprocal", pw_unary),
    OP_ROW("sgn", pw_unary),
    OP_ROW("sign", pw_unary),
    OP_ROW("signbit", pw_unary),
    OP_ROW("square", pw_unary),
    OP_ROW("isnan", pw_unary),
    OP_ROW("isinf", pw_unary),
    OP_ROW("isposinf", pw_unary),
    OP_ROW("isneginf", pw_unary),
    OP_ROW("isfinite", pw_unary),
    OP_ROW("isreal", pw_unary),
    OP_ROW("logical_not", pw_unary),
    OP_ROW("bitwise_not", pw_unary),
    OP_ROW("invert", pw_unary),
    OP_ROW("celu", pw_unary),
    OP_ROW("selu", pw_unary),
    OP_ROW("softplus", pw_unary),
    OP_ROW("softsign", pw_unary),
    OP_ROW("softshrink", pw_unary),
    OP_ROW("hardshrink", pw_unary),
    OP_ROW("tanhshrink", pw_unary),
    OP_ROW("threshold", pw_unary),
    OP_ROW("rrelu", pw_unary),
    OP_ROW("mish", pw_unary),
    OP_ROW("logsigmoid", pw_unary),
    OP_ROW("softmin", pw_unary),
    OP_ROW("gumbel_softmax", pw_unary),
    OP_ROW("dropout1d", pw_unary),
    OP_ROW("dropout3d", pw_unary),
    OP_ROW("feature_dropout", pw_unary),
    OP_ROW("exp_", pw_unary),
    OP_ROW("log_", pw_unary),
    OP_ROW("sqrt_", pw_unary),
    OP_ROW("abs_", pw_unary),
    OP_ROW("sin_", pw_unary),
    OP_ROW("cos_", pw_unary),
    OP_ROW("clamp_min", pw_binary),
    OP_ROW("clamp_max", pw_binary),
    OP_ROW("zero_", pw_unary),
    OP_ROW("fill_", pw_unary),
    OP_ROW("uniform_", pw_unary),
    OP_ROW("normal_", pw_unary),
    OP_ROW("exponential_", pw_unary),
    OP_ROW("requires_grad_", pw_unary),
    OP_ROW("cpu", pw_unary),
    /* binary (tensor or number operands, broadcast) */
    OP_ROW("atan2", pw_binary),
    OP_ROW("arctan2", pw_binary),
    OP_ROW("bitwise_and", pw_binary),
    OP_ROW("bitwise_or", pw_binary),
    OP_ROW("bitwise_xor", pw_binary),
    OP_ROW("bitwise_left_shift", pw_binary),
    OP_ROW("bitwise_right_shift", pw_binary),
    OP_ROW("copysign", pw_binary),
    OP_ROW("float_power", pw_binary),
    OP_ROW("floor_divide", pw_binary),
    OP_ROW("fmod", pw_binary),
    OP_ROW("remainder", pw_binary),
    OP_ROW("hypot", pw_binary),
    OP_ROW("ldexp", pw_binary),
    OP_ROW("logaddexp", pw_binary),
    OP_ROW("logaddexp2", pw_binary),
    OP_ROW("logical_and", pw_binary),
    OP_ROW("logical_or", pw_binary),
    OP_ROW("logical_xor", pw_binary),
    OP_ROW("multiply", pw_binary),
    OP_ROW("subtract", pw_binary),
    OP_ROW("true_divide", pw_binary),
    OP_ROW("divide", pw_binary),
    OP_ROW("nextafter", pw_binary),
    OP_ROW("xlogy", pw_binary),
    OP_ROW("isclose", pw_binary),
    OP_ROW("greater", pw_binary),
    OP_ROW("greater_equal", pw_binary),
    OP_ROW("less", pw_binary),
    OP_ROW("less_equal", pw_binary),
    OP_ROW("not_equal", pw_binary),
    OP_ROW("heaviside", pw_binary),
    OP_ROW("gcd", pw_binary),
    OP_ROW("lcm", pw_binary),
    OP_ROW("igamma", pw_binary),
    OP_ROW("igammac", pw_binary),
    OP_ROW("pow_", pw_binary),
    OP_ROW("fmod_", pw_binary),
    OP_ROW("remainder_", pw_binary),
    OP_ROW("masked_scatter", pw_binary),
    OP_ROW("clamp_min_", pw_binary),
    OP_ROW("clamp_max_", pw_binary),
    /* ternary */
    OP_ROW("addcmul", pw_ternary),
    OP_ROW("addcdiv", pw_ternary),
    OP_ROW("lerp", pw_ternary),
    OP_ROW("clamp", pw_ternary),
    OP_ROW("clip", pw_ternary),
    OP_ROW("clamp_", pw_ternary),
    OP_ROW("clip_", pw_ternary),
    OP_ROW("addcmul_", pw_ternary),
    OP_ROW("addcdiv_", pw_ternary),
    OP_ROW("lerp_", pw_ternary),
    /* in-place forms: the result aliases self (unary), the broadcast must equal self's sizes (binary) */
    OP_ROW("absolute_", pw_unary),
    OP_ROW("acos_", pw_unary),
    OP_ROW("acosh_", pw_unary),
    OP_ROW("arccos_", pw_unary),
    OP_ROW("arccosh_", pw_unary),
    OP_ROW("arcsin_", pw_unary),
    OP_ROW("arcsinh_", pw_unary),
    OP_ROW("arctan_", pw_unary),
    OP_ROW("arctanh_", pw_unary),
    OP_ROW("asin_", pw_unary),
    OP_ROW("asinh_", pw_unary),
    OP_ROW("atan_", pw_unary),
    OP_ROW("atanh_", pw_unary),
    OP_ROW("bitwise_not_", pw_unary),
    OP_ROW("ceil_", pw_unary),
    OP_ROW("celu_", pw_unary),
    OP_ROW("conj_physical_", pw_unary),
    OP_ROW("cosh_", pw_unary),
    OP_ROW("deg2rad_", pw_unary),
    OP_ROW("digamma_", pw_unary),
    OP_ROW("elu_", pw_unary),
    OP_ROW("erf_", pw_unary),
    OP_ROW("erfc_", pw_unary),
    OP_ROW("erfinv_", pw_unary),
    OP_ROW("exp2_", pw_unary),
    OP_ROW("expm1_", pw_unary),
    OP_ROW("fix_", pw_unary),
    OP_ROW("floor_", pw_unary),
    OP_ROW("frac_", pw_unary),
    OP_ROW("i0_", pw_unary),
    OP_ROW("lgamma_", pw_unary),
    OP_ROW("log10_", pw_unary),
    OP_ROW("log1p_", pw_unary),
    OP_ROW("log2_", pw_unary),
    OP_ROW("logical_not_", pw_unary),
    OP_ROW("logit_", pw_unary),
    OP_ROW("nan_to_num_", pw_unary),
    OP_ROW("negative_", pw_unary),
    OP_ROW("rad2deg_", pw_unary),
    OP_ROW("reciprocal_", pw_unary),
    OP_ROW("round_", pw_unary),
    OP_ROW("rrelu_", pw_unary),
    OP_ROW("rsqrt_", pw_unary),
    OP_ROW("selu_", pw_unary),
    OP_ROW("sgn_", pw_unary),
    OP_ROW("sign_", pw_unary),
    OP_ROW("sinc_", pw_unary),
    OP_ROW("sinh_", pw_unary),
    OP_ROW("square_", pw_unary),
    OP_ROW("tan_", pw_unary),
    OP_ROW("threshold_", pw_unary),
    OP_ROW("tril_", pw_unary),
    OP_ROW("triu_", pw_unary),
    OP_ROW("trunc_", pw_unary),
    OP_ROW("alpha_dropout_", pw_unary),
    OP_ROW("feature_alpha_dropout_", pw_unary),
    OP_ROW("feature_dropout_", pw_unary),
    OP_ROW("arctan2_", pw_binary),
    OP_ROW("atan2_", pw_binary),
    OP_ROW("bitwise_and_", pw_binary),
    OP_ROW("bitwise_left_shift_", pw_binary),
    OP_ROW("bitwise_or_", pw_binary),
    OP_ROW("bitwise_right_shift_", pw_binary),
    OP_ROW("bitwise_xor_", pw_binary),
    OP_ROW("copysign_", pw_binary),
    OP_ROW("divide_", pw_binary),
    OP_ROW("eq_", pw_binary),
    OP_ROW("float_power_", pw_binary),
    OP_ROW("floor_divide_", pw_binary),
    OP_ROW("gcd_", pw_binary),
    OP_ROW("ge_", pw_binary),
    OP_ROW("greater_", pw_binary),
    OP_ROW("greater_equal_", pw_binary),
    OP_ROW("gt_", pw_binary),
    OP_ROW("heaviside_", pw_binary),
    OP_ROW("hypot_", pw_binary),
    OP_ROW("igamma_", pw_binary),
    OP_ROW("igammac_", pw_binary),
    OP_ROW("lcm_", pw_binary),
    OP_ROW("ldexp_", pw_binary),
    OP_ROW("le_", pw_binary),
    OP_ROW("less_", pw_binary),
    OP_ROW("less_equal_", pw_binary),
    OP_ROW("logical_and_", pw_binary),
    OP_ROW("logical_or_", pw_binary),
    OP_ROW("logical_xor_", pw_binary),
    OP_ROW("lt_", pw_binary),
    OP_ROW("masked_scatter_", pw_binary),
    OP_ROW("multiply_", pw_binary),
    OP_ROW("ne_", pw_binary),
    OP_ROW("nextafter_", pw_binary),
    OP_ROW("not_equal_", pw_binary),
    OP_ROW("subtract_", pw_binary),
    OP_ROW("true_divide_", pw_binary),
    OP_ROW("xlogy_", pw_binary),
    OP_END};
