"""The fake CuPy (tests/fake_cupy) keeps CuPy's rules, so the cuda cases of the suite catch the
bugs a real GPU would: numpy arrays mixed into device code, implicit host copies, numpy calls on
device data. Runs only under LABKIT_FAKE_CUDA=1 (make test-fake-cuda)."""
import gc
import os

import numpy as np
import pytest

if os.environ.get("LABKIT_FAKE_CUDA") != "1":
    pytest.skip("the fake cupy is used only with LABKIT_FAKE_CUDA=1", allow_module_level=True)

import cupy as cp  # noqa: E402
import cupyx  # noqa: E402

import labkit  # noqa: E402

IMPLICIT = "Implicit conversion to a NumPy array is not allowed"
UNSUPPORTED = "Unsupported type <class 'numpy.ndarray'>"


def test_it_is_the_fake_and_labkit_sees_one_gpu():
    assert "fake_cupy" in cp.__file__ and labkit.cuda.is_available()
    assert labkit.cuda.device_count() == 1
    props = cp.cuda.runtime.getDeviceProperties(0)
    assert props["name"] == b"Fake CUDA GPU (numpy)" and props["totalGlobalMem"] > 0


@pytest.mark.parametrize("convert", [np.asarray, np.array, lambda a: np.float32(1) + np.ones(3)
                                     + np.asarray(a)])
def test_implicit_conversion_to_numpy_raises(convert):
    with pytest.raises(TypeError, match=IMPLICIT):
        convert(cp.arange(3.0))


@pytest.mark.parametrize("mix", [
    lambda a, n: a + n, lambda a, n: n + a, lambda a, n: a * n, lambda a, n: a @ n.reshape(3, 1),
    lambda a, n: a > n, lambda a, n: cp.add(a, n), lambda a, n: np.add(a, n),
    lambda a, n: cp.where(a > 0, a, n), lambda a, n: cp.concatenate([a, n]),
    lambda a, n: np.stack([a, n]), lambda a, n: a.dot(n), lambda a, n: cp.add(a, n[0:1].reshape(())),
])
def test_numpy_arrays_in_device_code_raise(mix):
    with pytest.raises(TypeError, match="Unsupported type"):
        mix(cp.arange(3.0), np.ones(3))


def test_scalars_mix_and_reductions_stay_on_the_device():
    a = cp.arange(3.0)
    for r in (a + 1, 2.0 * a, a * np.float64(2), np.float32(2) * a, np.exp(a), np.sum(a),
              a.sum(), a[0], cp.maximum(a, 1), next(iter(a))):
        assert isinstance(r, cp.ndarray)
    assert a.sum().shape == () and float(a.sum()) == 3.0 and a.sum().item() == 3.0
    with pytest.raises(TypeError):
        int(a)     # size 3: only size-1 arrays convert, as in numpy
    assert repr(a) == "array([0., 1., 2.])" and a.device.id == 0


def test_indices_may_be_numpy_but_basic_assignment_of_a_numpy_array_may_not():
    a = cp.zeros((3, 2))
    a[np.array([0, 2])] = np.ones(2)           # advanced index: CuPy copies value over
    assert a[np.array([0, 2])].sum().item() == 4.0
    a[1] = np.float64(5.0)                     # a numpy scalar
    a[0, 0] = np.array(7.0)                    # a 0-d numpy array: fill
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for fill"):
        a[1] = np.ones(2)
    a[1] = cp.ones(2)
    assert a.get().tolist() == [[7.0, 1.0], [1.0, 1.0], [1.0, 1.0]]


def test_out_of_range_integer_indices_wrap_around_as_in_cupy():
    """CuPy's documented difference from numpy: no IndexError, the index is taken modulo n.
    So labkit must check indices itself on a GPU (tests/test_errors.py checks that it does)."""
    a = cp.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(a[cp.asarray([3])].get(), [[3, 4, 5]])
    np.testing.assert_array_equal(a[:, [5, -4]].get(), [[2, 2], [5, 5]])
    np.testing.assert_array_equal(a[..., np.array([4])].get(), [[1], [4]])
    b = cp.zeros(3)
    b[cp.asarray([4])] = 1
    np.testing.assert_array_equal(b.get(), [0, 1, 0])


