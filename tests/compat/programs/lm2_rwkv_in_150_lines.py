"""BlinkDL's RWKV_in_150_lines.py (ChatRWKV): the RWKV-4 RNN-mode inference loop, with a
random toy checkpoint written by the program (bfloat16, RWKV-4's key names) instead of the
430M one, and a char vocabulary instead of the 20B tokenizer.

APIs: torch.jit.ScriptModule with @torch.jit.script_method, torch.load(..., map_location='cpu')
of a bfloat16 state dict, w[k].squeeze(), -torch.exp(w[k].float()), types.SimpleNamespace
weight tree, F.layer_norm(x, (n_embd,), weight=, bias=), matrix-vector `@`, torch.sigmoid,
torch.square(torch.relu(...)), torch.maximum, in-place state row writes state[5*i+1] = x,
torch.zeros(n_layer * 5, n_embd) with -1e30 rows, weight[token] with a Python int,
x.float(), F.softmax(out, dim=-1).numpy() and numpy top-p sampling, init_out.clone(),
torch.autograd.profiler.profile(enabled=False, record_shapes=False).
"""
import types
from time import time

import numpy as np
import torch
from torch.nn import functional as F

np.set_printoptions(precision=4, suppress=True, linewidth=200)
torch.manual_seed(1)
np.random.seed(1)

chars = sorted(set("\nIn a shocking finding, scientist discovered a herd of dragons."))
stoi = {c: i for i, c in enumerate(chars)}
encode = lambda s: [stoi[c] for c in s]
decode = lambda l: "".join(chars[i] for i in l)

args = types.SimpleNamespace()
args.MODEL_NAME = 'RWKV-4-toy'
args.n_layer = 2
args.n_embd = 16
args.vocab_size = len(chars)

context = "\nIn a shocking finding, scientist discovered a herd of dragons."
NUM_TRIALS = 2
LENGTH_PER_TRIAL = 10
TEMPERATURE = 1.0
TOP_P = 0.85


def make_toy_checkpoint(path):
    """the key names and shapes of an RWKV-4 .pth, random values, stored in bfloat16"""
    C, V = args.n_embd, args.vocab_size
    w = {'emb.weight': torch.randn(V, C) * 0.5,
         'blocks.0.ln0.weight': torch.ones(C), 'blocks.0.ln0.bias': torch.zeros(C)}
    for i in range(args.n_layer):
        b = f'blocks.{i}.'
        for ln in ('ln1', 'ln2'):
            w[b + ln + '.weight'] = 1 + 0.1 * torch.randn(C)
            w[b + ln + '.bias'] = 0.1 * torch.randn(C)
        w[b + 'att.time_decay'] = torch.randn(C)
        w[b + 'att.time_first'] = torch.randn(C)
        for m in ('k', 'v', 'r'):
            w[b + f'att.time_mix_{m}'] = torch.rand(1, 1, C)
        for m in ('key', 'value', 'receptance', 'output'):
            w[b + f'att.{m}.weight'] = torch.randn(C, C) / C ** 0.5
        w[b + 'ffn.time_mix_k'] = torch.rand(1, 1, C)
        w[b + 'ffn.time_mix_r'] = torch.rand(1, 1, C)
        w[b + 'ffn.key.weight'] = torch.randn(4 * C, C) / C ** 0.5
        w[b + 'ffn.receptance.weight'] = torch.randn(C, C) / C ** 0.5
        w[b + 'ffn.value.weight'] = torch.randn(C, 4 * C) / (4 * C) ** 0.5
    w['ln_out.weight'] = torch.ones(C)
    w['ln_out.bias'] = torch.zeros(C)
    w['head.weight'] = torch.randn(V, C) / C ** 0.5
    torch.save({k: v.bfloat16() for k, v in w.items()}, path)


