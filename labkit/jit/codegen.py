"""Code generation: an optimised Graph becomes one straight-line Python function on arrays.

Each node becomes one numpy call that writes into a buffer allocated once, when the program is
built (`out=`): no Tensor, no Node, no allocation per op at run time. Buffers are reused: a
value's buffer goes back to a pool after its last reader, and an elementwise op writes over an
input that dies there (in place). Values the caller gets (outputs, new gradients) are fresh
arrays on every call, never a buffer, so a result is never changed by a later call. An op
without a numpy template runs its Function's forward on stand-ins (runtime.forward_caller).

A fused group becomes its own function (`fused_0`), whose source is kept for inspection; on a
GPU it is one CUDA kernel instead (cuda_kernel.py).
"""
import keyword
import re
from collections import defaultdict

import numpy as np

from .emit import Templates, calls, how
from .ir import Value
from .ops import inplace_ok
from .tiling import Tiling

INF = float("inf")


class Program:
    """The generated function and what explains it: `source` (the whole program) and
    `kernels` ({name: source} of each fused group)."""

    def __init__(self, fn, source, kernels, params, n_buffers, buffer_bytes):
        self.fn = fn
        self.source = source
        self.kernels = kernels
        self.params = params            # graph input Values, in the order fn takes them
        self.n_buffers = n_buffers
        self.buffer_bytes = buffer_bytes

    def __call__(self, *arrays):
        return self.fn(*arrays)


def schedule(graph):
    """[(unit node, fused group node or None)]: fused groups contribute their members."""
    units = []
    for node in graph.nodes:
        if node.kind == "fused":
            units += [(m, node) for m in node.blocks[0].nodes]
        else:
            units.append((node, None))
    return units


class _Names:
    def __init__(self, reserved):
        self.reserved = reserved
        self.taken = set()
        self.of = {}

    def __call__(self, v):
        name = self.of.get(v)
        if name is None:
            base = v.name.replace(".", "_")
            if not base.isidentifier() or base[0] in "_0123456789":
                base = f"v{base}"
            if keyword.iskeyword(base) or base in self.reserved:
                base += "_"
            name, n = base, 1
            while name in self.taken:
                name, n = f"{base}_{n}", n + 1
            self.taken.add(name)
            self.of[v] = name
        return name


class _Lit:
    """Python source for constant arguments; what has no literal goes into the namespace."""

    def __init__(self, ns):
        self.ns = ns

    def __call__(self, obj):
        if obj is None or isinstance(obj, (bool, int, str)):
            return repr(obj)
        if isinstance(obj, float) and np.isfinite(obj):
            return repr(obj)
        if isinstance(obj, tuple) and all(isinstance(o, (int, bool, type(None))) for o in obj):
            return repr(obj)
        name = f"_k{len([k for k in self.ns if k.startswith('_k')])}"
        self.ns[name] = obj
        return name


def generate(graph, xp=np, device=None):
    """Program for `graph` (inputs: its 'input' values, then its params, as arrays)."""
    gen = _Gen(graph, xp, device)
    return gen.build()


