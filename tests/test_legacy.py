"""The older API (autograd.Variable, FloatTensor & co., Tensor.type, nelement, volatile,
range, manual_seed's Generator) against torch: same results, same warnings, same errors."""
import warnings

import numpy as np
import pytest

import labkit
from labkit.autograd import Variable

torch = pytest.importorskip("torch")

from conftest import assert_close  # noqa: E402

TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
         "CharTensor", "ByteTensor", "BoolTensor"]


def same_dtype(a, b):
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)


def warned(fn):
    """fn() and the messages of the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("args", [(2, 3), (0,), (4,), (), ([1, 0, 2],), ([[1.7, -2], [3, 4]],),
                                  ((2, 3),), (np.array([1, 2]),)])
def test_constructors(name, args):
    """From sizes (uninitialised: compare shape and dtype) and from data (compare values)."""
    mine, ref = getattr(labkit, name)(*args), getattr(torch, name)(*args)
    same_dtype(mine, ref)
    assert tuple(mine.shape) == tuple(ref.shape)
    if args and not isinstance(args[0], int):
        assert_close(mine, ref)


@pytest.mark.parametrize("name", TYPES)
def test_isinstance_and_size_argument(name):
    cls, tcls = getattr(labkit, name), getattr(torch, name)
    x = labkit.zeros(2, dtype=cls.dtype)
    assert isinstance(x, cls) and cls.dtype == getattr(labkit, str(tcls.dtype).split(".")[1])
    others = [n for n in TYPES if n != name]
    assert not any(isinstance(x, getattr(labkit, n)) for n in others)
    assert not isinstance(np.zeros(2), cls)
    assert tuple(cls(x.shape).shape) == tuple(tcls(torch.Size([2])).shape) == (2,)


def test_constructor_errors():
    with pytest.raises(TypeError):
        torch.FloatTensor(2, 3.0)
    with pytest.raises(TypeError, match="tuple of ints"):
        labkit.FloatTensor(2, 3.0)
    with pytest.raises(RuntimeError, match="negative dimension"):
        labkit.FloatTensor(-1)
    with pytest.raises(TypeError, match="must be a sequence"):
        labkit.FloatTensor(2.5)
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.tensor([1, 2]))
    with pytest.raises(TypeError, match="x.to"):
        labkit.FloatTensor(labkit.tensor([1, 2]))
    x = labkit.tensor([1.0, 2.0])
    assert labkit.FloatTensor(x)._data is x._data


def test_variable_is_a_detached_alias():
    x = labkit.ones(2)
    xt = torch.ones(2)
    for rg in (False, True):
        v, vt = Variable(x, requires_grad=rg), torch.autograd.Variable(xt, requires_grad=rg)
        assert v is not x and v.requires_grad == vt.requires_grad and v.is_leaf
        assert isinstance(v, labkit.Tensor) and isinstance(v, Variable)
        assert not x.requires_grad
    v = Variable(x)
    v.add_(1)                                      # shares memory, as torch's does
    assert x.tolist() == [2.0, 2.0]
    y = labkit.ones(2, requires_grad=True) * 2      # from a graph: cut from it
    v = Variable(y)
    assert v.grad_fn is None and not v.requires_grad
    assert isinstance(labkit.ones(1), Variable)
    assert Variable().shape == torch.autograd.Variable().shape == (0,)
    # the old training loop: wrap, forward, backward
    w = Variable(labkit.tensor([1.0, 2.0]), requires_grad=True)
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]


def test_variable_warnings_and_errors():
    x = labkit.ones(2)
    _, mine = warned(lambda: Variable(x, volatile=True))
    _, ref = warned(lambda: torch.autograd.Variable(torch.ones(2), volatile=True))
    assert mine == ref and len(mine) == 1
    _, none = warned(lambda: Variable(x))
    assert none == []
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        torch.autograd.Variable([1, 2])
    with pytest.raises(RuntimeError, match="floating point"):
        Variable(labkit.tensor([1, 2]), requires_grad=True)
    v, mine = warned(lambda: x.volatile)
    vt, ref = warned(lambda: torch.ones(2).volatile)
    assert v is vt is False and mine == ref


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int16",
                                   "int8", "uint8", "bool"])
def test_type_name_and_conversion(dtype):
    x = labkit.ones(2, 3, dtype=getattr(labkit, dtype if dtype != "bool" else "bool"))
    xt = torch.ones(2, 3, dtype=getattr(torch, dtype))
    assert x.type() == xt.type()
    for target in ("torch.LongTensor", "torch.DoubleTensor"):
        same_dtype(x.type(target), xt.type(target))
        name = target.split(".")[1]
        same_dtype(x.type(getattr(labkit, name)), xt.type(getattr(torch, name)))
    same_dtype(x.type(labkit.float16), xt.type(torch.float16))
    assert x.nelement() == xt.nelement() == x.numel() == 6


def test_type_keeps_self_and_gradient():
    x = labkit.tensor([1.5, 2.5], requires_grad=True)
    assert x.type(labkit.FloatTensor) is x and x.type("torch.FloatTensor") is x
    y = x.type(labkit.DoubleTensor)
    (y * y).sum().backward()
    assert x.grad.dtype == labkit.float32 and x.grad.tolist() == [3.0, 5.0]
    assert labkit.tensor(1.7).type(labkit.IntTensor).item() == \
        torch.tensor(1.7).type(torch.IntTensor).item() == 1
    with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
        x.type("torch.Foo")
    with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
        torch.ones(1).type("torch.Foo")


@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.25), (0, 1, 0.1), (-1, 1, 0.5), (3, 1, -1)])
def test_range_includes_end_and_warns(args):
    mine, wm = warned(lambda: labkit.range(*args))
    ref, wr = warned(lambda: torch.range(*args))
    assert wm == wr and len(wm) == 1
    same_dtype(mine, ref)
    assert_close(mine, ref)
    with pytest.warns(UserWarning, match="range is deprecated"):
        same_dtype(labkit.range(1, 3, dtype=labkit.int64), torch.range(1, 3, dtype=torch.int64))


def test_manual_seed_returns_generator():
    g = labkit.manual_seed(3)
    assert isinstance(g, labkit.Generator) and g.initial_seed() == 3
    a = labkit.randn(3, generator=g)
    labkit.manual_seed(3)
    assert labkit.equal(a, labkit.randn(3))


def test_old_tutorial_program():
    """A 2017-style regression loop (Variable, FloatTensor, .data, x.data.numpy(), size())."""
    labkit.manual_seed(0)
    x = Variable(labkit.FloatTensor([[1.0], [2.0], [3.0]]))
    y = Variable(labkit.FloatTensor([[2.0], [4.0], [6.0]]), requires_grad=False)
    w = Variable(labkit.randn(1, 1), requires_grad=True)
    for _ in range(50):
        loss = ((x.mm(w) - y) ** 2).mean()
        loss.backward()
        w.data -= 0.05 * w.grad.data
        w.grad.data.zero_()
    assert abs(w.data.numpy()[0, 0] - 2.0) < 1e-3
    assert x.size() == x.shape == (3, 1) and x.size(0) == 3 and x.data.nelement() == 3


@pytest.mark.parametrize("args", [(2, 3), (4,), (), (0,), "size"])
def test_tensor_class_from_sizes(args):
    """torch.Tensor(2, 3) is an uninitialised float32 tensor of that size (legacy code then
    fills it: torch.Tensor(2, 3).uniform_()), not a tensor holding the number 2."""
    mine = labkit.Tensor(labkit.Size([2, 5])) if args == "size" else labkit.Tensor(*args)
    ref = torch.Tensor(torch.Size([2, 5])) if args == "size" else torch.Tensor(*args)
    assert tuple(mine.shape) == tuple(ref.shape) and mine.dtype == labkit.float32
    assert not mine.requires_grad
    assert_close(labkit.Tensor([[1, 2], [3, 4]]), torch.Tensor([[1, 2], [3, 4]]))


@pytest.mark.parametrize("name", TYPES)
def test_cuda_types(name, device):
    """labkit.cuda.FloatTensor & co. exist on every machine (old code names them in a
    conditional), say cuda in their repr, and make or recognise tensors on the GPU only."""
    cls, tcls = getattr(labkit.cuda, name), getattr(torch.cuda, name)
    assert repr(cls) == repr(tcls).replace("torch", "labkit") and cls.is_cuda == tcls.is_cuda
    assert not isinstance(labkit.zeros(2, dtype=cls.dtype), cls)
    assert cls is not getattr(labkit, name)
    if device == "cpu":
        if not labkit.cuda.is_available():
            with pytest.raises(TypeError, match="not available"):
                cls(2)
        return
    x = cls([1, 0, 2])
    assert x.device.type == "cuda" and isinstance(x, cls) and not isinstance(x, getattr(
        labkit, name))
    assert x.type() == f"torch.cuda.{name}" and x.type(getattr(labkit, name)).device.type == "cpu"
    y = labkit.tensor([1, 0, 2]).type(cls)
    assert y.device.type == "cuda" and y.dtype == cls.dtype
    assert labkit.tensor([1, 0, 2]).type(f"torch.cuda.{name}").device.type == "cuda"
