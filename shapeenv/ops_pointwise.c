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

sy_status sy_elementwise_binary(opcall *c, const sy_value *a, const sy_value *b);

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
    if ((st = sy_elementwise_binary(&c1, &ab, d->kind == SY_V_NONE ? &ab : d))) return st;
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
    {"acos", pw_unary}, {"arccos", pw_unary}, {"acosh", pw_unary}, {"arccosh", pw_unary}, {"asin", pw_unary},
    {"arcsin", pw_unary}, {"asinh", pw_unary}, {"arcsinh", pw_unary}, {"atan", pw_unary}, {"arctan", pw_unary},
    {"atanh", pw_unary}, {"arctanh", pw_unary}, {"cos", pw_unary}, {"cosh", pw_unary}, {"sin", pw_unary},
    {"sinh", pw_unary}, {"tan", pw_unary}, {"sinc", pw_unary}, {"absolute", pw_unary}, {"angle", pw_unary},
    {"real", pw_unary}, {"imag", pw_unary}, {"conj", pw_unary}, {"conj_physical", pw_unary}, {"deg2rad", pw_unary},
    {"rad2deg", pw_unary}, {"digamma", pw_unary}, {"lgamma", pw_unary}, {"erfc", pw_unary}, {"erfinv", pw_unary},
    {"exp2", pw_unary}, {"expm1", pw_unary}, {"fix", pw_unary}, {"frac", pw_unary}, {"i0", pw_unary},
    {"log10", pw_unary}, {"log1p", pw_unary}, {"log2", pw_unary}, {"logit", pw_unary}, {"nan_to_num", pw_unary},
    {"negative", pw_unary}, {"positive", pw_unary}, {"reciprocal", pw_unary}, {"sgn", pw_unary}, {"sign", pw_unary},
    {"signbit", pw_unary}, {"square", pw_unary}, {"isnan", pw_unary}, {"isinf", pw_unary}, {"isposinf", pw_unary},
    {"isneginf", pw_unary}, {"isfinite", pw_unary}, {"isreal", pw_unary}, {"logical_not", pw_unary},
    {"bitwise_not", pw_unary}, {"celu", pw_unary}, {"selu", pw_unary}, {"softplus", pw_unary}, {"softsign", pw_unary},
    {"softshrink", pw_unary}, {"hardshrink", pw_unary}, {"tanhshrink", pw_unary}, {"threshold", pw_unary},
    {"rrelu", pw_unary}, {"mish", pw_unary}, {"logsigmoid", pw_unary}, {"softmin", pw_unary},
    {"gumbel_softmax", pw_unary}, {"dropout1d", pw_unary}, {"dropout3d", pw_unary}, {"feature_dropout", pw_unary},
    {"exp_", pw_unary}, {"log_", pw_unary}, {"sqrt_", pw_unary}, {"abs_", pw_unary}, {"sin_", pw_unary},
    {"cos_", pw_unary}, {"clamp_min", pw_binary}, {"clamp_max", pw_binary}, {"zero_", pw_unary}, {"fill_", pw_unary},
    {"uniform_", pw_unary}, {"normal_", pw_unary}, {"exponential_", pw_unary},
    {"requires_grad_", pw_unary}, {"cpu", pw_unary},
    /* binary (tensor or number operands, broadcast) */
    {"atan2", pw_binary}, {"arctan2", pw_binary}, {"bitwise_and", pw_binary}, {"bitwise_or", pw_binary},
    {"bitwise_xor", pw_binary}, {"bitwise_left_shift", pw_binary}, {"bitwise_right_shift", pw_binary},
    {"copysign", pw_binary}, {"float_power", pw_binary}, {"floor_divide", pw_binary}, {"fmod", pw_binary},
    {"remainder", pw_binary}, {"hypot", pw_binary}, {"ldexp", pw_binary}, {"logaddexp", pw_binary},
    {"logaddexp2", pw_binary}, {"logical_and", pw_binary}, {"logical_or", pw_binary}, {"logical_xor", pw_binary},
    {"multiply", pw_binary}, {"subtract", pw_binary}, {"true_divide", pw_binary}, {"divide", pw_binary},
    {"nextafter", pw_binary}, {"xlogy", pw_binary}, {"isclose", pw_binary}, {"greater", pw_binary},
    {"greater_equal", pw_binary}, {"less", pw_binary}, {"less_equal", pw_binary}, {"not_equal", pw_binary},
    {"heaviside", pw_binary}, {"gcd", pw_binary}, {"lcm", pw_binary}, {"igamma", pw_binary}, {"igammac", pw_binary},
    {"pow_", pw_binary}, {"fmod_", pw_binary}, {"remainder_", pw_binary},
    {"masked_scatter", pw_binary}, {"clamp_min_", pw_binary}, {"clamp_max_", pw_binary},
    /* ternary */
    {"addcmul", pw_ternary}, {"addcdiv", pw_ternary}, {"lerp", pw_ternary}, {"clamp", pw_ternary},
    {"clip", pw_ternary}, {"clamp_", pw_ternary}, {"clip_", pw_ternary}, {"addcmul_", pw_ternary},
    {"addcdiv_", pw_ternary}, {"lerp_", pw_ternary},
    /* in-place forms: the result aliases self (unary), the broadcast must equal self's sizes (binary) */
    {"absolute_", pw_unary}, {"acos_", pw_unary}, {"acosh_", pw_unary}, {"arccos_", pw_unary}, {"arccosh_", pw_unary}, {"arcsin_", pw_unary}, {"arcsinh_", pw_unary}, {"arctan_", pw_unary}, {"arctanh_", pw_unary}, {"asin_", pw_unary}, {"asinh_", pw_unary}, {"atan_", pw_unary}, {"atanh_", pw_unary}, {"bitwise_not_", pw_unary}, {"ceil_", pw_unary}, {"celu_", pw_unary}, {"conj_physical_", pw_unary}, {"cosh_", pw_unary}, {"deg2rad_", pw_unary}, {"digamma_", pw_unary}, {"elu_", pw_unary}, {"erf_", pw_unary}, {"erfc_", pw_unary}, {"erfinv_", pw_unary}, {"exp2_", pw_unary}, {"expm1_", pw_unary}, {"fix_", pw_unary}, {"floor_", pw_unary}, {"frac_", pw_unary}, {"i0_", pw_unary}, {"lgamma_", pw_unary}, {"log10_", pw_unary}, {"log1p_", pw_unary}, {"log2_", pw_unary}, {"logical_not_", pw_unary}, {"logit_", pw_unary}, {"nan_to_num_", pw_unary}, {"negative_", pw_unary}, {"rad2deg_", pw_unary}, {"reciprocal_", pw_unary}, {"round_", pw_unary}, {"rrelu_", pw_unary}, {"rsqrt_", pw_unary}, {"selu_", pw_unary}, {"sgn_", pw_unary}, {"sign_", pw_unary}, {"sinc_", pw_unary}, {"sinh_", pw_unary}, {"square_", pw_unary}, {"tan_", pw_unary}, {"threshold_", pw_unary}, {"tril_", pw_unary}, {"triu_", pw_unary}, {"trunc_", pw_unary}, {"alpha_dropout_", pw_unary}, {"feature_alpha_dropout_", pw_unary}, {"feature_dropout_", pw_unary}, {"arctan2_", pw_binary}, {"atan2_", pw_binary}, {"bitwise_and_", pw_binary}, {"bitwise_left_shift_", pw_binary}, {"bitwise_or_", pw_binary}, {"bitwise_right_shift_", pw_binary}, {"bitwise_xor_", pw_binary}, {"copysign_", pw_binary}, {"divide_", pw_binary}, {"eq_", pw_binary}, {"float_power_", pw_binary}, {"floor_divide_", pw_binary}, {"gcd_", pw_binary}, {"ge_", pw_binary}, {"greater_", pw_binary}, {"greater_equal_", pw_binary}, {"gt_", pw_binary}, {"heaviside_", pw_binary}, {"hypot_", pw_binary}, {"igamma_", pw_binary}, {"igammac_", pw_binary}, {"lcm_", pw_binary}, {"ldexp_", pw_binary}, {"le_", pw_binary}, {"less_", pw_binary}, {"less_equal_", pw_binary}, {"logical_and_", pw_binary}, {"logical_or_", pw_binary}, {"logical_xor_", pw_binary}, {"lt_", pw_binary}, {"masked_scatter_", pw_binary}, {"multiply_", pw_binary}, {"ne_", pw_binary}, {"nextafter_", pw_binary}, {"not_equal_", pw_binary}, {"subtract_", pw_binary}, {"true_divide_", pw_binary}, {"xlogy_", pw_binary}, {NULL, NULL}};
