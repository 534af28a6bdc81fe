"""torch.jit.ScriptModule / torch.jit.script_method (RWKV's inference code subclasses them):
labkit runs the decorated methods eagerly, as torch does under PYTORCH_JIT=0; the results,
the in-place writes into an argument, the module's parameters and state dict match torch's."""
import numpy as np
import pytest

import labkit
from conftest import assert_close

torch = pytest.importorskip("torch")


def _mixer_class(lib):
    class Mixer(lib.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(3) * 0.5)
            self.eval()

        @lib.jit.script_method
        def mix(self, x, state, i: int):
            out = x * self.w + state[i] * (1 - self.w)
            state[i] = x                      # the recurrent state is written in place
            return lib.sigmoid(out)

        @lib.jit.script_method
        def blend(self, x, y):
            return x * self.w + y * (1 - self.w)

        def forward(self, x, state):
            return self.mix(x, state, 1)

    return Mixer


def test_script_module_runs_script_methods_like_torch():
    x = np.array([0.3, -1.2, 2.0], dtype=np.float32)
    s = np.arange(6, dtype=np.float32).reshape(2, 3)
    mine_m, ref_m = _mixer_class(labkit)(), _mixer_class(torch)()
    mine_s, ref_s = labkit.tensor(s), torch.tensor(s)
    mine, ref = mine_m(labkit.tensor(x), mine_s), ref_m(torch.tensor(x), ref_s)
    assert_close(mine, ref, rtol=1e-6)
    assert_close(mine_s, ref_s)                         # row 1 now holds x, in both
    assert isinstance(mine_m, labkit.nn.Module) and not mine_m.training
    assert list(mine_m.state_dict()) == list(ref_m.state_dict()) == ["w"]


def test_script_method_keeps_gradients_and_the_inplace_check():
    grads = []
    for lib in (labkit, torch):
        m = _mixer_class(lib)()
        m.blend(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([0.5, -1.0, 4.0])).sum().backward()
        grads.append(m.w.grad)
        # mix reads state[1] then overwrites it: backward needs the old row, as in torch
        m.w.grad = None
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            m.mix(lib.tensor([1.0, 2.0, 3.0]), lib.zeros(2, 3), 1).sum().backward()
    assert_close(*grads, rtol=1e-6)


def test_jit_names_torch_lacks_stay_errors():
    with pytest.raises(AttributeError):
        labkit.jit.no_such_thing
