"""What the sixth batch of compat programs met (graykode's nlp-tutorial, the CS231n / CS224n
assignments, Karpathy's MADE and normalizing flows, labml's optimizers, the torch.func docs...),
each compared with torch: the legacy constructor torch.Tensor(ndarray), scheduler.step(epoch),
torch.lu / Tensor.lu, the *_like factories' memory_format=, and vmap's randomness= and
in-place writes into batched inputs."""
import warnings

import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _dtype(t):
    return str(t.dtype).split(".")[-1]


# --- torch.Tensor(ndarray) is in the default dtype ----------------------------------------

@pytest.mark.parametrize("np_dtype", ["float64", "float32", "float16", "int64", "int32",
                                      "uint8", "bool"])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_legacy_tensor_of_an_ndarray_takes_the_default_dtype(np_dtype, default):
    """CS231n's sample() does torch.Tensor(features) on float64 numpy features and feeds a
    float32 Linear: torch gives float32 (labkit kept float64 and the Linear refused it)."""
    arr = (np.arange(6).reshape(2, 3) % 2).astype(np_dtype)
    results = []
    for lib in (labkit, torch):
        lib.set_default_dtype(getattr(lib, default))
        try:
            results.append(lib.Tensor(arr))
        finally:
            lib.set_default_dtype(lib.float32)
    ours, theirs = results
    assert _dtype(ours) == _dtype(theirs) == default
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_legacy_tensor_shares_an_ndarray_of_the_default_dtype_and_copies_others():
    for lib in (labkit, torch):
        same, other = np.ones(3, np.float32), np.ones(3, np.float64)
        a, b = lib.Tensor(same), lib.Tensor(other)
        same[0] = other[0] = 7
        assert a[0].item() == 7 and b[0].item() == 1, lib.__name__


def test_legacy_tensor_of_a_complex_ndarray_warns_and_keeps_the_real_part():
    """(torch warns once per process unless set_warn_always: an earlier test may have used
    its one warning)"""
    for lib in (labkit, torch):
        lib.set_warn_always(True)
        try:
            with pytest.warns(UserWarning, match="discards the imaginary part"):
                t = lib.Tensor(np.array([1 + 2j, 3 - 1j]))
        finally:
            lib.set_warn_always(False)
        assert t.tolist() == [1.0, 3.0] and _dtype(t) == "float32"


# --- scheduler.step(epoch), deprecated but in older scripts -------------------------------

def _lrs(lib, make, epochs):
    p = lib.nn.Parameter(lib.zeros(1))
    opt = lib.optim.SGD([p], lr=0.1)
    sched = make(lib, opt)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e in epochs:
            opt.step()
            sched.step(e)
            out.append((opt.param_groups[0]["lr"], sched.last_epoch))
    return out


@pytest.mark.parametrize("name,make", [
    ("StepLR", lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)),
    ("ExponentialLR", lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)),
    ("MultiStepLR", lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, [2, 5], 0.1)),
    ("CosineAnnealingLR", lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, 6)),
    ("LambdaLR", lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1))),
])
@pytest.mark.parametrize("epochs", [[0, 1, 2, 3, 4, 5], [3, 1, 6, 6, 0]])
def test_scheduler_step_with_an_epoch_jumps_there(name, make, epochs):
    """Karpathy's pytorch-made run.py calls scheduler.step(epoch) before each epoch."""
    ours, theirs = _lrs(labkit, make, epochs), _lrs(torch, make, epochs)
    np.testing.assert_allclose([lr for lr, _ in ours], [lr for lr, _ in theirs], rtol=1e-12)
    assert [e for _, e in ours] == [e for _, e in theirs]


@pytest.mark.parametrize("lib", [labkit, torch])
def test_scheduler_step_with_an_epoch_warns_as_torch(lib):
    p = lib.nn.Parameter(lib.zeros(1))
    opt = lib.optim.SGD([p], lr=0.1)
    sched = lib.optim.lr_scheduler.StepLR(opt, 1)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not"):
        sched.step(3)
    plateau = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    with pytest.warns(UserWarning, match="epoch parameter"):
        plateau.step(1.0, 7)
    assert plateau.last_epoch == 7
    plateau.step(2.0)
    assert plateau.last_epoch == 8


# --- torch.lu / Tensor.lu -----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (4, 3), (3, 5)])
def test_lu_legacy_matches_torch(shape):
    """Glow's Invertible1x1Conv: P, L, U = torch.lu_unpack(*Q.lu())."""
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = labkit.tensor(a).lu(), torch.tensor(a).lu()
        ours3, theirs3 = labkit.lu(labkit.tensor(a), get_infos=True), \
            torch.lu(torch.tensor(a), get_infos=True)
    assert type(ours) is tuple and len(ours) == len(theirs) == 2
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    assert _dtype(ours[1]) == _dtype(theirs[1]) == "int32"
    assert len(ours3) == 3 and _dtype(ours3.info) == _dtype(theirs3.info)
    np.testing.assert_array_equal(ours3.info.numpy(), theirs3.info.numpy())
    P, L, U = labkit.lu_unpack(*ours)
    np.testing.assert_allclose((P @ L @ U).numpy(), a, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("lib", [labkit, torch])
def test_lu_legacy_warns_once_that_it_is_deprecated(lib):
    """torch's TORCH_WARN_ONCE: the first call in the process warns, later ones do not."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.lu(lib.eye(2))
        lib.eye(2).lu()
    said = [w for w in caught if "torch.lu is deprecated in favor of torch.linalg.lu_factor"
            in str(w.message)]
    assert len(said) <= 1


# --- the *_like factories take memory_format= ---------------------------------------------

@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "rand_like",
                                  "randn_like", "full_like"])
@pytest.mark.parametrize("fmt", ["preserve_format", "contiguous_format", "channels_last"])
def test_like_factories_take_memory_format(name, fmt):
    """labml's Adam: torch.zeros_like(param, memory_format=torch.preserve_format)."""
    outs = []
    for lib in (labkit, torch):
        x = lib.ones(2, 3, 4, 5)
        args = (x, 2.5) if name == "full_like" else (x,)
        t = getattr(lib, name)(*args, memory_format=getattr(lib, fmt))
        outs.append((tuple(t.shape), _dtype(t), t.is_contiguous(),
                     t.is_contiguous(memory_format=lib.channels_last)))
        if name in ("zeros_like", "ones_like", "full_like"):
            outs[-1] += (t.sum().item(),)
    assert outs[0] == outs[1]


@pytest.mark.parametrize("lib", [labkit, torch])
def test_like_factory_channels_last_needs_rank_4(lib):
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        lib.zeros_like(lib.ones(3), memory_format=lib.channels_last)


# --- vmap: randomness= --------------------------------------------------------------------

def _noise(lib):
    return lambda x: x + lib.randn(())


@pytest.mark.parametrize("mode", ["same", "different"])
def test_vmap_randomness_draws_as_torch(mode):
    """The func UX-limitations page: randomness='different' gives each example its own draw,
    'same' one draw for all; torch draws (B, *shape) at once, and so does labkit."""
    outs = []
    for lib in (labkit, torch):
        lib.manual_seed(0)
        out = lib.func.vmap(_noise(lib), randomness=mode)(lib.ones(4))
        outs.append((out.numpy().copy(), lib.randn(3).numpy().copy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6)   # the generator moved alike


def test_vmap_randomness_different_dropout_and_rand_as_torch():
    outs = []
    for lib in (labkit, torch):
        lib.manual_seed(1)
        a = lib.func.vmap(lambda x: lib.nn.functional.dropout(x, 0.5),
                          randomness="different")(lib.ones(3, 5))
        b = lib.func.vmap(lambda x: x * lib.rand(2), randomness="different")(lib.ones(3, 2))
        outs.append((a.numpy().copy(), b.numpy().copy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6)


@pytest.mark.parametrize("lib", [labkit, torch])
def test_vmap_randomness_error_is_the_default(lib):
    with pytest.raises(RuntimeError, match="called random operation while in randomness error"):
        lib.func.vmap(_noise(lib))(lib.ones(3))


@pytest.mark.parametrize("lib", [labkit, torch])
def test_vmap_randomness_must_be_one_of_three(lib):
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', "
                                           "'different', or 'same'. Got sometimes"):
        lib.func.vmap(_noise(lib), randomness="sometimes")


# --- vmap: in-place ops on batched inputs ---------------------------------------------------

def _add_(x, y):
    x.add_(y)
    return x


@pytest.mark.parametrize("in_dims", [(0, 0), (1, 1), (0, 1)])
def test_vmap_in_place_into_a_batched_input_updates_it_as_torch(in_dims):
    """x.add_(y) under vmap(in_dims=(0, 0)): torch writes x + y into the caller's x."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((3, 3)).astype(np.float32)
    y0 = rng.standard_normal((3, 3)).astype(np.float32)
    res = []
    for lib in (labkit, torch):
        x, y = lib.tensor(x0), lib.tensor(y0)
        out = lib.func.vmap(_add_, in_dims=in_dims)(x, y)
        res.append((out.numpy().copy(), x.numpy().copy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)


def test_vmap_in_place_then_reuse_inside_the_function():
    def f(x):
        y = x * 2
        x.mul_(3)
        return x + y
    outs = []
    for lib in (labkit, torch):
        x = lib.arange(6.0).reshape(2, 3)
        outs.append((lib.func.vmap(f)(x).numpy().copy(), x.numpy().copy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


@pytest.mark.parametrize("lib", [labkit, torch])
def test_vmap_in_place_into_an_unbatched_tensor_is_an_error(lib):
    with pytest.raises(RuntimeError):
        lib.func.vmap(_add_, in_dims=(None, 0))(lib.ones(1), lib.ones(3, 1))


def test_vmap_in_place_through_a_view_of_a_batched_tensor_is_refused():
    """Replay could not carry such a write to the base: an error, never a stale result."""
    def f(x):
        x[0].add_(1)
        return x
    with pytest.raises(RuntimeError, match="shares memory with a view"):
        labkit.func.vmap(f)(labkit.zeros(3, 2))


def test_vmap_new_factories_of_a_batched_tensor_are_batched():
    """torch's advice in the UX-limitations page: make scratch tensors with x.new_zeros(...)
    so that writing batched values into them works; labkit batches new_* of a batched x."""
    def g(x):
        y = x.new_ones(2)
        y[1] = x.sum()
        z = x.new_full((2,), 3.0)
        z.add_(x)
        return y * 2 + z
    outs = []
    for lib in (labkit, torch):
        outs.append(lib.func.vmap(g)(lib.arange(6.0).reshape(3, 2)).numpy().copy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_vmap_new_zeros_then_a_write_through_a_view_is_refused_not_wrong():
    """vec.new_zeros(n, n).diagonal().copy_(vec) works in torch; labkit's replay cannot carry a
    write through a view yet, so it refuses rather than return zeros."""
    def diag_embed(vec):
        result = vec.new_zeros(vec.shape[0], vec.shape[0])
        result.diagonal().copy_(vec)
        return result
    with pytest.raises(RuntimeError, match="shares memory with a view"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labkit.func.vmap(diag_embed)(labkit.tensor([[0., 1, 2], [3., 4, 5]]))


@pytest.mark.parametrize("name", ["float64", "bfloat16", "float16", "complex64"])
def test_parameter_of_a_tensor_keeps_its_dtype(name):
    """The legacy constructor's default dtype is for arrays and lists, never for a tensor a
    Parameter wraps (a bfloat16 Llama's weights stayed bfloat16)."""
    for lib in (labkit, torch):
        p = lib.nn.Parameter(lib.zeros(2, dtype=getattr(lib, name)))
        assert _dtype(p) == name, lib.__name__


@pytest.mark.parametrize("lib", [labkit, torch])
def test_vmap_of_an_op_with_a_data_dependent_shape_is_torchs_error(lib):
    with pytest.raises(RuntimeError, match="We do not support batching operators that can "
                                           "output dynamic shape"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.func.vmap(lib.nonzero)(lib.tensor([[0, 1, 2], [0, 0, 3]]))


@pytest.mark.parametrize("make", [
    lambda lib, n: lib.zeros(n, 3), lambda lib, n: lib.ones((n, 2)), lambda lib, n: lib.empty([1, n]),
    lambda lib, n: lib.randn(n, 2), lambda lib, n: lib.nn.Embedding(n, 5).weight,
    lambda lib, n: lib.nn.Linear(n, 5, bias=False).weight,
])
def test_a_one_element_integer_tensor_counts_as_a_size(make):
    """LLMs-from-scratch: num_idx = max(idx) + 1 (a 0-d tensor), then nn.Embedding(num_idx, 5)."""
    shapes = []
    for lib in (labkit, torch):
        n = max(lib.tensor([2, 3, 1])) + 1
        shapes.append(tuple(make(lib, n).shape))
        assert tuple(make(lib, lib.tensor([4])).shape) == shapes[-1]
    assert shapes[0] == shapes[1]
