"""Indexing against torch, table-driven (tests/snippets.py runs each snippet on both and compares
values, dtypes, shapes, gradients and the exception class): basic and advanced get and set,
torch's placement of advanced-index dims, a list read as a tuple, several Ellipsis, bool masks
(0-d, all-False), setitem's dtype rules (index_put_ wants equal dtypes, masked_fill_ and copy_
convert), duplicate indices, gradients through both, and the indexing ops (index_select,
gather, scatter, masked_fill, masked_select, take, where)."""
import pytest

from snippets import check

pytest.importorskip("torch")

X = "x = L.arange(24.).reshape(2, 3, 4).requires_grad_(); leaves = [x]; "

GET = [
    "0", "-1", "-2", "2", "(0, 1)", "(0, -1, -1)", "(..., 1)", "(None, 0)", "(..., None)",
    "(None, ..., None)", "(slice(None, None, 2),)", "(slice(1, None, 2), slice(None), slice(None, None, 3))",
    "(slice(None, None, -1),)", "(0, slice(None, None, -1))", "(slice(5, 10),)", "(slice(-10, 1),)",
    "([0, 1],)", "[0, 1]", "[[0, 1]]", "[[0], [1]]", "[[0, 1], [1, 2]]", "[[0, 1], slice(None), [1, 2]]",
    "[0, slice(None)]", "[None, 0]", "[..., 1]", "([1, 0], [2, 0])", "([1, 0], slice(None), [2, 0])",
    "(slice(None), [0, 2], [1, 3])", "(slice(None), [[0], [2]], [1, 3])", "([0, 1], 1, [0, 3])",
    "(0, [0, 2], slice(None))", "(0, slice(None), [0, 2])", "([[0, 1]], slice(None), [[0], [1]])",
    "(..., [0, 1])", "(None, [0, 1], None, [1, 2])", "(L.tensor([1, 0]),)", "L.tensor([[1, 0]])",
    "L.tensor(1)", "L.tensor([1, 0], dtype=L.int32)", "L.tensor(1, dtype=L.int32)",
    "(L.tensor([1, 0], dtype=L.int32), L.tensor([0, 2]))", "L.tensor([True, False])",
    "L.tensor(True)", "L.tensor(False)", "(L.tensor(True), 0)", "(0, L.tensor(False))", "True",
    "False", "(True, 0)", "(None, True, ..., False)", "x.detach() > 5", "x.detach() > 50",
    "(slice(None), x.detach()[0] > 5)", "(x.detach()[:, :, 0] > 5, slice(None))",
    "(0, x.detach()[0, :, 0] > 5, [1, 2])", "([0, 1, 1],)", "([2],)", "([-3],)", "([0, 5],)",
    "[True, False]", "(1.0,)", "1.5", "L.tensor([1.0])", "(slice(None), L.tensor([], dtype=L.int64))",
    "[]", "((0, 1),)", "((0, 1), (1, 2))", "(L.tensor([0, 1]), ..., L.tensor([1, 2]))",
    "(L.tensor([0, 1]), None, L.tensor([1, 2]))", "(slice(None), None, [0, 1], [1, 2])",
    "([0, 1], None, [1, 2])", "(None, 0, [1, 2], 0)", "(L.tensor(0), [1, 2], L.tensor(1))",
    "(L.tensor([[True, False, True], [False, True, True]]), [0, 1, 1, 2])",
    "(slice(None), L.tensor([False, False, False]))", "(0, 0, 0, 0)", "(..., ...)",
    "(0, ..., 0, ..., 0)", "(..., 0, ...)", "([0, 1], [[0], [1], [2]])", "([0, 1], [0, 1, 2])",
    "L.tensor([[0, 1], [1, 0]])[:, None]", "(slice(None), L.tensor([[2], [0]]), slice(1, 3))",
]


@pytest.mark.parametrize("idx", GET)
def test_getitem_and_its_gradient(idx):
    check(X + f"out = x[{idx}] * 1")


@pytest.mark.parametrize("idx", GET)
def test_setitem_numbers_tensors_broadcast_and_gradients(idx):
    check(X + f"h = x.clone(); h[{idx}] = 7; out = h")
    check(X + f"h = x.clone(); v = L.tensor(-2.0, requires_grad=True); leaves = [x, v]; "
              f"h[{idx}] = v * 3; out = h")
    check(X + f"h = x.clone(); v = L.full(h[{idx}].shape[-1:], -2.0, requires_grad=True); "
              f"leaves = [x, v]; h[{idx}] = v * 3; out = h")


