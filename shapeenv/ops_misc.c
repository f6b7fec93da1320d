/* More neural-network ops, losses, factories, linear algebra, spectral ops
 * and complex views (PyTorch 1.13). Sources, per op below:
 *   aten/src/ATen/native/Activation.cpp     prelu (CPU), TORCH_META_FUNC(glu)
 *   aten/src/ATen/native/PixelShuffle.cpp   check_pixel_shuffle_shapes / check_pixel_unshuffle_shapes
 *   aten/src/ATen/native/ChanelShuffle.cpp  channel_shuffle
 *   aten/src/ATen/native/GridSampler.cpp    check_grid_sampler_common / _2d / _3d
 *   torch/nn/functional.py                  affine_grid, embedding_bag, instance_norm
 *                                           (_verify_spatial_size), local_response_norm,
 *                                           cross_entropy, nll_loss, _Reduction
 *   aten/src/ATen/native/LossNLL.cpp        nll_loss_nd, TORCH_META_FUNC(nll_loss_forward),
 *                                           cross_entropy_loss
 *   aten/src/ATen/native/LossNLL2d.cpp      check_inputs_nll_loss2d
 *   aten/src/ATen/native/Onehot.cpp         one_hot
 *   aten/src/ATen/native/TensorFactories.cpp eye, linspace/logspace, *_like; torch.tensor nesting
 *   aten/src/ATen/native/TensorShape.cpp    meshgrid
 *   aten/src/ATen/native/Linear.cpp         bilinear
 *   aten/src/ATen/native/LinearAlgebra.cpp  addmm (ADDMM_META), baddbmm (baddbmm_bmm_meta),
 *                                           addmv, addr, outer, kron
 *   aten/src/ATen/native/Distance.cpp       cdist
 *   torch/functional.py + aten/src/ATen/native/SpectralOps.cpp  stft, istft
 *   aten/src/ATen/native/ComplexHelper.h    view_as_real, view_as_complex */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "shapeenv/env_private.h"


#define CTX (c->env->ctx)
#define SHOW(e) sy_env_show(c->env, (e))

static const sy_expr *ge1(opcall *c, const sy_expr *e) { return sy_expr_ge(CTX, e, KI(c, 1)); }

/* ------------------------------------------------------------------ activations and channel ops */

/* prelu(input, weight) (Activation.cpp prelu_cpu, 1.13; prelu, 2.x): weight 0-d or 1-D;
 * with more than one weight element ("if (weight_.numel() != 1)") the input is not 0-d
 * and the channel count (size(1), or 1 for a 1-D input) equals weight.numel(). The
 * result is the input's sizes either way, so the check is one requirement,
 * Or(numel == 1, channels == numel) (lost46: "a single weight?" was decided at the
 * example: a weight of the channel count rejected a single weight, and one weight
 * rejected a weight per channel, 6 of 11 CPU-ok sizes). */
static sy_status prelu(opcall *c)
{
    const sy_tensor *x, *w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "weight", &w))) return st;
    if (w->ndim > 1) return op_err(c, SY_EINVAL, "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = %zu", w->ndim);
    const sy_expr *wn = op_numel(c, w), *one = sy_expr_eq(CTX, wn, KI(c, 1));
    if (x->ndim == 0) {
        if ((st = op_require(c, one, "Not allow zero-dim input tensor."))) return st;
    } else {
        const sy_expr *ch = x->ndim > 1 ? x->sizes[1] : KI(c, 1);
        if ((st = op_require(c, sy_expr_or(CTX, one, sy_expr_eq(CTX, ch, wn)),
                             "Mismatch of parameter numbers and input channel size. Found parameter numbers = %s and channel size = %s.",
                             SHOW(wn), SHOW(ch))))
            return st;
    }
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* glu(input, dim=-1) (TORCH_META_FUNC(glu)): not 0-d; size(dim) even; halved */
static sy_status glu(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (x->ndim == 0) return op_err(c, SY_EINVAL, "glu does not support scalars because halving size must be even");
    if ((st = op_const_int(c, 1, "dim", -1, &d)) || (st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    if ((st = op_require(c, sy_expr_eq(CTX, sy_expr_mod(CTX, x->sizes[w], KI(c, 2)), KI(c, 0)),
                         "Halving dimension must be even, but dimension %zu is size %s", w, SHOW(x->sizes[w]))))
        return st;
    const sy_expr **out = op_sizes_copy(c, x, 0);
    if (!out) return sy_ctx_last_error(CTX);
    out[w] = sy_expr_floordiv(CTX, x->sizes[w], KI(c, 2));
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* pixel_shuffle(input, r): (*, C, H, W) -> (*, C/r^2, H*r, W*r), C % r^2 == 0;
 * pixel_unshuffle(input, r): -> (*, C*r^2, H/r, W/r), H % r == 0, W % r == 0
 * (an empty input is returned with its own sizes after the checks) */
static sy_status pixel_shuffle(opcall *c)
{
    int un = !strcmp(c->op, "pixel_unshuffle");
    const sy_tensor *x;
    int64_t r;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, un ? "downscale_factor" : "upscale_factor", 1, &r))) return st;
    if (x->ndim < 3)
        return op_err(c, SY_EINVAL, "%s expects input to have at least 3 dimensions, but got input with %zu dimension(s)", c->op, x->ndim);
    if (r <= 0) return op_err(c, SY_EINVAL, "%s expects a positive %s, but got %lld", c->op, un ? "downscale_factor" : "upscale_factor", (long long)r);
    if (r > 3037000499) return op_err(c, SY_EOVERFLOW, "factor too large");
    size_t n = x->ndim;
    const sy_expr *C = x->sizes[n - 3], *H = x->sizes[n - 2], *W = x->sizes[n - 1];
    const sy_expr **out = op_sizes_copy(c, x, 0);
    if (!out) return sy_ctx_last_error(CTX);
    if (!un) {
        if ((st = op_require(c, sy_expr_eq(CTX, sy_expr_mod(CTX, C, KI(c, r * r)), KI(c, 0)),
                             "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%s is not divisible by %lld",
                             SHOW(C), (long long)(r * r))))
            return st;
        out[n - 3] = sy_expr_floordiv(CTX, C, KI(c, r * r));
        out[n - 2] = sy_expr_mul_si(CTX, H, r);
        out[n - 1] = sy_expr_mul_si(CTX, W, r);
    } else {
        if ((st = op_require(c, sy_expr_eq(CTX, sy_expr_mod(CTX, H, KI(c, r)), KI(c, 0)),
                             "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%s is not divisible by %lld",
                             SHOW(H), (long long)r)) ||
            (st = op_require(c, sy_expr_eq(CTX, sy_expr_mod(CTX, W, KI(c, r)), KI(c, 0)),
                             "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%s is not divisible by %lld",
                             SHOW(W), (long long)r)))
            return st;
        int empty; /* pixel_unshuffle_cpu returns self.clone() for an empty input */
        if ((st = op_decide_bool(c, sy_expr_eq(CTX, op_numel(c, x), KI(c, 0)), "pixel_unshuffle: is the input empty?", &empty))) return st;
        if (empty) return op_set_tensor(c, x->dtype, n, x->sizes);
        out[n - 3] = sy_expr_mul_si(CTX, C, r * r);
        out[n - 2] = sy_expr_floordiv(CTX, H, KI(c, r));
        out[n - 1] = sy_expr_floordiv(CTX, W, KI(c, r));
    }
    return op_set_tensor(c, x->dtype, n, out);
}

/* channel_shuffle(input, groups) (ChanelShuffle.cpp): > 2 dims, groups > 0,
 * size(1) % groups == 0; same sizes */
static sy_status channel_shuffle(opcall *c)
{
    const sy_tensor *x;
    int64_t g;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "groups", 1, &g))) return st;
    if (x->ndim <= 2)
        return op_err(c, SY_EINVAL, "channel_shuffle expects input to have at least 3 dimensions, but got input with %zu dimension(s)", x->ndim);
    if (g <= 0) return op_err(c, SY_EINVAL, "Number of groups to divide channels in must be positive. Value of groups:%lld", (long long)g);
    if ((st = op_require(c, sy_expr_eq(CTX, sy_expr_mod(CTX, x->sizes[1], KI(c, g)), KI(c, 0)),
                         "Number of channels must be divisible by groups. Got %s channels and %lld groups.", SHOW(x->sizes[1]), (long long)g)))
        return st;
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* ------------------------------------------------------------------ sampling grids */

/* grid_sample(input, grid, mode, padding_mode, align_corners) -> grid_sampler:
 * 4-D input with 4-D grid (N, Ho, Wo, 2) or 5-D with 5-D (N, D, H, W, 3);
 * check_grid_sampler_common: same batch, grid.size(-1) == input.dim() - 2,
 * non-empty spatial input dims; bicubic only 4-D. Out (N, C, grid spatial...). */
