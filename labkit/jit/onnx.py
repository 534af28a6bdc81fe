"""ONNX export: trace the model, then write each node of the graph as ONNX operators.

ONNX is the exchange format for static graphs: a file that another runtime (onnxruntime,
TensorRT, a phone) runs without Python or labkit. Parameters and constants become initializers
(the weights inside the file). Needs the `onnx` package (pip install 'labkit[onnx]').
"""
import numpy as np

from .._io import atomic_write
from ..engine.ops import (activation, arithmetic, compare, convert, linalg, linear, pool,
                          reduce, select, shape, softmax, unary)
from ..engine.ops.conv import Conv2d
from ..engine.device import to_host
from .ir import Raw, Value
from .ops import _class_of
from .trace import as_tuple, trace

OPSET = 17
_SAME = {arithmetic.Add: "Add", arithmetic.Sub: "Sub", arithmetic.Rsub: "Sub",
         arithmetic.Mul: "Mul", arithmetic.Div: "Div", arithmetic.Neg: "Neg",
         unary.Exp: "Exp", unary.Log: "Log", unary.Sqrt: "Sqrt", unary.Sin: "Sin",
         unary.Cos: "Cos", unary.Tanh: "Tanh", unary.Sigmoid: "Sigmoid", unary.Relu: "Relu",
         unary.Abs: "Abs", unary.Sign: "Sign", select.Maximum: "Max", select.Minimum: "Min",
         select.Where: "Where", linalg.Mm: "MatMul", linalg.MatMul: "MatMul",
         linalg.Mv: "MatMul", linalg.Dot: "MatMul", shape.Clone: "Identity",
         compare.Not: "Not"}
for _op, _name in [("eq", "Equal"), ("lt", "Less"), ("le", "LessOrEqual"), ("gt", "Greater"),
                   ("ge", "GreaterOrEqual"), ("logical_and", "And"), ("logical_or", "Or"),
                   ("logical_xor", "Xor")]:
    _SAME[_class_of(getattr(compare, _op))] = _name


class _Writer:
    def __init__(self, onnx, graph):
        self.onnx, self.h, self.g = onnx, onnx.helper, graph
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, v):
        return v.name if isinstance(v, Value) else v.value.name

    def const(self, value, dtype):
        """An initializer holding a Python number or array (named k0, k1, ...)."""
        arr = np.asarray(to_host(value), dtype=dtype)
        name = f"k{self.n}"
        self.n += 1
        self.inits.append(self.onnx.numpy_helper.from_array(arr, name))
        return name

    def operand(self, a, like):
        if isinstance(a, (Value, Raw)):
            return self.name(a)
        return self.const(a, like.dtype)

    def emit(self, op, ins, outs, **attrs):
        self.nodes.append(self.h.make_node(op, list(ins), list(outs),
                                           name=f"{op}_{len(self.nodes)}", **attrs))

    def node(self, node):
        fn, a = node.fn, node.args
        out = [v.name for v in node.outputs]
        ref = next((x for x in node.inputs), node.outputs[0])
        if fn in _SAME:
            tensors = [x for x in a if not isinstance(x, (type(None),))]
            if fn is select.Where:
                tensors = list(a)
            return self.emit(_SAME[fn], [self.operand(x, ref) for x in tensors], out)
        if fn is arithmetic.Pow:
            return self.emit("Pow", [self.name(a[0]), self.const(a[1], ref.dtype)], out)
        if fn in (unary.ClampMin, unary.ClampMax, unary.Clamp):
            lo = self.const(a[1], ref.dtype) if a[1] is not None else ""
            hi = self.const(a[2], ref.dtype) if a[2] is not None else ""
            return self.emit("Clip", [self.name(a[0]), lo, hi], out)
        if fn is activation.LeakyRelu:
            return self.emit("LeakyRelu", [self.name(a[0])], out, alpha=float(a[1]))
        if fn is linear.Linear:
            ins = [self.name(a[0]), self.name(a[1])] + ([self.name(a[2])] if a[2] is not None
                                                        else [])
            if len(a[0].shape) == 2:
                return self.emit("Gemm", ins, out, transB=1)
            t = out[0] + "_wT"
            self.emit("Transpose", [ins[1]], [t], perm=[1, 0])
            if len(ins) == 2:
                return self.emit("MatMul", [ins[0], t], out)
            self.emit("MatMul", [ins[0], t], [out[0] + "_mm"])
            return self.emit("Add", [out[0] + "_mm", ins[2]], out)
        if fn in (shape.Reshape, shape.Squeeze, shape.SqueezeDim, shape.SqueezeDims,
                  shape.Unsqueeze):
            return self.emit("Reshape", [self.name(a[0]),
                                         self.const(node.outputs[0].shape, np.int64)], out)
        if fn is shape.Expand:
            return self.emit("Expand", [self.name(a[0]), self.const(a[1], np.int64)], out)
        if fn in (shape.Transpose, shape.T):
            perm = list(range(len(ref.shape)))
            perm[a[1]], perm[a[2]] = perm[a[2]], perm[a[1]]
            return self.emit("Transpose", [self.name(a[0])], out, perm=perm)
        if fn is shape.Permute:
            return self.emit("Transpose", [self.name(a[0])], out, perm=list(a[1]))
        if fn in (reduce.Sum, reduce.SumAll):
            axes = list(a[1]) if a[1] is not None else list(range(len(ref.shape)))
            return self.emit("ReduceSum", [self.name(a[0]), self.const(axes, np.int64)], out,
                             keepdims=int(bool(a[2])))
        if fn in (reduce.Mean, reduce.MeanAll):
            return self.emit("ReduceMean", [self.name(a[0])], out, axes=list(a[1]),
                             keepdims=int(bool(a[2])))
        if fn in (softmax.Softmax, softmax.LogSoftmax):
            op = "Softmax" if fn is softmax.Softmax else "LogSoftmax"
            return self.emit(op, [self.name(a[0])], out, axis=a[1])
        if fn is convert.ToCopy and a[1] is not None:
            to = self.h.np_dtype_to_tensor_dtype(np.dtype(a[1]))
            return self.emit("Cast", [self.name(a[0])], out, to=to)
        if fn is Conv2d:
            x, w, b, stride, padding, dilation, groups = a
            ins = [self.name(x), self.name(w)] + ([self.name(b)] if b is not None else [])
            return self.emit("Conv", ins, out, kernel_shape=list(w.shape[2:]),
                             strides=list(stride), pads=list(padding) * 2,
                             dilations=list(dilation), group=groups)
        if fn is pool.MaxPool2d:
            x, kernel, stride, padding, dilation, ceil_mode = a
            return self.emit("MaxPool", [self.name(x)], out[:1], kernel_shape=list(kernel),
                             strides=list(stride), pads=list(padding) * 2,
                             dilations=list(dilation), ceil_mode=int(ceil_mode))
        raise NotImplementedError(
            f"labkit.onnx.export: no ONNX form for the op {node.kind!r} yet. Export the "
            "inference model (no loss, no backward), or rewrite that part with common ops.")

    def value_info(self, v):
        return self.h.make_tensor_value_info(
            v.name, self.h.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))


