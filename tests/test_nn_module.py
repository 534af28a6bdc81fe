"""nn.Module's bookkeeping: registration, walking the tree, modes, devices, state_dict, repr,
hooks, and the containers."""
from collections import OrderedDict

import numpy as np
import pytest

import labkit
from labkit import nn


class Block(nn.Module):
    """Two parallel Linears multiplied elementwise, then a ReLU (lecture 04's ParallelBlock)."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.linear1 = nn.Linear(d_in, d_out)
        self.linear2 = nn.Linear(d_in, d_out)
        self.scale = nn.Parameter(labkit.ones(d_out))
        self.register_buffer("calls", labkit.zeros(()))
        self.note = "plain attribute"

    def forward(self, x):
        return (self.linear1(x) * self.linear2(x)).relu() * self.scale


def model():
    return nn.Sequential(Block(3, 4), nn.Dropout(0.1), Block(4, 2))


def test_attribute_assignment_registers_parameters_buffers_and_children():
    m = model()
    assert [n for n, _ in m.named_parameters()] == [
        "0.scale", "0.linear1.weight", "0.linear1.bias", "0.linear2.weight", "0.linear2.bias",
        "2.scale", "2.linear1.weight", "2.linear1.bias", "2.linear2.weight", "2.linear2.bias"]
    assert [n for n, _ in m.named_buffers()] == ["0.calls", "2.calls"]
    assert [n for n, _ in m.named_children()] == ["0", "1", "2"]
    assert [n for n, _ in m.named_modules()] == [
        "", "0", "0.linear1", "0.linear2", "1", "2", "2.linear1", "2.linear2"]
    assert [type(c).__name__ for c in m.children()] == ["Block", "Dropout", "Block"]
    assert len(list(m.modules())) == 8 and len(list(m.buffers())) == 2
    assert sum(p.numel() for p in m.parameters()) == 2 * (3 * 4 + 4) + 4 + 2 * (4 * 2 + 2) + 2
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())
    assert [n for n, _ in m[0].named_parameters(recurse=False)] == ["scale"]
    assert m[0].note == "plain attribute" and "note" not in dict(m[0].named_parameters())
    assert m.get_submodule("2.linear1") is m[2].linear1
    assert "linear1" in dir(m[0])


def test_shared_parameters_and_modules_are_listed_once():
    lin = nn.Linear(2, 2)
    m = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(m.parameters())) == 2
    assert len(list(m.modules())) == 3
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_reassigning_and_deleting_attributes():
    b = Block(2, 2)
    b.linear1 = None
    assert "linear1.weight" not in dict(b.named_parameters()) and b.linear1 is None
    b.scale = None
    assert b.scale is None and "scale" not in dict(b.named_parameters())
    b.calls = labkit.ones(())
    assert b.state_dict()["calls"].item() == 1
    with pytest.raises(TypeError, match="Parameter or None expected"):
        b.linear2.weight = labkit.randn(2, 2)
    with pytest.raises(TypeError, match="Module or None expected"):
        b.linear2 = 3
    del b.linear2
    assert not hasattr(b, "linear2")
    b.linear2 = "now a plain attribute"
    assert b.linear2 == "now a plain attribute"


def test_registration_errors_teach():
    class Forgot(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        Forgot()
    m = nn.Module()
    with pytest.raises(TypeError, match="nn.Parameter"):
        m.register_parameter("w", labkit.randn(2))
    with pytest.raises(KeyError, match="without dots"):
        m.register_buffer("a.b", labkit.randn(2))
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("train", nn.Parameter(labkit.randn(2)))
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        m(labkit.randn(2))
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope


def test_train_eval_requires_grad_zero_grad_and_apply():
    m = model()
    assert m.training and m[1].training
    assert m.eval() is m and not any(x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())
    x = labkit.randn(5, 3)
    m(x).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m[0].requires_grad_(False)
    assert not any(p.requires_grad for p in m[0].parameters())
    assert all(p.requires_grad for p in m[2].parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "Block", "Dropout", "Linear", "Linear", "Block",
                    "Sequential"]


def test_to_dtype_and_device_keeps_the_same_parameter_objects():
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    params = list(m.parameters())
    m(labkit.randn(4, 2)).sum().backward()
    assert m.double() is m
    assert list(m.parameters()) == params or all(a is b for a, b in zip(m.parameters(), params))
    assert all(p.dtype == labkit.float64 and p.grad.dtype == labkit.float64 for p in params)
    assert m[1].running_mean.dtype == labkit.float64
    assert m[1].num_batches_tracked.dtype == labkit.int64        # not floating: not cast
    m.to("cpu").float()
    assert all(p.dtype == labkit.float32 for p in m.parameters())
    with pytest.raises(TypeError, match="floating point"):
        m.to(labkit.int64)
    if labkit.cuda.is_available():
        m.to("cuda")
        assert all(p.device.type == "cuda" for p in m.parameters())
        assert m(labkit.randn(4, 2, device="cuda")).device.type == "cuda"


def test_state_dict_round_trip_between_fresh_models():
    labkit.manual_seed(0)
    a = model()
    a(labkit.randn(3, 3))
    labkit.manual_seed(1)
    b = model()
    sd = a.state_dict()
    assert list(sd) == ["0.scale", "0.calls", "0.linear1.weight", "0.linear1.bias",
                        "0.linear2.weight", "0.linear2.bias", "2.scale", "2.calls",
                        "2.linear1.weight", "2.linear1.bias", "2.linear2.weight",
                        "2.linear2.bias"]
    assert all(not t.requires_grad for t in sd.values())
    result = b.load_state_dict(sd)
    assert repr(result) == "<All keys matched successfully>"
    a.eval()
    b.eval()
    x = labkit.randn(4, 3)
    assert np.array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    assert sd["0.scale"]._data is a[0].scale._data          # state_dict shares memory
    assert b[0].scale._data is not a[0].scale._data          # loading copies


def test_load_state_dict_errors_and_strict_false():
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    before = m[0].weight.detach().numpy().copy()
    sd = {k: v.clone() + 1 for k, v in m.state_dict().items()}
    sd["2.weight"] = labkit.zeros(5, 3)
    sd["extra.bias"] = labkit.zeros(1)
    del sd["2.bias"]
    with pytest.raises(RuntimeError) as err:
        m.load_state_dict(sd)
    msg = str(err.value)
    assert "Error(s) in loading state_dict for Sequential" in msg
    assert 'Unexpected key(s) in state_dict: "extra.bias"' in msg
    assert 'Missing key(s) in state_dict: "2.bias"' in msg
    assert ("size mismatch for 2.weight: copying a param with shape labkit.Size([5, 3]) from "
            "checkpoint, the shape in current model is labkit.Size([1, 3])") in msg
    assert "strict=False" in msg
    assert np.array_equal(m[0].weight.detach().numpy(), before)   # nothing was copied
    sd["2.weight"] = labkit.zeros(1, 3)
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["2.bias"] and result.unexpected_keys == ["extra.bias"]
    assert np.allclose(m[0].weight.detach().numpy(), before + 1)
    with pytest.raises(RuntimeError, match="expected a tensor"):
        m.load_state_dict({**m.state_dict(), "0.bias": [1.0, 2.0, 3.0]})


def test_state_dict_keys_and_repr_match_torch():
    torch = pytest.importorskip("torch")

    def build(M):
        return M.nn.Sequential(
            M.nn.Conv2d(1, 4, 3, padding=1), M.nn.BatchNorm1d(4), M.nn.ReLU(),
            M.nn.MaxPool2d(2), M.nn.Flatten(), M.nn.Dropout(0.2),
            M.nn.Linear(16, 8, bias=False), M.nn.LeakyReLU(0.2), M.nn.GELU(), M.nn.Sigmoid(),
            M.nn.Tanh(), M.nn.Softmax(dim=1), M.nn.Identity(), M.nn.Embedding(5, 3, padding_idx=0),
            M.nn.ModuleList([M.nn.Linear(2, 2), M.nn.Linear(2, 2), M.nn.ReLU()]),
            M.nn.ModuleDict({"head": M.nn.Linear(2, 1)}),
            M.nn.MSELoss(), M.nn.CrossEntropyLoss())

    mine, ref = build(labkit), build(torch)
    assert list(mine.state_dict()) == list(ref.state_dict())
    assert repr(mine) == repr(ref)
    assert repr(nn.Parameter(labkit.tensor([1.0, 2.0]))) == repr(
        torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())


def test_forward_hooks_see_and_replace_activations():
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    seen = []
    handle = m[0].register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    pre = m[1].register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    out = m(labkit.randn(4, 2))
    assert seen == [(4, 3)] and not out.detach().numpy().any()
    handle.remove()
    pre.remove()
    m(labkit.randn(4, 2))
    assert len(seen) == 1
    with m[1].register_forward_hook(lambda mod, args, out: out + 1):
        assert m(labkit.randn(1, 2)).detach().numpy().min() >= 1
    assert m(labkit.randn(1, 2)).detach().numpy().min() >= 0


def test_sequential_modulelist_moduledict():
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    assert len(s) == 2 and isinstance(s[0], nn.Linear) and isinstance(s[-1], nn.ReLU)
    assert isinstance(s[:1], nn.Sequential) and len(s[:1]) == 1
    s.append(nn.Linear(3, 1))
    assert s(labkit.randn(5, 2)).shape == (5, 1) and [type(x) for x in s][2] is nn.Linear
    with pytest.raises(IndexError, match="out of range"):
        s[3]
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert list(named.state_dict()) == ["fc.weight", "fc.bias"] and named.act is named[1]

    layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(3))
    layers.insert(0, nn.ReLU())
    layers[1] = nn.Tanh()
    layers.extend([nn.Sigmoid()])
    assert [type(x).__name__ for x in layers] == ["ReLU", "Tanh", "Linear", "Linear", "Sigmoid"]
    assert len(list(layers.parameters())) == 4 and len(layers[1:3]) == 2

    heads = nn.ModuleDict({"a": nn.Linear(2, 1)})
    heads["b"] = nn.Linear(2, 3)
    assert "b" in heads and list(heads) == ["a", "b"] and len(heads) == 2
    assert list(heads.state_dict()) == ["a.weight", "a.bias", "b.weight", "b.bias"]
    heads.pop("a")
    assert list(heads.keys()) == ["b"]
    with pytest.raises(TypeError, match="not a Module"):
        nn.Sequential(lambda x: x)


def test_parameter_basics():
    p = nn.Parameter(labkit.randn(2, 3))
    assert p.requires_grad and p.is_leaf and isinstance(p, labkit.Tensor)
    assert type(p * 2) is labkit.Tensor
    frozen = nn.Parameter(labkit.randn(2), requires_grad=False)
    assert not frozen.requires_grad
    assert nn.Parameter().shape == (0,)
    data = labkit.randn(3)
    assert nn.Parameter(data)._data is data._data                 # shares memory


def test_a_parameter_made_from_a_device_tensor_stays_on_the_device(device):
    t = labkit.randn(3, 2, device=device)
    p = nn.Parameter(t)
    assert p.device.type == device and p.requires_grad and p._data is t._data
    assert labkit.Tensor(t._data).device.type == device