class RWKV_RNN(torch.jit.ScriptModule):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.eval()  # set torch to inference mode

        w = torch.load(args.MODEL_NAME + '.pth', map_location='cpu')
        for k in w.keys():
            if '.time_' in k: w[k] = w[k].squeeze()
            if '.time_decay' in k: w[k] = -torch.exp(w[k].float())  # the real time decay is like e^{-e^x}
            else: w[k] = w[k].float()  # convert to f32 type

        self.w = types.SimpleNamespace()  # set self.w from w
        self.w.blocks = {}
        for k in w.keys():  # example: "blocks.0.att.time_first" => self.w.blocks[0].att.time_first
            parts = k.split('.')
            last = parts.pop()
            here = self.w
            for p in parts:
                if p.isdigit():
                    p = int(p)
                    if p not in here: here[p] = types.SimpleNamespace()
                    here = here[p]
                else:
                    if not hasattr(here, p): setattr(here, p, types.SimpleNamespace())
                    here = getattr(here, p)
            setattr(here, last, w[k])

    def layer_norm(self, x, w):
        return F.layer_norm(x, (self.args.n_embd,), weight=w.weight, bias=w.bias)

    @torch.jit.script_method
    def channel_mixing(self, x, state, i: int, time_mix_k, time_mix_r, kw, vw, rw):
        xk = x * time_mix_k + state[5*i+0] * (1 - time_mix_k)
        xr = x * time_mix_r + state[5*i+0] * (1 - time_mix_r)
        state[5*i+0] = x
        r = torch.sigmoid(rw @ xr)
        k = torch.square(torch.relu(kw @ xk))  # square relu, primer paper
        return r * (vw @ k)

    @torch.jit.script_method
    def time_mixing(self, x, state, i: int, time_mix_k, time_mix_v, time_mix_r, time_first, time_decay, kw, vw, rw, ow):
        xk = x * time_mix_k + state[5*i+1] * (1 - time_mix_k)
        xv = x * time_mix_v + state[5*i+1] * (1 - time_mix_v)
        xr = x * time_mix_r + state[5*i+1] * (1 - time_mix_r)
        state[5*i+1] = x
        r = torch.sigmoid(rw @ xr)
        k = kw @ xk
        v = vw @ xv

        aa = state[5*i+2]
        bb = state[5*i+3]
        pp = state[5*i+4]
        ww = time_first + k
        qq = torch.maximum(pp, ww)
        e1 = torch.exp(pp - qq)
        e2 = torch.exp(ww - qq)
        a = e1 * aa + e2 * v
        b = e1 * bb + e2
        wkv = a / b
        ww = pp + time_decay
        qq = torch.maximum(ww, k)
        e1 = torch.exp(ww - qq)
        e2 = torch.exp(k - qq)
        state[5*i+2] = e1 * aa + e2 * v
        state[5*i+3] = e1 * bb + e2
        state[5*i+4] = qq
        return ow @ (r * wkv)

    def forward(self, token, state):
        with torch.no_grad():
            if state == None:
                state = torch.zeros(self.args.n_layer * 5, self.args.n_embd)
                for i in range(self.args.n_layer): state[5*i+4] = -1e30  # -infinity

            x = self.w.emb.weight[token]
            x = self.layer_norm(x, self.w.blocks[0].ln0)
            for i in range(self.args.n_layer):
                att = self.w.blocks[i].att
                x = x + self.time_mixing(self.layer_norm(x, self.w.blocks[i].ln1), state, i,
                    att.time_mix_k, att.time_mix_v, att.time_mix_r, att.time_first, att.time_decay,
                    att.key.weight, att.value.weight, att.receptance.weight, att.output.weight)
                ffn = self.w.blocks[i].ffn
                x = x + self.channel_mixing(self.layer_norm(x, self.w.blocks[i].ln2), state, i,
                    ffn.time_mix_k, ffn.time_mix_r,
                    ffn.key.weight, ffn.value.weight, ffn.receptance.weight)

            x = self.w.head.weight @ self.layer_norm(x, self.w.ln_out)
            return x.float(), state


def sample_logits(out, temperature=1.0, top_p=0.8):
    probs = F.softmax(out, dim=-1).numpy()
    sorted_probs = np.sort(probs)[::-1]
    cumulative_probs = np.cumsum(sorted_probs)
    cutoff = float(sorted_probs[np.argmax(cumulative_probs > top_p)])
    probs[probs < cutoff] = 0
    if temperature != 1.0:
        probs = probs.pow(1.0 / temperature)
    probs = probs / np.sum(probs)
    out = np.random.choice(a=len(probs), p=probs)
    return out


trials = []


def run():
    model = RWKV_RNN(args)
    assert model.w.blocks[1].att.time_decay.dtype == torch.float32
    assert model.w.blocks[1].att.time_mix_k.shape == (args.n_embd,)
    assert bool((model.w.blocks[0].att.time_decay < 0).all())

    init_state = None
    for token in encode(context):
        init_out, init_state = model.forward(token, init_state)
    assert init_out.shape == (args.vocab_size,) and init_state.shape == (10, args.n_embd)
    assert bool(torch.isfinite(init_state).all())

    for TRIAL in range(NUM_TRIALS):
        all_tokens = []
        out, state = init_out.clone(), init_state.clone()
        outs = []
        for i in range(LENGTH_PER_TRIAL):
            token = sample_logits(out, TEMPERATURE, TOP_P)
            all_tokens += [token]
            out, state = model.forward(token, state)
            outs.append(out)
        trials.append((all_tokens, outs))
        print(repr(decode(all_tokens)))
    # the RNN state carries everything: re-running trial 0's tokens from the saved state
    # gives the same logits
    out, state = init_out.clone(), init_state.clone()
    for token, expect in zip(*trials[0]):
        out, state = model.forward(token, state)
        assert torch.allclose(out, expect)


make_toy_checkpoint(args.MODEL_NAME + '.pth')
start = time()
profile = False
with torch.autograd.profiler.profile(enabled=profile, record_shapes=False) as prof:
    run()

ttime = time() - start
assert len(trials) == NUM_TRIALS and all(len(t) == LENGTH_PER_TRIAL for t, _ in trials)
print("\n### Finishing ", NUM_TRIALS, " trials in {:.3f} sec.".format(ttime))
