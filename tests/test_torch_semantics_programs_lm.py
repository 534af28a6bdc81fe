"""What language-model notebooks and textbook programs (tests/compat/programs/lm_*.py) met on
labkit: softmax / log_softmax with dtype=, the attention-kernel switches (sdpa_kernel,
SDPBackend, torch.backends.cuda's sdp flags), `with torch.device(...)`, load_state_dict(assign=
True) and Module.compile. Each compares with torch."""
import os
import tempfile
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")

DTYPES = [("float64", "float32"), ("float32", "float64"), ("int64", "float32"),
          ("bfloat16", "float32"), ("float16", "float32")]


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("src,dst", DTYPES, ids=lambda d: str(d))
@pytest.mark.parametrize("shape,dim", [((3, 5), -1), ((2, 0, 4), 1), ((), 0), ((1, 4), 0)],
                         ids=["2d", "size0", "0d", "size1"])
def test_softmax_dtype_casts_first_like_torch(fn, src, dst, shape, dim):
    data = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) % 7 - 3
    t = torch.tensor(data).to(getattr(torch, src))
    l = labkit.tensor(data).to(getattr(labkit, src))
    calls = [(lambda lib, x: getattr(lib, fn)(x, dim, dtype=getattr(lib, dst))),
             (lambda lib, x: getattr(lib.nn.functional, fn)(x, dim=dim, dtype=getattr(lib, dst))),
             (lambda lib, x: getattr(x, fn)(dim, dtype=getattr(lib, dst))),
             (lambda lib, x: getattr(lib, fn)(x, dim, getattr(lib, dst)))]   # torch.softmax's 3rd
    for call in calls:
        want, got = call(torch, t), call(labkit, l)
        assert str(got.dtype).replace("labkit", "torch") == str(want.dtype)
        np.testing.assert_allclose(got.detach().double().numpy(), want.detach().double().numpy(),
                                   rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_dtype_gradient_flows_back_in_the_input_dtype(fn):
    data = np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -2.0]])
    up = np.array([[0.3, -0.2, 1.0], [2.0, 0.1, -1.0]])
    grads, names = [], []
    for lib in (torch, labkit):
        x = lib.tensor(data, dtype=lib.float32, requires_grad=True)
        y = getattr(lib.nn.functional, fn)(x, dim=-1, dtype=lib.float64)
        y.backward(lib.tensor(up, dtype=lib.float64))
        grads.append(x.grad)
        names.append((type(y.grad_fn).__name__.rstrip("_"),
                      [type(n).__name__ for n, _ in y.grad_fn.next_functions]))
    assert str(grads[1].dtype).endswith("float32") and str(grads[0].dtype).endswith("float32")
    np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=1e-6)
    assert names[1][0].replace("Backward0", "") in names[0][0]
    assert names[1][1] == names[0][1] == ["ToCopyBackward0"]


def test_functional_softmax_third_positional_is_stacklevel_like_torch():
    x = [1.0, 2.0, 3.0]
    want = torch.nn.functional.softmax(torch.tensor(x), 0, 3)
    got = labkit.nn.functional.softmax(labkit.tensor(x), 0, 3)
    assert got.dtype == labkit.float32 and want.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_softmax_of_integers_without_dtype_still_fails_like_torch():
    with pytest.raises(NotImplementedError):
        torch.softmax(torch.tensor([1, 2]), 0)
    with pytest.raises(NotImplementedError, match="softmax"):
        labkit.softmax(labkit.tensor([1, 2]), 0)


