"""More of torch.nn.functional: hardshrink, softshrink, threshold (and threshold_), bilinear,
local_response_norm and adaptive_max_pool1d/2d. The first three are ops (torch's grad_fn
names, fused_activation.py); the rest compositions of differentiable ops, each
torch's own formula, so their gradients (of any order) are torch's."""
from collections import namedtuple

from ..engine.ops.fused_activation import Hardshrink, Softshrink, Threshold
from ..engine.ops.join import cat, stack
from ..engine.ops.select import where


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    return Hardshrink.apply(input, lambd)


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between: the proximal step of L1."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return Softshrink.apply(input, lambd)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value."""
    if inplace:
        return threshold_(input, threshold, value)
    return Threshold.apply(input, threshold, value)


def threshold_(input, threshold, value):
    return input.copy_(where(input.clone() > threshold, input.clone(), float(value)))


def bilinear(input1, input2, weight, bias=None):
    """y_k = x1^T W_k x2 + b_k for each of weight's out_features matrices (out, in1, in2)."""
    if weight.dim() != 3 or input1.shape[-1] != weight.shape[1] or \
            input2.shape[-1] != weight.shape[2] or tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear: input1 {list(input1.shape)} and input2 "
                           f"{list(input2.shape)} must agree on all but the last dimension, "
                           f"whose sizes must be weight's in1_features and in2_features "
                           f"(weight {list(weight.shape)})")
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    # (B, in1) @ (out, in1, in2) -> (out, B, in2), times x2, summed over in2
    y = (x1.matmul(weight) * x2.unsqueeze(0)).sum(-1).t()
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, weight.shape[0])


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta (AlexNet's LRN)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    from ..engine.creation import zeros
    sq = input * input
    c = input.shape[1]
    rest = tuple(input.shape[2:])
    before, after = size // 2, (size - 1) // 2
    padded = cat([zeros(input.shape[0], before, *rest, dtype=input.dtype, device=input.device),
                  sq,
                  zeros(input.shape[0], after, *rest, dtype=input.dtype, device=input.device)], 1)
    div = stack([padded[:, i:i + c] for i in range(size)], 0).sum(0) / size  # zeros count
    div = (div * alpha + k) ** beta
    return input / div


def _starts(n, out):
    return [(i * n) // out for i in range(out)], [-(-((i + 1) * n) // out) for i in range(out)]


def _adaptive_max(name, input, output_size, spatial):
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but got "
                           f"{list(input.shape)}")
    sizes = (output_size,) * spatial if isinstance(output_size, int) else tuple(output_size)
    sizes = tuple(n if o is None else o for n, o in zip(input.shape[-spatial:], sizes))
    if len(sizes) != spatial:
        raise ValueError(f"{name}: output_size must be {spatial} ints, got {output_size}")
    for s, n in zip(sizes, input.shape[-spatial:]):
        if n == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)}")
    x = input if spatial == 2 else input.unsqueeze(-2)
    oh, ow = sizes if spatial == 2 else (1, sizes[0])
    h, w = x.shape[-2:]
    if not oh * ow:                             # an empty output (torch's, still in the graph)
        out = x.sum((-2, -1), keepdim=True).expand(*x.shape[:-2], oh, ow)
        idx = out.detach().long()
        return (out, idx) if spatial == 2 else (out.squeeze(-2), idx.squeeze(-2))
    (hs, he), (ws, we) = _starts(h, oh), _starts(w, ow)
    rows_v, rows_i = [], []
    for i in range(oh):
        vals, idxs = [], []
        for j in range(ow):
            win = x[..., hs[i]:he[i], ws[j]:we[j]]
            ww = we[j] - ws[j]
            v, k = win.reshape(*win.shape[:-2], win.shape[-2] * ww).max(-1)
            vals.append(v)
            idxs.append((k // ww + hs[i]) * w + (k % ww + ws[j]))
        rows_v.append(stack(vals, -1))
        rows_i.append(stack(idxs, -1))
    out, idx = stack(rows_v, -2), stack(rows_i, -2)
    if spatial == 1:
        out, idx = out.squeeze(-2), idx.squeeze(-2)
    return out, idx


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The max over each of output_size's roughly equal windows (torch's adaptive splits)."""
    out, idx = _adaptive_max("adaptive_max_pool2d", input, output_size, 2)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out, idx = _adaptive_max("adaptive_max_pool1d", input, output_size, 1)
    return (out, idx) if return_indices else out


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max("adaptive_max_pool2d", input, output_size, 2)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max("adaptive_max_pool1d", input, output_size, 1)
