"""Saved tensors changed in place (the in-place-check fuzzer): an op reads a and b, then one of
a, b, the output, a view of one of them, its .detach() or .data is changed in place (or a
under no_grad), then backward. torch saves, per op, only what the wanted gradients read (mul
keeps b for a's gradient, and a only when b requires grad; exp keeps its output): backward
must raise torch's error exactly where torch's does, and otherwise give torch's gradients.

`OPS` maps a name to apply(L, a, b) on 3x3 inputs; `TARGETS` names what is changed;
`run(L, ...)` runs one program.
"""
import numpy as np

def _F(L):
    return L.nn.functional


OPS = {
    "add": lambda L, a, b: a + b, "add_s": lambda L, a, b: a + 2, "mul": lambda L, a, b: a * b,
    "mul_s": lambda L, a, b: a * 2, "div": lambda L, a, b: a / b, "rdiv": lambda L, a, b: 2 / a,
    "div_s": lambda L, a, b: a / 2, "pow2": lambda L, a, b: a ** 2,
    "pow_t": lambda L, a, b: a.abs() ** b, "rpow": lambda L, a, b: 2 ** a,
    "exp": lambda L, a, b: a.exp(), "log": lambda L, a, b: a.log(),
    "sqrt": lambda L, a, b: a.sqrt(), "sin": lambda L, a, b: a.sin(),
    "cos": lambda L, a, b: a.cos(), "tanh": lambda L, a, b: a.tanh(),
    "sigmoid": lambda L, a, b: a.sigmoid(), "relu": lambda L, a, b: a.relu(),
    "abs": lambda L, a, b: a.abs(), "neg": lambda L, a, b: -a,
    "square": lambda L, a, b: a.square(), "reciprocal": lambda L, a, b: a.reciprocal(),
    "rsqrt": lambda L, a, b: a.rsqrt(), "clamp": lambda L, a, b: a.clamp(0, 1),
    "clamp_t": lambda L, a, b: a.clamp(b), "sum": lambda L, a, b: a.sum(),
    "mean": lambda L, a, b: a.mean(), "max": lambda L, a, b: a.max(),
    "amax": lambda L, a, b: a.amax(0), "max_dim": lambda L, a, b: a.max(0).values,
    "prod": lambda L, a, b: a.prod(), "norm": lambda L, a, b: a.norm(),
    "var": lambda L, a, b: a.var(), "std": lambda L, a, b: a.std(),
    "softmax": lambda L, a, b: a.softmax(0), "log_softmax": lambda L, a, b: a.log_softmax(0),
    "cumsum": lambda L, a, b: a.cumsum(0), "cumprod": lambda L, a, b: a.cumprod(0),
    "index": lambda L, a, b: a[[0, 1]], "select": lambda L, a, b: a[0],
    "mask": lambda L, a, b: a[a > 1], "t": lambda L, a, b: a.t(),
    "view": lambda L, a, b: a.view(-1), "matmul": lambda L, a, b: a @ b.t(),
    "mv": lambda L, a, b: a @ b[0], "where": lambda L, a, b: L.where(a > 1, a, b),
    "masked_fill": lambda L, a, b: a.masked_fill(a > 1, 0.),
    "gather": lambda L, a, b: a.gather(0, L.tensor([[1, 0, 1]])),
    "sort": lambda L, a, b: a.sort(0).values, "topk": lambda L, a, b: a.topk(1, 0).values,
    "maximum": lambda L, a, b: L.maximum(a, b), "min": lambda L, a, b: a.min(),
    "median": lambda L, a, b: a.median(), "logsumexp": lambda L, a, b: a.logsumexp(0),
    "gelu": lambda L, a, b: _F(L).gelu(a), "silu": lambda L, a, b: _F(L).silu(a),
    "elu": lambda L, a, b: _F(L).elu(a), "leaky_relu": lambda L, a, b: _F(L).leaky_relu(a),
    "softplus": lambda L, a, b: _F(L).softplus(a), "mse": lambda L, a, b: _F(L).mse_loss(a, b),
    "l1": lambda L, a, b: _F(L).l1_loss(a, b), "linear": lambda L, a, b: _F(L).linear(a, b),
    "layer_norm": lambda L, a, b: _F(L).layer_norm(a, (3,)),
    "normalize": lambda L, a, b: _F(L).normalize(a),
    "hardtanh": lambda L, a, b: _F(L).hardtanh(a), "atan2": lambda L, a, b: L.atan2(a, b),
    "cat": lambda L, a, b: L.cat([a, b]), "stack": lambda L, a, b: L.stack([a, b]),
    "expand": lambda L, a, b: a[:1].expand(3, 3), "clone": lambda L, a, b: a.clone(),
    "double": lambda L, a, b: a.double(), "addcmul": lambda L, a, b: L.addcmul(a, a, b),
    "lerp": lambda L, a, b: L.lerp(a, b, 0.3), "sign": lambda L, a, b: a.sign(),
    "trace": lambda L, a, b: a.trace(), "diag": lambda L, a, b: a.diag(),
    "tril": lambda L, a, b: a.tril(), "roll": lambda L, a, b: a.roll(1),
    "flip": lambda L, a, b: a.flip(0), "repeat": lambda L, a, b: a.repeat(2, 1),
    "pad": lambda L, a, b: _F(L).pad(a, (1, 1)),
    "cross_entropy": lambda L, a, b: _F(L).cross_entropy(a, L.tensor([0, 2, 1])),
    "bce_logits": lambda L, a, b: _F(L).binary_cross_entropy_with_logits(a, b.sigmoid()),
    "erf": lambda L, a, b: a.erf(), "log1p": lambda L, a, b: a.log1p(),
    "expm1": lambda L, a, b: a.expm1(), "atan": lambda L, a, b: a.atan(),
    "sinh": lambda L, a, b: a.sinh(), "logsigmoid": lambda L, a, b: _F(L).logsigmoid(a),
    "fmod": lambda L, a, b: a.fmod(1.5), "remainder": lambda L, a, b: a.remainder(b),
    "hypot": lambda L, a, b: a.hypot(b), "dist": lambda L, a, b: a.dist(b),
    "einsum": lambda L, a, b: L.einsum("ij,ij->i", a, b),
    "bmm": lambda L, a, b: L.bmm(a.unsqueeze(0), b.unsqueeze(0)),
    "outer": lambda L, a, b: L.outer(a[0], b[1]), "dot": lambda L, a, b: L.dot(a[0], b[1]),
    "kthvalue": lambda L, a, b: a.kthvalue(2, 0).values, "cummax": lambda L, a, b: a.cummax(0).values,
    "logcumsumexp": lambda L, a, b: a.logcumsumexp(0), "mish": lambda L, a, b: _F(L).mish(a),
    "selu": lambda L, a, b: _F(L).selu(a), "celu": lambda L, a, b: _F(L).celu(a),
    "softsign": lambda L, a, b: _F(L).softsign(a), "hardswish": lambda L, a, b: _F(L).hardswish(a),
    "hardsigmoid": lambda L, a, b: _F(L).hardsigmoid(a), "relu6": lambda L, a, b: _F(L).relu6(a),
    "smooth_l1": lambda L, a, b: _F(L).smooth_l1_loss(a, b),
    "huber": lambda L, a, b: _F(L).huber_loss(a, b), "kl_div": lambda L, a, b: _F(L).kl_div(a, b),
    "addmm": lambda L, a, b: L.addmm(a, a, b), "var_mean": lambda L, a, b: L.var_mean(a, 0)[1],
    "diff": lambda L, a, b: a.diff(), "cdist": lambda L, a, b: L.cdist(a, b),
    "unfold": lambda L, a, b: a.unfold(0, 2, 1), "group_norm": lambda L, a, b: _F(L).group_norm(a, 3),
    "batch_norm": lambda L, a, b: _F(L).batch_norm(a, None, None, training=True),
    "exp2": lambda L, a, b: a.exp2(), "log2": lambda L, a, b: a.log2(),
    "tan": lambda L, a, b: a.tan(), "round": lambda L, a, b: a.round(),
    "nan_to_num": lambda L, a, b: a.nan_to_num(), "logaddexp": lambda L, a, b: L.logaddexp(a, b),
    "max_bin": lambda L, a, b: a.max(b), "float_power": lambda L, a, b: a.float_power(2),
    "renorm": lambda L, a, b: a.renorm(2, 0, 1.0), "lgamma": lambda L, a, b: a.lgamma(),
    "index_select": lambda L, a, b: a.index_select(1, L.tensor([2, 0])),
    "take": lambda L, a, b: a.take(L.tensor([0, 4])),
    "scatter_add": lambda L, a, b: a.scatter_add(0, L.tensor([[1, 0, 1]]), b[:1]),
    "index_add": lambda L, a, b: a.index_add(0, L.tensor([1, 1]), b[:2]),
    "masked_scatter": lambda L, a, b: a.masked_scatter(a > 1, b),
    "chunk": lambda L, a, b: a.chunk(3)[1] * 1, "split": lambda L, a, b: a.split(2)[0] * b[:2],
    "unbind": lambda L, a, b: a.unbind(1)[2] * b[0], "min_dim": lambda L, a, b: a.min(1).values,
    "std_dim": lambda L, a, b: a.std(1), "prelu": lambda L, a, b: _F(L).prelu(a, b[0, :1]),
    "glu": lambda L, a, b: _F(L).glu(L.cat([a, b], 1), 1),
    "softmin": lambda L, a, b: _F(L).softmin(a, 1), "frac": lambda L, a, b: a.frac(),
    "xlogy": lambda L, a, b: L.xlogy(a, b.abs() + 1),
}
# a and b are non-leaves (made from leaves) or constants; the change hits one of them (or its
# view, .detach(), .data), the output (or its view, .detach()), or the base of a view op's input
TARGETS = ["a", "b", "out", "a_view", "out_view", "a_detach", "a_data", "b_view",
           "out_detach", "a_nograd", "a_setitem", "out_setitem", "a_t", "out_twice"]


