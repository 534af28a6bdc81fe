"""torch.poisson(rates) and torch.binomial(count, prob): integer-valued draws returned as
floats (in the rates' dtype). Reproducible from labkit's generator; not torch's numbers. The
draw is not differentiable: a rate that requires grad gets a zero gradient, as torch gives."""


def _check(name, t):
    if not t.is_floating_point():
        kind = {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(str(t.dtype).split(".")[-1],
                                                                     str(t.dtype))
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{kind}\': pass float '
                                  "rates, e.g. rates.float().")


def _zero_gradient(out, *inputs):
    for t in inputs:
        if t.requires_grad:
            out = out + t * 0
    return out


def poisson(input, generator=None):
    """A Poisson draw per element with that element's rate."""
    from ..distributions._random import poisson as draw
    _check("poisson", input)
    if (input.detach() < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _zero_gradient(draw(input.detach(), generator), input)


def binomial(count, prob, generator=None):
    """The number of successes in count trials of probability prob, per element."""
    from ..distributions._random import binomial as draw
    if not count.is_floating_point():
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{count.dtype}; pass count.float().")
    return _zero_gradient(draw(count.detach(), prob.detach(), generator), count, prob)
