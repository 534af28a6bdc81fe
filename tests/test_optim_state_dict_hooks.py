"""Optimizer.register_state_dict_pre_hook / _post_hook and register_load_state_dict_pre_hook /
_post_hook against torch: the order hooks run in (prepend=), what they receive, a returned dict
replacing the one saved or loaded, the caller's dict left untouched, and handle.remove()."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _opt(lib):
    w = lib.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    (w ** 2).sum().backward()
    opt.step()
    return opt


def _register(lib, kind):
    """Three hooks on one kind; returns (optimizer, calls, handles)."""
    opt, calls = _opt(lib), []
    register = getattr(opt, f"register_{kind}_hook")

    def make(name):
        def hook(optimizer, *rest):
            assert optimizer is opt
            calls.append((name, len(rest)))
        return hook
    handles = [register(make("a")), register(make("b")), register(make("c"), prepend=True)]
    return opt, calls, handles


def _trigger(opt, kind):
    if kind.startswith("load"):
        opt.load_state_dict(opt.state_dict())
    else:
        opt.state_dict()


@pytest.mark.parametrize("kind", ["state_dict_pre", "state_dict_post",
                                  "load_state_dict_pre", "load_state_dict_post"])
def test_order_arguments_and_remove_match_torch(kind):
    runs = {}
    for lib in (torch, labkit):
        opt, calls, handles = _register(lib, kind)
        _trigger(opt, kind)
        handles[0].remove()
        _trigger(opt, kind)
        runs[lib.__name__] = calls
    assert runs["labkit"] == runs["torch"]
    assert [name for name, _ in runs["torch"]] == ["c", "a", "b", "c", "b"]


def _packed(sd):
    return {"state": {k: {n: np.asarray(v) for n, v in s.items()} for k, s in sd["state"].items()},
            "param_groups": sd["param_groups"]}


def test_state_dict_post_hook_result_replaces_the_dict():
    out = {}
    for lib in (torch, labkit):
        opt = _opt(lib)
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        opt.register_state_dict_post_hook(lambda o, sd: sd.update(seen=sorted(sd)))  # None: kept
        sd = opt.state_dict()
        out[lib.__name__] = sd
    assert sorted(out["labkit"]) == sorted(out["torch"]) == ["extra", "param_groups", "seen", "state"]
    assert out["labkit"]["seen"] == out["torch"]["seen"] == ["extra", "param_groups", "state"]


def test_state_dict_pre_hook_runs_before_packing():
    out = {}
    for lib in (torch, labkit):
        opt = _opt(lib)
        opt.register_state_dict_pre_hook(lambda o: o.param_groups[0].update(lr=0.5))
        out[lib.__name__] = opt.state_dict()["param_groups"][0]["lr"]
    assert out["labkit"] == out["torch"] == 0.5


def test_load_state_dict_pre_hook_result_is_loaded_and_caller_dict_untouched():
    out = {}
    for lib in (torch, labkit):
        opt = _opt(lib)
        sd = opt.state_dict()
        keys = sorted(sd)

        def upgrade(o, state_dict):
            state_dict["note"] = "added to the shallow copy"      # not the caller's dict
            groups = [dict(g, lr=0.25) for g in state_dict["param_groups"]]
            return {"state": state_dict["state"], "param_groups": groups}
        opt.register_load_state_dict_pre_hook(upgrade)
        seen = []
        opt.register_load_state_dict_post_hook(lambda o: seen.append(o.param_groups[0]["lr"]))
        opt.load_state_dict(sd)
        assert sorted(sd) == keys
        out[lib.__name__] = (opt.param_groups[0]["lr"], seen,
                             _packed(opt.state_dict())["state"][0]["momentum_buffer"])
    assert out["labkit"][:2] == out["torch"][:2] == (0.25, [0.25])
    np.testing.assert_allclose(out["labkit"][2], out["torch"][2], rtol=0, atol=0)


def test_hook_handle_as_context_manager():
    for lib in (torch, labkit):
        opt, calls = _opt(lib), []
        with opt.register_state_dict_pre_hook(lambda o: calls.append(1)):
            opt.state_dict()
        opt.state_dict()
        assert calls == [1]
