"""Behaviours the tut3_ compat programs (PyTorch's own tutorials) needed, each compared with
torch: saving a non-leaf tensor, and torch.autograd.graph.save_on_cpu."""
import io

import numpy as np
import pytest

import labkit
import labkit.autograd.graph
from conftest import to_numpy

torch = pytest.importorskip("torch")


def _roundtrip(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return lib.load(buf)


@pytest.mark.parametrize("make", [lambda lib, x: x.tanh(), lambda lib, x: {"h": x * 2, "n": 3}])
def test_save_non_leaf_loads_as_leaf_requiring_grad(make):
    # saved_tensors_hooks "save to disk" packs activations with torch.save
    x_t = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x_l = labkit.tensor([0.5, -1.0, 2.0], requires_grad=True)
    back_t, back_l = _roundtrip(torch, make(torch, x_t)), _roundtrip(labkit, make(labkit, x_l))
    if isinstance(back_t, dict):
        assert back_l["n"] == back_t["n"]
        back_t, back_l = back_t["h"], back_l["h"]
    assert back_l.requires_grad == back_t.requires_grad is True
    assert back_l.is_leaf == back_t.is_leaf is True
    assert back_l.grad_fn is None and back_t.grad_fn is None
    assert abs(to_numpy(back_l) - back_t.detach().numpy()).max() < 1e-6


@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_gives_the_same_gradients(pin_memory):
    def run(lib, graph):
        w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        x = lib.tensor([0.5, 0.25, -1.0], requires_grad=True)
        with graph.save_on_cpu(pin_memory=pin_memory):
            y = (w * x).tanh() * w
        y.sum().backward()
        return w.grad, x.grad

    (gw_t, gx_t), (gw_l, gx_l) = run(torch, torch.autograd.graph), run(labkit,
                                                                        labkit.autograd.graph)
    assert abs(to_numpy(gw_l) - gw_t.numpy()).max() < 1e-6
    assert abs(to_numpy(gx_l) - gx_t.numpy()).max() < 1e-6


def test_save_on_cpu_packs_device_and_cpu_tensor():
    packed = []
    hooks = labkit.autograd.graph.save_on_cpu()
    orig_pack = hooks.pack_hook
    hooks.pack_hook = lambda t: packed.append(orig_pack(t)) or packed[-1]
    x = labkit.ones(3, requires_grad=True)
    with hooks:
        y = x * x
    y.sum().backward()
    assert packed and all(dev == x.device and t.device.type == "cpu" for dev, t in packed)
    assert (to_numpy(x.grad) == 2.0).all()


# the "Transforms" tutorial's one-hot target: torch.zeros(10).scatter_(0, torch.tensor(y), value=1)
@pytest.mark.parametrize("case", ["scatter_value", "scatter_", "scatter_src", "scatter_add",
                                  "scatter_reduce", "gather"])
def test_zero_dim_index_on_a_1d_input(case, device):
    def run(lib, dev):
        x = lib.arange(5.0, device=dev)
        i = lib.tensor(3, device=dev)
        src = lib.tensor([7.0, 8.0], device=dev)
        return {"scatter_value": lambda: x.scatter(0, i, 1.5),
                "scatter_": lambda: lib.zeros(10, device=dev).scatter_(0, i, value=1),
                "scatter_src": lambda: x.scatter(0, i, src),
                "scatter_add": lambda: x.scatter_add(0, i, src),
                "scatter_reduce": lambda: x.scatter_reduce(0, i, src, "amax"),
                "gather": lambda: lib.gather(x, 0, i)}[case]()

    mine, ref = run(labkit, device), run(torch, "cpu")
    assert tuple(mine.shape) == tuple(ref.shape)
    assert (to_numpy(mine) == ref.numpy()).all()


def test_zero_dim_index_gradients(device):
    # torch's gather backward agrees; its scatter backward to src rejects the 0-d index
    # (an internal shape error): labkit gives src[0] the gradient, never a broadcast one
    a_t = torch.arange(5.0, requires_grad=True)
    torch.gather(a_t * 2, 0, torch.tensor(4)).backward()
    a = labkit.arange(5.0, device=device, requires_grad=True)
    labkit.gather(a * 2, 0, labkit.tensor(4, device=device)).backward()
    assert (to_numpy(a.grad) == a_t.grad.numpy()).all()
    for op in ("scatter", "scatter_add"):
        s = labkit.tensor([7.0, 8.0], device=device, requires_grad=True)
        z = getattr(labkit.zeros(5, device=device), op)(0, labkit.tensor(1, device=device), s)
        (z * labkit.arange(5.0, device=device)).sum().backward()
        assert to_numpy(s.grad).tolist() == [1.0, 0.0]


def test_zero_dim_index_on_a_2d_input_raises_like_torch():
    with pytest.raises(RuntimeError):
        torch.zeros(3, 4).scatter_(0, torch.tensor(2), value=1)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        labkit.zeros(3, 4).scatter_(0, labkit.tensor(2), value=1)


# "Reasoning about Shapes": tensors made on the meta device
@pytest.mark.parametrize("make", ["rand", "randn", "zeros", "ones", "empty", "randint"])
def test_meta_creation_allocates_nothing_and_leaves_the_generator_alone(make):
    def run(lib):
        lib.manual_seed(0)
        huge = (2**20, 2**20)
        args = {"randint": lambda: lib.randint(0, 5, huge, device="meta")}.get(
            make, lambda: getattr(lib, make)(*huge, device="meta"))
        t = args()
        return t, lib.randn(3)

    (t_l, after_l), (t_t, after_t) = run(labkit), run(torch)
    assert tuple(t_l.shape) == tuple(t_t.shape) and str(t_l.dtype) == str(t_t.dtype).replace(
        "torch", "labkit")
    assert t_l.is_meta and t_t.is_meta
    assert abs(to_numpy(after_l) - after_t.numpy()).max() < 1e-6   # the same next draws


def test_meta_default_device_context():
    for lib in (torch, labkit):
        with lib.device("meta"):
            x = lib.randn(4, 5)
        assert x.is_meta and not lib.zeros(1).is_meta


def test_swap_tensors_like_torch():
    def run(lib):
        a, b = lib.arange(3.0), lib.ones(2, requires_grad=True)
        lib.utils.swap_tensors(a, b)
        return a, b
    (a_l, b_l), (a_t, b_t) = run(labkit), run(torch)
    assert to_numpy(a_l).tolist() == a_t.tolist() and to_numpy(b_l).tolist() == b_t.tolist()
    assert (a_l.requires_grad, b_l.requires_grad) == (a_t.requires_grad, b_t.requires_grad)
    p_l = labkit.nn.Parameter(labkit.zeros(2))
    p_t = torch.nn.Parameter(torch.zeros(2))
    q_l, q_t = labkit.ones(3), torch.ones(3)
    labkit.utils.swap_tensors(p_l, q_l)
    torch.utils.swap_tensors(p_t, q_t)
    assert (type(p_l).__name__, type(q_l).__name__) == (type(p_t).__name__, type(q_t).__name__)


def test_swap_tensors_refuses_a_weakly_referenced_tensor():
    import weakref
    for lib in (torch, labkit):
        w = lib.ones(2)
        ref = weakref.ref(w)
        with pytest.raises(RuntimeError, match="weakref"):
            lib.utils.swap_tensors(w, lib.zeros(3))
        assert ref() is w


# the SDPA tutorial's CausalSelfAttention: y.transpose(1, 2).view(...) right after sdpa
def _qkv_layouts(lib):
    g = np.random.default_rng(0)
    x = lib.tensor(g.standard_normal((2, 6, 96)).astype(np.float32))
    q, k, v = (t.view(2, -1, 4, 8).transpose(1, 2) for t in x.chunk(3, -1))
    plain = lib.tensor(g.standard_normal((2, 4, 6, 8)).astype(np.float32))
    odd = lib.tensor(g.standard_normal((2, 8, 6, 4)).astype(np.float32)).transpose(1, 3)
    return {"chunked": (q, k, v), "transposed": (q.contiguous().transpose(1, 2).contiguous()
                                                 .transpose(1, 2), k, v),
            "contiguous": (q.contiguous(), k, v), "plain": (plain, plain, plain),
            "last_dim_strided": (odd, odd, odd)}


@pytest.mark.parametrize("case", ["chunked", "transposed", "contiguous", "plain",
                                  "last_dim_strided"])
def test_sdpa_output_layout_follows_the_query(case):
    out_l = labkit.nn.functional.scaled_dot_product_attention(*_qkv_layouts(labkit)[case])
    out_t = torch.nn.functional.scaled_dot_product_attention(*_qkv_layouts(torch)[case])
    assert tuple(out_l.stride()) == tuple(out_t.stride())
    assert abs(to_numpy(out_l) - out_t.numpy()).max() < 1e-5
    if out_t.transpose(1, 2).is_contiguous():
        assert tuple(out_l.transpose(1, 2).view(2, 6, 32).shape) == (2, 6, 32)


def test_sdpa_layout_change_keeps_gradients():
    def run(lib):
        g = np.random.default_rng(1)
        x = lib.tensor(g.standard_normal((2, 5, 48)).astype(np.float32), requires_grad=True)
        q, k, v = (t.view(2, -1, 2, 8).transpose(1, 2) for t in x.chunk(3, -1))
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        y.transpose(1, 2).view(2, 5, 16).pow(2).sum().backward()
        return x.grad
    assert abs(to_numpy(run(labkit)) - run(torch).numpy()).max() < 1e-5


# "Deploying a Seq2Seq Model with TorchScript": forward(self, input_seq: torch.Tensor, ...)
def _scaled_lk(x: labkit.Tensor, k: float):
    return x * k + 1


def _scaled_torch(x: "torch.Tensor", k: float):
    return x * k + 1


def test_script_accepts_a_dotted_tensor_annotation():
    _scaled_torch.__annotations__["x"] = torch.Tensor
    out_t = torch.jit.script(_scaled_torch)(torch.tensor([1.0, 2.0]), 3.0)
    out_l = labkit.jit.script(_scaled_lk)(labkit.tensor([1.0, 2.0]), 3.0)
    assert to_numpy(out_l).tolist() == out_t.tolist()


# "Visualizing Models, Data, and Training with TensorBoard": writer.add_image(tag, img_grid)
def _logged_images(lib, tmp_path, name, img, **kw):
    import importlib
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader
    logdir = tmp_path / name
    w = importlib.import_module(lib.__name__ + ".utils.tensorboard").SummaryWriter(str(logdir))
    w.add_image("grid", img, 3, **kw)
    w.close()
    (events,) = list(logdir.glob("events.out.tfevents.*"))
    out = []
    for ev in LegacyEventFileLoader(str(events)).Load():
        for v in ev.summary.value:
            if v.HasField("image"):
                out.append((ev.step, v.image.height, v.image.width, v.image.colorspace,
                            v.image.encoded_image_string))
    return out


@pytest.mark.parametrize("shape,fmt,dtype", [((1, 5, 7), "CHW", "float32"),
                                             ((3, 4, 6), "CHW", "float32"),
                                             ((4, 6, 3), "HWC", "uint8"),
                                             ((5, 7), "HW", "float64"),
                                             ((6, 2, 4), "HWC", "float32")])
def test_add_image_matches_torch(tmp_path, shape, fmt, dtype):
    pytest.importorskip("tensorboard")
    PIL = pytest.importorskip("PIL.Image")
    import io as _io
    g = np.random.default_rng(0)
    arr = (g.random(shape) * 1.2 - 0.1) if dtype != "uint8" else g.integers(0, 256, shape)
    arr = arr.astype(dtype)
    (ref,) = _logged_images(torch, tmp_path, "t", torch.from_numpy(arr), dataformats=fmt)
    (mine,) = _logged_images(labkit, tmp_path, "l", labkit.from_numpy(arr), dataformats=fmt)
    assert mine[:4] == ref[:4]
    a = np.asarray(PIL.open(_io.BytesIO(mine[4])).convert("RGBA"))
    b = np.asarray(PIL.open(_io.BytesIO(ref[4])).convert("RGBA"))
    assert (a == b).all()


def test_add_image_refuses_a_wrong_layout(tmp_path):
    pytest.importorskip("tensorboard")
    from labkit.utils.tensorboard import SummaryWriter
    w = SummaryWriter(str(tmp_path))
    with pytest.raises(ValueError, match="dataformats"):
        w.add_image("x", labkit.zeros(3, 4), dataformats="CHW")
    w.close()


# "Creating Extensions Using NumPy and SciPy": from torch.autograd.gradcheck import gradcheck
def test_gradcheck_submodule_import_keeps_the_function():
    import importlib
    for lib in ("torch", "labkit"):
        sub = importlib.import_module(lib + ".autograd.gradcheck")
        pkg = importlib.import_module(lib + ".autograd")
        assert callable(pkg.gradcheck)           # the package attribute is still the function
        assert callable(sub.gradcheck) and callable(sub.gradgradcheck)
        assert issubclass(sub.GradcheckError, RuntimeError)
    x = labkit.randn(3, dtype=labkit.float64, requires_grad=True)
    assert importlib.import_module("labkit.autograd.gradcheck").gradcheck(lambda t: t * t, (x,))
