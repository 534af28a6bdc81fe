"""nn.Module's state_dict surface, against torch: get_extra_state / set_extra_state (saved under
"_extra_state", loaded back, missing or unexpected as torch counts them), state_dict pre and
post hooks, the _metadata versions, set_submodule, call_super_init, dump_patches and
T_destination."""
import warnings

import pytest

import labkit

torch = pytest.importorskip("torch")


def _models(L):
    class Counter(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = L.nn.Linear(2, 3)
            self.count = 5

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]

    class Outer(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = Counter()
            self.head = L.nn.Linear(3, 1)
    return Counter, Outer


def _error(fn):
    try:
        fn()
    except Exception as e:    # noqa: BLE001
        return type(e).__name__, str(e).splitlines()[0]
    return None


@pytest.mark.parametrize("L", [labkit, torch], ids=["labkit", "torch"])
def test_extra_state_round_trip(L):
    _, Outer = _models(L)
    o = Outer()
    sd = o.state_dict()
    assert list(sd) == ["m._extra_state", "m.fc.weight", "m.fc.bias", "head.weight",
                        "head.bias"]
    assert sd["m._extra_state"] == {"count": 5}
    sd["m._extra_state"] = {"count": 9}
    assert str(o.load_state_dict(sd)) == "<All keys matched successfully>"
    assert o.m.count == 9


def _extra_state_outcomes(L):
    Counter, Outer = _models(L)
    o = Outer()
    out = {}
    sd = o.state_dict()
    del sd["m._extra_state"]
    out["missing strict"] = _error(lambda: o.load_state_dict(sd))
    keys = o.load_state_dict(sd, strict=False)
    out["missing lenient"] = (keys.missing_keys, keys.unexpected_keys)
    plain = L.nn.Linear(1, 1)
    sd = plain.state_dict()
    sd["_extra_state"] = 1
    out["unexpected strict"] = _error(lambda: plain.load_state_dict(sd))
    keys = plain.load_state_dict(sd, strict=False)
    out["unexpected lenient"] = (keys.missing_keys, keys.unexpected_keys)
    out["base get"] = _error(lambda: L.nn.Module().get_extra_state())[0]
    out["base set"] = _error(lambda: L.nn.Module().set_extra_state(1))[0]
    return out


def test_extra_state_missing_and_unexpected_as_torch():
    mine, ref = _extra_state_outcomes(labkit), _extra_state_outcomes(torch)
    assert mine.keys() == ref.keys()
    for k in mine:
        if isinstance(ref[k], tuple) and len(ref[k]) == 2 and isinstance(ref[k][1], str):
            assert mine[k][0] == ref[k][0], k           # the error type
            assert ref[k][1].split(":")[0] in mine[k][1], k
        else:
            assert mine[k] == ref[k], k


def test_metadata_versions_as_torch():
    for build in (lambda L: _models(L)[1](), lambda L: L.nn.Sequential(L.nn.BatchNorm1d(2),
                                                                        L.nn.InstanceNorm1d(2),
                                                                        L.nn.Linear(2, 2))):
        a, b = build(labkit).state_dict(), build(torch).state_dict()
        assert dict(a._metadata) == dict(b._metadata)


def test_batchnorm_version_1_checkpoint_without_num_batches_tracked_loads_as_torch():
    for L in (labkit, torch):
        bn = L.nn.BatchNorm1d(3)
        sd = bn.state_dict()
        del sd["num_batches_tracked"]
        with pytest.raises(RuntimeError, match="num_batches_tracked"):
            bn.load_state_dict(sd)                       # version 2: a missing key
        assert str(bn.load_state_dict(dict(sd))) == "<All keys matched successfully>"


def _hook_calls(L):
    _, Outer = _models(L)
    o = Outer()
    calls = []
    h1 = o.register_state_dict_pre_hook(lambda m, prefix, kv: calls.append(
        ("pre", type(m).__name__, prefix, kv)))
    o.m.register_state_dict_pre_hook(lambda m, prefix, kv: calls.append(
        ("pre", type(m).__name__, prefix, kv)))

    def post(m, sd, prefix, meta):
        calls.append(("post", type(m).__name__, prefix, sorted(sd), dict(meta)))
        sd[prefix + "note"] = 1                         # in place: kept
    h2 = o.m.register_state_dict_post_hook(post)
    sd = o.state_dict(prefix="a.", keep_vars=True)
    calls.append(sorted(sd))
    h1.remove()
    h2.remove()
    calls.append(sorted(o.state_dict()))
    o.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
    calls.append(_error(o.state_dict))
    return calls


def test_state_dict_hooks_as_torch():
    assert _hook_calls(labkit) == _hook_calls(torch)


def test_private_state_dict_hook_may_replace_the_result_as_torch():
    for L in (labkit, torch):
        m = L.nn.Linear(1, 1)
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"replaced": 1})
        assert m.state_dict() == {"replaced": 1}

        def hook(mod, sd, prefix, meta):
            return None
        m.register_state_dict_post_hook(hook)
        with pytest.raises(RuntimeError, match="Cannot register the same function"):
            m._register_state_dict_hook(hook)


def test_positional_state_dict_warns_as_torch():
    for L in (labkit, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sd = L.nn.Linear(1, 1).state_dict(None, "p.", True)
        assert list(sd) == ["p.weight", "p.bias"] and sd["p.weight"].requires_grad
        assert [x.category for x in w] == [FutureWarning]


def _set_submodule(L):
    s = L.nn.Sequential(L.nn.Linear(1, 1), L.nn.Sequential(L.nn.ReLU()))
    s.set_submodule("1.0", L.nn.Tanh())
    s.set_submodule("2", L.nn.Sigmoid())
    s.set_submodule("1.extra", L.nn.Identity())
    out = [repr(s)]
    for args in [("", L.nn.Tanh()), ("1.x", L.nn.Tanh(), True), ("0.weight", L.nn.Tanh()),
                 ("1", 3), ("0", L.nn.Tanh(), True)]:
        out.append(_error(lambda: s.set_submodule(*args)))
    out.append(repr(s))
    return out


def test_set_submodule_as_torch():
    assert _set_submodule(labkit) == _set_submodule(torch)


def test_set_submodule_of_a_missing_parent_raises_attribute_error():
    for L in (labkit, torch):
        with pytest.raises(AttributeError):
            L.nn.Sequential(L.nn.ReLU()).set_submodule("5.a", L.nn.Tanh())


def test_class_attributes_as_torch():
    for name in ("call_super_init", "dump_patches", "_version"):
        assert getattr(labkit.nn.Module, name) == getattr(torch.nn.Module, name)
    assert labkit.nn.Module.T_destination.__name__ == torch.nn.Module.T_destination.__name__
    assert labkit.nn.BatchNorm2d._version == torch.nn.BatchNorm2d._version == 2


def _init_errors(L):
    return [_error(lambda: L.nn.Module(3)), _error(lambda: L.nn.Module(a=3)),
            _error(lambda: L.nn.Module())]


def test_module_init_refuses_arguments_as_torch():
    assert _init_errors(labkit) == _init_errors(torch)


def test_call_super_init_passes_arguments_along_the_mro():
    for L in (labkit, torch):
        class Mixin:
            def __init__(self, *args, **kwargs):
                self.got = (args, kwargs)

        class M(L.nn.Module, Mixin):
            call_super_init = True

            def __init__(self):
                super().__init__(1, k=2)
                self.fc = L.nn.Linear(1, 1)

        m = M()
        assert m.got == ((1,), {"k": 2}) and [n for n, _ in m.named_parameters()] == \
            ["fc.weight", "fc.bias"]
