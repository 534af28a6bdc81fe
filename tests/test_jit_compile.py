"""jit.compile: a whole training step (forward, backward, optimizer.step) replayed as one array
program gives the same losses and parameters as the eager step, call after call."""
import os

import numpy as np
import pytest

import labkit
from labkit import jit, nn, optim
from jit_models import arrays, close, cnn, mlp

X, Y, W1, W2 = arrays((16, 20), (16, 3), (20, 8), (8, 3))


def two_layer_step(lr=1e-3):
    x, y = labkit.from_numpy(X), labkit.from_numpy(Y)
    w1 = labkit.from_numpy(W1.copy()).requires_grad_()
    w2 = labkit.from_numpy(W2.copy()).requires_grad_()

    def step():
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        loss.backward()
        with labkit.no_grad():
            w1.sub_(lr * w1.grad)
            w2.sub_(lr * w2.grad)
            w1.grad = w2.grad = None
        return loss
    return step, (w1, w2)


def test_two_layer_step_matches_eager_over_steps():
    eager, pe = two_layer_step()
    compiled_fn, pc = two_layer_step()
    compiled = jit.compile(compiled_fn)
    for _ in range(5):
        assert close(compiled(), eager(), 1e-4)
    for a, b in zip(pe, pc):
        assert close(a, b, 1e-4)
    assert compiled.traces == 1 and compiled.last.program is not None


def model_step(make, opt_cls, **opt_kw):
    model = make()
    opt = opt_cls(model.parameters(), **opt_kw)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, t):
        opt.zero_grad()
        loss = loss_fn(model(x), t)
        loss.backward()
        opt.step()
        return loss
    return step, model


@pytest.mark.parametrize("opt_cls,kw", [(optim.SGD, dict(lr=0.1)),
                                        (optim.SGD, dict(lr=0.1, momentum=0.9)),
                                        (optim.Adam, dict(lr=0.01))])
@pytest.mark.parametrize("make", [mlp, cnn])
def test_training_step_with_optimizer_matches_eager(make, opt_cls, kw):
    shape = (6, 1, 8, 8) if make is cnn else (6, 2)
    xs = [labkit.from_numpy(a) for a in arrays(shape, shape, shape, shape)]
    t = labkit.tensor([0, 1, 2, 1, 0, 2])
    eager, me = model_step(make, opt_cls, **kw)
    fn, mc = model_step(make, opt_cls, **kw)
    compiled = jit.compile(fn)
    for x in xs:
        assert close(compiled(x, t), eager(x, t), 1e-4)
    for a, b in zip(me.parameters(), mc.parameters()):
        assert close(a, b, 1e-4) and close(a.grad, b.grad, 1e-4)
    # SGD: the first trace saw no gradients and no momentum buffers yet, so it may trace
    # once more; Adam keeps its step count as a Python int, which changes every step.
    assert compiled.traces <= (2 if opt_cls is optim.SGD else len(xs))


def test_new_shape_retraces_and_old_one_stays_cached():
    f = jit.compile(lambda x: (x * 2).sum(0))
    f(labkit.ones(3, 2))
    f(labkit.ones(3, 2))
    f(labkit.ones(5, 2))
    f(labkit.ones(3, 2))
    assert f.traces == 2 and len(f.signatures) == 2


def test_python_numbers_are_part_of_the_signature():
    f = jit.compile(lambda x, k: x * k)
    assert close(f(labkit.ones(2), 2.0), [2, 2])
    assert close(f(labkit.ones(2), 3.0), [3, 3])
    assert f.traces == 2


def test_side_effects_run_only_while_tracing():
    seen = []

    def f(x):
        seen.append("traced")
        return x + 1
    c = jit.compile(f)
    for _ in range(3):
        c(labkit.ones(2))
    assert seen == ["traced"]


def test_outputs_are_fresh_arrays_on_every_call():
    f = jit.compile(lambda x: (x + 1) * 2)
    a = f(labkit.ones(3))
    b = f(labkit.full((3,), 2.0))
    assert close(a, [4, 4, 4]) and close(b, [6, 6, 6])
    assert not np.shares_memory(a.numpy(), b.numpy())


def test_forward_only_compile_still_gives_gradients():
    model = mlp()
    compiled = jit.compile(model)
    x = labkit.randn(4, 2)
    compiled(x).sum().backward()
    g = [p.grad.numpy().copy() for p in model.parameters()]
    model.zero_grad()
    compiled(x).sum().backward()
    for a, p in zip(g, model.parameters()):
        assert close(a, p.grad)


