"""Small datasets for the lectures, made on the spot (nothing to download)."""
import numpy as np

from .engine.creation import from_numpy


def spirals(points_per_class=100, classes=3, noise=0.2, seed=0):
    """Points on `classes` interleaved spiral arms in the plane (CS231n's toy problem): no
    straight line separates them, so a linear classifier fails and a small net succeeds.

    Returns X (N, 2) float32 and y (N,) int64 class labels, N = points_per_class * classes."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for k in range(classes):
        r = np.linspace(0.0, 1.0, points_per_class)                  # radius
        t = (np.linspace(k * 4.0, (k + 1) * 4.0, points_per_class)   # angle, plus noise
             + rng.standard_normal(points_per_class) * noise)
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(points_per_class, k))
    return (from_numpy(np.concatenate(xs).astype(np.float32)),
            from_numpy(np.concatenate(ys).astype(np.int64)))
