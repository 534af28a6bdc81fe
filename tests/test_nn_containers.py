"""ParameterList/ParameterDict, ModuleDict, Identity and channel dropout against torch: the
names parameters get (state_dict keys equal torch's), what the containers hold, and the
statistics of Dropout2d's channel mask."""
import numpy as np
import pytest

import labkit
import labkit.nn.functional as F
from labkit import nn

torch = pytest.importorskip("torch")


class Mixture(object):
    """The same model written against either library: a ParameterList of centres, a
    ParameterDict of scales, a ModuleDict of heads."""

    @staticmethod
    def build(m, lib):
        class Model(m.Module):
            def __init__(self):
                super().__init__()
                self.centres = m.ParameterList([m.Parameter(lib.zeros(3)) for _ in range(2)])
                self.centres.append(lib.ones(3))                 # a tensor becomes a Parameter
                self.scales = m.ParameterDict({"a": m.Parameter(lib.ones(1))})
                self.scales["b"] = m.Parameter(lib.ones(2))
                self.heads = m.ModuleDict({"x": m.Linear(3, 2), "y": m.Identity()})

            def forward(self, x):
                c = sum(p for p in self.centres)
                return self.heads["x"](x - c) * self.scales["a"] + self.heads["y"](x).sum()
        return Model()


def test_parameter_containers_register_like_torch():
    mine, ref = Mixture.build(nn, labkit), Mixture.build(torch.nn, torch)
    assert list(mine.state_dict()) == list(ref.state_dict())
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert isinstance(mine.centres[2], nn.Parameter) and mine.centres[2].requires_grad
    assert len(mine.centres) == 3 and len(mine.scales) == 2 and "b" in mine.scales
    assert list(mine.scales.keys()) == ["a", "b"]
    ref = ref.double()
    mine = mine.double()
    mine.load_state_dict({k: labkit.tensor(v.detach().numpy())
                          for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((4, 3))
    ym, yt = mine(labkit.tensor(x)), ref(torch.tensor(x))
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    ym.sum().backward()
    yt.sum().backward()
    grads = dict(mine.named_parameters())
    for name, p in ref.named_parameters():
        assert (grads[name].grad is None) == (p.grad is None), name       # scales.b is unused
        if p.grad is not None:
            np.testing.assert_allclose(grads[name].grad.numpy(), p.grad.numpy(), rtol=1e-12,
                                       err_msg=name)


def test_parameter_list_indexing_and_errors():
    pl = nn.ParameterList([nn.Parameter(labkit.ones(1)), nn.Parameter(labkit.zeros(2))])
    assert tuple(pl[-1].shape) == (2,) and len(pl[0:1]) == 1
    with pytest.raises(IndexError):
        pl[2]
    pd = nn.ParameterDict({"w": labkit.ones(2)})
    assert isinstance(pd["w"], nn.Parameter)
    assert tuple(pd.pop("w").shape) == (2,) and len(pd) == 0
    assert pd.get("missing") is None


def test_identity_passes_through_and_takes_any_arguments():
    x = labkit.randn(2, 3)
    assert nn.Identity(54, unused="argument")(x) is x
    assert repr(nn.Identity()) == repr(torch.nn.Identity())


@pytest.mark.parametrize("shape", [(64, 32, 3, 3), (1, 32, 3, 3)])   # 3-D: see test_torch_semantics_programs_tut
def test_dropout2d_zeroes_whole_channels(shape):
    labkit.manual_seed(0)
    x = labkit.ones(*shape)
    y = nn.Dropout2d(0.25)(x).numpy()
    per_channel = y.reshape(-1, 9)
    assert set(np.unique(per_channel)) <= {0.0, np.float32(1 / 0.75)}
    assert all(len(set(row)) == 1 for row in per_channel)       # a channel is all kept or all 0
    kept = (per_channel[:, 0] > 0).mean()
    assert 0.6 < kept < 0.9                                      # about 1 - p
    m = nn.Dropout2d(0.25)
    m.eval()
    assert m(x) is x


def test_dropout2d_gradient_follows_the_mask():
    labkit.manual_seed(1)
    x = labkit.randn(4, 6, 2, 2, requires_grad=True)
    y = F.dropout2d(x, 0.5)
    y.sum().backward()
    mask = (y.detach() != 0).float().numpy()
    np.testing.assert_allclose(x.grad.numpy(), mask * 2.0)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_probability_errors_match_torch(p):
    with pytest.raises(ValueError):
        torch.nn.Dropout2d(p)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout2d(p)


def test_dropout_reprs_match_torch():
    for name in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d"):
        assert repr(getattr(nn, name)(0.3)) == repr(getattr(torch.nn, name)(0.3))