class _Gen(Templates, Tiling):
    def __init__(self, graph, xp, device):
        self.g, self.xp, self.device = graph, xp, device
        self.units = schedule(graph)
        names = calls()                       # the xp functions the op table's templates use
        self.name = _Names({"np", *names})
        self.ns = {"np": np, **{u: getattr(xp, u) for u in names}}
        self.lit = _Lit(self.ns)
        self.outputs = {v for v in graph.outputs if isinstance(v, Value)}
        self.buffers = []                     # arrays, named b0, b1, ...
        self.dst = {}                         # Value -> source text of its buffer
        self.pooled = set()                   # names of the reusable buffers
        self.pinned = {}                      # Value -> the stacked row it must be written to
        self.store_done = set()

    # --- lifetimes and buffers --------------------------------------------------------------
    def _lifetimes(self):
        last = {}
        for i, (node, _) in enumerate(self.units):
            for v in node.inputs:
                last[v] = i
        for v in self.outputs:
            last[v] = INF
        for p, v in self.g.stores:
            last[v] = INF
        owner = {}                            # Value -> set of values whose memory it uses
        for node, _ in self.units:
            kind = how(node)
            for v in node.outputs:
                if kind == "view":
                    owner[v] = set(owner.get(node.args[0], {node.args[0]}))
                elif kind == "call":
                    owner[v] = {v}.union(*(owner.get(u, {u}) for u in node.inputs))
                else:
                    owner[v] = {v}
        until = {}                            # memory owner -> position of its last reader
        for v, i in last.items():
            for o in owner.get(v, {v}):
                until[o] = max(until.get(o, -1), i)
        return until, owner

    def _stack(self):
        """Stacked buffers for batched derivatives: each y is written into a row of Y, and
        one op fills D; every row is a view bound to a name once, at build time."""
        for node, _ in self.units:
            if how(node) != "batched":
                continue
            k = len([n for n in self.ns if n.startswith("_Y")])
            v0 = node.outputs[0]
            for tag, values in (("Y", node.args), ("D", node.outputs)):
                stack = self.xp.empty((len(values),) + v0.shape, v0.dtype)
                self.ns[f"_{tag}{k}"] = stack
                for i, v in enumerate(values):
                    name = f"_{tag}{k}_{i}"
                    self.ns[name] = stack[i]
                    if tag == "D":
                        self.name.of[v] = name
                    elif v.node is not None and how(v.node) == "out" and self.xp is np:
                        self.pinned[v] = name     # (a CUDA kernel allocates its own outputs)
            node.meta["stack"] = k

    def _allocate(self):
        self._stack()
        until, owner = self._lifetimes()
        dies = defaultdict(list)
        for o, end in until.items():
            if end != INF:
                dies[end].append(o)
        free = {}
        store_of = {v: p for p, v in self.g.stores}
        for i, (node, _) in enumerate(self.units):
            if how(node) == "out":
                v = node.outputs[0]
                self.dst[v] = self._place(node, v, i, until, owner, free, store_of)
            for o in dies[i]:
                d = self.dst.get(o)
                if until.get(o) == i and d in self.pooled:
                    free.setdefault(self._key(o), []).append(d)

    def _key(self, v):
        return (v.shape, v.dtype.str)

    def _place(self, node, v, i, until, owner, free, store_of):
        if v in self.pinned:
            return self.pinned[v]             # a row of a stacked buffer
        if v in self.outputs:
            return None                       # fresh on every call
        if inplace_ok(node.fn):
            p = store_of.get(v)
            if p is not None and p in node.inputs and until.get(p) == i and \
                    self._key(p) == self._key(v):
                self.store_done.add(p)        # the new value is written into p's own array
                return self.name(p)
            for u in node.inputs:
                if until.get(u) == i and owner.get(u) == {u} and self._key(u) == self._key(v) \
                        and self.dst.get(u) in self.pooled:
                    until[u] = -1             # its buffer passes to v: do not free it
                    return self.dst[u]
        pool = free.get(self._key(v))
        if pool:
            return pool.pop()
        name = f"_b{len(self.buffers)}"
        self.buffers.append(self.xp.empty(v.shape, v.dtype))
        self.ns[name] = self.buffers[-1]
        self.pooled.add(name)
        return name

    # --- emitting -----------------------------------------------------------------------
    # --- the program ------------------------------------------------------------------------
    def build(self):
        self.readers = {}
        for node, _ in self.units:
            for v in node.inputs:
                self.readers.setdefault(v, []).append(node)
        self._allocate()
        params = [v for v in self.g.inputs]
        head = [self.name(v) for v in params]
        body, kernels, i = [], {}, 0
        units = self.units
        while i < len(units):
            node, group = units[i]
            if group is None:
                body += self.emit(node)
                i += 1
                continue
            members = group.blocks[0].nodes
            kname = f"fused_{group.meta['group']}"
            if self.xp is not np:          # a GPU: one CUDA kernel for the group
                from .cuda_kernel import kernel_source, make_kernel
                self.ns[kname] = make_kernel(group)
                kernels[kname] = "\n".join(kernel_source(group))
            else:
                kernels[kname] = self._kernel(kname, group, members)
            ins = ", ".join(self._group_io(group)[0])
            outs = ", ".join(self._group_io(group)[1])
            unpack = "," if self.xp is np or len(group.outputs) > 1 else ""  # one CUDA output
            body.append(f"{outs}{unpack} = {kname}({ins})" if outs else f"{kname}({ins})")
            i += len(members)
        for p, v in self.g.stores:
            if p not in self.store_done:
                body.append(f"copyto({self.name(p)}, {self.name(v)})")
        body.append("return (" + "".join(self._result(v) + ", " for v in self.g.outputs) + ")")
        for c in self.g.constants:
            self.ns[self.name(c)] = c.ref
        defaults = self._defaults(body, skip=head)
        src = "\n".join([f"def program({', '.join(head + defaults)}):"] +
                        ["    " + line for line in body])
        for kname, ksrc in kernels.items():
            if self.xp is np:
                exec(compile(ksrc, f"<labkit.jit {kname}>", "exec"), self.ns)
        exec(compile(src, "<labkit.jit program>", "exec"), self.ns)
        nbytes = sum(b.nbytes for b in self.buffers)
        return Program(self.ns["program"], src, kernels, params, len(self.buffers), nbytes)

    def _result(self, v):
        """An output as the caller gets it: always an array no other call will write."""
        if not isinstance(v, Value):
            return repr(v)
        node = v.node
        fresh = node is not None and how(node) == "out" and self.dst.get(v) is None
        return self.name(v) if fresh else f"{self.name(v)}.copy()"

    def _group_io(self, group):
        """A group's arguments and results, less the stacked rows (names bound at build time,
        read and written in place)."""
        ins = [self.name(v) for v in group.args
               if self.name(v) not in self.ns or self.xp is not np]   # a CUDA kernel takes all
        outs = [self.name(v) for v in group.outputs if v not in self.pinned or any(
            how(u) != "batched" for u in self.readers.get(v, ()) if u not in group.blocks[0].nodes)]
        return ins, outs

    def _kernel(self, kname, group, members):
        if self._tileable(group, members):
            return self._tiled_kernel(kname, group, members)
        lines = []
        for m in members:
            lines += self.emit(m)
        ins, outs = self._group_io(group)
        body = lines + (["return (" + "".join(o + ", " for o in outs) + ")"] if outs else [])
        defaults = self._defaults(body, skip=ins)
        return "\n".join([f"def {kname}({', '.join(ins + defaults)}):"] +
                         ["    " + line for line in body])

    def _defaults(self, body, skip=()):
        """Namespace names the code uses, bound as default arguments (fast local lookups)."""
        text = "\n".join(body)
        used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)) - set(skip)
        return [f"{k}={k}" for k in sorted(used) if k in self.ns and k != "np"]