static sy_status grid_sample(opcall *c)
{
    const sy_tensor *x, *g;
    const char *mode, *pm;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "grid", &g)) || (st = op_str_def(c, 2, "mode", "bilinear", &mode)) ||
        (st = op_str_def(c, 3, "padding_mode", "zeros", &pm)))
        return st;
    if (strcmp(mode, "bilinear") && strcmp(mode, "nearest") && strcmp(mode, "bicubic"))
        return op_err(c, SY_EINVAL, "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '%s'", mode);
    if (strcmp(pm, "zeros") && strcmp(pm, "border") && strcmp(pm, "reflection"))
        return op_err(c, SY_EINVAL, "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '%s'", pm);
    if (x->ndim != g->ndim || (x->ndim != 4 && x->ndim != 5))
        return op_err(c, SY_EINVAL, "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with %zu and grid with %zu dimensions", x->ndim, g->ndim);
    if (x->dtype != g->dtype) return op_err(c, SY_EINVAL, "grid_sampler(): expected input and grid to have the same dtype");
    if (!strcmp(mode, "bicubic") && x->ndim != 4) return op_err(c, SY_EINVAL, "grid_sampler(): bicubic interpolation only supports 4D input");
    if ((st = op_require_eq(c, x->sizes[0], g->sizes[0], "grid_sampler(): expected grid and input to have same batch size")) ||
        (st = op_require_eq(c, g->sizes[g->ndim - 1], KI(c, (int64_t)x->ndim - 2), "grid_sampler(): expected grid to have the input's spatial rank in last dimension")))
        return st;
    for (size_t i = 2; i < x->ndim; i++)
        if ((st = op_require(c, ge1(c, x->sizes[i]), "grid_sampler(): expected input to have non-empty spatial dimensions, but dimension %zu is empty", i)))
            return st;
    const sy_expr *out[5] = {x->sizes[0], x->sizes[1]};
    for (size_t i = 1; i + 1 < g->ndim; i++) out[i + 1] = g->sizes[i];
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* affine_grid(theta, size, align_corners=None) (torch/nn/functional.py):
 * theta floating, (N, 2, 3) for a 4-entry size, (N, 3, 4) for 5; min(size)
 * > 0 unless align_corners and a spatial size of 1 (the elif skips the
 * check: min over the spatial sizes == 1); affine_grid_generator's bmm needs theta.size(0) == size[0]. Out
 * (N, H, W, 2) / (N, D, H, W, 3). */
static sy_status affine_grid(opcall *c)
{
    const sy_tensor *th;
    const sy_expr **sz;
    size_t n;
    sy_status st;
    int ac;
    if ((st = op_tensor(c, 0, "theta", &th))) return st;
    opcall c1 = *c;
    c1.nargs = c->nargs > 2 ? 2 : c->nargs;
    if ((st = op_shape_args(&c1, 1, "size", &sz, &n)) || (st = op_bool_def(c, 2, "align_corners", 0, &ac))) return st;
    if (!op_is_floating(th->dtype)) return op_err(c, SY_EINVAL, "Expected theta to have floating point type, but got %s", sy_dtype_name(th->dtype));
    if (n != 4 && n != 5) return op_err(c, SY_EUNSUPPORTED, "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size of %zu entries", n);
    int64_t r = n == 4 ? 2 : 3;
    if (th->ndim != 3) return op_err(c, SY_EINVAL, "Expected a batch of %lldD affine matrices of shape Nx%lldx%lld. Got a %zu-D theta.", (long long)r, (long long)r, (long long)r + 1, th->ndim);
    if ((st = op_require_eq(c, th->sizes[1], KI(c, r), "Expected a batch of affine matrices of shape NxRx(R+1) (theta.size(1))")) ||
        (st = op_require_eq(c, th->sizes[2], KI(c, r + 1), "Expected a batch of affine matrices of shape NxRx(R+1) (theta.size(2))")))
        return st;
    int skip = 0;
    if (ac) {
        const sy_expr *m = sz[2];
        for (size_t i = 3; i < n; i++) m = sy_expr_min(CTX, m, sz[i]);
        if ((st = op_decide_bool(c, sy_expr_eq(CTX, m, KI(c, 1)), "affine_grid: align_corners and min(spatial size) == 1?", &skip))) return st;
    }
    if (!skip)
        for (size_t i = 0; i < n; i++)
            if ((st = op_require(c, ge1(c, sz[i]), "Expected non-zero, positive output size. Got size entry %zu = %s", i, SHOW(sz[i])))) return st;
    if ((st = op_require_eq(c, th->sizes[0], sz[0], "affine_grid: theta batch size must equal size[0]"))) return st;
    const sy_expr *out[5];
    out[0] = sz[0];
    for (size_t i = 2; i < n; i++) out[i - 1] = sz[i];
    out[n - 1] = KI(c, r);
    return op_set_tensor(c, th->dtype, n, out);
}

/* ------------------------------------------------------------------ embeddings, one_hot, losses */

/* F.embedding_bag(input, weight, offsets=None, max_norm, norm_type,
 * scale_grad_by_freq, mode='mean', sparse, per_sample_weights,
 * include_last_offset, padding_idx) -> (B, weight.size(1)). 2-D input
 * (B, N): offsets None, offsets = arange(0, numel, N) (N == 0 makes arange
 * fail: step must be nonzero); 1-D input: offsets 1-D required, B =
 * offsets.size(0) (- 1 with include_last_offset, which needs >= 1 offset).
 * per_sample_weights: same sizes as input, mode 'sum' only. */
static sy_status embedding_bag(opcall *c)
{
    const sy_tensor *x, *w, *off, *psw;
    const char *mode;
    int last;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "weight", &w)) || (st = op_opt_tensor(c, 2, "offsets", &off)) ||
        (st = op_str_def(c, 6, "mode", "mean", &mode)) || (st = op_opt_tensor(c, 8, "per_sample_weights", &psw)) ||
        (st = op_bool_def(c, 9, "include_last_offset", 0, &last)))
        return st;
    if (psw) {
        if (psw->ndim != x->ndim) return op_err(c, SY_EINVAL, "embedding_bag: If per_sample_weights is not None, then it must have the same shape as the input");
        for (size_t i = 0; i < x->ndim; i++)
            if ((st = op_require_eq(c, psw->sizes[i], x->sizes[i], "embedding_bag: per_sample_weights must have the same shape as the input")))
                return st;
    }
    if (w->ndim != 2) return op_err(c, SY_EINVAL, "weight has to be a 2D Tensor, but got Tensor of dimension %zu", w->ndim);
    if (strcmp(mode, "sum") && strcmp(mode, "mean") && strcmp(mode, "max")) return op_err(c, SY_EINVAL, "mode has to be one of sum, mean or max");
    if (x->dtype != SY_DT_INT64 && x->dtype != SY_DT_INT32)
        return op_err(c, SY_EINVAL, "embedding_bag: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int");
    const sy_expr *B;
    if (x->ndim == 2) {
        if (off) return op_err(c, SY_EINVAL, "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences.");
        if ((st = op_require(c, ge1(c, x->sizes[1]), "arange: step must be nonzero (input.size(1) is 0)"))) return st;
        B = x->sizes[0];
    } else if (x->ndim == 1) {
        if (!off) return op_err(c, SY_EINVAL, "offsets has to be a 1D Tensor but got None");
        if (off->ndim != 1) return op_err(c, SY_EINVAL, "offsets has to be a 1D Tensor");
        if (off->dtype != x->dtype) return op_err(c, SY_EINVAL, "embedding_bag: expected offsets to have the same dtype as input");
        B = off->sizes[0];
    } else {
        return op_err(c, SY_EINVAL, "input has to be 1D or 2D Tensor, but got Tensor of dimension %zu", x->ndim);
    }
    if (psw && strcmp(mode, "sum")) return op_err(c, SY_EUNSUPPORTED, "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum'");
    if (last) {
        if ((st = op_require(c, ge1(c, B), "include_last_offset: number of offset should be at least 1"))) return st;
        B = sy_expr_add_si(CTX, B, -1);
    }
    /* an index into an empty weight: any index is out of range */
    if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, op_numel(c, x), KI(c, 0)), ge1(c, w->sizes[0])),
                         "embedding_bag: index out of range in self (weight has %s rows)", SHOW(w->sizes[0]))))
        return st;
    const sy_expr *out[2] = {B, w->sizes[1]};
    return op_set_tensor(c, w->dtype, 2, out);
}

/* one_hot(tensor, num_classes=-1) (Onehot.cpp): int64 input; an empty
 * input needs num_classes > 0; otherwise values are >= 0 and < num_classes,
 * so num_classes >= 1 (the value check itself is data-dependent); -1 takes
 * max + 1 from the data: an unbacked symbol. Out sizes + (num_classes,). */
