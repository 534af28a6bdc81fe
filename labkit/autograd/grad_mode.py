"""labkit.autograd.grad_mode (torch.autograd.grad_mode): the grad-mode switches, where torch
code sometimes imports them from, and set_multithreading_enabled, which labkit accepts and
ignores: its backward runs on the calling thread."""
from ..engine.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa


class set_multithreading_enabled:
    """Context manager (and decorator) torch uses to let backward run on worker threads;
    labkit's backward is single-threaded either way."""

    def __init__(self, mode):
        self.mode = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn
