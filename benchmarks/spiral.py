"""The CS231n spiral classifier: 3 classes of 100 points, one hidden layer of 100 ReLUs,
softmax cross-entropy, full-batch SGD (lr 1.0), 1000 iterations from a fresh model.
labkit (nn + optim + F.cross_entropy) against the same training loop written by hand in numpy
(target: labkit / numpy <= 1.3), and torch when installed. The whole 1000-iteration run is
timed, so every per-step overhead (module calls, graph building, optimizer) counts.
"""
import numpy as np

import labkit
from labkit.datasets import spirals
from timing import compare, report

H, K, ITERS, LR = 100, 3, 1000, 1.0
X_T, Y_T = spirals(points_per_class=100, classes=K)
X, Y = X_T.numpy(), Y_T.numpy()
N, D = X.shape


def numpy_train():
    rng = np.random.default_rng(0)
    w1 = (rng.uniform(-1, 1, (D, H)) / np.sqrt(D)).astype(np.float32)
    b1 = (rng.uniform(-1, 1, H) / np.sqrt(D)).astype(np.float32)
    w2 = (rng.uniform(-1, 1, (H, K)) / np.sqrt(H)).astype(np.float32)
    b2 = (rng.uniform(-1, 1, K) / np.sqrt(H)).astype(np.float32)
    rows = np.arange(N)
    for _ in range(ITERS):
        hidden = np.maximum(X.dot(w1) + b1, 0)
        scores = hidden.dot(w2) + b2
        scores -= scores.max(axis=1, keepdims=True)          # for a stable softmax
        exp = np.exp(scores)
        probs = exp / exp.sum(axis=1, keepdims=True)
        loss = -np.log(probs[rows, Y]).mean()
        dscores = probs
        dscores[rows, Y] -= 1
        dscores /= N
        dw2 = hidden.T.dot(dscores)
        db2 = dscores.sum(0)
        dhidden = dscores.dot(w2.T)
        dhidden[hidden <= 0] = 0
        dw1 = X.T.dot(dhidden)
        db1 = dhidden.sum(0)
        w1 -= LR * dw1
        b1 -= LR * db1
        w2 -= LR * dw2
        b2 -= LR * db2
    return loss


def make_train(lib):
    x, y = lib.from_numpy(X), lib.from_numpy(Y)
    cross_entropy = lib.nn.functional.cross_entropy

    def train():
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(D, H), lib.nn.ReLU(), lib.nn.Linear(H, K))
        optimizer = lib.optim.SGD(model.parameters(), lr=LR)
        for _ in range(ITERS):
            loss = cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.item()
    return train


def main():
    candidates = {"numpy by hand": numpy_train, "labkit nn + optim": make_train(labkit)}
    try:
        import os

        import torch
        torch.set_num_threads(len(os.sched_getaffinity(0)))
        candidates["torch nn + optim"] = make_train(torch)
    except ImportError:
        print("(torch not installed: its column is skipped)")
    med = compare(candidates, rounds=9, number=1, warmup=1)
    report(f"Spiral classifier, {ITERS} full-batch SGD iterations (whole run):", med,
           "numpy by hand", unit="ms")
    ratio = med["labkit nn + optim"] / med["numpy by hand"]
    print(f"spiral labkit / numpy = {ratio:.3f}  (target <= 1.3)")


if __name__ == "__main__":
    main()
