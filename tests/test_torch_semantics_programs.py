"""What real notebooks met on labkit (tests/compat/programs): tensors print line by line as torch
prints them, torch's process switches that training scripts set, and the keyword arguments of
torch's optimizers that they pass. Each compares with torch."""
import inspect
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def same_text(mine, theirs):
    assert mine.replace("labkit.", "torch.") == theirs


WIDE = [lambda lib: lib.arange(16.0) / 7, lambda lib: lib.arange(20.0).view(2, 10) / 3 - 1,
        lambda lib: lib.arange(100), lambda lib: lib.arange(60).view(3, 4, 5) * 1000,
        lambda lib: lib.tensor([4.51, float("-inf"), 6.75, float("-inf")] * 3),
        lambda lib: lib.tensor([1e-10, 5.0, 3e3] * 4), lambda lib: lib.arange(1, 31).view(2, 15) * 1.0,
        lambda lib: (lib.arange(24.0).view(4, 6) - 12) > 0, lambda lib: lib.arange(9.0).view(1, 9),
        lambda lib: lib.arange(3000.0), lambda lib: lib.arange(3000).view(50, 60) - 1500,
        lambda lib: lib.ones(1, 1, 1), lambda lib: lib.arange(12.0).view(3, 4).half(),
        lambda lib: lib.arange(20.0).bfloat16() / 3]


@pytest.mark.parametrize("make", WIDE, ids=["16", "2x10", "int100", "3d-int", "inf", "sci",
                                            "whole", "bool", "1x9", "summarised",
                                            "summarised-int-2d", "1x1x1", "half", "bfloat16"])
def test_long_rows_wrap_where_torch_wraps(make):
    same_text(repr(make(labkit)), repr(make(torch)))


@pytest.mark.parametrize("options", [dict(linewidth=40), dict(linewidth=120, precision=2),
                                     dict(sci_mode=True), dict(threshold=10, edgeitems=2),
                                     dict(threshold=10, edgeitems=0)], ids=str)
def test_wrapping_follows_set_printoptions_like_torch(options):
    texts = []
    for lib in (labkit, torch):
        lib.set_printoptions(**options)
        try:
            texts.append([repr(lib.arange(30.0).view(3, 10) / 7 - 2), repr(lib.arange(25))])
        finally:
            lib.set_printoptions(profile="default")
    assert [t.replace("labkit.", "torch.") for t in texts[0]] == texts[1]


def test_suffixes_move_to_their_own_line_like_torch():
    for make in (lambda lib: (lib.arange(24.0).view(3, 8) / 7).requires_grad_(),
                 lambda lib: lib.arange(24.0, dtype=lib.float64).view(3, 8).requires_grad_() * 2,
                 lambda lib: lib.arange(3.0).requires_grad_() * 2,
                 lambda lib: lib.zeros(0, 4, dtype=lib.int32)):
        same_text(repr(make(labkit)), repr(make(torch)))


def test_dtype_suffix_follows_the_default_dtype_like_torch():
    texts = []
    for lib in (labkit, torch):
        lib.set_default_dtype(lib.float64)
        try:
            texts.append([repr(lib.tensor([1.5, 2.0])), repr(lib.tensor([1.5], dtype=lib.float32)),
                          repr(lib.zeros(0)), repr(lib.zeros(0, dtype=lib.float32))])
        finally:
            lib.set_default_dtype(lib.float32)
    assert [t.replace("labkit.", "torch.") for t in texts[0]] == texts[1]


def test_float32_matmul_precision_reads_back_like_torch():
    for lib in (labkit, torch):
        assert lib.get_float32_matmul_precision() == "highest"
        lib.set_float32_matmul_precision("high")
        assert lib.get_float32_matmul_precision() == "high"
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            lib.set_float32_matmul_precision("fast")      # warned about, ignored
        assert lib.get_float32_matmul_precision() == "high"
        with pytest.raises(RuntimeError):
            lib.set_float32_matmul_precision(3)
        lib.set_float32_matmul_precision("highest")


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_accepts_torchs_kernel_switches(name):
    """build-nanogpt checks `'fused' in inspect.signature(torch.optim.AdamW).parameters` and then
    passes fused=; the switches pick kernels in torch and change no numbers."""
    assert "fused" in inspect.signature(getattr(labkit.optim, name)).parameters
    results = []
    for lib in (labkit, torch):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0]))
        opt = getattr(lib.optim, name)([w], lr=0.1, weight_decay=0.1, foreach=None, fused=False,
                                       capturable=False, differentiable=False)
        for _ in range(3):
            opt.zero_grad()
            (w ** 2).sum().backward()
            opt.step()
        results.append((w.detach().tolist(), sorted(opt.param_groups[0])))
    assert results[0][1] == results[1][1]
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-5)


