"""Attention: scaled_dot_product_attention and nn.MultiheadAttention (torch's names, masks,
parameters and state_dict keys), written from matmul, softmax and linear, so their gradients,
graphs and jit traces come from those ops.

Attention lets every position (a query) take a weighted mean of the values, weighted by how
well the query matches each key: softmax(q k^T / sqrt(d)) v.
"""
import math
import warnings

from ..engine.autocast import autocast_op
from ..engine.creation import arange, zeros
from ..engine.dtype import bfloat16, bool_, float16
from ..engine.functional import linear, softmax
from ..engine.ops.join import cat
from ..engine.ops.select import where
from ..engine.tensor import Tensor
from . import functional as F
from . import init
from .linear import Linear
from .module import Module
from .parameter import Parameter
from .sdpa_backends import SDPBackend, sdpa_kernel  # noqa: F401  (torch.nn.attention's names)

_NEG_INF = float("-inf")


def _safe_softmax(scores):
    """softmax over the last dim, but a row whose scores are all -inf (every key masked out)
    gives zeros, not 0/0 = nan, with no nan in its gradient: torch's SDPA does the same."""
    dead = (scores == _NEG_INF).all(-1, keepdim=True)
    probs = softmax(where(dead, 0.0, scores), dim=-1)
    return where(dead, 0.0, probs)


def causal_mask(L, S, device=None):
    """Bool (L, S), True where query i may look at key j (j <= i): torch's is_causal mask,
    aligned at the top left."""
    return arange(S, device=device).unsqueeze(0) <= arange(L, device=device).unsqueeze(1)


@autocast_op("scaled_dot_product_attention")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dims, torch's
    F.scaled_dot_product_attention: (..., L, E), (..., S, E), (..., S, Ev) -> (..., L, Ev).

    attn_mask: bool (True = may attend, the opposite of nn.MultiheadAttention's masks) or a
    float mask added to the scores; is_causal: each query sees only keys at or before it;
    scale defaults to 1/sqrt(E); dropout_p drops attention weights (always applied: pass
    dropout_p=0.0 in evaluation, as torch asks); enable_gqa lets key/value have fewer heads
    (dim -3) than query, each shared by a group of query heads."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor) or t.ndim < 2:
            raise RuntimeError(f"scaled_dot_product_attention: {name} must be a tensor with at "
                               f"least 2 dims (..., seq, features), got "
                               f"{tuple(t.shape) if isinstance(t, Tensor) else type(t).__name__}.")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: query {tuple(query.shape)}, key "
                           f"{tuple(key.shape)} and value {tuple(value.shape)} do not fit: query "
                           "and key need the same last dim (E), key and value the same "
                           "sequence length (dim -2).")
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: pass either attn_mask or "
                           "is_causal=True, not both (torch's reference implementation refuses "
                           "both too). Fold the causal mask into attn_mask instead.")
    if query.dtype in (float16, bfloat16):
        # torch accumulates half-precision attention in float32 and rounds once at the end;
        # bfloat16 scores and sums here would be several units in the last place off
        mask = attn_mask if attn_mask is None or attn_mask.dtype == bool_ else attn_mask.float()
        out = _attention(query.float(), key.float(), value.float(), mask, dropout_p, is_causal,
                         scale, enable_gqa).to(query.dtype)
    else:
        out = _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    st = query.stride()
    if query.ndim == 4 and st[-1] == 1 and st[-3] < st[-2]:
        # as torch's cpu kernel: a query laid out (B, L, H, E) (heads split off a projection
        # and transposed) gets an output laid out the same way, so the usual
        # y.transpose(1, 2).view(B, L, H * E) that follows works without .contiguous()
        out = out.transpose(1, 2).contiguous().transpose(1, 2)
    return out


def _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """The math of scaled_dot_product_attention, on checked arguments."""
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key, value = _repeat_heads(key, groups), _repeat_heads(value, groups)
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = causal_mask(L, S, query.device)
    if attn_mask is not None:
        if attn_mask.dtype.name == "bool":
            scores = scores.masked_fill(attn_mask.logical_not(), _NEG_INF)
        else:
            scores = scores + attn_mask
    weights = _safe_softmax(scores)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p)
    return weights @ value


def _repeat_heads(x, groups):
    """(..., H, S, E) -> (..., H * groups, S, E), each head repeated `groups` times in a row
    (torch's repeat_interleave on dim -3)."""
    shape = tuple(x.shape)
    out = x.unsqueeze(-3).expand(*shape[:-2], groups, *shape[-2:])
    return out.reshape(*shape[:-3], shape[-3] * groups, *shape[-2:])


def _canonical_mask(mask, name, dtype):
    """A bool mask (True = masked out) becomes a float one (-inf there, 0 elsewhere); a float
    mask is used as it is (added to the scores), as torch's _canonical_mask does."""
    if mask is None:
        return None
    if mask.dtype.name == "bool":
        return where(mask, _NEG_INF, 0.0).to(dtype)
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported, got "
                             f"{mask.dtype}.")
    return mask


class NonDynamicallyQuantizableLinear(Linear):
    """nn.MultiheadAttention's out_proj: a Linear under torch's name (so models print alike)."""


