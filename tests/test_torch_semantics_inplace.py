"""In-place rules against torch, table-driven (tests/snippets.py): changing a tensor that backward
still needs raises at backward (the version counter); in-place on a leaf that requires grad, or on
a view of one, raises; under no_grad it is allowed; x.data changes are not tracked; views and
detach() share the version counter; out= arguments."""
import pytest

from snippets import check

pytest.importorskip("torch")

W = "w = L.tensor([[1., -2., 3.], [0.5, 2., -1.]], requires_grad=True); leaves = [w]; "
# ops whose backward reads their input or output (torch saves it, so a change must raise),
# and ops whose backward does not (a change is harmless)
OPS = ["y.exp()", "y.sin()", "y * y", "y.pow(2)", "y.sigmoid()", "y.tanh()", "y.relu()", "y.abs()",
       "y / 2", "y * 2", "y + 1", "y.sum()", "y.max()", "y.amax(0)", "y.sort(1)[0]", "y[0]",
       "y[[0, 1, 1]]", "y.t() @ y", "y.clamp(0, 1)", "y.log_softmax(1)", "y.softmax(1)",
       "y.norm()", "y.mean()", "y.var()", "y.sqrt()", "y.reciprocal()", "y.cumsum(1)",
       "y.cumprod(1)", "y.where(y > 0, y * 3)", "y.masked_fill(y > 0, 0.)",
       "y.gather(1, L.tensor([[0], [1]]))", "y.index_select(1, L.tensor([0, 2]))", "y.prod()",
       "y.max(1)[0]", "y.topk(2)[0]", "L.atan2(y, y + 3)", "y.square()", "y.expm1()",
       "y.log1p().abs()", "y.rsqrt()", "y.erf()", "y.std()", "L.cat([y, y])",
       "y.unsqueeze(0).expand(2, 2, 3) * 1", "y.view(-1)[1:]", "y.reshape(3, 2).t()"]
MODS = ["y.add_(1)", "y.mul_(2)", "y[0] = 0", "y.zero_()", "y.t().mul_(2)", "y.view(-1)[1] = 5",
        "y.detach().add_(1)", "y.copy_(y * 0)", "y.clamp_(0, 1)", "y[y > 0] = 1"]


@pytest.mark.parametrize("op", OPS)
def test_changing_a_tensor_backward_needs_raises_at_backward(op):
    for mod in MODS:
        check(W + f"y = w * 1.5\nz = {op}\n{mod}\ng = L.autograd.grad(z.sum(), w)\nout = (z, g)")


@pytest.mark.parametrize("op", OPS)
def test_changes_through_data_are_not_tracked(op):
    """torch: x.data shares memory but not the version counter, so nothing raises (what
    backward then computes depends on what each op saved; compared where both agree)."""
    check(W + f"y = w * 1.5\nz = {op}\ny.data.mul_(1)\nv = (y._version, y.data._version)\n"
              "g = L.autograd.grad(z.sum(), w)\nout = (z, g, v)")


LEAF_MODS = ["w.add_(1)", "w[0] = 1", "w.view(-1).add_(1)", "w.t()[0].zero_()", "w.data.add_(1)",
             "w.detach().mul_(2)", "w.unsqueeze(0).add_(1)", "w[[0]] = 0", "w.fill_(1)",
             "w.copy_(L.zeros(2, 3))", "w.clamp_(0, 1)", "w.requires_grad_(False).add_(1)",
             "w.sin_()", "w.masked_fill_(w > 0, 0)",
             "w.index_put_((L.tensor([0]),), L.tensor(1.))", "w.scatter_(0, L.tensor([[0]]), 5.)",
             "w[0].zero_()", "w.transpose(0, 1).zero_()", "w += 1", "w.exp_()", "w.div_(2)",
             "w.sub_(1)", "w.neg_()", "w.abs_()", "w.pow_(2)", "w.sqrt_()", "w.relu_()",
             "w.sigmoid_()", "w.tanh_()", "w.floor_()", "w.round_()", "w[w > 0] = 0",
             "w.diagonal().zero_()", "w.unfold(1, 1, 1).zero_()", "w.select(1, 0).zero_()",
             "w.narrow(1, 0, 1).zero_()"]


