"""autocast: each op's output dtype (and value) under labkit.autocast equals torch's under
torch.autocast on the CPU, for bfloat16 and float16; nesting, decorator, enabled=False, errors."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

R = np.random.default_rng(0)
A = {"x": R.standard_normal((4, 3)), "w": R.standard_normal((2, 3)), "b": R.standard_normal(2),
     "m": R.standard_normal((3, 5)), "bb": R.standard_normal((2, 4, 3)),
     "bc": R.standard_normal((2, 3, 5)), "img": R.standard_normal((1, 2, 5, 5)),
     "k": R.standard_normal((3, 2, 3, 3)), "seq": R.standard_normal((1, 2, 7)),
     "k1": R.standard_normal((3, 2, 3)), "q": R.standard_normal((1, 2, 4, 8)),
     "t": R.standard_normal((4, 2)), "p": R.uniform(0.1, 0.9, (4, 2)),
     "c": np.array([0, 2, 1, 2]), "v": R.standard_normal(3)}


def _args(m, names, low=()):
    out = []
    for n in names:
        a = A[n]
        if a.dtype.kind == "f":
            t = m.tensor(a.astype(np.float32))
            if n in low:
                t = t.to(m.bfloat16)
        else:
            t = m.tensor(a)
        out.append(t)
    return out


def _F(m):
    return m.nn.functional


OPS = {  # name: (argument names, f(module, *args))
    "matmul": ("x m", lambda m, x, y: x @ y),
    "mm": ("x m", lambda m, x, y: m.mm(x, y)),
    "bmm": ("bb bc", lambda m, x, y: m.bmm(x, y)),
    "addmm": ("x m", lambda m, x, y: m.addmm(m.zeros(4, 5), x, y)),
    "baddbmm": ("bb bc", lambda m, x, y: m.baddbmm(m.zeros(2, 4, 5), x, y)),
    "linear": ("x w b", lambda m, x, w, b: _F(m).linear(x, w, b)),
    "conv2d": ("img k", lambda m, x, k: _F(m).conv2d(x, k, padding=1)),
    "conv1d": ("seq k1", lambda m, x, k: _F(m).conv1d(x, k)),
    "sdpa": ("q q q", lambda m, q, k, v: _F(m).scaled_dot_product_attention(q, k, v)),
    "einsum": ("x m", lambda m, x, y: m.einsum("ij,jk->ik", x, y)),
    "mse_loss": ("t p", lambda m, a, b: _F(m).mse_loss(a, b)),
    "l1_loss": ("t p", lambda m, a, b: _F(m).l1_loss(a, b)),
    "smooth_l1_loss": ("t p", lambda m, a, b: _F(m).smooth_l1_loss(a, b)),
    "huber_loss": ("t p", lambda m, a, b: _F(m).huber_loss(a, b)),
    "cross_entropy": ("x c", lambda m, a, c: _F(m).cross_entropy(a, c)),
    "nll_loss": ("x c", lambda m, a, c: _F(m).nll_loss(a, c)),
    "bce": ("p p", lambda m, a, b: _F(m).binary_cross_entropy(a, b)),
    "bce_logits": ("t p", lambda m, a, b: _F(m).binary_cross_entropy_with_logits(a, b)),
    "kl_div": ("t p", lambda m, a, b: _F(m).kl_div(a, b, reduction="batchmean")),
    "prod": ("p", lambda m, a: m.prod(a)),
    "cdist": ("x x", lambda m, a, b: m.cdist(a, b)),
    "cat": ("x x", lambda m, a, b: m.cat([a, b])),
    "stack": ("x x", lambda m, a, b: m.stack([a, b])),
    "softmax": ("x", lambda m, a: m.softmax(a, -1)),
    "log_softmax": ("x", lambda m, a: m.log_softmax(a, -1)),
    "sum": ("x", lambda m, a: a.sum()),
    "mean": ("x", lambda m, a: a.mean()),
    "exp": ("x", lambda m, a: a.exp()),
    "relu": ("x", lambda m, a: a.relu()),
    "layer_norm": ("x", lambda m, a: _F(m).layer_norm(a, (3,))),
    "add": ("x x", lambda m, a, b: a + b),
    "dot": ("v v", lambda m, a, b: m.dot(a, b)),
}

# which inputs arrive in bfloat16 already (mixed-dtype cases: promote ops, and ops outside the
# lists that must keep their input's dtype)
MIXED = {"cat": ("x",), "stack": ("x",), "add": ("x",), "softmax": ("x",), "relu": ("x",),
         "mse_loss": ("t",), "matmul": ("x",), "linear": ("x",), "sum": ("x",)}


def _run(m, name, dtype, low):
    names, f = OPS[name]
    args = _args(m, names.split(), low)
    with m.autocast("cpu", dtype=getattr(m, dtype)):
        return f(m, *args)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_output_dtype_as_torch(name, dtype):
    for low in ((), MIXED.get(name, ())):
        try:
            ref = _run(torch, name, dtype, low)
        except RuntimeError:    # torch refuses bfloat16 inputs to a float16 promote op
            with pytest.raises(RuntimeError, match="autocast"):
                _run(labkit, name, dtype, low)
            continue
        mine = _run(labkit, name, dtype, low)
        assert str(mine.dtype).split(".")[1] == str(ref.dtype).split(".")[1], (name, low)
        tol = 3e-2 if ref.dtype != torch.float32 else 2e-2
        np.testing.assert_allclose(mine.detach().float().numpy(), ref.detach().float().numpy(),
                                   rtol=tol, atol=tol)


def test_gradients_flow_back_in_float32():
    x = labkit.randn(4, 3)
    w = labkit.randn(2, 3, requires_grad=True)
    with labkit.autocast("cpu"):
        out = labkit.nn.functional.linear(x, w)
        loss = out.float().pow(2).mean()
    assert out.dtype == labkit.bfloat16 and out.grad_fn.name() == "AddmmBackward0"
    loss.backward()
    assert w.grad.dtype == labkit.float32 and w.grad.shape == w.shape


def test_nesting_enabled_false_and_decorator():
    x = labkit.randn(2, 2)
    with labkit.autocast("cpu", dtype=labkit.float16):
        assert labkit.is_autocast_enabled("cpu")
        assert labkit.get_autocast_dtype("cpu") == labkit.float16
        with labkit.autocast("cpu", enabled=False):
            assert (x @ x).dtype == labkit.float32 and not labkit.is_autocast_enabled("cpu")
        with labkit.amp.autocast("cpu", dtype=labkit.bfloat16):
            assert (x @ x).dtype == labkit.bfloat16
        assert (x @ x).dtype == labkit.float16
    assert (x @ x).dtype == labkit.float32 and not labkit.is_autocast_enabled("cpu")

    @labkit.autocast("cpu")
    def f(a):
        return a @ a
    assert f(x).dtype == labkit.bfloat16 and (x @ x).dtype == labkit.float32


def test_state_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError):
        with labkit.autocast("cpu"):
            1 / 0
    assert not labkit.is_autocast_enabled("cpu")


def test_float64_inputs_are_not_cast_as_torch():
    a = np.ones((2, 2))
    with torch.autocast("cpu"):
        ref = torch.tensor(a) @ torch.tensor(a)
    with labkit.autocast("cpu"):
        mine = labkit.tensor(a) @ labkit.tensor(a)
    assert ref.dtype == torch.float64 and mine.dtype == labkit.float64


def test_bad_dtype_and_device_are_clear_errors():
    with pytest.raises(RuntimeError, match="not supported on cpu.*bfloat16"):
        labkit.autocast("cpu", dtype=labkit.float64)
    with pytest.raises(RuntimeError, match="device_type must be 'cpu' or 'cuda'"):
        labkit.autocast("tpu")
    with pytest.raises(RuntimeError):          # torch refuses a bad device type too
        torch.autocast("tpu")


def test_cuda_spelling_without_a_gpu_warns_and_does_nothing():
    if labkit.cuda.is_available():
        pytest.skip("a GPU is present")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with labkit.cuda.amp.autocast():
            assert (labkit.ones(2, 2) @ labkit.ones(2, 2)).dtype == labkit.float32
    assert any("no CUDA GPU" in str(x.message) for x in w)
    from labkit.cuda.amp import GradScaler  # importable as torch.cuda.amp spells it
    assert GradScaler(enabled=False).get_scale() == 1.0


def test_autocast_on_cuda(cuda_only):
    x = labkit.randn(4, 4, device="cuda")
    with labkit.autocast("cuda"):
        assert (x @ x).dtype == labkit.float16
        assert labkit.softmax(x @ x, -1).dtype == labkit.float32     # cuda's float32 list
        assert (labkit.randn(2, 2) @ labkit.randn(2, 2)).dtype == labkit.float32  # cpu: off
