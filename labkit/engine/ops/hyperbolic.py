"""The inverse hyperbolic functions asinh, acosh, atanh (and torch's arc* names): numpy's
kernels forward, derivatives 1/sqrt(x^2 + 1), 1/sqrt(x^2 - 1), 1/(1 - x^2) in Tensor ops."""
from ..function import Function, unary_op
from ..tensor import tensor_method
from .common import float_data
from .inplace_unary import _unary_inplace
from .complex import cj
from .math import _quiet


class Asinh(Function):
    node_name = "AsinhBackward0"
    onnx = "Asinh"
    fn = "arcsinh"
    complex_ok = True           # numpy's principal branches are torch's; conj'd derivative

    @classmethod
    def forward(cls, ctx, x):
        ctx.save_for_backward(x)
        with _quiet(x.device.xp):
            return getattr(x.device.xp, cls.fn)(float_data(x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * cj((x * x + 1).rsqrt())


class Acosh(Asinh):
    node_name = "AcoshBackward0"
    onnx = "Acosh"
    fn = "arccosh"

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if x._data.dtype.kind == "c":     # 1/sqrt(z^2 - 1) on acosh's branch: the two roots
            return grad * cj((x - 1).rsqrt() * (x + 1).rsqrt())
        return grad * (x * x - 1).rsqrt()


class Atanh(Asinh):
    node_name = "AtanhBackward0"
    onnx = "Atanh"
    fn = "arctanh"

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / cj(1 - x * x)


asinh = tensor_method("asinh", "arcsinh")(unary_op(Asinh))
acosh = tensor_method("acosh", "arccosh")(unary_op(Acosh))
atanh = tensor_method("atanh", "arctanh")(unary_op(Atanh))
arcsinh, arccosh, arctanh = asinh, acosh, atanh
asinh_ = _unary_inplace("asinh_", Asinh)
acosh_ = _unary_inplace("acosh_", Acosh)
atanh_ = _unary_inplace("atanh_", Atanh)
tensor_method("arcsinh_")(asinh_)
tensor_method("arccosh_")(acosh_)
tensor_method("arctanh_")(atanh_)