static sy_status one_hot(opcall *c)
{
    const sy_tensor *x;
    const sy_expr *k;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int_def(c, 1, "num_classes", -1, &k))) return st;
    if (x->dtype != SY_DT_INT64) return op_err(c, SY_EINVAL, "one_hot is only applicable to index tensor.");
    const sy_expr *n = op_numel(c, x);
    int64_t kv;
    sy_vbounds vb;
    int tracked = sy_env_values_get(c->env, x, &vb);
    if (sy_expr_get_si(k, &kv) == SY_OK && kv == -1) {
        if ((st = op_require(c, ge1(c, n), "Can not infer total number of classes from empty tensor."))) return st;
        if (tracked && vb.n == 1) { /* values from sizes (values.c): max + 1 classes, the least value >= 0 */
            if ((st = sy_env_values_require_in(c, x, NULL, KI(c, 0), vb.part[0].hi, "Class values must be non-negative.")))
                return st;
            k = sy_expr_add(CTX, vb.part[0].hi, KI(c, 1));
        } else {
            k = sy_env_create_unbacked(c->env, 1, c->where && c->where->node ? c->where->node : "one_hot");
        }
        if (!k) return sy_ctx_last_error(CTX);
    } else {
        /* num_classes >= 1 either way (empty: "Can not infer ...", else "Class values must be
         * smaller ..."), the sizes the same: a requirement, no decision on the emptiness (a
         * decision threw away every size where the input is empty); the message is the one
         * of the example's side, read from its hint without a guard */
        const sy_expr *h = NULL;
        int empty = sy_env_hint(c->env, n, &h) == SY_OK && h && sy_expr_get_si(h, &kv) == SY_OK && kv == 0;
        if ((st = op_require(c, ge1(c, k), empty ? "Can not infer total number of classes from empty tensor."
                                                 : "Class values must be smaller than num_classes.")))
            return st;
        /* values from sizes (values.c): Onehot.cpp one_hot checks min >= 0 ("Class values must be
         * non-negative.") and max < num_classes when the input has an element */
        if ((st = sy_env_values_require_in(c, x, sy_expr_eq(CTX, n, KI(c, 0)), KI(c, 0), sy_expr_sub(CTX, k, KI(c, 1)),
                                           "Class values must be non-negative and smaller than num_classes.")))
            return st;
    }
    const sy_expr **out = op_sizes_copy(c, x, 1);
    if (!out) return sy_ctx_last_error(CTX);
    out[x->ndim] = k;
    return op_set_tensor(c, SY_DT_INT64, x->ndim + 1, out);
}

/* reduction mode: reduction= string, or the legacy size_average/reduce
 * (torch/nn/_reduction.py legacy_get_string): reduce False -> none,
 * size_average False -> sum, else mean. 0 none, 1 mean, 2 sum. */
static sy_status reduction_of(opcall *c, size_t pos_sa, size_t pos_reduce, size_t pos_red, int *out)
{
    const sy_value *sa = op_arg(c, pos_sa, "size_average"), *rd = op_arg(c, pos_reduce, "reduce");
    sy_status st;
    if ((sa && sa->kind != SY_V_NONE) || (rd && rd->kind != SY_V_NONE)) {
        int s, r;
        if ((st = op_bool_def(c, pos_sa, "size_average", 1, &s)) || (st = op_bool_def(c, pos_reduce, "reduce", 1, &r))) return st;
        *out = !r ? 0 : s ? 1 : 2;
        return SY_OK;
    }
    const char *m;
    if ((st = op_str_def(c, pos_red, "reduction", "mean", &m))) return st;
    if (!strcmp(m, "none")) *out = 0;
    else if (!strcmp(m, "mean")) *out = 1;
    else if (!strcmp(m, "sum")) *out = 2;
    else return op_err(c, SY_EINVAL, "%s is not a valid value for reduction", m);
    return SY_OK;
}

/* nll_loss_nd (LossNLL.cpp) on class-index targets; red: 0 none, 1 mean, 2 sum */
static sy_status nll_core(opcall *c, const sy_tensor *x, const sy_tensor *t, const sy_tensor *w, int red)
{
    sy_status st;
    if (x->ndim < 1) return op_err(c, SY_EINVAL, "Expected 1 or more dimensions (got %zu)", x->ndim);
    if (t->dtype != SY_DT_INT64) return op_err(c, SY_EINVAL, "expected scalar type Long but found %s", sy_dtype_name(t->dtype));
    if (x->ndim != 1) {
        if (t->ndim == 0) return op_err(c, SY_EINVAL, "Expected input batch_size to match target batch_size (0-d target)");
        if ((st = op_require(c, sy_expr_eq(CTX, x->sizes[0], t->sizes[0]), "Expected input batch_size (%s) to match target batch_size (%s).",
                             SHOW(x->sizes[0]), SHOW(t->sizes[0]))))
            return st;
    }
    const sy_expr *C = x->ndim == 1 ? x->sizes[0] : x->sizes[1];
    if (w && (w->ndim != 1 || (st = op_require_eq(c, w->sizes[0], C, "weight tensor should be defined either for all classes or no classes"))))
        return st ? st : op_err(c, SY_EINVAL, "weight tensor should be defined either for all classes or no classes");
    const sy_expr *out[64];
    size_t n = 0;
    if (x->ndim <= 2) {
        if (t->ndim > 1) return op_err(c, SY_EINVAL, "0D or 1D target tensor expected, multi-target not supported");
        if (x->ndim == 1 && t->ndim == 1 && (st = op_require(c, sy_expr_eq(CTX, x->sizes[0], t->sizes[0]), "size mismatch (got input: (%s), target: (%s))",
                                                             SHOW(x->sizes[0]), SHOW(t->sizes[0]))))
            return st;
        if (red == 0 && x->ndim == 2) out[n++] = x->sizes[0];
    } else {
        if (x->ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
        if (t->ndim != x->ndim - 1) return op_err(c, SY_EINVAL, "Expected target size with %zu dims, got %zu dims", x->ndim - 1, t->ndim);
        for (size_t i = 1; i < t->ndim; i++)
            if ((st = op_require(c, sy_expr_eq(CTX, t->sizes[i], x->sizes[i + 1]), "Expected target size (N, d1, ...) equal to the input's (N, d1, ...): %s != %s at dim %zu",
                                 SHOW(t->sizes[i]), SHOW(x->sizes[i + 1]), i)))
                return st;
        if (red == 0) {
            out[n++] = x->sizes[0];
            for (size_t i = 2; i < x->ndim; i++) out[n++] = x->sizes[i];
        }
    }
    /* a class index into zero classes is out of bounds ("Target 0 is out of bounds.") */
    if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, op_numel(c, t), KI(c, 0)), ge1(c, C)), "Target is out of bounds (%s classes).", SHOW(C))))
        return st;
    return op_set_tensor(c, x->dtype, n, out);
}

/* nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean') */
static sy_status nll_loss(opcall *c)
{
    const sy_tensor *x, *t, *w;
    int red;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "target", &t)) || (st = op_opt_tensor(c, 2, "weight", &w)) ||
        (st = reduction_of(c, 3, 5, 6, &red)))
        return st;
    return nll_core(c, x, t, w, red);
}

/* cross_entropy(input, target, weight, size_average, ignore_index, reduce,
 * reduction, label_smoothing) (LossNLL.cpp cross_entropy_loss): same sizes
 * as input: class probabilities (floating target; output: input without the
 * class dim under 'none'); otherwise log_softmax over the class dim (0 for
 * a 1-D input) then nll_loss_nd. */
static sy_status cross_entropy(opcall *c)
{
    const sy_tensor *x, *t, *w;
    int red;
    double ls;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "target", &t)) || (st = op_opt_tensor(c, 2, "weight", &w)) ||
        (st = reduction_of(c, 3, 5, 6, &red)) || (st = op_num_def(c, 7, "label_smoothing", 0.0, &ls)))
        return st;
    if (x->ndim == 0) return op_err(c, SY_EINVAL, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    int same = 0;
    if (t->ndim == x->ndim) {
        const sy_expr *e = sy_expr_true(CTX);
        for (size_t i = 0; i < x->ndim; i++) e = sy_expr_and(CTX, e, sy_expr_eq(CTX, x->sizes[i], t->sizes[i]));
        if ((st = op_decide_bool(c, e, "cross_entropy: class probabilities (target of the input's sizes)?", &same))) return st;
    }
    if (!same) {
        if (ls > 1.0) return op_err(c, SY_EINVAL, "label_smoothing must be between 0.0 and 1.0. Got: %g", ls);
        return nll_core(c, x, t, w, red);
    }
    if (!op_is_floating(t->dtype)) return op_err(c, SY_EINVAL, "Expected floating point type for target with class probabilities, got %s", sy_dtype_name(t->dtype));
    size_t cd = x->ndim == 1 ? 0 : 1;
    if (w && (w->ndim != 1 || (st = op_require_eq(c, w->sizes[0], x->sizes[cd], "cross_entropy: weight must have one entry per class"))))
        return st ? st : op_err(c, SY_EINVAL, "cross_entropy: weight must be 1-D");
    const sy_expr *out[64];
    size_t n = 0;
    if (x->ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
    if (red == 0)
        for (size_t i = 0; i < x->ndim; i++)
            if (i != cd) out[n++] = x->sizes[i];
    return op_set_tensor(c, x->dtype, n, out);
}

/* ------------------------------------------------------------------ normalization */

/* instance_norm(input, running_mean, running_var, weight, bias,
 * use_input_stats=True, momentum, eps): F.instance_norm checks
 * _verify_spatial_size (the product of sizes[2:] must not be 1 when
 * use_input_stats); Normalization.cpp instance_norm runs batch_norm on
 * (1, N*C, ...) with the affine/running tensors repeated N times: each must
 * hold C elements; on an empty input batch_norm returns input * weight[0] +
 * bias[0], which fails for N == 0. Same sizes. */
static sy_status instance_norm(opcall *c)
{
    const sy_tensor *x, *t[4];
    int use;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_opt_tensor(c, 1, "running_mean", &t[0])) ||
        (st = op_opt_tensor(c, 2, "running_var", &t[1])) || (st = op_opt_tensor(c, 3, "weight", &t[2])) ||
        (st = op_opt_tensor(c, 4, "bias", &t[3])) || (st = op_bool_def(c, 5, "use_input_stats", 1, &use)))
        return st;
    if (x->ndim < 2) return op_err(c, SY_EINVAL, "instance_norm: expected an input with a channel dimension (got %zu-D)", x->ndim);
    if (!use && (!t[0] || !t[1])) return op_err(c, SY_EINVAL, "Expected running_mean and running_var to be defined when use_input_stats is false");
    if (use) {
        const sy_expr *sp = KI(c, 1);
        for (size_t i = 2; i < x->ndim; i++) sp = sy_expr_mul(CTX, sp, x->sizes[i]);
        if ((st = op_require(c, sy_expr_ne(CTX, sp, KI(c, 1)), "Expected more than 1 spatial element when training, got input size of %zu dims", x->ndim)))
            return st;
    }
    /* an empty input returns input * weight[0] + bias[0] of the N-times repeated tensors: N >= 1 */
    if ((t[2] || t[3]) && (st = op_require(c, ge1(c, x->sizes[0]), "select(): index 0 out of range for the repeated weight (batch size 0)")))
        return st;
    static const char *const names[4] = {"running_mean", "running_var", "weight", "bias"};
    for (int i = 0; i < 4; i++)
        if (t[i] && (st = op_require(c, sy_expr_eq(CTX, sy_expr_mul(CTX, op_numel(c, t[i]), x->sizes[0]), sy_expr_mul(CTX, x->sizes[0], x->sizes[1])),
                                     "%s should contain %s elements (one per channel), not %s", names[i], SHOW(x->sizes[1]), SHOW(op_numel(c, t[i])))))
            return st;
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* local_response_norm(input, size, alpha, beta, k) (torch/nn/functional.py):
 * >= 3-D; an empty input is returned as is; otherwise the channel average
 * pool needs size >= 1. Same sizes. */
