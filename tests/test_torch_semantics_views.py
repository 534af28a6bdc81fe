"""Views against torch, table-driven (tests/snippets.py): values and gradients through every
view op, writes through a view reaching the base and the reverse (also in graphs: torch's
CopySlices gradients), strides/contiguity/storage_offset/data_ptr, contiguous() returning
self, version counters shared by views and detach()."""
import pytest

from snippets import check

pytest.importorskip("torch")

VIEWS = ["b.view(6, 4)", "b.view(-1)", "b.reshape(4, 6)", "b.transpose(0, 2)", "b.permute(2, 0, 1)",
         "b.expand(2, 2, 3, 4)", "b.narrow(1, 1, 2)", "b.select(2, -1)", "b.unsqueeze(1)",
         "b[:, :1].squeeze()", "b[:, :1].squeeze(1)", "b.flatten()", "b.flatten(1)",
         "b.unflatten(2, (2, 2))", "b.diagonal()", "b.diagonal(0, 1, 2)", "b.diagonal(1, -1, -2)",
         "b[0].t()", "b.mT", "b.unfold(2, 2, 2)", "b.unfold(1, 1, 2)", "b.chunk(2, 2)[1]",
         "b.split(1, 1)[2]", "b.split([1, 2], 1)[1]", "b.unbind(1)[1]", "b.movedim(0, 2)",
         "b.movedim((0, 1), (2, 0))", "b[:, 1:, ::2]", "b[..., None, 1]", "b.view(2, 3, 2, 2)",
         "b.permute(2, 1, 0)", "b.swapaxes(0, 1)", "b.swapdims(1, 2)", "b.squeeze(0)",
         "b.view_as(b)", "b.tensor_split(3, dim=2)[1]", "b.unsqueeze(-1).squeeze(-1)",
         "b.select(0, 0).select(0, 0)", "b.flatten(0, 1)", "b.view(4, 6)[1:3, ::2]",
         "b.diagonal(0, 0, 2)", "b.narrow(-1, 0, 1)", "b.transpose(1, 1)", "b.reshape(-1, 2, 2)",
         "b.ravel()", "b.view(-1)[3:9]", "b[1].unflatten(0, (3, 1))", "b.detach()",
         "b.moveaxis(0, -1)", "b.T" if False else "b.permute(1, 0, 2)[1:]", "b[0, 1:, 1]",
         "b.transpose(0, 1).reshape(3, 8)", "b.transpose(0, 1).flatten(1)"]
GRAPH = "x = L.arange(24.).reshape(2, 3, 4).requires_grad_(); leaves = [x]; b = x * 1; "


@pytest.mark.parametrize("v", VIEWS)
def test_values_and_gradients(v):
    check(GRAPH + f"out = {v} * 2")


@pytest.mark.parametrize("v", VIEWS)
def test_writes_through_the_view_reach_the_base_with_torchs_gradients(v):
    check(GRAPH + f"v = {v}; v.mul_(3); out = (b, v)")
    check(GRAPH + f"v = {v}; v.add_(x[0, 0, 0] * L.ones(v.shape)); out = (b * 1, v * 1)")
    check(f"x = L.arange(24.).reshape(2, 3, 4).requires_grad_(); leaves = [x]; b = x.clone(); "
          f"v = {v}; v.sin_(); out = b")


@pytest.mark.parametrize("v", VIEWS)
def test_writes_to_the_base_reach_the_view(v):
    check(GRAPH + f"v = {v}; b.mul_(2); out = (v * 1, b)")
    check(GRAPH + f"v = {v}; b[0] = x[1] ** 2; out = (v * 1, b)")
    check(f"b = L.arange(24.).reshape(2, 3, 4); v = {v}; b.add_(1); out = v")


@pytest.mark.parametrize("v", [v for v in VIEWS if v != "b[..., None, 1]"])
def test_memory_layout_questions(v):
    """(b[..., None, 1]: torch's stride of the new size-1 dim depends on the order it applies
    the index items in; a size-1 dim's stride never changes which element is read.)"""
    check(f"b = L.arange(24.).reshape(2, 3, 4); v = {v}; out = (v.is_contiguous(), v.stride(), "
          "v.storage_offset(), v.data_ptr() == b.data_ptr(), v.contiguous() is v, "
          "v.contiguous().is_contiguous(), v.reshape(-1).shape)")


@pytest.mark.parametrize("v", VIEWS)
def test_version_counters_are_shared(v):
    check(f"b = L.arange(24.).reshape(2, 3, 4); v = {v}; d = b.detach(); x0 = (v._version, "
          "b._version); d.add_(1); x1 = (v._version, b._version, d._version); "
          "v.add_(1) if not v.stride() or 0 not in v.stride() else None; "
          "out = (x0, x1, v._version, b._version, d._version)")


@pytest.mark.parametrize("v", VIEWS)
def test_in_place_on_a_view_of_a_leaf(v):
    """torch: refused on a view of a leaf that requires grad (x = arange().reshape()
    .requires_grad_() is a leaf and a view), allowed under no_grad."""
    check(f"x = L.arange(24.).reshape(2, 3, 4).requires_grad_(); b = x; v = {v}; v.mul_(2); out = v")
    check(f"x = L.arange(24.).reshape(2, 3, 4).requires_grad_(); b = x; v = {v}\n"
          "with L.no_grad(): v.mul_(2)\nout = (x, v, x.requires_grad, v.requires_grad)")
    check(f"x = L.ones(2, 3, 4, requires_grad=True); b = x; v = {v}; v.zero_(); out = v")


