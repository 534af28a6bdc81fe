"""Helpers for the nn oracle tests (tests/test_nn_*.py): twin labkit/torch layers with the same
weights, and first- and second-order gradient comparisons, all in float64."""
import numpy as np

import labkit

RTOL, ATOL = 1e-9, 1e-11


def close(mine, ref, what, rtol=RTOL, atol=ATOL):
    m = mine.detach().cpu().numpy() if isinstance(mine, labkit.Tensor) else np.asarray(mine)
    if isinstance(ref, np.ndarray):
        r = ref
    elif ref._is_zerotensor():                # torch's symbolic zero gradient
        r = np.zeros(tuple(ref.shape))
    else:
        r = ref.detach().numpy()
    assert m.shape == r.shape, f"{what}: shape {m.shape} != torch {r.shape}"
    if r.dtype.kind in "biu":
        np.testing.assert_array_equal(m, r, err_msg=what)
    else:
        np.testing.assert_allclose(m, r, rtol=rtol, atol=atol, err_msg=what)


def data(shape, seed=1, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def twin_layers(lk_layer, torch_layer, device="cpu"):
    """torch_layer's weights copied into lk_layer (float64) through load_state_dict, after
    checking that both have the same state_dict keys and parameter names."""
    torch_layer = torch_layer.double()
    mine = lk_layer.double().to(device)
    assert list(mine.state_dict()) == list(torch_layer.state_dict()), "state_dict keys differ"
    assert [n for n, _ in mine.named_parameters()] == \
        [n for n, _ in torch_layer.named_parameters()], "parameter names differ"
    mine.load_state_dict({k: labkit.tensor(v.numpy(), device=device)
                          for k, v in torch_layer.state_dict().items()})
    return mine, torch_layer


def run_pair(mine, ref, x, device="cpu", seed=0):
    """Forward both layers on x (numpy); backward a random upstream gradient; compare outputs,
    input gradients and parameter gradients."""
    import torch
    xl = labkit.tensor(x, device=device, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    yl, yt = mine(xl), ref(xt)
    close(yl, yt, "output")
    g = np.random.default_rng(seed).standard_normal(tuple(yt.shape))
    yl.backward(labkit.tensor(g, device=device))
    yt.backward(torch.tensor(g))
    close(xl.grad, xt.grad, "input gradient")
    mine_params = dict(mine.named_parameters())
    for name, p in ref.named_parameters():
        assert (mine_params[name].grad is None) == (p.grad is None), name
        if p.grad is not None:
            close(mine_params[name].grad, p.grad, f"gradient of {name}")
    for name, b in ref.named_buffers():
        close(dict(mine.named_buffers())[name], b, f"buffer {name}")
    return yl, yt


def check_fn(f_lk, f_torch, arrays, device="cpu", seed=0, double=True, rtol=RTOL, atol=ATOL):
    """f on float64 twins of `arrays` (all require grad): values, gradients for a random
    upstream gradient, and, with double=True, the gradients of <grad, v> with respect to the
    inputs and the upstream gradient (second order, through create_graph=True)."""
    import torch
    lk = [labkit.tensor(a, device=device, requires_grad=True) for a in arrays]
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    yl, yt = f_lk(*lk), f_torch(*tt)
    close(yl, yt, "output", rtol, atol)
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(tuple(yt.shape))
    gl = labkit.tensor(g, device=device, requires_grad=True)
    gt = torch.tensor(g, requires_grad=True)
    dl = labkit.autograd.grad(yl, lk, gl, create_graph=double, allow_unused=True)
    dt = torch.autograd.grad(yt, tt, gt, create_graph=double, allow_unused=True)
    for i, (m, r) in enumerate(zip(dl, dt)):
        close(m if m is not None else np.zeros(arrays[i].shape),
              r if r is not None else torch.zeros(arrays[i].shape), f"gradient of input {i}",
              rtol, atol)
    if not double:
        return yl, yt
    vs = [rng.standard_normal(a.shape) for a in arrays]
    pairs_l = [(d, v) for d, v in zip(dl, vs) if d is not None and d.requires_grad]
    pairs_t = [(d, v) for d, v in zip(dt, vs) if d is not None and d.requires_grad]
    assert len(pairs_l) == len(pairs_t), "second order: different inputs carry a graph"
    if not pairs_t:
        return yl, yt
    sl = sum((d * labkit.tensor(v, device=device)).sum() for d, v in pairs_l)
    st = sum((d * torch.tensor(v)).sum() for d, v in pairs_t)
    ddl = labkit.autograd.grad(sl, lk + [gl], allow_unused=True)
    ddt = torch.autograd.grad(st, tt + [gt], allow_unused=True)
    shapes = [a.shape for a in arrays] + [g.shape]
    for i, (m, r) in enumerate(zip(ddl, ddt)):
        close(m if m is not None else np.zeros(shapes[i]),
              r if r is not None else torch.zeros(shapes[i]), f"second order, input {i}",
              rtol, atol)
    return yl, yt
