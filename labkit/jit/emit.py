"""The numpy call (or calls) each op becomes in a generated program: one template per kind of
op, writing into the buffer the allocator chose for it. An op without a template runs its
Function's forward on stand-ins (runtime.forward_caller).
"""
from ..engine.ops import arithmetic, inplace, reduce, select, shape, unary
from .ir import Raw, Value
from .ops import LINEAR, MATMUL, POW_FAST, UFUNCS, TanhDeriv
from .runtime import forward_caller, input_order

# ops that may write their result over an input of their own shape
INPLACE_OK = set(UFUNCS) | {arithmetic.Pow, unary.Relu, unary.ClampMin, unary.ClampMax,
                            unary.Clamp, unary.TanhGrad, unary.SigmoidGrad}
_VIEWS = {shape.Reshape: "reshape", shape.Transpose: "swapaxes", shape.T: "swapaxes",
          shape.Permute: "permute", shape.Expand: "expand", shape.Squeeze: "squeeze",
          shape.SqueezeDim: "squeeze", shape.SqueezeDims: "squeeze",
          shape.Unsqueeze: "unsqueeze"}


def how(node):
    """'out' (writes into a given buffer), 'view' (a view of its input) or 'call'."""
    fn = node.fn
    if node.meta.get("batched"):
        return "batched"
    if fn is None:
        return "out"          # addmm / linear (+relu)
    if fn in _VIEWS:
        return "view"
    out = node.outputs[0]
    if node.meta.get("side") or len(node.outputs) != 1 or out.shape is None:
        return "call"
    if fn in UFUNCS or fn in (arithmetic.Pow, unary.Relu, unary.TanhGrad, unary.SigmoidGrad):
        return "out"
    if fn in (unary.ClampMin, unary.ClampMax, unary.Clamp):
        return "out" if out.dtype.kind == "f" else "call"
    if fn in MATMUL:
        return "out" if len(out.shape) else "call"
    if fn is LINEAR:
        return "out" if node.args[0].shape is not None and len(node.args[0].shape) >= 1 \
            else "call"
    if fn in (reduce.Sum, reduce.SumAll, reduce.Mean, reduce.MeanAll):
        return "out" if node.args[0].dtype.kind == "f" else "call"
    if fn in (shape.Clone, inplace._Fill, inplace._Copy):
        return "out"
    return "call"