def export(model_or_fn, example_inputs, path, input_names=None, output_names=None,
           opset_version=OPSET):
    """Trace model_or_fn on example_inputs and write an ONNX model to path (checked with
    onnx.checker). Returns the ModelProto."""
    try:
        import onnx
    except ImportError:
        raise ImportError("labkit.onnx.export needs the onnx package: pip install onnx "
                          "(or pip install 'labkit[onnx]'); onnxruntime runs the result.") from None
    from ..engine.grad_mode import no_grad
    with no_grad():
        traced = trace(model_or_fn, as_tuple(example_inputs))
    g = traced.graph
    w = _Writer(onnx, g)
    for v in g.inputs:
        if v.role == "param":
            w.inits.append(onnx.numpy_helper.from_array(to_host(v.ref._data), v.name))
    for c in g.constants:
        w.inits.append(onnx.numpy_helper.from_array(to_host(c.ref), c.name))
    for node in g.nodes:
        w.node(node)
    inputs = [v for v in g.inputs if v.role == "input"]
    rename = {}
    for v, n in zip(inputs, input_names or ()):
        rename[v.name] = n
    for v, n in zip(g.outputs, output_names or ()):
        rename[v.name] = n
    for node in w.nodes:
        node.input[:] = [rename.get(i, i) for i in node.input]
        node.output[:] = [rename.get(o, o) for o in node.output]
    ins = [w.value_info(v) for v in inputs]
    outs = [w.value_info(v) for v in g.outputs]
    for vi in ins + outs:
        vi.name = rename.get(vi.name, vi.name)
    graph = onnx.helper.make_graph(w.nodes, g.name if g.name.isidentifier() else "labkit",
                                   ins, outs, initializer=w.inits)
    model = onnx.helper.make_model(graph, producer_name="labkit",
                                   opset_imports=[onnx.helper.make_opsetid("", opset_version)])
    model.ir_version = min(model.ir_version, 10)
    onnx.checker.check_model(model, full_check=True)
    with atomic_write(path, "onnx.export") as fh:   # a crash mid-write keeps the old file
        fh.write(model.SerializeToString())
    return model