def test_detach_in_place_like_torch():
    """UvA's OptimizerTemplate.zero_grad: p.grad.detach_(); p.grad.zero_()."""
    for lib in (labkit, torch):
        w = lib.ones(3, requires_grad=True)
        y = w * 2
        assert y.detach_() is y
        assert (y.requires_grad, y.grad_fn, y.is_leaf) == (False, None, True)
        assert y.tolist() == [2.0, 2.0, 2.0] and w.requires_grad
        leaf = lib.ones(2, requires_grad=True)
        assert leaf.detach_() is leaf and not leaf.requires_grad
        z = lib.zeros(0)
        assert lib.detach_(z) is z
        s = lib.tensor(1.5, requires_grad=True) * 2          # 0-d
        s.detach_()
        assert s.grad_fn is None and s.item() == 3.0
        for view in (lib.arange(4.0)[1:], (w * 2)[1:], (w * 2).view(3, 1)):
            with pytest.raises(RuntimeError, match="detach"):
                view.detach_()


def test_detach_in_place_grad_of_create_graph():
    x = labkit.tensor([1.0, 2.0], requires_grad=True)
    (g,) = labkit.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    g.detach_()
    assert g.grad_fn is None and g.tolist() == [3.0, 12.0]
    g.zero_()
    assert g.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("values", [[0.51, -1.0, 2.0, 0.25], [3.0], [], [1.0, 1.0]],
                         ids=["4", "1", "empty", "equal"])
def test_histogram_bins_default_to_100_like_torch(values):
    """makemore part 3: hy, hx = torch.histogram(t, density=True)."""
    outs = []
    for lib in (labkit, torch):
        t = lib.tensor(values)
        outs.append([lib.histogram(t), lib.histogram(t, density=True), t.histogram()])
    for mine, theirs in zip(*outs):
        for a, b in zip(mine, theirs):
            assert a.shape == b.shape == ((100,) if a is mine[0] else (101,))
            assert a.dtype.__str__().split(".")[-1] == str(b.dtype).split(".")[-1]
            assert a.tolist() == pytest.approx(b.tolist(), abs=1e-6, nan_ok=True)  # edges: linspace


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_prints_torchs_grad_fn(reduction):
    """Notebooks print the loss: tensor(2.3389, grad_fn=<NllLossBackward0>)."""
    names = []
    for lib in (labkit, torch):
        x = lib.tensor([[0.5, -1.0, 2.0], [0.0, 0.0, 1.0]], requires_grad=True)
        y = lib.tensor([2, 0])
        loss = lib.nn.functional.cross_entropy(x, y, reduction=reduction)
        names.append((type(loss.grad_fn).__name__, type(lib.nn.CrossEntropyLoss()(x, y).grad_fn).__name__,
                      repr(lib.nn.functional.cross_entropy(x[:1], y[:1]))))
    assert names[0] == names[1]


@pytest.mark.parametrize("batch_first,unbatched", [(False, False), (True, False), (False, True)])
def test_lstm_takes_its_state_as_a_list_like_torch(batch_first, unbatched):
    """yunjey's language model: states = [state.detach() for state in states]; lstm(x, states)."""
    outs = []
    for lib in (labkit, torch):
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(3, 4, batch_first=batch_first)
        x = lib.arange(12.0).view(2, 2, 3) / 10
        h = lib.full((1, 2, 4), 0.1)
        if unbatched:
            x, h = x[0], h[:, 0]
        out, (h_n, c_n) = lstm(x, [h, h * 2])
        outs.append((out.shape, h_n.shape, out.detach().tolist()))
        if not unbatched:     # (torch lets an unbatched 3-list through)
            with pytest.raises((TypeError, RuntimeError, IndexError)):
                lstm(x, [h, h, h])
    assert outs[0][:2] == outs[1][:2]
    assert np.allclose(outs[0][2], outs[1][2], atol=1e-6)


@pytest.mark.parametrize("op,args,shape", [
    ("unsqueeze_", (-1,), (2, 3)), ("unsqueeze_", (0,), ()), ("squeeze_", (), (3, 1, 2)),
    ("squeeze_", (1,), (0, 1)), ("squeeze_", (0,), (2, 3)), ("t_", (), (2, 3)), ("t_", (), (4,)),
    ("transpose_", (0, 2), (1, 2, 3)), ("swapdims_", (0, 1), (2, 3)),
    ("swapaxes_", (1, 0), (2, 1))], ids=str)
