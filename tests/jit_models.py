"""The course's models, built twice from one seed: once for eager, once for a JIT front end."""
import numpy as np

import labkit
from labkit import nn

RNG = np.random.default_rng(0)


def arrays(*shapes, scale=1.0):
    return [(RNG.standard_normal(s) * scale).astype(np.float32) for s in shapes]


def two_layer(x, w1, w2):
    """Lecture 01's net: relu(x @ w1) @ w2."""
    return x.mm(w1).clamp(min=0).mm(w2)


def mlp(seed=0, sizes=(2, 16, 3), act=nn.ReLU):
    labkit.manual_seed(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


def cnn(seed=0):
    labkit.manual_seed(seed)
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(4 * 4 * 4, 10))


def close(a, b, tol=1e-5):
    a = a.detach().cpu().numpy() if isinstance(a, labkit.Tensor) else np.asarray(a)
    b = b.detach().cpu().numpy() if isinstance(b, labkit.Tensor) else np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol)