def test_sdpa_kernel_context_accepts_backends_and_rejects_others_like_torch():
    from torch.nn.attention import SDPBackend as TB, sdpa_kernel as tk
    from labkit.nn.attention import SDPBackend as LB, sdpa_kernel as lk
    assert {n: int(v) for n, v in LB.__members__.items()} == \
        {n: int(v) for n, v in TB.__members__.items()}
    q = np.random.default_rng(0).standard_normal((2, 3, 5, 4))
    outs = []
    for lib, B, kern in ((torch, TB, tk), (labkit, LB, lk)):
        x = lib.tensor(q, dtype=lib.float32)
        with kern(B.MATH):
            a = lib.nn.functional.scaled_dot_product_attention(x, x, x, is_causal=True)
        with kern([B.FLASH_ATTENTION, B.MATH], set_priority=True):
            b = lib.nn.functional.scaled_dot_product_attention(x, x, x, is_causal=True)
        outs.append((a.numpy(), b.numpy()))
        with pytest.raises(AssertionError, match="SDPBackend"):
            with kern("math"):
                pass
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("which", ["flash", "mem_efficient", "math", "cudnn"])
def test_backends_cuda_sdp_flags_set_and_read_back_like_torch(which):
    for lib in (torch, labkit):
        cuda = lib.backends.cuda
        enabled, enable = getattr(cuda, f"{which}_sdp_enabled"), getattr(cuda, f"enable_{which}_sdp")
        before = enabled()
        assert before is True
        enable(False)
        assert enabled() is False
        enable(True)
        assert enabled() is True


def test_backends_cuda_sdp_kernel_warns_sets_and_restores_like_torch():
    seen = []
    for lib in (torch, labkit):
        cuda = lib.backends.cuda
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False):
                inside = (cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(),
                          cuda.math_sdp_enabled())
        seen.append((inside, cuda.flash_sdp_enabled(), [x.category for x in w]))
    assert seen[1] == seen[0] == ((False, False, True), True, [FutureWarning])


def test_device_as_context_manager_sets_the_default_device_like_torch():
    for lib in (torch, labkit):
        with lib.device("cpu") as d:
            assert d == lib.device("cpu")
            assert lib.get_default_device() == lib.device("cpu")
            assert lib.nn.Linear(2, 3).weight.device == d
            assert lib.zeros(1).device == d
        with lib.device("cpu"), lib.device("cpu"):      # nested, then restored
            pass
        assert lib.get_default_device() == lib.device("cpu")


def _load_twice(lib, assign):
    lib.manual_seed(0)
    src = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
    sd = {k: v.clone() + 1 for k, v in src.state_dict().items()}
    dst = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
    dst[0].bias.requires_grad_(False)
    old_weight = dst[0].weight
    result = dst.load_state_dict(sd, assign=assign)
    return dict(
        keys=(list(result.missing_keys), list(result.unexpected_keys)),
        same_object=[dst.state_dict(keep_vars=True)[k] is v for k, v in sd.items()],
        shares_memory=[dst.state_dict()[k].data_ptr() == v.data_ptr() for k, v in sd.items()],
        weight_replaced=dst[0].weight is not old_weight,
        is_param=[type(p).__name__ for p in dst.parameters()],
        requires_grad=[p.requires_grad for p in dst.parameters()],
        values=[v.detach().numpy().tolist() for v in dst.state_dict().values()],
        named=[n for n, _ in dst.named_parameters()] + [n for n, _ in dst.named_buffers()])


@pytest.mark.parametrize("assign", [False, True])
def test_load_state_dict_assign_like_torch(assign):
    assert _load_twice(labkit, assign) == _load_twice(torch, assign)


def test_load_state_dict_assign_keeps_the_checks_like_torch():
    for lib in (torch, labkit):
        m = lib.nn.Linear(3, 2)
        with pytest.raises(RuntimeError, match="size mismatch"):
            m.load_state_dict({"weight": lib.zeros(3, 3), "bias": lib.zeros(2)}, assign=True)
        with pytest.raises(RuntimeError, match="Missing key"):
            m.load_state_dict({"weight": lib.zeros(2, 3)}, assign=True)
        res = m.load_state_dict({"weight": lib.zeros(2, 3)}, strict=False, assign=True)
        assert list(res.missing_keys) == ["bias"] and float(m.weight.detach().abs().sum()) == 0


def test_load_state_dict_assign_of_a_parameter_keeps_it_like_torch():
    for lib in (torch, labkit):
        m = lib.nn.Linear(2, 2)
        p = lib.nn.Parameter(lib.ones(2, 2), requires_grad=False)
        m.load_state_dict({"weight": p, "bias": lib.zeros(2)}, assign=True)
        assert m.weight is p and m.weight.requires_grad is True     # the model's flag wins