def test_labkit_jit_0_turns_compilation_off(monkeypatch):
    monkeypatch.setenv("LABKIT_JIT", "0")
    seen = []
    c = jit.compile(lambda x: seen.append(1) or x + 1)
    c(labkit.ones(1))
    c(labkit.ones(1))
    assert seen == [1, 1] and c.traces == 0


def test_generated_program_is_inspectable():
    step, _ = two_layer_step()
    c = jit.compile(step)
    c()
    assert c.code.startswith("def program(") and "matmul(" in c.code
    assert any("def fused_" in src for src in c.kernels.values())


def test_a_fused_group_has_a_cuda_kernel_source():
    from labkit.jit.cuda_kernel import kernel_source
    f = jit.compile(lambda x, y: ((x * 0.5 + y).relu() * y).tanh())
    f(labkit.randn(4, 3), labkit.randn(4, 3))
    group = next(n for n in f.graph.nodes if n.kind == "fused")
    name, ins, outs, body = kernel_source(group)
    assert name == "fused_0" and ins == "float32 in0, float32 in1" and outs == "float32 out0"
    assert "float t0 = (in0 * ((float)0.5));" in body and "tanh(" in body and "out0 = t4;" in body


@pytest.mark.skipif(not labkit.cuda.is_available(), reason="needs a GPU with CuPy")
@pytest.mark.skipif(os.environ.get("LABKIT_FAKE_CUDA") == "1",
                    reason="fake cupy cannot compile CUDA C (a fused group is an ElementwiseKernel)")
def test_compiled_step_on_the_gpu_matches_the_cpu():
    f = jit.compile(lambda x, y: ((x * 0.5 + y).relu() * y).tanh().sum())
    x, y = labkit.randn(64, 32), labkit.randn(64, 32)
    assert close(f(x.cuda(), y.cuda()).cpu(), f(x, y))


@pytest.mark.parametrize("opt_cls,kw", [(optim.SGD, dict(lr=0.1, momentum=0.9)),
                                        (optim.Adam, dict(lr=0.01))])
def test_compiled_training_step_on_the_device_matches_eager(device, opt_cls, kw):
    """The generated program runs on the device's array module (cupy on a GPU), backward and
    optimizer included. Fusion is off: on a GPU a fused group is a CUDA kernel (tested above)."""
    from labkit.jit import passes
    no_fusion = tuple(p for p in passes.PIPELINE if p is not passes.fuse_elementwise)
    xs = [labkit.from_numpy(a).to(device) for a in arrays((6, 2), (6, 2), (6, 2))]
    t = labkit.tensor([0, 1, 2, 1, 0, 2], device=device)
    eager, me = model_step(lambda: mlp().to(device), opt_cls, **kw)
    fn, mc = model_step(lambda: mlp().to(device), opt_cls, **kw)
    compiled = jit.compile(fn, pipeline=no_fusion)
    for x in xs:
        assert close(compiled(x, t).cpu(), eager(x, t).cpu(), 1e-4)
    for a, b in zip(me.parameters(), mc.parameters()):
        assert a.device.type == device and close(a.cpu(), b.cpu(), 1e-4)
        assert close(a.grad.cpu(), b.grad.cpu(), 1e-4)
    assert compiled.last.program is not None


def test_compiled_forward_is_one_autograd_node_with_a_precompiled_backward():
    model = mlp(sizes=(3, 6, 2), act=nn.Tanh)
    c = jit.compile(model)
    x = labkit.randn(4, 3, requires_grad=True)
    for i in range(2):
        out = c(x)          # the first call runs eagerly (while tracing), later ones replay
        assert i == 0 or type(out.grad_fn).__name__ == "CompiledFunctionBackward"
        (out * out).sum().backward()
    gx = x.grad.numpy().copy()
    x.grad = None
    for _ in range(2):
        (model(x) * model(x)).sum().backward()
    assert close(gx, x.grad) and c.traces == 1
    fwd, bwd = c.last.graphs
    assert "tanh_backward" in str(bwd) or "mul" in str(bwd)
    with pytest.raises(RuntimeError, match="not differentiable again"):
        labkit.autograd.grad(c(x).sum(), x, create_graph=True)


def test_a_large_fused_group_runs_block_by_block_and_gives_the_same_values():
    from labkit.jit.tiling import TILE_MIN
    n = TILE_MIN + 12345                     # the last block is a partial one
    x, y = labkit.randn(n), labkit.randn(n)

    def f(x, y):
        z = (x * 0.5 + y).clamp(min=0) * 1.5 - y * 0.25
        return (z.abs() * z + 1.0) / 2.0, z
    c = jit.compile(f)
    c(x, y)
    got, want = c(x, y), f(x, y)
    assert close(got[0], want[0]) and close(got[1], want[1])
    assert "for s in range(0," in c.kernels["fused_0"]
