"""ONNX export: trace the model, then write each node of the graph as ONNX operators.

ONNX is the exchange format for static graphs: a file that another runtime (onnxruntime,
TensorRT, a phone) runs without Python or labkit. Parameters and constants become initializers
(the weights inside the file). Needs the `onnx` package (pip install 'labkit[onnx]').
"""
import numpy as np

from .._io import atomic_write
from ..engine.device import to_host
from ..engine.ops import table
from .ir import Raw, Value
from .trace import as_tuple, trace

OPSET = 17


class Writer:
    """Writes a graph's nodes as ONNX nodes, each as its op's `onnx` entry in the op table
    says: an operator name (the same operands, in order) or a function (writer, node, outs)."""

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

    def ref(self, node):
        """The value whose dtype a node's number operands take: its first input."""
        return next((x for x in node.inputs), node.outputs[0])

    def onnx_dtype(self, dtype):
        return self.h.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def reshape_target(self, v):
        """The shape a Reshape writes v to (a subclass may write dynamic dims)."""
        return v.shape

    def expand_target(self, node):
        return node.args[1]

    def unsupported(self, node):
        return table.unsupported("onnx", node.kind)

    def emit(self, op, ins, outs, **attrs):
        self.nodes.append(self.h.make_node(op, list(ins), list(outs),
                                           name=f"{op}_{len(self.nodes)}", **attrs))

    def node(self, node):
        out = [v.name for v in node.outputs]
        if node.fn is None:
            raise self.unsupported(node)
        entry = table.require(node.fn, "onnx", node.kind)
        if isinstance(entry, str):
            ref = self.ref(node)
            return self.emit(entry, [self.operand(x, ref) for x in node.args if x is not None],
                             out)
        return entry(self, node, out)

    def value_info(self, v):
        return self.h.make_tensor_value_info(
            v.name, self.h.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))


def write_model(onnx, writer, graph, path, input_names, output_names, opset_version,
                graph_name, producer, what="onnx.export"):
    """The ONNX model of a graph: parameters and constants as initializers, every node written
    by `writer`, inputs and outputs renamed as asked; checked, then written to path."""
    w = writer
    for v in graph.inputs:
        if v.role == "param":
            w.inits.append(onnx.numpy_helper.from_array(to_host(v.ref._data), v.name))
    for c in graph.constants:
        w.inits.append(onnx.numpy_helper.from_array(to_host(c.ref), c.name))
    for node in graph.nodes:
        w.node(node)
    inputs = [v for v in graph.inputs if v.role == "input"]
    rename = dict(zip([v.name for v in inputs], input_names or ()))
    rename.update(zip([v.name for v in graph.outputs], output_names or ()))
    for n in w.nodes:
        n.input[:] = [rename.get(i, i) for i in n.input]
        n.output[:] = [rename.get(o, o) for o in n.output]
    ins, outs = [w.value_info(v) for v in inputs], [w.value_info(v) for v in graph.outputs]
    for vi in ins + outs:
        vi.name = rename.get(vi.name, vi.name)
    model = onnx.helper.make_model(
        onnx.helper.make_graph(w.nodes, graph_name, ins, outs, initializer=w.inits),
        producer_name=producer, opset_imports=[onnx.helper.make_opsetid("", opset_version)])
    model.ir_version = min(model.ir_version, 10)
    onnx.checker.check_model(model, full_check=True)
    with atomic_write(path, what) as fh:   # a crash mid-write keeps the old file
        fh.write(model.SerializeToString())
    return model


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
    return write_model(onnx, Writer(onnx, g), g, path, input_names, output_names, opset_version,
                       g.name if g.name.isidentifier() else "labkit", "labkit")