@pytest.mark.parametrize("idx", GET)
def test_setitem_dtype_rules(idx):
    """index_put_ (any index tensor) wants equal dtypes; a lone mask with one value fills
    (masked_fill_), and ints/slices/None/Ellipsis copy with conversion."""
    check(X + f"h = x.clone(); h[{idx}] = L.tensor(3); out = h")
    check(X + f"h = x.clone(); h[{idx}] = L.full(h[{idx}].shape, 3); out = h")
    check(f"h = L.arange(24).reshape(2, 3, 4); h[{idx}] = 2.7; out = h")
    check(f"h = L.arange(24).reshape(2, 3, 4); h[{idx}] = L.tensor(2.7); out = h")
    check(f"h = L.zeros(2, 3, 4); w = h[0]; h[{idx}] += 1; out = (h, w)")


SETS = [
    # duplicates: a plain assignment keeps one, index_put_(accumulate=True) adds them all
    "h = L.zeros(5); h[[0, 0, 2]] = L.tensor([1., 2., 3.]); out = h[1:]",
    "h = L.zeros(5); h.index_put_((L.tensor([0, 0, 2]),), L.tensor([1., 2., 3.]), accumulate=True); out = h",
    "w = L.ones(3, requires_grad=True); leaves = [w]; h = L.zeros(5).index_put((L.tensor([0, 0, 2]),), w * 2, accumulate=True); out = h",
    "h = L.zeros(2, 3); h.index_put_((L.tensor([0, 0]), L.tensor([1, 1])), L.tensor(1.), accumulate=True); out = h",
    "h = L.zeros(2, 3); h.index_put_((L.tensor([True, False]),), L.tensor([1., 2., 3.]), accumulate=True); out = h",
    "h = L.zeros(2, 3); h[L.tensor([[True, False, True], [False, False, False]])] = L.tensor([5., 6.]); out = h",
    "h = L.zeros(2, 3); h[L.tensor([False, False])] = L.tensor([5., 6., 7.]); out = h",
    "h = L.zeros(2, 3); h[L.tensor([True, True])] = L.tensor([[5.], [6.]]); out = h",
    "h = L.zeros(2, 3); h[[0, 1], [1, 2]] = L.tensor([[5., 6.]]); out = h",
    "h = L.zeros(2, 3); h[[0, 1], [1, 2]] = L.tensor([5., 6., 7.]); out = h",
    "h = L.zeros(2, 3); h[0] = L.tensor([[[1., 2., 3.]]]); out = h",
    "h = L.zeros(2, 3); h[0] = L.tensor([1, 2, 3]); out = h",
    "h = L.zeros(2, 3, dtype=L.uint8); h[0] = -1; out = h",
    "h = L.zeros(2, 3, dtype=L.uint8); h[0] = 256; out = h",
    "h = L.zeros(2, 3, dtype=L.int64); h[h == 0] = 2.9; out = h",
    "h = L.zeros(2, 3, dtype=L.int64); h[h == 0] = L.tensor(2.9); out = h",
    "h = L.zeros(2, 3, dtype=L.int8); h[h == 0] = L.tensor(300.); out = h",
    "h = L.zeros(2, 3, dtype=L.bool); h[0, 1] = 5; out = h",
    "h = L.zeros(2, 3); h[5] = 1; out = h",
    "h = L.zeros(2, 3); h[[5]] = L.tensor(1, dtype=L.int64); out = h",
    "h = L.zeros(2, 3); h[5, [0]] = L.tensor(1, dtype=L.int64); out = h",
    "h = L.zeros(2, 3); h[L.tensor([True, False, True])] = L.tensor([1, 2, 3]); out = h",
    "h = L.zeros(2, 3); h[[0, 1], [0, 1, 2]] = L.tensor(1, dtype=L.int64); out = h",
    "h = L.zeros(2, 3); h[[0, 1]] = L.ones(3, 3, dtype=L.int64); out = h",
    "h = L.zeros(0, 3); h[[]] = 1.; out = h",
    "h = L.zeros(0, 3); h[h > 0] = L.tensor([], dtype=L.float32); out = h",
    "h = L.zeros(()); h[()] = 3; out = h",
    "h = L.zeros(()); h[None] = 3; out = h",
    "h = L.zeros(()); h[...] = L.tensor([4.]); out = h",
    "h = L.zeros(()); h[L.tensor(True)] = 5.; out = h",
    "h = L.zeros(()); h[L.tensor(False)] = 5.; out = h",
    # on views: the base sees the write; gradient through setitem on a clone's view
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x.clone(); v = b.view(2, 3); v[:, 1] = 0; out = b",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 2; v = b[1:]; v[[0, 2]] = x[:2] ** 2; out = (b, v)",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 2; b.t()[0] = 1; out = b",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x.reshape(2, 3) * 1; b.T[1] = x[:2]; out = b",
    "x = L.arange(6.).requires_grad_(); x[0] = 1; out = x",
    "x = L.arange(6.).requires_grad_(); v = x[1:]; v[0] = 1; out = x",
    "x = L.arange(6.).requires_grad_()\nwith L.no_grad(): x[0] = 10\nout = (x, x.requires_grad, x.is_leaf)",
    # found by the fuzzer: x[True] is a copy (torch indexes with a long tensor), not a view
    "x = L.tensor([-2.5], requires_grad=True); leaves = [x]; h = x.clone(); v = h[True]; v.add_(2); out = (h, v)",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; h = x.clone(); v = h[(True, 1)]; out = (h, v * 2)",
    "x = L.arange(6.).reshape(2, 3).requires_grad_(); leaves = [x]; out = x[(1, L.tensor(True), [0, 2])] * 2",
    "h = L.arange(6.); h[True] = 5; h[False] = 3; h[(True, [0])] = 1; out = h",
    "x = L.tensor([-2.5], requires_grad=True); leaves = [x]; h = x.clone(); h[(False, 0)] = L.tensor(3.); out = h",
    "h = L.arange(6.).reshape(2, 3); h[(1, True, 2)] = 7; out = h",
    "y = L.arange(6.); y[1:] = y[:-1]; out = y", "y = L.arange(6.); y[1:].copy_(y[:-1]); out = y",
    "y = L.arange(6.); y[::2] = y[1::2]; out = y", "y = L.arange(6.); y[:3] = y[3:]; out = y",
    "y = L.arange(6.); y[[0, 1]] = y[1:3]; out = y", "y = L.arange(6.); y[y > 2] = y[:3]; out = y",
    "y = L.arange(6.); y[y > 2] = y[0]; out = y", "y = L.arange(6.); y[1:3] = y[1:3]; out = y",
    "h = L.zeros(1, 0); h.index_put_((L.tensor([], dtype=L.int64),), L.zeros(0, 0), accumulate=True); out = h",
    "h = L.zeros(3, dtype=L.bool); h.index_put_((L.tensor([0]),), L.tensor([1]), accumulate=True); out = h",
    "x = L.zeros(0, 0); out = x.gather(0, L.zeros(0, 1, dtype=L.int64))",
    "x = L.zeros(()); out = x.index_select(0, L.tensor([], dtype=L.int64))",
    "x = L.zeros(3, 0); out = x.index_select(1, L.tensor([0]))",
    "x = L.zeros(0); out = x.index_select(0, L.tensor([0]))",
    # a uint8 index is a (deprecated) mask in torch; int8/int16 indices are refused
    "x = L.arange(6.).requires_grad_(); leaves = [x]; out = x[L.tensor([1, 0, 0, 1, 1, 0], dtype=L.uint8)] * 2",
    "out = L.arange(6.).reshape(2, 3)[L.tensor([1, 0], dtype=L.uint8), 1:]",
    "out = L.arange(6.)[L.tensor([1, 2], dtype=L.uint8)]",
    "out = L.arange(6.)[L.tensor([1, 2], dtype=L.int16)]",
    "out = L.arange(6.)[L.tensor([1, 2], dtype=L.int8)]",
    "h = L.arange(6.).reshape(2, 3); h[L.tensor([[1, 0, 1], [0, 0, 1]], dtype=L.uint8)] = 2; out = h",
    "h = L.arange(6.).reshape(2, 3); h[L.tensor([[1, 0, 1], [0, 0, 1]], dtype=L.uint8)] = L.tensor([1., 2., 3.]); out = h",
    "h = L.arange(6.).reshape(2, 3); h[h > 2] = L.ones(2, 1); out = h",
    # too many indices is reported before anything else (a mask names its ndim dims)
    "out = L.zeros(0, 1)[slice(None, None, -1), L.tensor([[0], [0]], dtype=L.uint8)]",
    "out = L.zeros(2, 3)[slice(None, None, -1), 0, 0]", "out = L.zeros(2, 3)[5, slice(None, None, -1)]",
    "out = L.zeros(2, 3)[L.tensor([[True] * 3] * 2), 0]",
    "out = L.zeros(3, 3, 3).index_select(-1, L.tensor([3]))", "out = L.zeros(3, 3).index_select(1, L.tensor([3]))",
    "out = L.zeros(2, 0, 2).index_select(0, L.tensor([5]))",
]