class Templates:
    """The op templates of codegen's generator (a mixin: it uses the generator's names,
    literals, chosen buffers and namespace)."""

    def _batched(self, node):
        k = node.meta["stack"]
        lines = [f"copyto(_Y{k}_{i}, {self.name(y)})" for i, y in enumerate(node.args)
                 if self.pinned.get(y) is None]
        y, d = f"_Y{k}", f"_D{k}"
        if node.fn is TanhDeriv:
            return lines + [f"multiply({y}, {y}, {d})", f"subtract(1, {d}, {d})"]
        return lines + [f"subtract(1, {y}, {d})", f"multiply({y}, {d}, {d})"]

    def arg(self, a):
        if isinstance(a, Value):
            return self.name(a)
        if isinstance(a, Raw):
            return self.name(a.value)
        if isinstance(a, tuple):
            return "(" + "".join(self.arg(x) + ", " for x in a) + ")"
        if isinstance(a, list):
            return "[" + ", ".join(self.arg(x) for x in a) + "]"
        return self.lit(a)

    def out(self, v):
        d = self.dst.get(v)
        return d if d is not None else f"empty({v.shape!r}, {self.lit(v.dtype)})"

    def emit(self, node):
        fn, a, outs = node.fn, node.args, node.outputs
        kind = how(node)
        if kind == "call":
            return self._call(node)
        if kind == "batched":
            return self._batched(node)
        v = outs[0]
        name, out = self.name(v), self.out(v)
        if kind == "view":
            return [f"{name} = {self._view(fn, a, v)}"]
        if fn is None:
            return self._matmul_bias(node, name, out)
        if fn in UFUNCS:
            args = ", ".join(self.arg(x) for x in a)
            sep = ", out=" if fn in (select.Maximum, select.Minimum) else ", "
            return [f"{name} = {UFUNCS[fn]}({args}{sep}{out})"]
        if fn is arithmetic.Pow:
            x, p = self.arg(a[0]), a[1]
            if p in POW_FAST and not isinstance(p, bool):
                return [f"{name} = {POW_FAST[p]}({x}, {out})"]
            return [f"{name} = power({x}, {self.lit(p)}, {out})"]
        if fn is unary.Relu:
            return [f"{name} = maximum({self.arg(a[0])}, 0, out={out})"]
        if fn is unary.ClampMin:
            return [f"{name} = maximum({self.arg(a[0])}, {self.lit(a[1])}, out={out})"]
        if fn is unary.ClampMax:
            return [f"{name} = minimum({self.arg(a[0])}, {self.lit(a[2])}, out={out})"]
        if fn is unary.Clamp:
            return [f"{name} = clip({self.arg(a[0])}, {self.lit(a[1])}, {self.lit(a[2])}, "
                    f"out={out})"]
        if fn is unary.TanhGrad:        # g * (1 - y * y), in the engine's order
            g, y = self.arg(a[0]), self.arg(a[1])
            s = self._scratch(v, 0)
            return [f"multiply({y}, {y}, {s})", f"subtract(1, {s}, {s})",
                    f"{name} = multiply({g}, {s}, {out})"]
        if fn is unary.SigmoidGrad:     # g * (y * (1 - y)), in the engine's order
            g, y = self.arg(a[0]), self.arg(a[1])
            s = self._scratch(v, 0)
            return [f"subtract(1, {y}, {s})", f"multiply({y}, {s}, {s})",
                    f"{name} = multiply({g}, {s}, {out})"]
        if fn in MATMUL:
            return [f"{name} = matmul({self.arg(a[0])}, {self.arg(a[1])}, {out})"]
        if fn is LINEAR:                   # x @ w.T (+ b), as the engine's Linear.forward
            lines = [f"{name} = matmul({self.arg(a[0])}, {self.arg(a[1])}.T, {out})"]
            if a[2] is not None:
                lines.append(f"add({name}, {self.arg(a[2])}, {name})")
            return lines
        if fn in (reduce.Sum, reduce.SumAll, reduce.Mean, reduce.MeanAll):
            op = "sum" if fn in (reduce.Sum, reduce.SumAll) else "mean"
            return [f"{name} = {self.arg(a[0])}.{op}(axis={self.lit(a[1])}, "
                    f"keepdims={self.lit(a[2])}, out={out})"]
        if fn is shape.Clone:
            return [f"{name} = {out}", f"copyto({name}, {self.arg(a[0])})"]
        if fn is inplace._Fill:
            return [f"{name} = {out}", f"copyto({name}, {self.arg(a[1])}, casting='unsafe')"]
        if fn is inplace._Copy:
            return [f"{name} = {out}", f"copyto({name}, {self.arg(a[1])}, casting='unsafe')"]
        raise AssertionError(f"no template for {node.kind}")

    def _scratch(self, v, k):
        key = f"_s{k}_{'x'.join(map(str, v.shape))}_{v.dtype.name}"
        if key not in self.ns:
            self.ns[key] = self.xp.empty(v.shape, v.dtype)
        return key

    def _view(self, fn, a, v):
        x = self.arg(a[0])
        op = _VIEWS[fn]
        if op in ("reshape", "squeeze"):
            return f"{x}.reshape({v.shape!r})"
        if op == "swapaxes":
            return f"swapaxes({x}, {a[1]}, {a[2]})"
        if op == "permute":
            return f"{x}.transpose({self.lit(tuple(a[1]))})"
        if op == "expand":
            return f"broadcast_to({x}, {v.shape!r})"
        return f"expand_dims({x}, {a[1]})"

    def _matmul_bias(self, node, name, out):
        x, w, b = (self.arg(t) for t in node.args)
        w = f"{w}.T" if node.meta["linear"] else w
        lines = [f"{name} = matmul({x}, {w}, {out})", f"add({name}, {b}, {name})"]
        if node.meta["relu"]:
            lines.append(f"maximum({name}, 0, out={name})")
        return lines

    def _call(self, node):
        key = f"_call{len([k for k in self.ns if k.startswith('_call')])}_{node.kind}"
        self.ns[key] = forward_caller(node, self.device)
        args = ", ".join(self.name(v) for v in input_order(node))
        outs = [self.name(v) if v.kind == "Tensor" else "_" for v in node.outputs]
        sides = node.meta.get("side", ())
        if len(outs) == 1 and not sides:
            return [f"{outs[0]} = {key}({args})"]
        return [f"{', '.join(outs)}, = {key}({args})"]
