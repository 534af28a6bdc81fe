"""gumbel_softmax: a differentiable sample of a categorical distribution (Jang et al. 2016).

Gumbel noise -log(Exp(1)) added to the logits turns argmax into an exact sample; softmax of
(logits + noise) / tau is its smooth stand-in. With hard=True the forward value is the one-hot
argmax and the gradient is the soft one's (the straight-through trick). Drawn as torch draws it,
so a seeded run gives torch's numbers."""
from ..engine.creation import empty_like, zeros_like


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