static sy_status local_response_norm(opcall *c)
{
    const sy_tensor *x;
    int64_t size;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "size", 1, &size))) return st;
    if (x->ndim < 3) return op_err(c, SY_EINVAL, "Expected 3D or higher dimensionality input (got %zu dimensions)", x->ndim);
    /* emptiness matters only to a size <= 0 (lost46: it was decided whatever the size, so the guard
     * numel != 0 threw away every empty batch or channel count, 9 of 29 CPU-ok sizes relaxed) */
    if (size <= 0 && (st = op_require(c, sy_expr_eq(CTX, op_numel(c, x), KI(c, 0)),
                                      "avg_pool: kernel size should be greater than zero, but got %lld", (long long)size)))
        return st;
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* ------------------------------------------------------------------ factories */

static sy_dtype dtype_kw(opcall *c, sy_dtype def)
{
    const sy_value *dv = op_arg(c, (size_t)-1, "dtype");
    return dv && dv->kind == SY_V_DTYPE ? dv->u.dtype : def;
}

/* zeros_like / ones_like / empty_like / rand_like / randn_like / full_like(x, fill) /
 * randint_like(x, [low,] high): x's sizes, dtype= or x's dtype */
static sy_status like(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (!strcmp(c->op, "full_like") && !op_arg(c, 1, "fill_value")) return op_err(c, SY_EINVAL, "full_like() missing required argument 'fill_value'");
    if (!strcmp(c->op, "randint_like") && !op_arg(c, 1, "high")) return op_err(c, SY_EINVAL, "randint_like() missing required argument 'high'");
    return op_set_tensor(c, dtype_kw(c, x->dtype), x->ndim, x->sizes);
}

/* eye(n, m=None) (TensorFactories.cpp eye_out_cpu): n >= 0, m >= 0 */
static sy_status eye(opcall *c)
{
    const sy_expr *n, *m;
    sy_status st;
    if ((st = op_int(c, 0, "n", &n))) return st;
    const sy_value *mv = op_arg(c, 1, "m");
    if (mv && mv->kind != SY_V_NONE && mv->kind != SY_V_DTYPE) {
        if ((st = op_int(c, 1, "m", &m))) return st;
    } else {
        m = n;
    }
    if ((st = op_require(c, sy_expr_ge(CTX, n, KI(c, 0)), "n must be greater or equal to 0, got %s", SHOW(n))) ||
        (st = op_require(c, sy_expr_ge(CTX, m, KI(c, 0)), "m must be greater or equal to 0, got %s", SHOW(m))))
        return st;
    const sy_expr *sz[2] = {n, m};
    return op_set_tensor(c, dtype_kw(c, SY_DT_FLOAT32), 2, sz);
}

/* linspace / logspace(start, end, steps): steps >= 0, 1-D of steps */
static sy_status linspace(opcall *c)
{
    const sy_expr *n;
    sy_status st;
    if (!op_arg(c, 0, "start") || !op_arg(c, 1, "end")) return op_err(c, SY_EINVAL, "expected %s(start, end, steps)", c->op);
    if ((st = op_int(c, 2, "steps", &n))) return st;
    if ((st = op_require(c, sy_expr_ge(CTX, n, KI(c, 0)), "number of steps must be non-negative"))) return st;
    return op_set_tensor(c, dtype_kw(c, SY_DT_FLOAT32), 1, &n);
}

/* meshgrid(*tensors, indexing='ij') (TensorShape.cpp meshgrid): 0-D or 1-D
 * tensors of one dtype; every output has the sizes (numel of each); 'xy'
 * swaps the first two. */
