"""load_state_dict module by module through _load_from_state_dict, and its pre/post hooks,
against torch: the same code (litgpt's legacy-key override, LoRA's key mapping, a post hook
that forgives a missing key) gives the same values, keys and errors on both."""
import numpy as np
import pytest

import labkit

torch = pytest.importorskip("torch")


def _models(M):
    """litgpt-style modules: an attention whose old checkpoints name its projection 'attn',
    and a LoRA-wrapped linear whose base checkpoints lack the '.linear' level."""
    nn = M.nn

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(4, 12)
            self.proj = nn.Linear(4, 4)

        def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
            for attr in ("weight", "bias"):
                legacy_key = f"{prefix}attn.{attr}"
                if legacy_key in state_dict:
                    state_dict[f"{prefix}qkv.{attr}"] = state_dict.pop(legacy_key)
            super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    class LoRALinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(4, 4)
            self.lora_A = nn.Parameter(M.zeros(2, 4))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = LoRALinear()

        def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
            for old, new in {"fc.weight": "fc.linear.weight", "fc.bias": "fc.linear.bias"}.items():
                if prefix + old in state_dict:
                    state_dict[prefix + new] = state_dict.pop(prefix + old)
            super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = Attention()
            self.mlp = MLP()
            self.register_buffer("steps", M.zeros(1))

    return Block


def _legacy_checkpoint(M):
    g = np.random.default_rng(0)
    arrays = {"attn.attn.weight": (12, 4), "attn.attn.bias": (12,), "attn.proj.weight": (4, 4),
              "attn.proj.bias": (4,), "mlp.fc.weight": (4, 4), "mlp.fc.bias": (4,),
              "mlp.fc.lora_A": (2, 4), "steps": (1,)}
    return {k: M.tensor(g.standard_normal(s).astype(np.float32)) for k, s in arrays.items()}


def _run(M, **load_kwargs):
    block = _models(M)()
    sd = _legacy_checkpoint(M)
    keys_before = list(sd)
    result = block.load_state_dict(sd, **load_kwargs)
    assert list(sd) == keys_before                      # the caller's dict is not changed
    return block, result


@pytest.mark.parametrize("kwargs", [{}, {"assign": True}, {"strict": False}])
def test_overrides_rename_legacy_keys_like_torch(kwargs):
    mine, r_mine = _run(labkit, **kwargs)
    ref, r_ref = _run(torch, **kwargs)
    assert tuple(r_mine) == tuple(r_ref) == ([], [])
    assert list(mine.state_dict()) == list(ref.state_dict())
    for (k, a), (_, b) in zip(mine.state_dict().items(), ref.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    np.testing.assert_array_equal(mine.attn.qkv.weight.detach().numpy(),
                                  _legacy_checkpoint(labkit)["attn.attn.weight"].numpy())


def _mismatch(M):
    block = _models(M)()
    sd = _legacy_checkpoint(M)
    del sd["mlp.fc.bias"]
    sd["mlp.extra"] = M.zeros(1)
    sd["attn.proj.weight"] = M.zeros(5, 4)
    sd["nope.weight"] = M.zeros(1)
    return block, sd


def test_missing_unexpected_and_sizes_in_torchs_order():
    (mine, sd_mine), (ref, sd_ref) = _mismatch(labkit), _mismatch(torch)
    before = mine.attn.qkv.weight.detach().numpy().copy()
    with pytest.raises(RuntimeError) as e_mine:
        mine.load_state_dict(sd_mine)
    with pytest.raises(RuntimeError) as e_ref:
        ref.load_state_dict(sd_ref)
    lines_mine = str(e_mine.value).split("\n\t")[1:4]
    lines_ref = str(e_ref.value).split("\n\t")[1:4]
    assert lines_mine[:2] == lines_ref[:2]              # Missing first, then Unexpected
    assert lines_mine[2].replace("labkit.", "torch.") == lines_ref[2]
    np.testing.assert_array_equal(mine.attn.qkv.weight.detach().numpy(), before)  # no copy
    for M, (block, sd) in ((labkit, _mismatch(labkit)), (torch, _mismatch(torch))):
        sd["attn.proj.weight"] = M.zeros(4, 4)
        r = block.load_state_dict(sd, strict=False)
        assert r.missing_keys == ["mlp.fc.linear.bias"]
        assert r.unexpected_keys == ["nope.weight", "mlp.extra"]


def test_pre_and_post_hooks_like_torch():
    def run(M):
        block = _models(M)()
        calls = []

        def pre(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            calls.append(("pre", type(module).__name__, prefix, strict))
            state_dict[prefix + "steps"] = state_dict[prefix + "steps"] * 10

        def post(module, keys):
            calls.append(("post", type(module).__name__, list(keys.missing_keys)))
            if "mlp.fc.linear.bias" in keys.missing_keys:
                keys.missing_keys.remove("mlp.fc.linear.bias")

        h_pre = block.register_load_state_dict_pre_hook(pre)
        block.mlp.register_load_state_dict_post_hook(post)
        sd = _legacy_checkpoint(M)
        del sd["mlp.fc.bias"]
        result = block.load_state_dict(sd)          # strict, yet the post hook forgave the key
        h_pre.remove()
        block.load_state_dict({**_legacy_checkpoint(M)})
        return calls, tuple(result), block.steps.item()

    assert run(labkit) == run(torch)


def test_post_hook_must_return_none():
    for M in (labkit, torch):
        m = M.nn.Linear(2, 2)
        m.register_load_state_dict_post_hook(lambda module, keys: 1)
        with pytest.raises((RuntimeError, AssertionError)):
            m.load_state_dict(m.state_dict())
