"""view_as, unbind, narrow, movedim, unflatten, flip, roll, repeat, tile, meshgrid, tril/triu
against torch: values, gradients, second derivatives, views sharing memory, edges, errors."""
import numpy as np
import pytest

import labkit
from op_checks import arr, check_second, run

torch = pytest.importorskip("torch")

CASES = {
    "view_as": (lambda M, x, y: x.view_as(y), [(3, 4), (2, 6)]),
    "unbind0": (lambda M, x: M.unbind(x), [(3, 4)]),
    "unbind1": (lambda M, x: x.unbind(dim=-1), [(3, 4)]),
    "unbind_size0": (lambda M, x: x.unbind(1), [(3, 0)]),
    "narrow": (lambda M, x: M.narrow(x, 1, 1, 2), [(3, 4)]),
    "narrow_negative_start": (lambda M, x: x.narrow(0, -2, 2), [(3, 4)]),
    "narrow_empty": (lambda M, x: x.narrow(0, 3, 0), [(3, 4)]),
    "movedim": (lambda M, x: M.movedim(x, 0, -1), [(2, 3, 4)]),
    "movedim_many": (lambda M, x: x.movedim((0, 1), (2, 0)), [(2, 3, 4)]),
    "moveaxis": (lambda M, x: M.moveaxis(x, -1, 0), [(2, 3, 4)]),
    "unflatten": (lambda M, x: x.unflatten(1, (2, -1)), [(3, 6)]),
    "unflatten_fn": (lambda M, x: M.unflatten(x, -1, (3, 2)), [(3, 6)]),
    "flip": (lambda M, x: M.flip(x, (0, 1)), [(3, 4)]),
    "flip_method_varargs": (lambda M, x: x.flip(-1), [(2, 3, 4)]),
    "flip_0d": (lambda M, x: x.flip(0), [()]),
    "fliplr": (lambda M, x: M.fliplr(x), [(3, 4)]),
    "flipud": (lambda M, x: x.flipud(), [(3, 4)]),
    "roll": (lambda M, x: M.roll(x, 1, 0), [(3, 4)]),
    "roll_flat": (lambda M, x: x.roll(5), [(3, 4)]),
    "roll_many": (lambda M, x: x.roll((1, -2), (1, 0)), [(3, 4)]),
    "roll_empty": (lambda M, x: x.roll(1, 0), [(0, 2)]),
    "repeat": (lambda M, x: x.repeat(2, 3), [(3, 4)]),
    "repeat_new_dims": (lambda M, x: x.repeat(2, 1, 3), [(4,)]),
    "repeat_zero": (lambda M, x: x.repeat(0, 2), [(3, 4)]),
    "repeat_0d": (lambda M, x: x.repeat(3), [()]),
    "tile": (lambda M, x: M.tile(x, (2,)), [(3, 4)]),
    "meshgrid_ij": (lambda M, x, y: M.meshgrid(x, y, indexing="ij"), [(3,), (4,)]),
    "meshgrid_xy": (lambda M, x, y, z: M.meshgrid(x, y, z, indexing="xy"), [(3,), (4,), (2,)]),
    "meshgrid_list": (lambda M, x, y: M.meshgrid([x, y], indexing="ij"), [(2,), (0,)]),
    "tril": (lambda M, x: M.tril(x), [(4, 5)]),
    "tril_k": (lambda M, x: x.tril(-1), [(2, 4, 3)]),
    "triu": (lambda M, x: M.triu(x, 2), [(4, 5)]),
    "triu_empty": (lambda M, x: x.triu(), [(0, 3)]),
    "swapdims": (lambda M, x: x.swapdims(0, 2), [(2, 3, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_layout_ops(device, name):
    f, shapes = CASES[name]
    run(device, f, *[arr(s, i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", ["flip", "roll_many", "repeat", "repeat_new_dims", "tril_k",
                                  "triu", "narrow", "movedim_many", "meshgrid_xy"])
def test_layout_second_derivative(device, name):
    f, shapes = CASES[name]

    def g(M, *xs):
        out = f(M, *xs)
        out = out if not isinstance(out, tuple) else M.stack([o.reshape(-1) for o in out])
        return out ** 2
    check_second(device, g, *[arr(s, i) for i, s in enumerate(shapes)])


def test_views_share_memory_like_torch():
    x = labkit.zeros(3, 4)
    x.narrow(1, 1, 2).fill_(1.0)
    x.unbind(0)[2].fill_(2.0)
    x.view_as(labkit.zeros(12))[0] = 5.0
    t = torch.zeros(3, 4)
    t.narrow(1, 1, 2).fill_(1.0)
    t.unbind(0)[2].fill_(2.0)
    t.view_as(torch.zeros(12))[0] = 5.0
    assert x.tolist() == t.tolist()


def test_flip_and_roll_copy_like_torch():
    x = labkit.arange(4.0)
    y = x.flip(0)
    y[0] = 10.0
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_inplace_tril_triu():
    for name in ("tril_", "triu_"):
        x, t = labkit.ones(3, 3), torch.ones(3, 3)
        v = x._version
        assert getattr(x, name)(1) is x and x._version == v + 1
        getattr(t, name)(1)
        assert x.tolist() == t.tolist()


def test_int_and_bool_tensors_keep_their_dtype():
    for dtype in ("int64", "bool"):
        data = (np.arange(6).reshape(2, 3) % 2).astype(dtype)
        for f in (lambda M, x: x.flip(0), lambda M, x: x.roll(1, 1), lambda M, x: x.repeat(2, 1),
                  lambda M, x: x.tril(), lambda M, x: x.narrow(1, 0, 2),
                  lambda M, x: x.movedim(0, 1)):
            got, want = f(labkit, labkit.tensor(data)), f(torch, torch.tensor(data))
            assert got.tolist() == want.tolist()
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]


ERRORS = [
    (lambda M: M.zeros(3, 4).narrow(1, 3, 2), (RuntimeError, IndexError)),
    (lambda M: M.zeros(3, 4).narrow(1, 5, 0), (RuntimeError, IndexError)),
    (lambda M: M.zeros(3, 4).repeat(2), RuntimeError),
    (lambda M: M.zeros(3, 4).unflatten(1, (3, 2)), RuntimeError),
    (lambda M: M.zeros(3, 4).movedim((0, 0), (0, 1)), RuntimeError),
    (lambda M: M.zeros(3, 4).roll((1, 2), 0), RuntimeError),
    (lambda M: M.zeros(3, 4).flip(2), IndexError),
    (lambda M: M.zeros(3, 4).flip((0, 0)), RuntimeError),
    (lambda M: M.zeros(3).tril(), RuntimeError),
    (lambda M: M.tensor(1.0).unbind(), (RuntimeError, IndexError)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_like_torch(i):
    call, kind = ERRORS[i]
    with pytest.raises(kind):
        call(torch)
    with pytest.raises(kind):
        call(labkit)


@pytest.mark.parametrize("call,shape,reps", [
    (lambda M, x, r: x.repeat_interleave(2), (2, 3), None),
    (lambda M, x, r: M.repeat_interleave(x, 3, dim=1), (2, 3), None),
    (lambda M, x, r: x.repeat_interleave(r, dim=-1), (2, 3), [1, 0, 2]),
    (lambda M, x, r: x.repeat_interleave(r, dim=0), (2, 3), [2]),
    (lambda M, x, r: x.repeat_interleave(2), (), None),
    (lambda M, x, r: x.repeat_interleave(0, dim=0), (2, 3), None),
], ids=range(6))
def test_repeat_interleave(device, call, shape, reps):
    r = np.array(reps if reps is not None else [1], dtype=np.int64)
    run(device, call, arr(shape), r)
    if shape:
        check_second(device, lambda M, x, r: call(M, x, r) ** 2, arr(shape, 1), r)


def test_repeat_interleave_errors():
    with pytest.raises(RuntimeError):
        torch.zeros(3).repeat_interleave(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="repeat_interleave"):
        labkit.zeros(3).repeat_interleave(labkit.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="repeat_interleave"):
        labkit.zeros(3).repeat_interleave(-1)


def test_flip_dims_keyword_like_torch():
    x, t = labkit.tensor(arr((2, 3))), torch.tensor(arr((2, 3)))
    assert labkit.flip(x, dims=[0, 1]).tolist() == torch.flip(t, dims=[0, 1]).tolist()
    assert x.flip(dims=(1,)).tolist() == t.flip(dims=(1,)).tolist()
    with pytest.raises(TypeError, match="once"):
        x.flip(0, dims=[1])


def test_memory_questions_like_torch():
    x, t = labkit.zeros(3, 4), torch.zeros(3, 4)
    assert x.nelement() == t.nelement() == 12
    assert x.stride() == t.stride() and x.t().stride() == t.t().stride()
    assert x.stride(1) == t.stride(1)
    assert x[1].data_ptr() == x.data_ptr() + 4 * 4 and x.clone().data_ptr() != x.data_ptr()
    assert x.view(12).data_ptr() == x.data_ptr()