def test_shape_changes_in_place_like_torch(op, args, shape):
    """char-RNN generation: target_line_tensor.unsqueeze_(-1) keeps the tensor, changes its shape."""
    res = []
    for lib in (labkit, torch):
        x = lib.arange(int(np.prod(shape)), dtype=lib.float32).reshape(shape)
        y = getattr(x, op)(*args)
        res.append((y is x, tuple(x.shape), x.tolist(), x.is_contiguous()))
    assert res[0] == res[1]


def test_shape_in_place_shares_memory_and_records_grad_like_torch():
    res = []
    for lib in (labkit, torch):
        base = lib.arange(6.0)
        view = base[:4]
        view.unsqueeze_(1)
        view[0, 0] = 100
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with pytest.raises(RuntimeError):
            w.unsqueeze_(0)                              # a leaf that requires grad
        y = w * 2
        y.unsqueeze_(0)
        (y * lib.tensor([[1.0, 2.0, 3.0]])).sum().backward()
        with lib.no_grad():
            w.t_()                                       # allowed without grad mode
        res.append((base[0].item(), tuple(view.shape), tuple(y.shape), y.requires_grad,
                    w.grad.tolist()))
    assert res[0] == res[1]


RETURNS = [lambda lib, x: x.max(1), lambda lib, x: x.min(dim=0, keepdim=True),
           lambda lib, x: lib.sort(x[0], descending=True), lambda lib, x: x.topk(2),
           lambda lib, x: x.kthvalue(2, 1), lambda lib, x: x.median(1), lambda lib, x: x.mode(1),
           lambda lib, x: lib.cummax(x, 1), lambda lib, x: lib.cummin(x, 0),
           lambda lib, x: lib.aminmax(x), lambda lib, x: lib.histogram(x.view(-1), bins=2),
           lambda lib, x: lib.nanmedian(x, 1), lambda lib, x: lib.tensor(3.0).max(0),
           lambda lib, x: x[:, :0].max(0), lambda lib, x: lib.linalg.slogdet(lib.eye(2))]


@pytest.mark.parametrize("make", RETURNS, ids=[
    "max", "min", "sort", "topk", "kthvalue", "median", "mode", "cummax", "cummin", "aminmax",
    "histogram", "nanmedian", "0d", "empty", "slogdet"])
def test_named_results_print_and_unpack_like_torch(make):
    """print(x.max(1)) in a notebook shows torch.return_types.max(\\nvalues=..., \\nindices=...)."""
    res = []
    for lib in (labkit, torch):
        x = lib.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        r = make(lib, x)
        a, b = r
        res.append((repr(r), str(r), f"{r}", type(r).__name__, isinstance(r, tuple), len(r),
                    a is r[0], b is r[1]))
    assert [t.replace("labkit.", "torch.") if isinstance(t, str) else t for t in res[0]] == \
        list(res[1])


def test_deepcopy_of_a_trained_module_like_torch():
    """transformer tutorial: best_model = copy.deepcopy(model) after backward and step."""
    import copy
    res = []
    for lib in (labkit, torch):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.LayerNorm(2))
        opt = lib.optim.Adam(m.parameters())
        m(lib.ones(4, 3)).pow(2).sum().backward()
        opt.step()
        m2 = copy.deepcopy(m)
        m2[0].weight.data.fill_(1.0)
        sd = copy.deepcopy(opt.state_dict())
        x = lib.arange(6.0)
        a, b = copy.deepcopy([x, x[2:4]])                # views keep sharing in the copy
        b[0] = 100.0
        g = lib.ones(2, requires_grad=True)
        (g * 3).sum().backward()
        h = copy.deepcopy(g)
        with pytest.raises(RuntimeError):
            copy.deepcopy(g * 2)                         # not a leaf
        res.append((type(m2[0].weight).__name__, m2[0].weight.grad is None,
                    m[0].weight.data.eq(1).all().item(), m2[0].weight.requires_grad,
                    sorted(sd["state"][0]), a.tolist(), x.tolist(), h.grad.tolist(),
                    h.grad is not g.grad, h.requires_grad, h.is_leaf,
                    tuple(copy.deepcopy(lib.zeros(0, 3)).shape),
                    copy.deepcopy(lib.tensor(2.5)).item(),
                    copy.deepcopy(lib.ones(3, 2).t()).tolist(),
                    m2(lib.ones(1, 3)).shape == (1, 2)))
    assert res[0] == res[1]