static sy_status meshgrid(opcall *c)
{
    const sy_value *items = c->args;
    size_t n = c->nargs;
    if (n == 1 && c->args[0].kind == SY_V_LIST) {
        items = c->args[0].u.list.items;
        n = c->args[0].u.list.n;
    }
    const char *ix;
    sy_status st;
    if ((st = op_str_def(c, (size_t)-1, "indexing", "ij", &ix))) return st;
    if (strcmp(ix, "ij") && strcmp(ix, "xy"))
        return op_err(c, SY_EINVAL, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s", ix);
    if (n == 0) return op_err(c, SY_EINVAL, "meshgrid expects a non-empty TensorList");
    if (n > 64) return op_err(c, SY_EINVAL, "too many tensors");
    const sy_expr *sz[64];
    for (size_t i = 0; i < n; i++) {
        if (items[i].kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "meshgrid expects a list of tensors");
        const sy_tensor *t = items[i].u.t;
        if (t->ndim > 1) return op_err(c, SY_EINVAL, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a %zu-D tensor", t->ndim);
        if (t->dtype != items[0].u.t->dtype) return op_err(c, SY_EINVAL, "torch.meshgrid: Expected all tensors in the tensor list to have the same dtype.");
        sz[i] = t->ndim ? t->sizes[0] : KI(c, 1);
    }
    if (!strcmp(ix, "xy") && n >= 2) {
        const sy_expr *tmp = sz[0];
        sz[0] = sz[1];
        sz[1] = tmp;
    }
    const sy_tensor *outs[64];
    for (size_t i = 0; i < n; i++) outs[i] = op_new_tensor(c, items[i].u.t->dtype, n, sz);
    return op_set_tuple(c, n, outs);
}

/* torch.tensor(data): nested lists of numbers (0-d for a number); every list
 * at one depth must have the same length ("expected sequence of length N at
 * dim D (got M)"); dtype bool (all bools), int64 (ints), float32 (a float). */
static sy_status nest_shape(opcall *c, const sy_value *v, size_t depth, size_t *nd, int64_t *shape, int *kind)
{
    if (v->kind == SY_V_LIST) {
        if (depth >= 32) return op_err(c, SY_EINVAL, "tensor: nesting too deep");
        if (depth == *nd) {
            shape[depth] = (int64_t)v->u.list.n;
            (*nd)++;
            for (size_t i = 0; i < v->u.list.n; i++) {
                sy_status st = nest_shape(c, &v->u.list.items[i], depth + 1, nd, shape, kind);
                if (st) return st;
            }
            return SY_OK;
        }
        if (shape[depth] != (int64_t)v->u.list.n)
            return op_err(c, SY_EINVAL, "expected sequence of length %lld at dim %zu (got %zu)", (long long)shape[depth], depth, v->u.list.n);
        for (size_t i = 0; i < v->u.list.n; i++) {
            sy_status st = nest_shape(c, &v->u.list.items[i], depth + 1, nd, shape, kind);
            if (st) return st;
        }
        return SY_OK;
    }
    if (depth < *nd) return op_err(c, SY_EINVAL, "expected sequence of length %lld at dim %zu (got a number)", (long long)shape[depth], depth);
    if (v->kind == SY_V_FLOAT) *kind = 2;
    else if (v->kind == SY_V_INT) *kind = *kind > 1 ? *kind : 1;
    else if (v->kind != SY_V_BOOL) return op_err(c, SY_EUNSUPPORTED, "tensor: only numbers and nested lists of numbers are supported");
    return SY_OK;
}

static sy_status tensor_from(opcall *c)
{
    const sy_value *d = op_arg(c, 0, "data");
    if (!d) return op_err(c, SY_EINVAL, "tensor() missing required argument 'data'");
    size_t nd = 0;
    int64_t shape[32];
    int kind = 0;
    sy_status st = nest_shape(c, d, 0, &nd, shape, &kind);
    if (st) return st;
    const sy_expr *sz[32];
    for (size_t i = 0; i < nd; i++) sz[i] = KI(c, shape[i]);
    sy_dtype dt = kind == 2 ? SY_DT_FLOAT32 : kind == 1 ? SY_DT_INT64 : SY_DT_BOOL;
    if (kind == 0 && nd && shape[nd - 1] == 0) dt = SY_DT_FLOAT32; /* torch.tensor([]) is float32 */
    return op_set_tensor(c, dtype_kw(c, dt), nd, sz);
}

/* Tensor.new_tensor(data, dtype=None) (torch/csrc/utils/tensor_new.cpp new_tensor): data's
 * nesting as torch.tensor (a tensor: its sizes), the dtype self's unless dtype= is given
 * (x.new_tensor([1.5]) of an int64 x is int64; 1.13 and 2.14). */
static sy_status new_tensor(opcall *c)
{
    const sy_tensor *self;
    sy_status st;
    if ((st = op_tensor(c, 0, "self", &self))) return st;
    const sy_value *d = op_arg(c, 1, "data");
    if (!d) return op_err(c, SY_EINVAL, "new_tensor() missing required argument 'data'");
    if (d->kind == SY_V_TENSOR) return op_set_tensor(c, dtype_kw(c, self->dtype), d->u.t->ndim, d->u.t->sizes);
    size_t nd = 0;
    int64_t shape[32];
    int kind = 0;
    if ((st = nest_shape(c, d, 0, &nd, shape, &kind))) return st;
    const sy_expr *sz[32];
    for (size_t i = 0; i < nd; i++) sz[i] = KI(c, shape[i]);
    return op_set_tensor(c, dtype_kw(c, self->dtype), nd, sz);
}

/* scalar_tensor(s, *, dtype=None) (TensorFactories.cpp scalar_tensor): a 0-d tensor of the
 * default dtype (float32, also for an int or bool s) unless dtype= is given */
static sy_status scalar_tensor(opcall *c)
{
    const sy_value *s = op_arg(c, 0, "s");
    if (!s) return op_err(c, SY_EINVAL, "scalar_tensor() missing required argument 's'");
    if (s->kind != SY_V_INT && s->kind != SY_V_FLOAT && s->kind != SY_V_BOOL && s->kind != SY_V_QUOT && s->kind != SY_V_SCALED)
        return op_err(c, SY_EINVAL, "scalar_tensor(): argument 's' must be a Number");
    return op_set_tensor(c, dtype_kw(c, SY_DT_FLOAT32), 0, NULL);
}

/* ------------------------------------------------------------------ linear algebra */

/* bilinear(input1, input2, weight, bias=None) (Linear.cpp bilinear) */
static sy_status bilinear(opcall *c)
{
    const sy_tensor *a, *b, *w, *bias;
    sy_status st;
    if ((st = op_tensor(c, 0, "input1", &a)) || (st = op_tensor(c, 1, "input2", &b)) || (st = op_tensor(c, 2, "weight", &w)) ||
        (st = op_opt_tensor(c, 3, "bias", &bias)))
        return st;
    if (a->ndim != b->ndim) return op_err(c, SY_EINVAL, "bilinear(): input dimensions do not match: got %zu and %zu", a->ndim, b->ndim);
    if (a->ndim == 0) return op_err(c, SY_EINVAL, "bilinear(): inputs must have at least one dimension");
    if (w->ndim != 3) return op_err(c, SY_EINVAL, "bilinear(): weight must be 3-D, got %zu-D", w->ndim);
    for (size_t i = 0; i + 1 < a->ndim; i++)
        if ((st = op_require(c, sy_expr_eq(CTX, a->sizes[i], b->sizes[i]), "bilinear(): input batch dimensions do not match: got %s and %s",
                             SHOW(a->sizes[i]), SHOW(b->sizes[i]))))
            return st;
    if ((st = op_require(c, sy_expr_eq(CTX, a->sizes[a->ndim - 1], w->sizes[1]), "bilinear(): input1 size does not match weight size: got %s but expected %s",
                         SHOW(a->sizes[a->ndim - 1]), SHOW(w->sizes[1]))) ||
        (st = op_require(c, sy_expr_eq(CTX, b->sizes[b->ndim - 1], w->sizes[2]), "bilinear(): input2 size does not match weight size: got %s but expected %s",
                         SHOW(b->sizes[b->ndim - 1]), SHOW(w->sizes[2]))))
        return st;
    if (bias && (bias->ndim == 0 || (st = op_require(c, sy_expr_eq(CTX, bias->sizes[0], w->sizes[0]),
                                                    "bilinear(): bias size does not match weight size: got %s but expected %s",
                                                    SHOW(bias->sizes[0]), SHOW(w->sizes[0])))))
        return st ? st : op_err(c, SY_EINVAL, "bilinear(): bias must have a dimension");
    const sy_expr **out = op_sizes_copy(c, a, 0);
    if (!out) return sy_ctx_last_error(CTX);
    out[a->ndim - 1] = w->sizes[0];
    return op_set_tensor(c, a->dtype, a->ndim, out);
}

/* expand_size(self, sizes) (ExpandUtils.h): self must expand to sizes */
static sy_status expands_to(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *sz)
{
    sy_status st;
    if (x->ndim > n)
        return op_err(c, SY_EINVAL, "the number of sizes provided (%zu) must be greater or equal to the number of dimensions in the tensor (%zu)", n, x->ndim);
    for (size_t i = 0; i < x->ndim; i++) {
        if ((st = op_require_expands(c, x->sizes[i], sz[n - x->ndim + i], n - x->ndim + i))) return st;
    }
    return SY_OK;
}

static sy_status mm_check(opcall *c, const sy_expr *k1, const sy_expr *k2, const sy_expr *n, const sy_expr *p)
{
    return op_require(c, sy_expr_eq(CTX, k1, k2), "mat1 and mat2 shapes cannot be multiplied (%sx%s and %sx%s)", SHOW(n), SHOW(k1),
                      SHOW(k2), SHOW(p));
}

/* addmm(input, mat1, mat2) (n, p); addbmm(input, b1, b2) (n, p) summed over
 * the batch; baddbmm(input, b1, b2) (b, n, p); addmv(input, mat, vec) (n);
 * addr(input, v1, v2) (n, m). input expands to the result (expand_size). */
static sy_status addmm(opcall *c)
{
    const sy_tensor *x, *a, *b;
    sy_status st;
    const char *n1 = !strcmp(c->op, "addmv") ? "mat" : !strcmp(c->op, "addr") ? "vec1" : strstr(c->op, "bmm") ? "batch1" : "mat1";
    const char *n2 = !strcmp(c->op, "addmv") ? "vec" : !strcmp(c->op, "addr") ? "vec2" : strstr(c->op, "bmm") ? "batch2" : "mat2";
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, n1, &a)) || (st = op_tensor(c, 2, n2, &b))) return st;
    const sy_expr *out[3];
    size_t n;
    if (!strcmp(c->op, "addmm")) {
        if (a->ndim != 2) return op_err(c, SY_EINVAL, "mat1 must be a matrix, got %zu-D tensor", a->ndim);
        if (b->ndim != 2) return op_err(c, SY_EINVAL, "mat2 must be a matrix, got %zu-D tensor", b->ndim);
        if ((st = mm_check(c, a->sizes[1], b->sizes[0], a->sizes[0], b->sizes[1]))) return st;
        out[0] = a->sizes[0];
        out[1] = b->sizes[1];
        n = 2;
    } else if (!strcmp(c->op, "addmv")) {
        if (a->ndim != 2 || b->ndim != 1)
            return op_err(c, SY_EINVAL, "vector + matrix @ vector expected, got %zu, %zu, %zu", x->ndim, a->ndim, b->ndim);
        if ((st = op_require(c, sy_expr_eq(CTX, a->sizes[1], b->sizes[0]), "size mismatch, got input (%s), mat (%sx%s), vec (%s)",
                             x->ndim ? SHOW(x->sizes[0]) : "", SHOW(a->sizes[0]), SHOW(a->sizes[1]), SHOW(b->sizes[0]))))
            return st;
        out[0] = a->sizes[0];
        n = 1;
        if ((st = expands_to(c, x, n, out))) return st;
        /* an empty mat: addmv_out (Blas.cpp) writes beta * input into the result, resized to input's
         * shape, unless beta is 0 (zero_, [n]): input [1] gives [1], a 0-d input () (measured on
         * 2.14.1 and 1.13 at mat [3, 0], [0, 4], [0, 0]; verify38: symshape said [n]) */
        const sy_value *bv = op_arg(c, (size_t)-1, "beta");
        int64_t bi = 1;
        int beta0 = bv && ((bv->kind == SY_V_FLOAT && bv->u.f == 0.0) ||
                           ((bv->kind == SY_V_INT || bv->kind == SY_V_BOOL) && !sy_expr_get_si(bv->u.i, &bi) && bi == 0));
        if (bv && !beta0 && bv->kind != SY_V_FLOAT && bv->kind != SY_V_NONE &&
            !((bv->kind == SY_V_INT || bv->kind == SY_V_BOOL) && !sy_expr_get_si(bv->u.i, &bi)))
            return op_err(c, SY_EUNSUPPORTED, "addmv: a beta that is not a constant (the result's shape depends on beta == 0 where mat is empty)");
        const sy_expr *nm = sy_expr_mul(CTX, a->sizes[0], a->sizes[1]), *ind = sy_expr_min(CTX, KI(c, 1), nm); /* [mat not empty] */
        int same = 0;
        if (!beta0 && x->ndim == 1 && (st = op_known_true(c, sy_expr_eq(CTX, x->sizes[0], out[0]), &same))) return st;
        if (beta0 || same) return op_set_tensor(c, a->dtype, n, out);
        if (x->ndim == 1) { /* input [1] or [n]: n where mat is not empty, else input's size */
            out[0] = sy_expr_add(CTX, x->sizes[0], sy_expr_mul(CTX, sy_expr_sub(CTX, out[0], x->sizes[0]), ind));
            return op_set_tensor(c, a->dtype, n, out);
        }
        /* 0-d input: the result's rank depends on whether mat is empty, which one result cannot say */
        int nonempty = 0;
        if ((st = op_decide_limit(c, sy_expr_ne(CTX, nm, KI(c, 0)),
                                  "addmv of a 0-d input: () where mat is empty, (n) else; one traced result has one rank",
                                  &nonempty)))
            return st;
        return op_set_tensor(c, a->dtype, nonempty ? 1 : 0, out);
    } else if (!strcmp(c->op, "addr")) {
        if (a->ndim != 1) return op_err(c, SY_EINVAL, "addr: Expected 1-D argument vec1, but got %zu-D", a->ndim);
        if (b->ndim != 1) return op_err(c, SY_EINVAL, "addr: Expected 1-D argument vec2, but got %zu-D", b->ndim);
        out[0] = a->sizes[0];
        out[1] = b->sizes[0];
        n = 2;
    } else {
        if (a->ndim != 3) return op_err(c, SY_EINVAL, "batch1 must be a 3D tensor");
        if (b->ndim != 3) return op_err(c, SY_EINVAL, "batch2 must be a 3D tensor");
        if ((st = op_require(c, sy_expr_and(CTX, sy_expr_eq(CTX, b->sizes[0], a->sizes[0]), sy_expr_eq(CTX, b->sizes[1], a->sizes[2])),
                             "Expected size for first two dimensions of batch2 tensor to be: [%s, %s] but got: [%s, %s].", SHOW(a->sizes[0]),
                             SHOW(a->sizes[2]), SHOW(b->sizes[0]), SHOW(b->sizes[1]))))
            return st;
        n = 0;
        if (!strcmp(c->op, "baddbmm")) out[n++] = a->sizes[0];
        out[n++] = a->sizes[1];
        out[n++] = b->sizes[2];
    }
    if ((st = expands_to(c, x, n, out))) return st;
    return op_set_tensor(c, a->dtype, n, out);
}