@pytest.mark.parametrize("code", SETS)
def test_setitem_cases(code):
    check(code)


OPS = [
    "x.index_select(1, L.tensor([2, 0, 2]))", "x.index_select(-1, L.tensor([], dtype=L.int64))",
    "x.index_select(1, L.tensor([3]))", "x.index_select(0, L.tensor([[0]]))", "x.index_select(0, L.tensor([0.]))",
    "x.index_select(0, L.tensor(1))", "x.gather(2, L.tensor([[[0, 3], [1, 1], [2, 0]]] * 2))",
    "x.gather(0, L.tensor([[[1]]]))", "x.gather(1, L.tensor([[[5]]]))", "x.gather(1, L.tensor([[[0]]], dtype=L.int32))",
    "x.scatter(1, L.tensor([[[2, 0]]]), 9.)", "x.scatter(2, L.tensor([[[1], [0], [3]]] * 2), x[..., :1] * 2)",
    "x.scatter_add(2, L.tensor([[[1, 1]]]), x[:1, :1, :2] * 3)", "x.masked_fill(x.detach() > 5, -1.)",
    "x.masked_fill(L.tensor([True, False, True, False]), 2)", "x.masked_fill(L.tensor(True), L.tensor(3.))",
    "x.masked_fill(x.detach() > 5, L.tensor([1.]))", "x.masked_select(x.detach() > 20)",
    "x.masked_select(L.tensor([True, False, False, True]))", "x.masked_select(L.tensor(False))",
    "L.take(x, L.tensor([[0, 23], [-1, 5]]))", "L.take(x, L.tensor([24]))", "L.take(x, L.tensor([], dtype=L.int64))",
    "x.take(L.tensor(3))", "L.where(x.detach() > 10, x, -x)", "L.where(x.detach() > 10, x, 0)",
    "L.where(x.detach() > 10, 1., x)", "L.where(x.detach() > 10, x[0], x[1])", "L.where(L.tensor(True), x, 2)",
    "x.index_fill(1, L.tensor([0, 2]), -1.)", "x.index_add(2, L.tensor([0, 0]), x[..., :2])",
    "x.index_copy(2, L.tensor([3, 0]), x[..., :2] * 5)", "L.select(x, 1, -1)", "x.select(2, 4)",
    "x.select(-1, 0)", "x.narrow(2, 1, 2)", "x.narrow(1, -1, 1)", "x.take_along_dim(L.tensor([[[3]]]), 2)",
    "x.nonzero()", "x[x.detach() > 3].sum()", "x.unbind(1)[2]", "x.flip(0, 2)", "x.roll(1, 2)",
]


