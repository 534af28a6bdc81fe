"""How a floating-point number is built, as torch exposes it: frexp splits x into a mantissa
in [0.5, 1) and a power of two (x = mantissa * 2**exponent), ldexp puts them back, nextafter
steps to the neighbouring representable number (the spacing float32 can resolve near x),
isposinf/isneginf tell the two infinities apart, isreal asks whether the imaginary part is 0."""
from ..return_types import frexp as _frexp_result
from ..tensor import Tensor, tensor_method
from .. import dtype as _dt


def _tensor_arg(name, position, arg, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


@tensor_method("frexp")
def frexp(input):
    """(mantissa, exponent): mantissa in input's dtype, exponent int32; not differentiable."""
    if not input.is_floating_point():
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes (got "
                           f"{input.dtype}); convert first: x.float().frexp().")
    m, e = input.device.xp.frexp(input.detach()._data)
    return _frexp_result(Tensor._make(m, input.device), Tensor._make(e.astype("int32"),
                                                                     input.device))


def _ldexp_dtype(input, other):
    """torch's result type of the pair, made floating (integers give the default dtype)."""
    from ..defaults import get_default_dtype
    from ..promotion import result_type
    dt = result_type(input, other)
    return dt if dt.is_floating_point else get_default_dtype()


@tensor_method("ldexp")
def ldexp(input, other):
    """input * 2**other, differentiable in both. (torch's gradient for input at a negative
    integer exponent is 0, its formula raising 2 to it in integers; this one is 2**other.)"""
    _tensor_arg("ldexp", 2, "other", other)
    dt = _ldexp_dtype(input, other)
    return input.to(dt) * other.to(dt).exp2()


@tensor_method("ldexp_")
def ldexp_(input, other):
    _tensor_arg("ldexp_", 2, "other", other)
    return input.mul_(other.to(_ldexp_dtype(input, other)).exp2())


@tensor_method("nextafter")
def nextafter(input, other):
    """The next representable number after input, towards other (floats only)."""
    _tensor_arg("nextafter", 2, "other", other)
    result = input.detach() + other.detach() * 0    # torch's promotion and broadcasting
    if not result.is_floating_point() or result.dtype == _dt.bfloat16:
        raise NotImplementedError(f'"nextafter_cpu" not implemented for {result.dtype}: '
                                  "nextafter works on float16/32/64 tensors.")
    xp = result.device.xp
    a, b = (t.detach().to(result.dtype)._data for t in (input, other))
    return Tensor._make(xp.asarray(xp.nextafter(a, b)), result.device)


@tensor_method("nextafter_")
def nextafter_(input, other):
    return input.copy_(nextafter(input, other))


@tensor_method("isposinf")
def isposinf(input):
    return input.isinf() & (input > 0)


@tensor_method("isneginf")
def isneginf(input):
    return input.isinf() & (input < 0)


@tensor_method("isreal")
def isreal(input):
    """True where the imaginary part is 0 (everywhere for a real tensor)."""
    if input.dtype.is_complex:
        return input.imag == 0
    return input.new_ones(input.shape, dtype=_dt.bool_)