/* outer / ger(input, vec2): both 1-D -> (n, m) */
static sy_status outer(opcall *c)
{
    const sy_tensor *a, *b;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &a)) || (st = op_tensor(c, 1, "vec2", &b))) return st;
    if (a->ndim != 1) return op_err(c, SY_EINVAL, "outer: Expected 1-D argument self, but got %zu-D", a->ndim);
    if (b->ndim != 1) return op_err(c, SY_EINVAL, "outer: Expected 1-D argument vec2, but got %zu-D", b->ndim);
    const sy_expr *out[2] = {a->sizes[0], b->sizes[0]};
    return op_set_tensor(c, a->dtype, 2, out);
}

/* kron(a, b) (LinearAlgebra.cpp KronImpl): ranks padded with leading 1s,
 * sizes multiplied */
static sy_status kron(opcall *c)
{
    const sy_tensor *a, *b;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &a)) || (st = op_tensor(c, 1, "other", &b))) return st;
    size_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
    const sy_expr **out = sy_env_alloc(c->env, (n ? n : 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(CTX);
    for (size_t i = 0; i < n; i++) {
        const sy_expr *x = i < n - a->ndim ? KI(c, 1) : a->sizes[i - (n - a->ndim)];
        const sy_expr *y = i < n - b->ndim ? KI(c, 1) : b->sizes[i - (n - b->ndim)];
        out[i] = sy_expr_mul(CTX, x, y);
    }
    return op_set_tensor(c, a->dtype, n, out);
}

/* cdist(x1, x2, p=2) (Distance.cpp cdist): >= 2-D, equal columns, floating,
 * p >= 0; batch dims broadcast; out (batch, r1, r2) */
static sy_status cdist(opcall *c)
{
    const sy_tensor *a, *b;
    double p;
    sy_status st;
    if ((st = op_tensor(c, 0, "x1", &a)) || (st = op_tensor(c, 1, "x2", &b)) || (st = op_num_def(c, 2, "p", 2.0, &p))) return st;
    if (a->ndim < 2) return op_err(c, SY_EINVAL, "cdist only supports at least 2D tensors, X1 got: %zuD", a->ndim);
    if (b->ndim < 2) return op_err(c, SY_EINVAL, "cdist only supports at least 2D tensors, X2 got: %zuD", b->ndim);
    if ((st = op_require(c, sy_expr_eq(CTX, a->sizes[a->ndim - 1], b->sizes[b->ndim - 1]),
                         "X1 and X2 must have the same number of columns. X1: %s X2: %s", SHOW(a->sizes[a->ndim - 1]), SHOW(b->sizes[b->ndim - 1]))))
        return st;
    if (!op_is_floating(a->dtype)) return op_err(c, SY_EINVAL, "cdist only supports floating-point dtypes, X1 got: %s", sy_dtype_name(a->dtype));
    if (!op_is_floating(b->dtype)) return op_err(c, SY_EINVAL, "cdist only supports floating-point dtypes, X2 got: %s", sy_dtype_name(b->dtype));
    if (p < 0) return op_err(c, SY_EINVAL, "cdist only supports non-negative p values");
    const sy_expr **bb;
    size_t n;
    if ((st = op_broadcast(c, a->sizes, a->ndim - 2, b->sizes, b->ndim - 2, &bb, &n))) return st;
    const sy_expr **out = sy_env_alloc(c->env, (n + 2) * sizeof *out);
    if (!out) return sy_ctx_last_error(CTX);
    SY_COPY(out, bb, n * sizeof *out);
    out[n] = a->sizes[a->ndim - 2];
    out[n + 1] = b->sizes[b->ndim - 2];
    return op_set_tensor(c, a->dtype, n + 2, out);
}

/* ------------------------------------------------------------------ spectral */

static sy_dtype complex_of(sy_dtype d) { return d == SY_DT_FLOAT64 ? SY_DT_COMPLEX128 : SY_DT_COMPLEX64; }
static sy_dtype real_of(sy_dtype d) { return d == SY_DT_COMPLEX128 ? SY_DT_FLOAT64 : SY_DT_FLOAT32; }

/* stft(input, n_fft, hop_length=None, win_length=None, window=None,
 * center=True, pad_mode='reflect', normalized=False, onesided=None,
 * return_complex=None). torch/functional.py stft pads n_fft // 2 on both
 * sides when center (F.pad of the (1, B, L) view: reflect needs pad < L and
 * non-zero B and L (reflection_pad1d / check_valid_input); replicate needs
 * non-zero B and L; circular pad <= L). SpectralOps.cpp stft (1.13: a real
 * input without return_complex only warns and returns the real form; 2.x: an error); 1-D or 2-D floating/complex input; 0 < n_fft <= len;
 * hop (default n_fft // 4) > 0; 0 < win_length (default n_fft) <= n_fft;
 * window 1-D of win_length; n_frames = 1 + (len - n_fft) // hop; onesided
 * (default: real input) -> n_fft // 2 + 1 frequencies, else n_fft; out
 * (B?, freq, n_frames) complex, or (..., 2) real when return_complex=False. */
static sy_status stft(opcall *c)
{
    const sy_tensor *x, *win;
    int64_t n_fft, hop, wl;
    int center, onesided, rc;
    const char *pm;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "n_fft", 0, &n_fft)) ||
        (st = op_const_int(c, 2, "hop_length", n_fft >> 2, &hop)) || (st = op_const_int(c, 3, "win_length", n_fft, &wl)) ||
        (st = op_opt_tensor(c, 4, "window", &win)) || (st = op_bool_def(c, 5, "center", 1, &center)) ||
        (st = op_str_def(c, 6, "pad_mode", "reflect", &pm)))
        return st;
    if (!op_arg(c, 1, "n_fft")) return op_err(c, SY_EINVAL, "stft() missing required argument 'n_fft'");
    int cplx = op_is_complex(x->dtype) || (win && op_is_complex(win->dtype));
    const sy_value *rcv = op_arg(c, 9, "return_complex");
    if (!cplx && (!rcv || rcv->kind == SY_V_NONE) && !op_torch1(c)) /* 2.x: SpectralOps.cpp stft, TORCH_CHECK */
        return op_err(c, SY_EINVAL, "stft requires the return_complex parameter be given for real inputs");
    if ((st = op_bool_def(c, 9, "return_complex", cplx, &rc)) || (st = op_bool_def(c, 8, "onesided", !cplx, &onesided))) return st;
    if (n_fft > 1000000000 || n_fft < -1000000000) return op_err(c, SY_EOVERFLOW, "n_fft too large");
    const sy_expr *B = x->ndim == 2 ? x->sizes[0] : KI(c, 1), *L = x->ndim ? x->sizes[x->ndim - 1] : KI(c, 1);
    if (center) {
        if (x->ndim > 3) return op_err(c, SY_EINVAL, "stft: expected a 1D or 2D tensor (padding a %zu-D input)", x->ndim);
        int64_t pad = n_fft / 2;
        const sy_expr *P = x->ndim == 3 ? x->sizes[1] : B;
        if (x->ndim == 0) return op_err(c, SY_EINVAL, "stft: expected a 1D or 2D tensor");
        if (!strcmp(pm, "reflect") || !strcmp(pm, "replicate")) {
            if ((st = op_require(c, sy_expr_and(CTX, ge1(c, P), ge1(c, L)),
                                 "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input")))
                return st;
            if (!strcmp(pm, "reflect") && (st = op_require(c, sy_expr_gt(CTX, L, KI(c, pad)),
                                                            "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%lld, %lld) at dimension 2 of input of length %s",
                                                            (long long)pad, (long long)pad, SHOW(L))))
                return st;
        } else if (!strcmp(pm, "circular")) {
            if ((st = op_require(c, sy_expr_le(CTX, KI(c, pad), L), "Padding value causes wrapping around more than once."))) return st;
        } else if (strcmp(pm, "constant")) {
            return op_err(c, SY_EINVAL, "Unrecognised padding mode %s", pm);
        }
        L = sy_expr_add_si(CTX, L, 2 * pad);
    }
    if (!op_is_floating(x->dtype) && !op_is_complex(x->dtype)) return op_err(c, SY_EINVAL, "stft: expected a tensor of floating point or complex values");
    if (x->ndim < 1 || x->ndim > 2) return op_err(c, SY_EINVAL, "stft: expected a 1D or 2D tensor");
    if (n_fft <= 0) return op_err(c, SY_EINVAL, "stft: expected 0 < n_fft < len, but got n_fft=%lld", (long long)n_fft);
    if ((st = op_require(c, sy_expr_le(CTX, KI(c, n_fft), L), "stft: expected 0 < n_fft < %s, but got n_fft=%lld", SHOW(L), (long long)n_fft)))
        return st;
    if (hop <= 0) return op_err(c, SY_EINVAL, "stft: expected hop_length > 0, but got hop_length=%lld", (long long)hop);
    if (wl <= 0 || wl > n_fft) return op_err(c, SY_EINVAL, "stft: expected 0 < win_length <= n_fft, but got win_length=%lld", (long long)wl);
    if (win && (win->ndim != 1 || (st = op_require_eq(c, win->sizes[0], KI(c, wl), "stft: expected a 1D window tensor of size equal to win_length"))))
        return st ? st : op_err(c, SY_EINVAL, "stft: expected a 1D window tensor of size equal to win_length=%lld", (long long)wl);
    if (cplx && onesided) return op_err(c, SY_EINVAL, "Cannot have onesided output if window or input is complex");
    const sy_expr *frames = sy_expr_add_si(CTX, sy_expr_floordiv(CTX, sy_expr_add_si(CTX, L, -n_fft), KI(c, hop)), 1);
    const sy_expr *out[4];
    size_t n = 0;
    if (x->ndim == 2) out[n++] = B;
    out[n++] = KI(c, onesided ? n_fft / 2 + 1 : n_fft);
    out[n++] = frames;
    sy_dtype dt = op_is_complex(x->dtype) ? x->dtype : complex_of(x->dtype);
    /* the kernel (SpectralOps.cpp stft) computes (B, frames, freq) and returns its
     * transpose(1, 2): strides (freq*frames, 1, freq), unbatched (1, freq); the real
     * form is view_as_real of it (element strides doubled, then 1). Checked on the CPU. */
    const sy_expr *F = out[n - 2], *str[4];
    size_t m = 0;
    int k = rc ? 1 : 2;
    if (x->ndim == 2) str[m++] = sy_expr_mul_si(CTX, sy_expr_mul(CTX, F, frames), k);
    str[m++] = KI(c, k);
    str[m++] = sy_expr_mul_si(CTX, F, k);
    if (!rc) {
        out[n++] = KI(c, 2);
        str[m++] = KI(c, 1);
        dt = real_of(dt);
    }
    for (size_t i = 0; i < m; i++)
        if (!str[i]) return sy_ctx_last_error(CTX);
    return op_set_strided(c, dt, n, out, str);
}

