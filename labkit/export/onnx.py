"""ONNX from an ExportedProgram: the captured graph, op by op (labkit.jit's ONNX writer), with
dynamic dimensions named in the file (dim_param) and labkit.cond written as ONNX If."""
import numpy as np

from ..engine.device import to_host
from ..engine.ops import shape


def to_onnx(ep, path, input_names=None, output_names=None, opset_version=17):
    try:
        import onnx
    except ImportError:
        raise ImportError("labkit.export.to_onnx needs the onnx package: pip install onnx "
                          "(or pip install 'labkit[onnx]').") from None
    from ..jit.onnx import _Writer
    g, syms = ep.graph, ep._sym_shapes

    class Writer(_Writer):
        def node(self, node):
            if node.kind == "If":
                return self.branch(node)
            out = node.outputs[0] if node.outputs else None
            if node.fn in (shape.Reshape, shape.Squeeze, shape.SqueezeDim, shape.SqueezeDims,
                           shape.Unsqueeze) and out.name in syms:
                target = [-1 if isinstance(s, str) else s for s in syms[out.name]]
                if target.count(-1) > 1:
                    raise NotImplementedError(
                        "labkit.export.to_onnx: a reshape with two dynamic dims has no single "
                        "ONNX shape; keep one of them static.")
                return self.emit("Reshape", [self.name(node.args[0]),
                                             self.const(target, np.int64)], [out.name])
            if node.fn is shape.Expand and out.name in syms:
                target = [1 if isinstance(s, str) else s for s in syms[out.name]]
                return self.emit("Expand", [self.name(node.args[0]),
                                            self.const(target, np.int64)], [out.name])
            return super().node(node)

        def branch(self, node):
            graphs = []
            for b in node.blocks:
                w = Writer(onnx, b)
                w.n = self.n + 1000 * (len(graphs) + 1)       # distinct initializer names
                for n in b.nodes:
                    w.node(n)
                outs = []
                for v, o in zip(node.outputs, b.outputs):
                    name = f"{v.name}_{b.name}"
                    w.emit("Identity", [w.name(o)], [name])
                    outs.append(self.h.make_tensor_value_info(
                        name, self.h.np_dtype_to_tensor_dtype(v.dtype), None))
                graphs.append(self.h.make_graph(w.nodes, b.name, [], outs, initializer=w.inits))
            self.emit("If", [self.name(node.args[0])], [v.name for v in node.outputs],
                      then_branch=graphs[0], else_branch=graphs[1])

        def value_info(self, v):
            dims = syms.get(v.name, v.shape)
            return self.h.make_tensor_value_info(
                v.name, self.h.np_dtype_to_tensor_dtype(v.dtype), list(dims))

    w = Writer(onnx, g)
    for v in g.inputs:
        if v.role == "param":
            w.inits.append(onnx.numpy_helper.from_array(to_host(v.ref._data), v.name))
    for c in g.constants:
        w.inits.append(onnx.numpy_helper.from_array(to_host(c.ref), c.name))
    for node in g.nodes:
        w.node(node)
    inputs = [v for v in g.inputs if v.role == "input"]
    rename = dict(zip([v.name for v in inputs], input_names or ()))
    rename.update(zip([v.name for v in g.outputs], output_names or ()))
    for n in w.nodes:
        n.input[:] = [rename.get(i, i) for i in n.input]
        n.output[:] = [rename.get(o, o) for o in n.output]
    ins, outs = [w.value_info(v) for v in inputs], [w.value_info(v) for v in g.outputs]
    for vi in ins + outs:
        vi.name = rename.get(vi.name, vi.name)
    graph = onnx.helper.make_graph(w.nodes, "exported", ins, outs, initializer=w.inits)
    model = onnx.helper.make_model(graph, producer_name="labkit.export",
                                   opset_imports=[onnx.helper.make_opsetid("", opset_version)])
    model.ir_version = min(model.ir_version, 10)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(path))
    return model