class MultiheadAttention(Module):
    """Attention with num_heads heads, each over embed_dim // num_heads features, torch's
    nn.MultiheadAttention: the same parameters (in_proj_weight (3E, E) packing the query,
    key and value projections, or q/k/v_proj_weight when kdim or vdim differ; in_proj_bias;
    out_proj; bias_k/bias_v), so a torch state_dict loads as it is.

    forward(query, key, value) takes (L, N, E) inputs, (N, L, E) with batch_first=True, or
    unbatched (L, E); key_padding_mask (N, S) and attn_mask (L, S) or (N * num_heads, L, S)
    say which keys each query must ignore (True = ignore, or a float mask added to the
    scores). Returns (output, weights): weights (N, L, S) averaged over the heads, or
    (N, num_heads, L, S) with average_attn_weights=False, or None with need_weights=False."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError(f"embed_dim must be divisible by num_heads (embed_dim="
                                 f"{embed_dim}, num_heads={num_heads}).")
        kw = dict(device=device, dtype=dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(zeros(3 * embed_dim, embed_dim, **kw))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(zeros(embed_dim, embed_dim, **kw))
            self.k_proj_weight = Parameter(zeros(embed_dim, self.kdim, **kw))
            self.v_proj_weight = Parameter(zeros(embed_dim, self.vdim, **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(zeros(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(zeros(1, 1, embed_dim, **kw))
            self.bias_v = Parameter(zeros(1, 1, embed_dim, **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        """torch's initialisation: xavier-uniform projections, zero in/out biases,
        xavier-normal bias_k/bias_v (out_proj's weight keeps Linear's default)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        return out, weights


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """nn.MultiheadAttention's computation with the parameters passed in (torch's
    F.multi_head_attention_forward): (L, N, E) inputs, or unbatched (L, E)."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k/static_v are not "
                                  "supported by labkit; project the keys and values yourself.")
    batched = query.ndim == 3
    if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"MultiheadAttention: query, key and value must all be 3-D "
                             f"(batched) or all 2-D (unbatched), got shapes "
                             f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}.")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use "
                           "the Transformer module method `generate_square_subsequent_mask` "
                           "to create this mask.")
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    S, H = key.shape[0], num_heads
    hd = E // H
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {E}")
    if key.shape[:2] != value.shape[:2] or key.shape[1] != N:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                             f"{tuple(value.shape)} (or query's batch size {N}).")
    if key_padding_mask is not None and attn_mask is not None and \
            (key_padding_mask.dtype.name == "bool") != (attn_mask.dtype.name == "bool"):
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. "
                      "Use same type for both instead.")
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None      # torch's hint: SDPA builds the causal mask (no mask gradient)
    else:
        is_causal = False
    if attn_mask is not None:
        want = (L, S) if attn_mask.ndim == 2 else (N * H, L, S)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.ndim}D attn_mask is "
                               f"{tuple(attn_mask.shape)}, but should be {want}.")
        if attn_mask.ndim == 2:
            attn_mask = attn_mask.unsqueeze(0)
    b = in_proj_bias
    bq, bk, bv = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
    if use_separate_proj_weight:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        wq, wk, wv = in_proj_weight[:E], in_proj_weight[E:2 * E], in_proj_weight[2 * E:]
    q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    if bias_k is not None:
        k = cat([k, bias_k.expand(1, N, E)])
        v = cat([v, bias_v.expand(1, N, E)])
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    q = q.reshape(L, N * H, hd).transpose(0, 1)
    k = k.reshape(k.shape[0], N * H, hd).transpose(0, 1)
    v = v.reshape(v.shape[0], N * H, hd).transpose(0, 1)
    if add_zero_attn:
        k = cat([k, zeros(N * H, 1, hd, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(N * H, 1, hd, dtype=v.dtype, device=v.device)], dim=1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    S = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (N, S):
            raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    p = dropout_p if training else 0.0
    if not need_weights:      # torch hands this case to SDPA (fully masked rows give 0)
        mask = None if attn_mask is None else attn_mask.unsqueeze(0) \
            if attn_mask.shape[0] == 1 else attn_mask.reshape(N, H, -1, S)
        out = scaled_dot_product_attention(q.reshape(N, H, L, hd), k.reshape(N, H, S, hd),
                                           v.reshape(N, H, S, hd), mask, p, is_causal)
        out = out.permute(2, 0, 1, 3).reshape(L * N, E)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
        return (out if batched else out.squeeze(1)), None
    scores = (q * math.sqrt(1.0 / hd)) @ k.transpose(-2, -1)
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = softmax(scores, dim=-1)     # a fully masked row gives nan here, as in torch
    if p > 0.0:
        weights = F.dropout(weights, p)
    out = (weights @ v).transpose(0, 1).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    weights = weights.reshape(N, H, L, S)
    weights = weights.mean(1) if average_attn_weights else weights
    return (out, weights) if batched else (out.squeeze(1), weights.squeeze(0))


def _pad_last(mask):
    """Append one unmasked (0) column to a float mask (for bias_k/bias_v, add_zero_attn)."""
    if mask is None:
        return None
    return cat([mask, zeros(*mask.shape[:-1], 1, dtype=mask.dtype, device=mask.device)], -1)
