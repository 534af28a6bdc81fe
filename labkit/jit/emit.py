"""The numpy call (or calls) each op becomes in a generated program: the op's `numpy` template
in the op table (engine/ops/table.py), writing into the buffer the allocator chose for it. An op
without a template runs its Function's forward on stand-ins (runtime.forward_caller).
"""
from ..engine.ops import table
from .ir import Raw, Value
from .runtime import forward_caller, input_order

# what every generated program may call (besides the ops' own templates)
BASE_CALLS = ("empty", "copyto", "matmul", "broadcast_to", "swapaxes", "expand_dims", "asarray",
              "power", "clip")


def calls():
    """The names of the xp functions generated code may call: the base ones and those the
    op table's templates use."""
    return (*BASE_CALLS, *(c for c in table.CALLS if c not in BASE_CALLS))


class _Operand:
    """An argument of a template, written out only if the template uses it (writing a
    constant may bind a name)."""
    __slots__ = ("gen", "value")

    def __init__(self, gen, value):
        self.gen, self.value = gen, value

    def __format__(self, spec):
        return self.gen.arg(self.value)


def how(node):
    """'out' (writes into a given buffer), 'view' (a view of its input) or 'call'."""
    fn = node.fn
    if node.meta.get("batched"):
        return "batched"
    if fn is None:
        return "out"          # addmm / linear (+relu)
    t = table.lookup(fn, "numpy")
    if t is table.CALL:
        return "call"
    if t.view:
        return "view"
    out = node.outputs[0]
    if node.meta.get("side") or len(node.outputs) != 1 or out.shape is None:
        return "call"
    return "out" if t.when is None or t.when(node) else "call"


class Templates:
    """The op templates of codegen's generator (a mixin: it uses the generator's names,
    literals, chosen buffers and namespace)."""

    def _batched(self, node):
        k = node.meta["stack"]
        lines = [f"copyto(_Y{k}_{i}, {self.name(y)})" for i, y in enumerate(node.args)
                 if self.pinned.get(y) is None]
        return lines + table.lookup(node.fn, "numpy").code(self, node, f"_Y{k}", f"_D{k}")

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
        if fn is None:
            return self._matmul_bias(node, name, out)
        t = table.lookup(fn, "numpy")
        if kind == "view":
            code = t.code(self, node, name, None) if callable(t.code) else \
                t.code.format(*(_Operand(self, x) for x in a), shape=repr(v.shape))
            return [f"{name} = {code}"]
        if callable(t.code):
            return t.code(self, node, name, out)
        return [f"{name} = " + t.code.format(*(_Operand(self, x) for x in a), out=out)]

    def scratch(self, v, k):
        """A scratch array of v's shape and dtype (number k), made once per program."""
        key = f"_s{k}_{'x'.join(map(str, v.shape))}_{v.dtype.name}"
        if key not in self.ns:
            self.ns[key] = self.xp.empty(v.shape, v.dtype)
        return key

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