def test_load_state_dict_assign_after_torch_load_round_trip():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.pth")
        labkit.manual_seed(0)
        m = labkit.nn.Linear(4, 3)
        labkit.save(m.state_dict(), path)
        sd = labkit.load(path, weights_only=True)
        n = labkit.nn.Linear(4, 3)
        n.load_state_dict(sd, assign=True)
        assert n.weight.data_ptr() == sd["weight"].data_ptr()
        x = labkit.ones(1, 4)
        np.testing.assert_array_equal(n(x).detach().numpy(), m(x).detach().numpy())
        n(x).sum().backward()
        assert n.weight.grad.shape == (3, 4)


def test_module_compile_is_in_place_and_returns_none_like_torch():
    for lib in (torch, labkit):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        x = lib.ones(4, 3)
        before = m(x).detach().numpy()
        assert m.compile() is None
        assert type(m).__name__ == "Linear" and list(m.state_dict()) == ["weight", "bias"]
        np.testing.assert_allclose(m(x).detach().numpy(), before, rtol=1e-6)


def test_module_compile_rejects_an_unknown_mode_like_torch():
    for lib in (torch, labkit):
        with pytest.raises(RuntimeError, match="Unrecognized mode"):
            lib.nn.Linear(2, 2).compile(mode="fastest")


def test_random_sampler_with_a_huge_num_samples_draws_lazily_like_torch():
    """minGPT's Trainer samples RandomSampler(ds, replacement=True, num_samples=int(1e10)):
    torch draws 32 indices at a time; labkit drew all 1e10 up front (out of memory)."""
    firsts = []
    for lib in (torch, labkit):
        lib.manual_seed(3407)
        ds = lib.utils.data.TensorDataset(lib.arange(10))
        sampler = lib.utils.data.RandomSampler(ds, replacement=True, num_samples=int(1e10))
        loader = lib.utils.data.DataLoader(ds, sampler=sampler, batch_size=4)
        it = iter(loader)
        firsts.append(([next(it)[0].tolist() for _ in range(5)], len(sampler), len(loader),
                       [i for i, _ in zip(iter(sampler), range(7))]))
    assert firsts[1] == firsts[0]


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("drop_last", [True, False])
def test_random_sampler_batches_across_draw_chunks_like_torch(replacement, drop_last):
    """An epoch longer than labkit's draw chunk (65536 indices): batches straddling two chunks
    and the short last batch come out as torch's."""
    got = []
    for lib in (torch, labkit):
        g = lib.Generator().manual_seed(5)
        ds = lib.utils.data.TensorDataset(lib.arange(30000))
        sampler = lib.utils.data.RandomSampler(ds, replacement=replacement, num_samples=70001,
                                               generator=g)
        batches = list(lib.utils.data.BatchSampler(sampler, 1000, drop_last=drop_last))
        got.append((len(batches), batches[65], batches[-1][-3:], len(batches[-1]),
                    sum(len(b) for b in batches)))
    assert got[1] == got[0]


def _twin_conv(lib, seed=0):
    rng = np.random.default_rng(seed)
    conv = lib.nn.Conv1d(3, 4, 2)
    with lib.no_grad():
        conv.weight.copy_(lib.tensor(rng.standard_normal((4, 3, 2)), dtype=lib.float32))
        conv.bias.copy_(lib.tensor(rng.standard_normal(4), dtype=lib.float32))
    return conv


