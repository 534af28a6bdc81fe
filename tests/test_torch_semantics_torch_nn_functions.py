"""The torch.X forms of nn.functional ops (ATen's signatures: torch.dropout(x, p, train),
torch.batch_norm(x, weight, bias, mean, var, ...), torch.embedding(weight, idx), int loss
reductions ...) against torch: values and gradients."""
import numpy as np
import pytest

import labkit
from conftest import check_op, rand_array

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("fn, arrays", [
    (lambda L, x: L.dropout(x, 0.3, False), [(3, 4)]),
    (lambda L, x, w, b: L.layer_norm(x, (4,), w, b, 1e-5, True), [(3, 4), (4,), (4,)]),
    (lambda L, x, w, b: L.group_norm(x, 2, w, b, 1e-5, True), [(2, 4, 3), (4,), (4,)]),
    (lambda L, x, w, b: L.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, True), [(5, 3), (3,), (3,)]),
    (lambda L, x, w, b: L.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, True), [(2, 3, 5), (3,), (3,)]),
    (lambda L, x, w: L.rms_norm(x, (4,), w), [(3, 4), (4,)]),
    (lambda L, x: L.pixel_shuffle(x, 2), [(1, 8, 2, 3)]),
    (lambda L, x: L.pixel_unshuffle(x, 2), [(1, 2, 4, 6)]),
    (lambda L, x, y: L.cosine_similarity(x, y), [(3, 4), (3, 4)]),
    (lambda L, x, y: L.pairwise_distance(x, y), [(3, 4), (3, 4)]),
    (lambda L, x: L.selu(x), [(3, 4)]), (lambda L, x: L.celu(x, 0.5), [(3, 4)]),
    (lambda L, x, w: L.prelu(x, w), [(2, 3, 4), (3,)]),
    (lambda L, x: L.hardshrink(x, 0.3), [(3, 4)]),
    (lambda L, x: L.threshold(x, 0.1, -1.0), [(3, 4)]),
    (lambda L, x, y, w: L.bilinear(x, y, w, None), [(3, 2), (3, 5), (4, 2, 5)]),
    (lambda L, x, y: L.kl_div(x, y.abs(), 2), [(3, 4), (3, 4)]),
    (lambda L, x, y: L.binary_cross_entropy_with_logits(x, y, None, None, 0), [(3, 4), (3, 4)]),
    (lambda L, x, y: L.margin_ranking_loss(x, y, (x * 0 + 1).detach(), 0.2, 2), [(5,), (5,)]),
    (lambda L, x, y, z: L.triplet_margin_loss(x, y, z, 1.0, 2.0, 1e-6, False, 1), [(3, 4)] * 3),
    (lambda L, x, y: L.poisson_nll_loss(x, y.abs(), True, False, 1e-8, 1), [(3, 4), (3, 4)]),
])
def test_torch_forms(fn, arrays):
    with np.errstate(all="ignore"):
        check_op(lambda *a: fn(labkit, *a), lambda *a: fn(torch, *a),
                 [rand_array(s, i) for i, s in enumerate(arrays)], rtol=1e-9)


def test_embedding_weight_first():
    w = rand_array((5, 3), 1)
    idx = np.array([[0, 2], [4, 4]])
    check_op(lambda w, i: labkit.embedding(w, i), lambda w, i: torch.embedding(w, i), [w, idx])
    check_op(lambda w, i: labkit.embedding(w, i, 2), lambda w, i: torch.embedding(w, i, 2), [w, idx])


def test_int_reduction_errors():
    with pytest.raises(RuntimeError):
        labkit.kl_div(labkit.ones(2), labkit.ones(2), 5)