/* The part of the NOLA check that depends on the window's values: torch
 * computes the envelope sum_t window_padded[j - t*hop]^2 over the output
 * slice and raises "window overlap add min" when its minimum is < 1e-11
 * (SpectralOps.cpp istft, 1.13). The sizes decide where the envelope is
 * zero because the window is zero-padded from win_length to n_fft (istft
 * below checks that, exact for window=None: ones); where a given window's own entries
 * are zero (hann_window(n)[0] is 0) depends on its values, which a graph
 * does not carry. That condition is recorded as a runtime assert on a
 * data-dependent boolean, so the guard set says it is not checked before
 * the run rather than accepting silently. */
static sy_status istft_nola_values(opcall *c)
{
    char what[160];
    snprintf(what, sizeof what, "istft window envelope at node %s (window values)", c->where && c->where->node ? c->where->node : "?");
    const sy_expr *u = sy_env_create_unbacked(c->env, 0, what);
    if (!u) return sy_ctx_last_error(CTX);
    sy_status st = sy_facts_set_range(sy_env_facts(c->env), u, KI(c, 0), KI(c, 1));
    if (st) return st;
    sy_provenance why = {c->where ? c->where->node : NULL, c->op,
                         "istft: window overlap add min: the window's squared overlap-add must be >= 1e-11 over the "
                         "output (NOLA); it depends on the window's values, checked by torch at run time"};
    return sy_env_runtime_assert(c->env, sy_expr_ne(CTX, u, KI(c, 0)), &why);
}

/* istft(input, n_fft, hop_length=None, win_length=None, window=None,
 * center=True, normalized=False, onesided=None, length=None,
 * return_complex=False) (SpectralOps.cpp istft, 1.13): complex input
 * (B?, freq, n_frames) (a real one with a last dim of 2 is viewed as
 * complex); non-empty; onesided (default freq != n_fft): freq == n_fft // 2
 * + 1, else freq == n_fft; 0 < hop (n_fft // 4) <= win_length (n_fft) <=
 * n_fft; window 1-D of win_length. expected = n_fft + hop*(n_frames - 1);
 * the signal is sliced [start, end) with start = n_fft // 2 if center else
 * 0, end = start + length, or -(n_fft // 2) if center, or expected; the
 * window envelope over the slice must be non-zero ("window overlap add
 * min") and non-empty (its min() needs an element): the window (ones when
 * None) is zero outside [left, left + win_length) of each frame, left =
 * (n_fft - win_length) // 2, so the covered span is [left, (n_frames-1)*hop
 * + left + win_length). With length, the result is padded to length. */