CASES = [
    "b = L.arange(6.); v = b.view(2, 3); out = v.contiguous() is v",
    "b = L.arange(6.).view(2, 3).t(); out = (b.contiguous() is b, b.is_contiguous())",
    "b = L.zeros(2, 1, 3); out = (b.transpose(0, 1).is_contiguous(), b.stride())",
    "b = L.zeros(0, 3); out = (b.t().is_contiguous(), b.stride())",
    "b = L.zeros(3, 1); out = (b.t().is_contiguous(), b.expand(3, 4).stride())",
    "b = L.zeros(()); out = (b.stride(), b.storage_offset(), b.unsqueeze(0).stride())",
    "b = L.arange(6.); out = (b[2:].storage_offset(), b[2:].view(2, 2).storage_offset())",
    "b = L.arange(6.).view(2, 3); v = b.t(); out = v.view(-1)",
    "b = L.arange(6.).view(2, 3); v = b.t(); out = v.reshape(-1)",
    "b = L.arange(6.).view(2, 3); v = b[:, ::2]; out = v.view(4)",
    "b = L.arange(6.).view(2, 3); out = b.view(3, -1, 1).shape",
    "b = L.arange(6.); out = b.view(-1, -1)",
    "b = L.arange(6.); out = b.view(4, 2)",
    "b = L.arange(6.); out = b.unfold(0, 7, 1)",
    "b = L.arange(6.); out = b.unfold(0, 0, 1)",
    "b = L.arange(6.); out = b.narrow(0, 5, 2)",
    "b = L.arange(6.); out = b.select(0, 6)",
    "b = L.zeros(()); out = b.select(0, 0)",
    "b = L.arange(6.); out = b.expand(2, -1, 6)",
    "b = L.arange(6.).view(2, 3); out = b.movedim(0, 0).stride()",
    "b = L.arange(6.).view(2, 3); v = b.expand(4, 2, 3); v.add_(1); out = b",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 1; u = b.unbind(0); u[1].mul_(2); out = b",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 1; u = b.split(2); u[1].mul_(2); out = b",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 1\nwith L.no_grad(): u = b.unbind(0); u[1].mul_(2)\nout = b",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x.view(2, 3) * 1; v = b[0]; w = v[1:]; w.mul_(x[:2]); out = (b, v, w)",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x.view(2, 3) * 1; v = b.t(); b.add_(x.view(2, 3)); out = v * v",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 1; v = b[::2]; v.copy_(x[:3] ** 2); out = b",
    "x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 1; v = b.view(3, 2).diagonal(); v.fill_(x[0]); out = b",
    # found by the fuzzer: 0-d and size-0 cases of the view ops
    "out = L.tensor(3.).unfold(0, 0, 1)", "out = L.tensor(3.).unfold(-1, 1, 2)",
    "out = L.tensor(3.).unfold(1, 1, 1)", "out = L.tensor(3.).movedim(0, 0)",
    "out = L.tensor(3.).movedim(-1, 0)", "out = L.tensor(3.).unflatten(0, (1, -1))",
    "out = L.zeros(0, 0).unflatten(0, (1, -1))", "out = L.zeros(3).diagonal(0, 0, -1)",
    "out = L.zeros(3).diagonal(0, 0, 1)",
]


@pytest.mark.parametrize("code", CASES)
def test_cases(code):
    check(code)


@pytest.mark.parametrize("view", ["b.split(2)[1]", "b.split([2, 4])[1]", "b.chunk(3)[0]",
                                  "b.reshape(2, 3).unbind(1)[2]", "b.split(4)[1]"])
@pytest.mark.parametrize("change", ["b.mul_(2)", "b[0] = 7.", "b.reshape(3, 2)[1].zero_()"])
def test_using_a_multi_output_view_after_its_base_changed_raises(view, change):
    """torch refuses to use (record an op on) an output of split/chunk/unbind after its base
    changed in place; without grad, or before the change, it is an ordinary view."""
    check(f"x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 1; v = {view}; "
          f"{change}; out = v * 1")
    check(f"x = L.arange(6.).requires_grad_(); leaves = [x]; b = x * 1; v = {view}; "
          f"w = v * 1; {change}; out = (w, b)")
    check(f"b = L.arange(6.); v = {view}; {change}; out = v * 1")
    check(f"x = L.arange(6.).requires_grad_(); b = x * 1; v = {view}; {change}\n"
          "with L.no_grad(): out = v * 1")


@pytest.mark.parametrize("fill", ["inf", "nan", "-inf"])
@pytest.mark.parametrize("dims", ["0, 0, -1", "1, 0, 1", "-1, 1, 2"])
def test_in_place_through_a_diagonal_keeps_inf_and_nan_off_it_as_torch(fill, dims):
    """Fuzz seed 969225092: writing through x.clone().diagonal() in a graph rebuilt the base as
    base * (1 - mask) + ..., so an inf off the diagonal became nan (inf * 0)."""
    check("a = L.full((2, 3, 3), -2.5); a[1, 2, 1] = float('" + fill + "'); "
          "a[0, 0, 0] = float('" + fill + "'); x = a.requires_grad_(); leaves = [x]; "
          f"h = x.clone(); v = h.diagonal({dims}); v.mul_(2); v.add_(3); out = h")