@pytest.mark.parametrize("mod", LEAF_MODS)
def test_leaves_views_of_leaves_and_no_grad(mod):
    check(W + f"{mod}\nout = w")
    check(W + f"with L.no_grad(): {mod}\nout = (w, w._version, w.requires_grad, w.is_leaf)")
    check(W + "y = w * 1; v = y.view(-1); vv = v[1:]; x0 = (y._version, v._version, "
              "vv._version)\n" + mod.replace("w", "y") + "\nout = (y, v, vv, x0, (y._version, "
              "v._version, vv._version))")
    check(f"w = L.arange(6.).reshape(2, 3).requires_grad_(); leaves = [w]; {mod}\nout = w")


CASES = [
    "a = L.zeros(3); d = a.detach(); d.add_(1); out = (a, a._version, d._version)",
    "a = L.zeros(3); d = a.data; d.add_(1); out = (a, a._version, d._version)",
    "a = L.zeros(3, requires_grad=True); y = a.exp(); a.data.add_(1); y.sum().backward(); out = (a.grad, a._version)",
    "a = L.zeros(3, requires_grad=True); y = a.exp(); a.detach().add_(1); y.sum().backward(); out = a.grad",
    "a = L.zeros(3, requires_grad=True); b = a * 2; y = b.exp(); b.detach().add_(1); y.sum().backward(); out = a.grad",
    "a = L.zeros(3, requires_grad=True); b = a * 2; y = b.exp(); b.data.add_(1); y.sum().backward(); out = a.grad",
    "a = L.zeros(3); v = a[1:]; a.add_(1); out = (a._version, v._version)",
    "a = L.zeros(3); v = a[1:]; v[0] = 2; out = (a, a._version, v._version)",
    "a = L.zeros(3); a[0] = 1; a[1] += 1; a.zero_(); out = a._version",
    "a = L.zeros(3, requires_grad=True); b = a.clone(); b[0] = 5; out = (b, b.grad_fn is not None, b.is_leaf)",
    "w = L.ones(3, requires_grad=True); leaves = [w]; y = w * 2; i = L.tensor([0, 2]); z = y.gather(0, i); i[0] = 1; out = L.autograd.grad(z.sum(), w)",
    "w = L.ones(3, requires_grad=True); leaves = [w]; i = L.tensor([0, 2]); z = w[i]; i[0] = 1; out = L.autograd.grad(z.sum(), w)",
    "w = L.ones(3, requires_grad=True); leaves = [w]; i = L.tensor([0, 2]); z = w.index_select(0, i); i[0] = 1; out = L.autograd.grad(z.sum(), w)",
    "w = L.ones(3, requires_grad=True); leaves = [w]; i = L.tensor([0, 2]); z = w.scatter(0, i, 2.); i[0] = 1; out = L.autograd.grad(z.sum(), w)",
    "w = L.ones(2, requires_grad=True); leaves = [w]; y = w * 1; u = y.unbind(0); u[0].mul_(2); out = y",
    "w = L.ones(2, requires_grad=True); y = w * 1\nwith L.no_grad(): y.mul_(2)\nout = (y, y.requires_grad, y.grad_fn is not None)",
    # out=: written in place, the result is out itself, dtype rules
    "a = L.tensor([1., -2.]); r = L.empty(2); res = L.add(a, a, out=r); out = (r, res is r)",
    "a = L.tensor([1., -2.]); r = L.empty(0); res = L.mul(a, 2, out=r); out = (r, res is r)",
    "a = L.tensor([1., -2.]); r = L.empty(2, dtype=L.int64); L.add(a, a, out=r); out = r",
    "a = L.tensor([1, -2]); r = L.empty(2); L.add(a, a, out=r); out = r",
    "a = L.tensor([1., -2.]); r = L.empty(3); L.exp(a, out=r); out = r",
    "a = L.tensor([1., -2.], requires_grad=True); r = L.empty(2); L.exp(a, out=r); out = r",
    "a = L.tensor([1., -2.]); r = L.empty(2); L.cat([a[:1], a[1:]], out=r); out = r",
    "a = L.tensor([[1.5, -2.5]]); r = L.empty(2, dtype=L.int64); L.sum(a, 0, out=r); out = r",
    "a = L.tensor([1.5, 2.5, -1.5]); r = L.empty((), dtype=L.int64); L.sum(a, 0, out=r); out = r",
    "a = L.tensor([1.5, 2.5, -1.5]); r = L.empty(3, dtype=L.int64); L.cumsum(a, 0, out=r); out = r",
    "a = L.tensor([1.5, 2.5, -1.5]); r = L.empty((), dtype=L.int64); L.mean(a, 0, out=r); out = r",
    "a = L.tensor([1.5, 2.5]); r = L.empty(2, dtype=L.int64); L.cat([a], out=r); out = r",
    "a = L.tensor([1.5, 2.5]); r = L.empty(2, dtype=L.float64); L.cat([a], out=r); out = r",
    "a = L.tensor([1.5, 2.5]); r = L.empty(2, dtype=L.float64); L.clamp(a, 0, 2, out=r); out = r",
    "a = L.tensor([[1.5, 2.5]]); r = L.empty(1, 1, dtype=L.float64); L.matmul(a, a.t(), out=r); out = r",
    "a = L.tensor([1.5, 2.5]); r = L.empty(2, dtype=L.float64); L.where(a > 2, a, a * 0, out=r); out = r",
    "a = L.tensor([1.5, 2.5]); r = L.empty(2, dtype=L.float16); L.add(a, 1, out=r); out = r",
    # in-place view ops: x itself changes shape, the version goes up, the graph follows
    "w = L.ones(2, 3, requires_grad=True); leaves = [w]; y = w * L.arange(6.).view(2, 3); y.t_(); z = y * L.arange(2.); out = (z, y._version)",
    "w = L.ones(2, 3, requires_grad=True); leaves = [w]; y = w * 2; y.unsqueeze_(0); y.squeeze_(); y.transpose_(0, 1); out = (y * 1, y.shape, y.stride())",
    "w = L.ones(2, 3, requires_grad=True); w.t_(); out = w",
    "a = L.zeros(2, 3); v = a[0]; a.t_(); v.fill_(1); out = (a, a.is_contiguous(), a._version)",
    "b = L.arange(6.).reshape(2, 3) * 1; c = b[1]; c.unsqueeze_(0); c.mul_(10); out = (b, c)",
    "a = L.tensor([-1., 2.]); a.clamp_min_(0); a.clamp_max_(1); out = a",
    # a view made under no_grad of a tensor that requires grad: no in-place with grad mode on
    "w = L.ones(3, requires_grad=True)\nwith L.no_grad(): v = w[:2]\nv.mul_(2)\nout = (w, v)",
    "w = L.ones(3, requires_grad=True); y = w * 2\nwith L.no_grad(): v = y[:2]\nv.mul_(L.ones(2, requires_grad=True))\nout = (y, v)",
    "w = L.ones(3)\nwith L.no_grad(): v = w[:2]\nv.mul_(2)\nout = (w, v)",
    "w = L.ones(3, requires_grad=True)\nwith L.no_grad(): v = w[:2]\nwith L.no_grad(): v.mul_(2)\nout = (w, v)",
    "w = L.ones(3, requires_grad=True)\nwith L.no_grad(): v = w[:2]; u = v[1:]\nu.mul_(2)\nout = (w, v)",
    "w = L.ones(3, requires_grad=True)\nwith L.no_grad(): v = w[:2]\nv[0] = 5\nout = w",
]


@pytest.mark.parametrize("code", CASES)
def test_cases(code):
    check(code)


@pytest.mark.parametrize("op", ["unsqueeze_(0)", "t_()", "squeeze_()", "transpose_(0, 1)",
                                "unsqueeze_(-1)", "swapdims_(1, 0)"])
def test_in_place_reshape_of_a_view_in_a_graph(op):
    """c = b[1]; c.unsqueeze_(0) keeps c a view of b (one view op further): writes through c
    reach b, writes to b reach c, with torch's values and gradients."""
    setup = ("x = L.arange(12.).requires_grad_(); leaves = [x]; b = x.reshape(2, 2, 3) * 1; "
             "c = b[1]; ")
    check(setup + f"c.{op}; c.mul_(x[:6].reshape(c.shape)); out = (b, c, c.shape, c.stride())")
    check(setup + f"c.{op}; b.add_(x[0]); out = (c * 1, b)")
    check(setup + f"c.{op}; c[0] = 5.; out = (b, c._version == b._version)")