static sy_status istft(opcall *c)
{
    const sy_tensor *x, *win;
    int64_t n_fft, hop, wl;
    int center, onesided, rc;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "n_fft", 0, &n_fft)) ||
        (st = op_const_int(c, 2, "hop_length", n_fft >> 2, &hop)) || (st = op_const_int(c, 3, "win_length", n_fft, &wl)) ||
        (st = op_opt_tensor(c, 4, "window", &win)) || (st = op_bool_def(c, 5, "center", 1, &center)) ||
        (st = op_bool_def(c, 9, "return_complex", 0, &rc)))
        return st;
    if (n_fft > 1000000000 || n_fft < -1000000000 || hop > 1000000000 || hop < -1000000000) return op_err(c, SY_EOVERFLOW, "n_fft too large");
    size_t nd = x->ndim;
    if (!op_is_complex(x->dtype)) {
        if (nd == 0 || (st = op_require_eq(c, x->sizes[nd - 1], KI(c, 2), "Expected a complex tensor or a real tensor with last dimension of size 2")))
            return st ? st : op_err(c, SY_EINVAL, "istft expected a tensor with 3 or 4 dimensions of complex");
        nd--;
    }
    if ((st = op_require(c, ge1(c, op_numel(c, x)), "istft input tensor cannot be empty"))) return st;
    if (nd != 2 && nd != 3) return op_err(c, SY_EINVAL, "istft expected a tensor with 2 or 3 dimensions of complex, but got %zu", nd);
    const sy_expr *F = x->sizes[nd - 2], *T = x->sizes[nd - 1];
    const sy_value *osv = op_arg(c, 7, "onesided");
    if (osv && osv->kind != SY_V_NONE) {
        if ((st = op_bool_def(c, 7, "onesided", 1, &onesided))) return st;
    } else if ((st = op_decide_bool(c, sy_expr_ne(CTX, F, KI(c, n_fft)), "istft: onesided (freq != n_fft)?", &onesided))) {
        return st;
    }
    if ((st = op_require(c, sy_expr_eq(CTX, F, KI(c, onesided ? n_fft / 2 + 1 : n_fft)),
                         "istft expected the frequency dimension (3rd to the last) of the input tensor to match n_fft%s, but got %s",
                         onesided ? " / 2 + 1 when onesided=True" : " when onesided=False", SHOW(F))))
        return st;
    if (!(0 < hop && hop <= wl)) return op_err(c, SY_EINVAL, "istft expected 0 < hop_length <= win_length");
    if (!(0 < wl && wl <= n_fft)) return op_err(c, SY_EINVAL, "istft expected 0 < win_length <= n_fft");
    if (win && (win->ndim != 1 || (st = op_require_eq(c, win->sizes[0], KI(c, wl), "Invalid window shape. window has to be 1D and length of `win_length`"))))
        return st ? st : op_err(c, SY_EINVAL, "Invalid window shape. window has to be 1D and length of `win_length`");
    if (rc && onesided) return op_err(c, SY_EINVAL, "Cannot have onesided output if window or input is complex");
    const sy_expr *expected = sy_expr_add_si(CTX, sy_expr_mul_si(CTX, sy_expr_add_si(CTX, T, -1), hop), n_fft);
    int64_t start = center ? n_fft / 2 : 0;
    const sy_value *lv = op_arg(c, 8, "length");
    const sy_expr *len = NULL, *end, *out_len;
    if (lv && lv->kind != SY_V_NONE) {
        if ((st = op_int(c, 8, "length", &len))) return st;
        end = sy_expr_add_si(CTX, len, start);
    } else if (center) {
        end = n_fft / 2 ? sy_expr_add_si(CTX, expected, -(n_fft / 2)) : KI(c, 0); /* slice end -(n_fft // 2); -0 is 0 */
    } else {
        end = expected;
    }
    /* the slice [start, min(end, expected)) (start <= n_fft // 2 <= expected) */
    const sy_expr *cend = sy_expr_min(CTX, end, expected);
    const sy_expr *slen = sy_expr_add_si(CTX, cend, -start);
    int nonneg;
    if ((st = op_known_true(c, sy_expr_ge(CTX, slen, KI(c, 0)), &nonneg))) return st;
    if (!nonneg) slen = sy_expr_max(CTX, slen, KI(c, 0));
    if ((st = op_require(c, ge1(c, slen), "min(): Expected reduction dim to be specified for input.numel() == 0 (istft: the output is empty)")))
        return st;
    int64_t left = (n_fft - wl) / 2;
    const sy_expr *covered = sy_expr_add_si(CTX, sy_expr_mul_si(CTX, sy_expr_add_si(CTX, T, -1), hop), left + wl);
    if (start < left) return op_err(c, SY_EINVAL, "istft: window overlap add min: the window envelope is zero at the start of the output");
    if ((st = op_require(c, sy_expr_le(CTX, cend, covered), "istft: window overlap add min: the window envelope is zero at the end of the output")))
        return st;
    if (win && (st = istft_nola_values(c))) return st;
    out_len = len ? len : slen;
    const sy_expr *out[2];
    size_t n = 0;
    if (nd == 3) out[n++] = x->sizes[0];
    out[n++] = out_len;
    sy_dtype base = op_is_complex(x->dtype) ? x->dtype : complex_of(x->dtype);
    return op_set_tensor(c, rc ? base : real_of(base), n, out);
}

/* view_as_real(complex) -> sizes + (2,); view_as_complex(half/float/double
 * with a last dim of 2) -> sizes[:-1] (ComplexHelper.h; a contiguous input
 * has the strides it needs) */
static sy_status view_as_real(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (!op_is_complex(x->dtype)) return op_err(c, SY_EINVAL, "view_as_real is only supported for complex tensors");
    const sy_expr **out = op_sizes_copy(c, x, 1);
    if (!out) return sy_ctx_last_error(CTX);
    out[x->ndim] = KI(c, 2);
    /* a view: the input's strides in real elements (doubled), then 1; unknown stays unknown */
    const sy_expr **str = NULL;
    if (x->strides) {
        str = sy_env_alloc(c->env, (x->ndim + 1) * sizeof *str);
        if (!str) return sy_ctx_last_error(CTX);
        for (size_t i = 0; i < x->ndim; i++)
            if (!(str[i] = sy_expr_mul_si(CTX, x->strides[i], 2))) return sy_ctx_last_error(CTX);
        str[x->ndim] = KI(c, 1);
    }
    return op_set_strided(c, real_of(x->dtype), x->ndim + 1, out, str);
}

static sy_status view_as_complex(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (x->dtype != SY_DT_FLOAT32 && x->dtype != SY_DT_FLOAT64 && x->dtype != SY_DT_FLOAT16)
        return op_err(c, SY_EINVAL, "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: %s", sy_dtype_name(x->dtype));
    if (x->ndim == 0) return op_err(c, SY_EINVAL, "Input tensor must have one or more dimensions");
    if ((st = op_require_eq(c, x->sizes[x->ndim - 1], KI(c, 2), "Tensor must have a last dimension of size 2"))) return st;
    /* a view: strides in complex elements, the input's halved (ComplexHelper.h
     * computeStrideForViewAsComplex), when the last stride is 1 and each other one is a
     * multiple of 2 by its form (a contiguous input); else not modelled */
    const sy_expr **str = NULL;
    if (x->strides && x->strides[x->ndim - 1] == KI(c, 1)) {
        str = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *str);
        if (!str) return sy_ctx_last_error(CTX);
        for (size_t i = 0; i + 1 < x->ndim && str; i++)
            if (sy_expr_poly_divexact(CTX, x->strides[i], KI(c, 2), &str[i]) != SY_TRUE) str = NULL;
        sy_ctx_reset_error(CTX);
    }
    return op_set_strided(c, x->dtype == SY_DT_FLOAT64 ? SY_DT_COMPLEX128 : SY_DT_COMPLEX64, x->ndim - 1, x->sizes, str);
}

/* ceil / floor / round / trunc: a tensor keeps its sizes; math.ceil / floor
 * of a Python number gives an int (a float must be finite and fit int64) */
static sy_status rounding(opcall *c)
{
    const sy_value *v = op_arg(c, 0, "input");
    if (!v) return op_err(c, SY_EINVAL, "missing argument");
    if (v->kind == SY_V_TENSOR) return op_set_tensor(c, v->u.t->dtype, v->u.t->ndim, v->u.t->sizes);
    return op_py_round(c, v, !strcmp(c->op, "ceil") ? 'c' : !strcmp(c->op, "floor") ? 'f' : !strcmp(c->op, "round") ? 'r' : 't');
}

const opentry sy_ops_misc[] = {
    OP_ROW("prelu", prelu),
    OP_ROW("glu", glu),
    OP_ROW("pixel_shuffle", pixel_shuffle),
    OP_ROW("pixel_unshuffle", pixel_shuffle),
    OP_ROW("channel_shuffle", channel_shuffle),
    OP_ROW("native_channel_shuffle", channel_shuffle),
    OP_ROW("grid_sample", grid_sample),
    OP_ROW("affine_grid", affine_grid),
    OP_ROW("embedding_bag", embedding_bag),
    OP_ROW("one_hot", one_hot, OP_IMPURE),
    OP_ROW("nll_loss", nll_loss),
    OP_ROW("cross_entropy", cross_entropy),
    OP_ROW("instance_norm", instance_norm),
    OP_ROW("local_response_norm", local_response_norm),
    OP_ROW("zeros_like", like),
    OP_ROW("ones_like", like),
    OP_ROW("empty_like", like),
    OP_ROW("full_like", like),
    OP_ROW("rand_like", like),
    OP_ROW("randn_like", like),
    OP_ROW("randint_like", like),
    OP_ROW("eye", eye),
    OP_ROW("linspace", linspace),
    OP_ROW("logspace", linspace),
    OP_ROW("meshgrid", meshgrid),
    OP_ROW("tensor", tensor_from),
    OP_ROW("new_tensor", new_tensor, 0, OPL_FRESH),
    OP_ROW("scalar_tensor", scalar_tensor, 0, OPL_FRESH),
    OP_ROW("bilinear", bilinear),
    OP_ROW("addmm", addmm),
    OP_ROW("addbmm", addmm),
    OP_ROW("baddbmm", addmm),
    OP_ROW("addmv", addmm),
    OP_ROW("addr", addmm),
    OP_ROW("outer", outer),
    OP_ROW("ger", outer),
    OP_ROW("kron", kron),
    OP_ROW("cdist", cdist),
    OP_ROW("stft", stft),
    OP_ROW("istft", istft),
    OP_ROW("view_as_real", view_as_real),
    OP_ROW("view_as_complex", view_as_complex),
    OP_ROW("ceil", rounding),
    OP_ROW("floor", rounding),
    OP_ROW("round", rounding),
    OP_ROW("trunc", rounding),
    OP_END};