def test_host_device_copies_are_counted():
    cp.transfers.update(to_device=0, to_host=0)
    a = cp.asarray(np.ones(3))
    a[np.array([0])] = 2.0          # a host index is copied over
    float(a.sum()), a.get()
    assert cp.transfers == {"to_device": 2, "to_host": 2}


def test_transfers_are_explicit_and_copy():
    host = np.arange(4.0)
    dev = cp.asarray(host)
    host[0] = 9
    assert dev[0].item() == 0.0                # a copy, not a view of the host array
    back = dev.get()
    assert isinstance(back, np.ndarray) and back.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert cp.asnumpy(dev).tolist() == back.tolist() and cp.asarray(dev) is dev
    dev.set(np.full(4, 2.0))
    assert dev.sum().item() == 8.0
    with pytest.raises(TypeError):
        dev.set(cp.ones(4))
    assert cp.get_array_module(dev) is cp and cp.get_array_module(host) is np
    assert not hasattr(cp, "errstate")         # CuPy has none; code must not rely on it


def test_pinned_buffers_are_numpy_and_recognised():
    pinned = cupyx.empty_pinned((4,), np.float32)
    assert type(pinned) is np.ndarray
    attrs = cp.cuda.runtime.pointerGetAttributes
    assert attrs(pinned.ctypes.data).type == 1
    assert attrs(np.empty(4).ctypes.data).type == 0
    assert attrs(cp.ones(4).data.ptr).type == 2
    t = labkit.randn(3).pin_memory()
    assert t.is_pinned() and not labkit.randn(3).is_pinned()


def test_memory_pool_tracks_live_device_arrays():
    pool = cp.get_default_memory_pool()
    gc.collect()
    pool.free_all_blocks()
    before = pool.used_bytes()
    a = cp.zeros(1000, cp.float64)
    assert pool.used_bytes() == before + 8000 and pool.total_bytes() >= pool.used_bytes()
    del a
    gc.collect()
    assert pool.used_bytes() == before and pool.total_bytes() >= before + 8000
    pool.free_all_blocks()
    assert pool.total_bytes() == pool.used_bytes()


def test_events_time_in_milliseconds():
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    end.record()
    end.synchronize()
    assert 0 <= cp.cuda.get_elapsed_time(start, end) < 1000 and end.done


def test_compiling_cuda_c_says_it_cannot():
    with pytest.raises(NotImplementedError, match="cannot compile CUDA C"):
        cp.ElementwiseKernel("float32 x", "float32 y", "y = x", "k")


def test_the_fake_catches_an_op_that_calls_numpy_on_device_data():
    """The bug class the fake exists for: an op written against numpy (np.zeros for its
    result) works on the cpu and breaks on a GPU. Under the fake the cuda case fails too."""
    class NumpyOnly(labkit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = np.zeros(x._data.shape, x._data.dtype)      # wrong: should be x.device.xp
            return out + x._data

        @staticmethod
        def backward(ctx, grad):
            return grad

    assert NumpyOnly.apply(labkit.ones(3)).sum().item() == 3.0
    with pytest.raises(TypeError, match="Unsupported type"):
        NumpyOnly.apply(labkit.ones(3, device="cuda"))

    class XpOp(NumpyOnly):
        @staticmethod
        def forward(ctx, x):
            return x.device.xp.zeros(x._data.shape, x._data.dtype) + x._data

    assert XpOp.apply(labkit.ones(3, device="cuda")).sum().item() == 3.0


def test_the_fake_catches_an_implicit_copy_to_the_host():
    t = labkit.randn(3, device="cuda")
    with pytest.raises(TypeError, match=IMPLICIT):
        np.asarray(t._data)
    assert np.asarray(t.cpu()).shape == (3,)


def test_numpy_names_cached_by_the_fake_do_not_shadow_builtins():
    """The fake's module __getattr__ caches cupy.any, cupy.sum ... as globals; its own code
    must still reach Python's any/sum (get_array_module once called numpy's any)."""
    cp.any, cp.sum                                  # noqa: B018 (caches them)
    host, dev = np.arange(3.0), cp.arange(3.0)
    assert cp.get_array_module(host) is np and cp.get_array_module(dev) is cp
    assert dev[..., None, 1:].shape == host[..., None, 1:].shape   # _index: Python's sum

