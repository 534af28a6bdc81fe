"""labkit.export capture time for the course's models (lecture 07's three small models, the
spiral classifier, a small CNN), static and with a dynamic batch (which traces twice), next
to jit.trace and torch.export.export. Medians of one run.
"""
import statistics
import time

import labkit
from labkit import nn
from labkit.export import Dim, export


def models():
    labkit.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(2, 100), nn.ReLU(), nn.Linear(100, 3))
    cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(4 * 4 * 4, 10))
    two_layer = nn.Sequential(nn.Linear(1000, 100), nn.ReLU(), nn.Linear(100, 10))
    return {"spiral MLP 2-100-3": (mlp, labkit.randn(32, 2)),
            "two-layer 1000-100-10": (two_layer, labkit.randn(64, 1000)),
            "CNN on 8x8 images": (cnn, labkit.randn(2, 1, 8, 8))}


def median_time(fn, n=7):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    try:
        import torch
        torch.set_num_threads(1)    # a shared 2-core machine: threads only fight each other
    except ImportError:
        torch = None
    print(f"{'model':<24} {'export':>9} {'export dyn':>11} {'jit.trace':>10}"
          + (f" {'torch.export':>13}" if torch else "") + "   (ms)")
    for name, (model, x) in models().items():
        dyn = {"input": {0: Dim("batch", min=1, max=1024)}}
        t_exp = median_time(lambda: export(model, (x,)))
        t_dyn = median_time(lambda: export(model, (x,), dynamic_shapes=dyn))
        t_tr = median_time(lambda: labkit.jit.trace(model, x))
        line = f"{name:<24} {t_exp * 1e3:9.2f} {t_dyn * 1e3:11.2f} {t_tr * 1e3:10.2f}"
        if torch:
            import warnings
            tm = _torch_twin(torch, model)
            tx = torch.tensor(x.numpy())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_t = median_time(lambda: torch.export.export(tm, (tx,)), n=3)
            line += f" {t_t * 1e3:13.1f}"
        print(line)


def _torch_twin(torch, model):
    layers = []
    for m in model:
        kind = type(m).__name__
        if kind == "Linear":
            layers.append(torch.nn.Linear(m.in_features, m.out_features))
        elif kind == "Conv2d":
            layers.append(torch.nn.Conv2d(1, 4, 3, padding=1))
        elif kind == "MaxPool2d":
            layers.append(torch.nn.MaxPool2d(2))
        else:
            layers.append(getattr(torch.nn, kind)())
    return torch.nn.Sequential(*layers)


if __name__ == "__main__":
    main()
