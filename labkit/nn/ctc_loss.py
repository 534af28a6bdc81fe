"""ctc_loss / nn.CTCLoss: Connectionist Temporal Classification (Graves et al., 2006), the
loss of speech and handwriting recognisers whose T output frames are longer than the label
sequence and not aligned to it.

The loss is -log of the total probability of every alignment that collapses to the target:
frames may repeat a label or emit the blank, e.g. "-hh-e-ll-lo" reads "hello". The alignments
are summed by dynamic programming over the target with blanks between its labels
(blank l1 blank l2 ... blank): alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s - 1),
alpha_{t-1}(s - 2) when s is a label unlike the one two back) + log_probs[t, label(s)], in
log space so nothing underflows. Written with differentiable ops over the time steps, so its
gradient is the usual alpha-beta one (plus torch's exp(log_probs) term, see _softmax_term).
An impossible target (too long for its frames) has an infinite loss; zero_infinity=True
makes it 0, with no gradient."""
from ..engine.creation import tensor
from ..engine.ops.join import stack
from ..engine.ops.loss_reduction import reduction_of
from ..engine.ops.select import where
from ..engine.tensor import Tensor
from .loss import _Loss

_FAR = -1e30      # stands for log(0): finite, so an impossible path's gradient is 0, not nan


def _lengths(name, v, n, device):
    t = v if isinstance(v, Tensor) else tensor(list(v) if not isinstance(v, int) else [v])
    return t.reshape(n).long().to(device)


def _padded_targets(targets, target_lengths, n):
    """(N, S) targets: padded already, or cut from the 1-d concatenation of all of them."""
    if targets.dim() == 2:
        return targets
    lengths = target_lengths.tolist()
    width = max(lengths + [0])
    rows, start = [], 0
    for k in lengths:
        row = targets[start:start + k]
        rows.append(row if k == width else row.new_zeros(width).index_copy(
            0, tensor(list(range(k)), device=targets.device), row))
        start += k
    return stack(rows) if rows else targets.new_zeros(n, 0)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    reduction = reduction_of(None, None, reduction)
    single = log_probs.dim() == 2
    if single:
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    T, n, c = log_probs.shape
    device = log_probs.device
    in_len = _lengths("input_lengths", input_lengths, n, device)
    tg_len = _lengths("target_lengths", target_lengths, n, device)
    if in_len.numel() and int(in_len.max()) > T:
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                           f"{int(in_len.max())} (while checking arguments for ctc_loss)")
    targets = _padded_targets(targets.long(), tg_len, n)
    if tg_len.numel() and int(tg_len.max()) > targets.shape[1]:
        raise RuntimeError(f"Expected tensor to have size at least {int(tg_len.max())} at "
                           f"dimension 1, but got size {targets.shape[1]} for argument #2 "
                           "'targets' (while checking arguments for ctc_loss)")
    if not 0 <= blank < c:
        raise RuntimeError(f"blank must be in label range (blank {blank}, {c} classes)")
    s = targets.shape[1]
    # the extended labels: blank, l1, blank, l2, ..., blank (2S + 1 of them)
    ext = targets.new_full((n, 2 * s + 1), blank)
    if s:
        ext[:, 1::2] = targets
    skip = ext.new_zeros(ext.shape, dtype=in_len.dtype).bool()
    if s > 1:
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    lp = log_probs.gather(2, ext.unsqueeze(0).expand(T, n, 2 * s + 1))     # (T, N, 2S + 1)
    far = lp.new_full((n, 1), _FAR)
    start = lp.new_full((n, 2 * s + 1), _FAR)
    start[:, :min(2, 2 * s + 1)] = 0.0
    alpha = start + lp[0]
    for t in range(1, T):
        one = alpha[:, :-1] if s else alpha[:, :0]
        two = where(skip[:, 2:], alpha[:, :-2], _FAR) if s else alpha[:, :0]
        shifted1 = _cat(far, one)
        shifted2 = _cat(far, far, two) if s else alpha[:, :0]
        moves = stack([alpha, shifted1, shifted2] if s else [alpha])
        new = moves.logsumexp(0) + lp[t]
        alpha = where((t < in_len).unsqueeze(1), new, alpha)
    end = (2 * tg_len).unsqueeze(1)
    last = alpha.gather(1, end).squeeze(1)
    before = where(tg_len > 0, alpha.gather(1, (end - 1).clamp(min=0)).squeeze(1), _FAR)
    loss = -stack([last, before]).logsumexp(0) + _softmax_term(log_probs, in_len)
    loss = where(in_len == 0, where(tg_len == 0, 0.0, -_FAR), loss)
    impossible = loss.detach() > -_FAR / 2
    loss = where(impossible, 0.0 if zero_infinity else float("inf"), loss)
    if single:
        loss = loss.squeeze(0)
        tg_len = tg_len.squeeze(0)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return (loss / tg_len.clamp(min=1).to(loss.dtype)).mean()


def _softmax_term(log_probs, in_len):
    """0, whose gradient is exp(log_probs) on each sample's frames: torch's ctc_loss returns
    the gradient it would pass to logits through log_softmax, which adds this term (through
    log_softmax both give the same gradient, as softmax sums to 1 on every frame)."""
    from ..engine.creation import arange
    frames = (arange(log_probs.shape[0], device=log_probs.device).unsqueeze(1)
              < in_len.unsqueeze(0)).unsqueeze(2)
    fixed = log_probs.detach()
    return where(frames, (log_probs - fixed) * fixed.exp(), 0.0).sum((0, 2))


def _cat(*parts):
    from ..engine.ops.join import cat
    return cat(parts, 1)


class CTCLoss(_Loss):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)
