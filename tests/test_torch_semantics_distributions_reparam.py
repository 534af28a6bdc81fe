"""Reparameterised sampling against torch. Samples differ (labkit draws from its own generator),
so gradients are compared at the same draws: Gamma/Beta/Dirichlet through torch's implicit
gradient functions (_standard_gamma_grad, _dirichlet_grad) at labkit's samples -- torch fits
them with approximations good to about 1e-3, labkit sums the series -- and the Gumbel-softmax
relaxations with the uniform noise fixed. Also Dirichlet's log_prob / entropy / moments."""
import numpy as np
import pytest

import labkit
from distributions_oracle import compare, outputs, rng, validation_on  # noqa: F401

torch = pytest.importorskip("torch")


def test_standard_gamma_grad_matches_torch_over_a_wide_range():
    from labkit.distributions._random import standard_gamma_grad_array
    r = rng(0)
    alpha = np.exp(r.uniform(np.log(0.02), np.log(2000.0), 400))
    x = r.gamma(alpha)
    mine = standard_gamma_grad_array(alpha, x, np)
    ref = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    np.testing.assert_allclose(mine, ref, rtol=2e-3)


def test_dirichlet_grad_matches_torch():
    from labkit.distributions._random import dirichlet_grad_array
    r = rng(1)
    a, b = r.uniform(0.05, 30, 400), r.uniform(0.05, 30, 400)
    x = r.beta(a, b)
    mine = dirichlet_grad_array(x, a, a + b, np)
    ref = torch._dirichlet_grad(torch.tensor(x), torch.tensor(a), torch.tensor(a + b)).numpy()
    np.testing.assert_allclose(mine, ref, rtol=3e-3)


def test_gamma_rsample_gradient_is_torchs_formula_at_the_sample():
    labkit.manual_seed(0)
    conc = labkit.tensor([0.3, 1.0, 4.0, 50.0], dtype=labkit.float64, requires_grad=True)
    rate = labkit.tensor([2.0, 0.5, 1.0, 3.0], dtype=labkit.float64, requires_grad=True)
    x = labkit.distributions.Gamma(conc, rate).rsample()
    x.sum().backward()
    xs = x.detach().numpy() * rate.detach().numpy()          # the standard-gamma draw
    a_t = torch.tensor(conc.detach().numpy())
    dx_da = torch._standard_gamma_grad(a_t, torch.tensor(xs)).numpy() / rate.detach().numpy()
    np.testing.assert_allclose(conc.grad.numpy(), dx_da, rtol=2e-3)
    np.testing.assert_allclose(rate.grad.numpy(), -x.detach().numpy() / rate.detach().numpy(),
                               rtol=1e-12)
    assert labkit.distributions.Gamma(conc, rate).has_rsample


def test_dirichlet_and_beta_rsample_gradients_are_torchs_backward_at_the_sample():
    labkit.manual_seed(1)
    conc = labkit.tensor([[0.5, 2.0, 3.0], [4.0, 1.0, 8.0]], dtype=labkit.float64,
                         requires_grad=True)
    x = labkit.distributions.Dirichlet(conc).rsample()
    w = labkit.tensor(rng(2).standard_normal((2, 3)))
    (x * w).sum().backward()
    xt, ct, wt = (torch.tensor(v) for v in (x.detach().numpy(), conc.detach().numpy(), w.numpy()))
    from torch.distributions.dirichlet import _Dirichlet_backward
    np.testing.assert_allclose(conc.grad.numpy(), _Dirichlet_backward(xt, ct, wt).numpy(),
                               rtol=3e-3)
    np.testing.assert_allclose(x.detach().sum(-1).numpy(), 1.0, rtol=1e-12)
    a = labkit.tensor([2.0, 0.7], dtype=labkit.float64, requires_grad=True)
    b = labkit.tensor([3.0, 5.0], dtype=labkit.float64, requires_grad=True)
    labkit.manual_seed(2)
    y = labkit.distributions.Beta(a, b).rsample()
    y.sum().backward()
    ab = torch.tensor(np.stack([a.detach().numpy(), b.detach().numpy()], -1))
    yy = torch.tensor(np.stack([y.detach().numpy(), 1 - y.detach().numpy()], -1))
    g = _Dirichlet_backward(yy, ab, torch.tensor([[1.0, 0.0], [1.0, 0.0]], dtype=torch.float64))
    np.testing.assert_allclose(a.grad.numpy(), g[:, 0].numpy(), rtol=3e-3)
    np.testing.assert_allclose(b.grad.numpy(), g[:, 1].numpy(), rtol=3e-3)


def test_gamma_rsample_has_no_second_derivative_as_torch():
    conc = labkit.tensor([2.0], requires_grad=True)
    x = labkit.distributions.Gamma(conc, 1.0).rsample()
    (g,) = labkit.autograd.grad(x.sum(), conc, create_graph=True)
    with pytest.raises(RuntimeError, match="not implemented"):
        g.sum().backward()


def test_dirichlet_values_and_gradients():
    conc = rng(3).uniform(0.5, 3.0, (2, 4))
    x = rng(4).dirichlet(np.ones(4), 2)
    compare(lambda lib, c, v: outputs(lib.distributions.Dirichlet(c), v), [conc, x],
            requires_grad=[True, False], rtol=1e-6)


def test_dirichlet_mode_with_concentrations_below_one():
    conc = np.array([[0.5, 0.2, 0.9], [2.0, 3.0, 0.5]])
    compare(lambda lib, c: lib.distributions.Dirichlet(c).mode, [conc], requires_grad=[False])


def test_relaxed_one_hot_categorical_with_fixed_noise():
    logits = rng(5).standard_normal((2, 4))
    temp = np.array(0.7)

    def build(lib, lg, t):
        lib.manual_seed(0)
        d = lib.distributions.RelaxedOneHotCategorical(t, logits=lg)
        u = lib.rand(2, 4, dtype=lib.float64)       # the noise rsample draws (the same numbers)
        lib.manual_seed(0)
        return d.rsample(), d.log_prob(d.rsample().detach()), u
    compare(build, [logits, temp], rtol=1e-6)


def test_relaxed_bernoulli_with_fixed_noise():
    probs = rng(6).uniform(0.1, 0.9, (3,))

    def build(lib, p, t):
        lib.manual_seed(1)
        d = lib.distributions.RelaxedBernoulli(t, probs=p)
        z = d.rsample()
        return z, d.log_prob(z.detach()), d.logits
    compare(build, [probs, np.array(0.5)], rtol=1e-6)
