"""Call forms torch accepts, found by tools/signature_audit.py (torch's own argument parser is
the source of the signatures): each runs on labkit with torch's values, dtypes and shapes, and
torch's defaults give torch's answers."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _run(call, **arrays):
    """call evaluated with L = labkit and L = torch; arrays become tensors of each."""
    got = []
    for L in (labkit, torch):
        env = {"L": L, "F": L.nn.functional}
        env.update({k: L.tensor(v) for k, v in arrays.items()})
        got.append(eval(call, env))
    return got


def _same(mine, ref):
    if isinstance(ref, (tuple, list)):
        assert len(mine) == len(ref)
        for m, r in zip(mine, ref):
            _same(m, r)
        return
    if isinstance(ref, torch.dtype):
        assert str(mine).split(".")[-1] == str(ref).split(".")[-1]
        return
    if not isinstance(ref, torch.Tensor):
        assert mine == ref
        return
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(mine.shape) == tuple(ref.shape)
    np.testing.assert_allclose(mine.detach().numpy(), ref.detach().numpy(), rtol=1e-6,
                               atol=1e-6)


X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5
Y = np.random.default_rng(0).random((3, 4)).astype(np.float32)
SIGN = np.array([1.0, -1.0, 1.0], np.float32)


# torch.X's losses take the reduction as an int; omitted, torch's binding makes it 0 (none),
# whatever the schema prints: torch.kl_div(x, y) is elementwise, not a mean.
@pytest.mark.parametrize("call", [
    "L.kl_div(x, y)", "L.binary_cross_entropy_with_logits(x, y)",
    "L.hinge_embedding_loss(x, y)", "L.margin_ranking_loss(x[:, 0], x[:, 1], s)",
    "L.cosine_embedding_loss(x, y, s)", "L.triplet_margin_loss(x, y, x.flip(0))",
    "L.kl_div(x, y, 1)", "L.hinge_embedding_loss(x, y, 1.0, 2)",
])
def test_torch_dot_loss_reduction_int_defaults_as_torch(call):
    _same(*_run(call, x=X, y=Y, s=SIGN))


# dtype= makes nansum/nanmean accumulate in that dtype, not convert a result already
# overflowed (or rounded) in the input's dtype.
@pytest.mark.parametrize("call,arr", [
    ("L.nansum(a, dtype=L.float64)", np.array([3e38, 3e38, np.nan], np.float32)),
    ("L.nansum(a, dtype=L.int64)", np.array([200, 100], np.uint8)),
    ("a.nansum(0, dtype=L.float64)", np.array([3e38, 3e38, np.nan], np.float32)),
    ("L.nanmean(a, dtype=L.float32)", np.array([60000, np.nan, 60000], np.float16)),
])
def test_nansum_nanmean_accumulate_in_dtype_as_torch(call, arr):
    _same(*_run(call, a=arr))


# torch reads an int parameter through __index__: a 0-d integer tensor is an int there.
@pytest.mark.parametrize("call", [
    "x.sum(L.tensor(1))", "x.view(L.tensor(4), 3)", "x.reshape(L.tensor(2), -1)",
    "x.size(L.tensor(1))", "x.transpose(L.tensor(0), 1)", "L.sum(x, L.tensor(0))",
    "x.unsqueeze(L.tensor(0))", "x.permute(L.tensor(1), 0)", "x.flatten(L.tensor(0))",
    "L.cumsum(x, L.tensor(1))", "x.narrow(L.tensor(1), 1, L.tensor(2))",
])
def test_a_0d_integer_tensor_is_an_int_as_torch(call):
    _same(*_run(call, x=X))


def test_a_0d_float_tensor_is_not_a_dim_as_torch():
    for L in (labkit, torch):
        with pytest.raises(TypeError):
            L.tensor(X).sum(L.tensor(1.0))


# keyword-only arguments torch has and labkit has no use for, at values that change nothing
@pytest.mark.parametrize("call", [
    "L.zeros(2, 3, layout=None, pin_memory=False)", "L.ones(2, layout=None)",
    "L.randn(2, 3, generator=None).shape", "L.empty(2, pin_memory=False).shape",
    "x.to(L.float64, non_blocking=True)", "L.logspace(0, 2, 3, out=L.empty(3))",
])
def test_no_effect_keywords_run_as_torch(call):
    _same(*_run(call, x=X))


# A keyword torch does not take is torch's TypeError; labkit's names the function and the
# keyword, lists the valid keywords (torch's names) and suggests the closest.
@pytest.mark.parametrize("call,bad,valid,close", [
    ("L.sum(x, dimm=1)", "dimm", "dim, dtype, input, keepdim", "dim"),
    ("x.sum(dimm=1)", "dimm", "dim, dtype, keepdim", "dim"),
    ("L.add(x, x, alpah=2)", "alpah", "alpha, input, other, out", "alpha"),
    ("F.linear(x, x, bais=None)", "bais", "bias, input, weight", "bias"),
    ("L.arange(5, stpe=1)", "stpe", "end", "step"),
    ("x.exp(foo=1)", "foo", "", None),   # a method of self alone: Python's own message
    ("x.transpose(0, 1, dims=2)", "dims", "dim0, dim1", "dim"),
])
def test_an_unexpected_keyword_names_the_valid_ones(call, bad, valid, close):
    for L in (labkit, torch):
        env = {"L": L, "F": L.nn.functional, "x": L.ones(3, 3)}
        with pytest.raises(TypeError):
            eval(call, env)
    msg = _labkit_error(call)
    assert f"got an unexpected keyword argument '{bad}'" in msg and call.split("(")[0].split(
        ".")[-1] + "()" in msg
    assert valid in msg
    assert (f"Did you mean {close}" in msg) if close else "Did you mean" not in msg


def _labkit_error(call):
    try:
        eval(call, {"L": labkit, "F": labkit.nn.functional, "x": labkit.ones(3, 3)})
    except TypeError as e:
        return str(e)
    raise AssertionError(f"{call} ran on labkit")


# F.relu(h, inplace=True) and the other activations with torch's inplace: h changed in place and
# returned, torch's values and gradients (random upstream), in every spelling torch takes.
@pytest.mark.parametrize("call", [
    "F.relu(h, inplace=True)", "F.relu(h, True)", "F.relu(input=h, inplace=True)",
    "F.elu(h, 0.5, True)", "F.selu(h, inplace=True)", "F.celu(h, 1.5, True)",
    "F.hardtanh(h, -0.5, 0.5, True)", "F.relu6(h, inplace=True)", "F.hardsigmoid(h, True)",
    "F.hardswish(h, inplace=True)", "F.silu(h, inplace=True)", "F.mish(h, True)",
    "F.leaky_relu(h, 0.2, True)", "F.threshold(h, 0.1, 2.0, True)",
])
def test_activation_inplace_true_as_torch(call):
    rng = np.random.default_rng(1)
    a, g = rng.normal(size=(3, 4)) * 3, rng.normal(size=(3, 4))
    got = []
    for L in (labkit, torch):
        x = L.tensor(a, requires_grad=True)
        h = x * 1.0
        version = h._version
        y = eval(call, {"F": L.nn.functional, "h": h})
        assert y is h and h._version > version
        (y * L.tensor(g)).sum().backward()
        got.append((y.detach().numpy(), x.grad.numpy()))
    for m, r in zip(*got):
        np.testing.assert_allclose(m, r, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("call", ["F.relu(x, inplace=True)", "F.elu(x, 1.0, True)"])
def test_activation_inplace_on_a_leaf_that_requires_grad_raises_as_torch(call):
    for L in (labkit, torch):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            eval(call, {"F": L.nn.functional, "x": L.ones(3, requires_grad=True)})


# to(): torch's three forms, each positional or by keyword: (dtype, non_blocking, copy),
# (device, dtype, non_blocking, copy), (tensor, non_blocking, copy); memory_format=None.
@pytest.mark.parametrize("call", [
    "x.to('cpu', None, False, True) is x", "x.to(L.float32, True, True) is x",
    "x.to(L.float64, True)", "x.to(x, True, True) is x", "x.to(x.long(), False)",
    "x.to(tensor=x, non_blocking=True, copy=True) is x", "x.to(memory_format=None) is x",
    "x.to(device=None, dtype=None, memory_format=None) is x", "x.to('cpu', L.float64)",
    "x.to(dtype=L.int32, copy=True)", "x.to(float)", "x.to() is x",
])
def test_to_forms_as_torch(call):
    _same(*_run(call, x=X))


@pytest.mark.parametrize("call", ["x.to(L.float64, 'cpu')", "x.to('cpu', L.float64, 1, 2, 3)",
                                  "x.to(devcie='cpu')", "x.to('cpu', device='cpu')"])
def test_to_refuses_what_torch_refuses(call):
    for L in (labkit, torch):
        with pytest.raises(TypeError):
            eval(call, {"L": L, "x": L.tensor(X)})


# calls whose keyword names a parameter at a position that depends on torch's overload,
# a method's lone int-list given as varargs, and keywords that reach varargs parameters
@pytest.mark.parametrize("call", [
    "L.arange(end=3)", "L.arange(end=3, dtype=L.float64)", "L.arange(1, end=4, step=2)",
    "L.randint(high=3, size=(2, 2)).shape", "L.randint(low=1, high=3, size=(2,)).dtype",
    "x.hsplit(1, 2)", "x.vsplit(1, 2)", "x.reshape(2, 3, 2).dsplit(1, 1)", "x.broadcast_to(2, 3, 4)",
    "L.tile(input=x, dims=(2,))", "L.tile(x, dims=(1, 2))",
    "L.result_type(tensor=x, other=2)", "L.result_type(scalar=2.0, tensor=x.long())",
    "L.count_nonzero(x, [0])", "x.count_nonzero([0, 1])",
    "x.nan_to_num(nan=None, posinf=None, neginf=None)", "L.meshgrid(x[0], x[1], indexing=None)",
    "L.special.softmax(x, 1, L.float64)", "L.rsub(x, 2, 3)", "x.copy_(x * 2, True)",
    "x.copy_(other=x + 1, non_blocking=False)",
])
def test_overload_and_varargs_forms_as_torch(call):
    _same(*_run(call, x=X))


def test_every_default_labkit_shares_with_torch_is_torchs():
    """tools/signature_audit.py --defaults: for each parameter both libraries give a default
    (torch's from its parser, native schemas or stubs), the two agree; a different default is
    a silent wrong answer. The few that read differently are listed there with their reason."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "tools" / "signature_audit.py"
    spec = importlib.util.spec_from_file_location("signature_audit", path)
    audit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(audit)
    assert audit.defaults_audit() == []
    assert audit.DEFAULTS_COMPARED[0] > 500       # the audit found the signatures


# torch.X losses: the schema prints reduction=Mean, but the omitted int is 0 (SAME_MEANING)
def test_the_torch_dot_reduction_default_really_is_none():
    x, y = torch.randn(3, 4), torch.rand(3, 4)
    assert torch.kl_div(x, y).shape == (3, 4)
    assert labkit.kl_div(labkit.tensor(x.numpy()), labkit.tensor(y.numpy())).shape == (3, 4)


# torch's parser takes a Python number as the input of add/sub/mul/div (a wrapped number: it
# gives the default dtype, and loses to a tensor's dtype), and no other op's.
@pytest.mark.parametrize("call", [
    "L.add(2, 3)", "L.add(2, 3, alpha=2)", "L.sub(input=2, other=2, alpha=2)", "L.mul(2, 2.5)",
    "L.div(2, 3)", "L.true_divide(2, 4)", "L.floor_divide(7, 2)", "L.multiply(2.5, x)",
    "L.subtract(2, x.half())", "L.divide(3, x.int())", "L.mul(True, x)",
])
def test_a_number_input_of_add_sub_mul_div_as_torch(call):
    _same(*_run(call, x=X))


@pytest.mark.parametrize("call", ["L.exp(2)", "L.maximum(2, x)", "L.atan2(2, x)"])
def test_a_number_input_elsewhere_is_refused_as_torch(call):
    for L in (labkit, torch):
        with pytest.raises((TypeError, AttributeError)):
            eval(call, {"L": L, "x": L.tensor(X)})


# linalg.pinv(A, rcond, hermitian) and matrix_rank(A, tol, hermitian): torch's positional forms
@pytest.mark.parametrize("call", [
    "L.linalg.pinv(a, 1e-2)", "L.linalg.pinv(a, 1e-2, False)", "L.linalg.pinv(a, rcond=0.5)",
    "L.linalg.matrix_rank(a, 1e-2)", "L.linalg.matrix_rank(a, 0.5, False)",
    "L.linalg.matrix_rank(a, tol=1e-6)", "L.linalg.pinv(a @ a.mT, 1e-3, True)",
])
def test_pinv_matrix_rank_positional_forms_as_torch(call):
    a = np.random.default_rng(0).normal(size=(4, 3))
    a[:, 2] = a[:, 0] * 1e-3 + a[:, 1]
    _same(*_run(call, a=a))


# out= reaches out, never a parameter labkit has at out's position (torch.norm's dtype)
def test_norm_out_is_written_as_torch():
    for L in (labkit, torch):
        out = L.empty(3, 1)
        assert L.norm(L.tensor(X), dim=1, keepdim=True, out=out) is out
    _same(*_run("L.norm(x, dim=1, keepdim=True, out=L.empty(0))", x=X))


@pytest.mark.parametrize("call", ["x.new(size=(3, 4)).shape", "x.new(size=[2]).shape",
                                  "x.new(size=()).shape", "x.new((3, 4))", "x.new().shape"])
def test_new_size_keyword_is_a_size_as_torch(call):
    _same(*_run(call, x=X))


# x.random_() with no bound: torch's whole range of the dtype (the integers a float holds
# exactly, 0..max of an integer dtype)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64", "int64", "uint8",
                                   "int8", "bool"])
def test_random_without_a_bound_draws_torchs_range(dtype):
    got = []
    for L in (labkit, torch):
        L.manual_seed(0)
        x = L.empty(20000, dtype=getattr(L, dtype)).random_()
        got.append((str(x.dtype).split(".")[-1], float(x.min()), float(x.max())))
    (ld, lmin, lmax), (td, tmin, tmax) = got
    assert ld == td and lmin >= 0
    top = {"float32": 2 ** 24, "float16": 2 ** 11, "bfloat16": 2 ** 8, "float64": 2 ** 53,
           "int64": 2 ** 63 - 1, "uint8": 255, "int8": 127, "bool": 1}[dtype]
    assert lmax <= top and tmax <= top and lmax > top * 0.9


def test_expand_implicit_keyword_as_torch():
    _same(*_run("x[:1].expand(3, 4, implicit=True)", x=X))


@pytest.mark.parametrize("call", ["L.gradient(x, spacing=None, dim=None)[0]",
                                  "L.gradient(x, spacing=None)[1]"])
def test_gradient_spacing_none_is_unit_spacing_as_torch(call):
    _same(*_run(call, x=X))