def run(L, op, target, a_arr, b_arr, a_grad, b_grad):
    """Make a, b, apply op, change target in place, then the gradients of the leaves."""
    a0 = L.tensor(a_arr, requires_grad=a_grad)
    b0 = L.tensor(b_arr, requires_grad=b_grad)
    a, b = a0 * 1, b0 * 1
    out = OPS[op](L, a, b)
    change(L, target, a, b, out)
    if not out.requires_grad:
        return ("no grad", out)
    g = L.arange(1., out.numel() + 1, dtype=out.dtype).reshape(out.shape)
    want = [x for x in (a0, b0) if x.requires_grad]
    gs = L.autograd.grad(out, want, g, allow_unused=True)
    return tuple(L.zeros_like(x) if r is None else r for r, x in zip(gs, want))


def change(L, target, a, b, out):
    if target == "a":
        a.add_(1)
    elif target == "b":
        b.mul_(2)
    elif target == "out":
        out.add_(1)
    elif target == "out_twice":
        out.mul_(2).sub_(1)
    elif target == "a_view":
        a[0].add_(1)
    elif target == "a_t":
        a.t()[2].mul_(0.5)
    elif target == "out_view":
        (out.view(-1)[:1] if out.dim() else out.view(1)).mul_(3)
    elif target == "a_detach":
        a.detach().add_(1)
    elif target == "a_data":
        a.data.add_(1)
    elif target == "b_view":
        b.t()[1].zero_()
    elif target == "out_detach":
        out.detach().zero_()
    elif target == "a_nograd":
        with L.no_grad():
            a.mul_(2)
    elif target == "a_setitem":
        a[1] = 0.
    elif target == "out_setitem":
        out[...] = 0.
    else:
        raise AssertionError(target)


POOL = [-1.5, -0.5, 0.25, 0.5, 0.75, 1.25, 1.5, 2.0, 3.0]


def arrays(draw, st, dtype):
    vals = draw(st.lists(st.sampled_from(POOL), min_size=9, max_size=9))
    return (np.array(vals) + 0.01 * np.arange(9)).astype(dtype).reshape(3, 3)
