"""ONNX from an ExportedProgram: the captured graph, op by op (labkit.jit's ONNX writer), with
dynamic dimensions named in the file (dim_param) and labkit.cond written as ONNX If."""
from ..jit.onnx import Writer, write_model


def to_onnx(ep, path, input_names=None, output_names=None, opset_version=17):
    try:
        import onnx
    except ImportError:
        raise ImportError("labkit.export.to_onnx needs the onnx package: pip install onnx "
                          "(or pip install 'labkit[onnx]').") from None
    syms = ep._sym_shapes

    class Dynamic(Writer):
        """Writes dynamic dims as ONNX symbols, and cond as If."""

        def node(self, node):
            return self.branch(node) if node.kind == "If" else super().node(node)

        def reshape_target(self, v):
            if v.name not in syms:
                return v.shape
            target = [-1 if isinstance(s, str) else s for s in syms[v.name]]
            if target.count(-1) > 1:
                raise NotImplementedError(
                    "labkit.export.to_onnx: a reshape with two dynamic dims has no single "
                    "ONNX shape; keep one of them static.")
            return target

        def expand_target(self, node):
            out = node.outputs[0]
            if out.name not in syms:
                return node.args[1]
            return [1 if isinstance(s, str) else s for s in syms[out.name]]

        def branch(self, node):
            graphs = []
            for b in node.blocks:
                w = Dynamic(onnx, b)
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

    return write_model(onnx, Dynamic(onnx, ep.graph), ep.graph, path, input_names, output_names,
                       opset_version, "exported", "labkit.export", what="export.to_onnx")
