"""nn.EmbeddingBag / F.embedding_bag against torch: every mode, 1-D input with offsets (empty
bags, include_last_offset), 2-D input, padding_idx, per_sample_weights; values, weight (and
per-sample-weight) gradients, the module's repr and the errors."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")

IDS = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0], dtype=np.int64)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("offsets,last", [([0, 2, 2, 6], False), ([0, 3, 9], True), ([0], False),
                                          ([0, 4, 9, 9], True)])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_1d_with_offsets(mode, offsets, last, padding_idx):
    off = np.array(offsets, dtype=np.int64)
    check_op(lambda w, i, o: labkit.nn.functional.embedding_bag(
                 i, w, o, mode=mode, include_last_offset=last, padding_idx=padding_idx),
             lambda w, i, o: torch.nn.functional.embedding_bag(
                 i, w, o, mode=mode, include_last_offset=last, padding_idx=padding_idx),
             [rand_array((10, 3)), IDS, off])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input(mode):
    ids = np.array([[1, 2, 4], [4, 3, 3]], dtype=np.int64)
    check_op(lambda w, i: labkit.nn.functional.embedding_bag(i, w, mode=mode),
             lambda w, i: torch.nn.functional.embedding_bag(i, w, mode=mode),
             [rand_array((6, 4)), ids])


def test_per_sample_weights_get_gradients():
    check_op(lambda w, i, o, p: labkit.nn.functional.embedding_bag(i, w, o, mode="sum",
                                                                    per_sample_weights=p),
             lambda w, i, o, p: torch.nn.functional.embedding_bag(i, w, o, mode="sum",
                                                                   per_sample_weights=p),
             [rand_array((10, 3)), IDS, np.array([0, 5], dtype=np.int64), rand_array((9,), 7)])


def test_module_repr_init_and_from_pretrained():
    for args in [dict(), dict(mode="max", padding_idx=2), dict(mode="sum")]:
        assert repr(labkit.nn.EmbeddingBag(10, 3, **args)) == repr(torch.nn.EmbeddingBag(10, 3, **args))
    bag = labkit.nn.EmbeddingBag(10, 3, padding_idx=2)
    assert bag.weight[2].abs().sum().item() == 0 and bag.weight.requires_grad
    w = labkit.arange(12.0).view(4, 3)
    frozen = labkit.nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert not frozen.weight.requires_grad
    out = frozen(labkit.tensor([[0, 1], [2, 3]]))
    ref = torch.nn.EmbeddingBag.from_pretrained(torch.arange(12.0).view(4, 3), mode="sum")(
        torch.tensor([[0, 1], [2, 3]]))
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[1, 2]]), lib.randn(5, 2), lib.tensor([0])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.randn(5, 2)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.randn(5, 2), lib.tensor([0]),
                                                mode="mean", per_sample_weights=lib.ones(2)),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.randn(5, 2), lib.tensor([0]),
                                                mode="min"),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.randn(5, 2), lib.tensor([1])),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[[1]]]), lib.randn(5, 2)),
])
def test_errors_like_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(labkit)