@pytest.mark.parametrize("dim", [0, 1, 2, None, -1])
@pytest.mark.parametrize("style", ["hook", "parametrization"])
def test_weight_norm_values_keys_and_gradients_like_torch(dim, style):
    x = np.random.default_rng(1).standard_normal((2, 3, 5))
    up = np.random.default_rng(2).standard_normal((2, 4, 4))
    seen = []
    for lib in (torch, labkit):
        conv = _twin_conv(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            if style == "hook":
                conv = lib.nn.utils.weight_norm(conv, dim=dim)
                g, v = conv.weight_g, conv.weight_v
            else:
                conv = lib.nn.utils.parametrizations.weight_norm(conv, dim=dim)
                g = conv.parametrizations.weight.original0
                v = conv.parametrizations.weight.original1
        with lib.no_grad():
            g.mul_(1.5)          # the weight follows g on the next forward
        y = conv(lib.tensor(x, dtype=lib.float32))
        y.backward(lib.tensor(up, dtype=lib.float32))
        seen.append(dict(keys=list(conv.state_dict().keys()), cls=type(conv).__name__,
                         g_shape=tuple(g.shape), y=y.detach().numpy(), g_grad=g.grad.numpy(),
                         v_grad=v.grad.numpy(), w=conv.weight.detach().numpy()))
    t, l = seen
    assert (l["keys"], l["cls"], l["g_shape"]) == (t["keys"], t["cls"], t["g_shape"])
    for k in ("y", "g_grad", "v_grad", "w"):
        np.testing.assert_allclose(l[k], t[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_weight_norm_hook_warns_removes_and_refuses_twice_like_torch():
    for lib in (torch, labkit):
        lin = lib.nn.Linear(3, 2)
        with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
            lib.nn.utils.weight_norm(lin)
        with pytest.raises(RuntimeError, match="two weight_norm hooks"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                lib.nn.utils.weight_norm(lin)
        w = lin.weight.detach().clone()
        lib.nn.utils.remove_weight_norm(lin)
        assert list(lin.state_dict()) == ["bias", "weight"]
        assert isinstance(lin.weight, lib.nn.Parameter) and bool((lin.weight == w).all())
        with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
            lib.nn.utils.remove_weight_norm(lin)


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    return Symmetric()


def test_register_parametrization_repr_keys_and_removal_like_torch():
    seen = []
    for lib in (torch, labkit):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 3)
        P = lib.nn.utils.parametrize
        P.register_parametrization(layer, "weight", _symmetric(lib))
        rec = [repr(layer).replace("labkit", "torch"), list(layer.state_dict()),
               P.is_parametrized(layer), P.is_parametrized(layer, "bias"),
               P.type_before_parametrizations(layer).__name__,
               bool((layer.weight == layer.weight.T).all()),
               type(layer.weight.grad_fn).__name__ != "NoneType"]
        with P.cached():
            rec.append(layer.weight is layer.weight)
        rec.append(layer.weight is layer.weight)
        with pytest.raises(ValueError, match="does not have a parametrization on bias"):
            P.remove_parametrizations(layer, "bias")
        sym = layer.weight.detach().clone()
        P.remove_parametrizations(layer, "weight")
        rec += [type(layer).__name__, list(layer.state_dict()),
                bool((layer.weight == sym).all()), isinstance(layer.weight, lib.nn.Parameter)]
        seen.append(rec)
    assert seen[1] == seen[0]


def test_parametrization_checks_shape_changes_like_torch():
    for lib in (torch, labkit):
        class Flatten(lib.nn.Module):
            def forward(self, X):
                return X.reshape(-1)
        with pytest.raises(ValueError, match="may not change the shape"):
            lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                              Flatten())
        with pytest.raises(ValueError, match="does not have a parameter"):
            lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "nothing",
                                                              Flatten())


def test_module_list_repr_names_subclasses_and_adds_like_torch():
    for lib in (torch, labkit):
        class Blocks(lib.nn.ModuleList):
            pass
        a = Blocks([lib.nn.ReLU(), lib.nn.ReLU(), lib.nn.Tanh()])
        both = lib.nn.ModuleList([lib.nn.ReLU()]) + a
        assert repr(a) == "Blocks(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n)" and repr(Blocks()) == "Blocks()"
        assert type(both) is lib.nn.ModuleList and len(both) == 4 and both[3] is a[2]


def test_nn_buffer_registers_on_assignment_like_torch():
    seen = []
    for lib in (torch, labkit):
        x = lib.ones(2, requires_grad=True)
        b = lib.nn.Buffer(x, persistent=False)
        m = lib.nn.Linear(2, 2)
        m.mask = b
        m.scale = lib.nn.Buffer(lib.zeros(1))
        m.scale = lib.ones(3)                      # assigning a tensor to a buffer replaces it
        seen.append((isinstance(b, lib.nn.Buffer), isinstance(lib.ones(1), lib.nn.Buffer),
                     b.requires_grad, b.grad_fn is None, b.persistent,
                     list(dict(m.named_buffers())), list(m.state_dict()),
                     m.scale.tolist(), tuple(lib.nn.Buffer().shape), m.mask is b))
    assert seen[1] == seen[0]
