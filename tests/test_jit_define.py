"""Define-then-run (TF1): a graph built once from placeholders, run many times with a feed;
the same losses and gradients as define-by-run."""
import numpy as np
import pytest

import labkit
from labkit import jit
from jit_models import arrays, two_layer

X, Y, W1, W2 = arrays((8, 10), (8, 2), (10, 5), (5, 2))


def test_placeholders_then_feed_match_eager_training():
    w1 = labkit.from_numpy(W1.copy()).requires_grad_()
    w2 = labkit.from_numpy(W2.copy()).requires_grad_()
    g = jit.define()
    with g:
        x, y = g.placeholder((8, 10), name="x"), g.placeholder((8, 2), name="y")
        loss = (two_layer(x, w1, w2) - y).pow(2).sum()
        gw1, gw2 = g.gradients(loss, [w1, w2])
    e1 = labkit.from_numpy(W1.copy()).requires_grad_()
    e2 = labkit.from_numpy(W2.copy()).requires_grad_()
    for _ in range(3):
        value, a, b = g.run([loss, gw1, gw2], feed_dict={x: X, y: Y})
        eager = (two_layer(labkit.from_numpy(X), e1, e2) - labkit.from_numpy(Y)).pow(2).sum()
        eager.backward()
        assert np.allclose(value, eager.item(), rtol=1e-5)
        assert np.allclose(a, e1.grad.numpy(), rtol=1e-4, atol=1e-4)
        with labkit.no_grad():
            for w, e, grad in ((w1, e1, a), (w2, e2, b)):
                w -= 1e-3 * labkit.from_numpy(grad)
                e -= 1e-3 * e.grad
                e.grad = None
    assert "%x : Float(8, 10)" in str(g) and "%w1 : Float(10, 5, requires_grad=1)" in str(g)


def test_an_unfed_placeholder_is_named():
    g = jit.define()
    with g:
        x = g.placeholder((2,), name="x")
        y = x * 2
    with pytest.raises(KeyError, match="placeholder %x was not fed"):
        g.run(y, feed_dict={})