@pytest.mark.parametrize("op", OPS)
def test_indexing_ops(op):
    check(X + f"out = {op} * 1 if L.is_tensor({op}) and ({op}).is_floating_point() else {op}")


EMPTY = ["L.zeros(0, 3)[[]]", "L.zeros(0, 3)[:, [0, 2]]", "L.zeros(2, 0)[L.tensor([True, False])]",
         "L.zeros(2, 0)[[1, 1, 0]]", "L.zeros(2, 0)[[5]]", "L.zeros(0)[[5]]", "L.zeros(2, 0, 3)[:, [], 1]",
         "L.zeros(3)[L.tensor([False] * 3)]", "L.zeros(())[None]", "L.zeros(())[...]", "L.zeros(())[L.tensor(True)]",
         "L.zeros(())[L.tensor(False)]", "L.zeros(())[0]", "L.zeros(1)[0]", "L.zeros(1, 1)[0, 0]",
         "L.zeros(1, 1)[[0], 0]", "L.zeros(3)[L.tensor([[0, 1], [2, 2]])]", "L.zeros(3)[L.tensor([], dtype=L.int64).reshape(0, 2)]",
         "L.zeros(2, 3, 4)[[0, 1], ..., [1, 0]]", "L.zeros(2, 3, 4)[1:1, [0]]", "L.zeros(2, 3)[[0], 1:1]"]


@pytest.mark.parametrize("code", EMPTY)
def test_size_zero_size_one_and_zero_d(code):
    check(f"out = {code}")


@pytest.mark.parametrize("value", [300, 5])
@pytest.mark.parametrize("idx", [[0], [1, 0], [[1, 0], [0, 1]]])
def test_uint8_mask_setitem_checks_the_value_before_the_mask_as_torch(value, idx):
    """Fuzz: x[uint8 mask] = 300 on int8 is torch's overflow RuntimeError whatever the mask's
    shape; a value that fits gets the mask's shape error, then the uint8-mask refusal."""
    check(f"x = L.zeros(2, 2, dtype=L.int8); x[L.tensor({idx}, dtype=L.uint8)] = {value}; "
          "out = x")
