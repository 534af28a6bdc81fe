"""vmap: run a function written for one example on a whole batch.

The function runs once, on the first example, while a BatchTape records its ops (and those of
any backward it runs). Then the tape is replayed on the batch: every op that touches batched
data runs once for all examples through its batching rule (its Function's `vmap`), so a Python
loop of B calls becomes one call per op. An op without a rule is run example by example
(with a warning the first time). As in torch.func and JAX, Python control flow that depends
on batched values cannot be batched: it is an error, not a silent wrong answer.
"""
from ..engine.ops import rules, table
from ..engine.ops.join import stack
from ..engine.device import cpu
from ..engine.grad_mode import no_grad
from ..engine.ops.random import Random
from ..engine.tensor import Tensor
from . import _tree
from ._level import Level, outputs_of, running, warn_once


class BatchTape(Level):
    """Records the ops that touch the mapped inputs, then replays them on the whole batch."""

    def __init__(self, size, randomness="error"):
        super().__init__()
        self.size = size
        self.randomness = randomness
        self.entries = []
        self.dep = set()      # ids of recorded tensors (and arrays) that depend on the inputs
        self.side = {}        # id(array) -> (array, op): arrays a forward kept for its backward
        self.viewed = set()   # ids of batched tensors that views were taken of

    def depends(self, a):
        if isinstance(a, Tensor):
            return (id(a) in self.dep or id(a._data) in self.dep
                    or a.grad_fn is not None and (id(a.grad_fn), a._out_idx) in self.dep)
        if isinstance(a, (tuple, list)):
            return any(self.depends(x) for x in a)
        return hasattr(a, "shape") and id(a) in self.dep

    def mark(self, t):
        self.dep.add(id(t))
        self.dep.add(id(t._data))
        if t.grad_fn is not None:
            self.dep.add((id(t.grad_fn), t._out_idx))

    def record(self, cls, args, result):
        super().record(cls, args, result)
        if not any(self.depends(a) for a in args):
            return
        if isinstance(result, Tensor) and args and result is args[0]:
            self._check_in_place(cls, result)
        self.entries.append((cls, args, result))
        if isinstance(result, Tensor) and result._base is not None:
            self.viewed.add(id(result._base))
        for o in outputs_of(result):
            if isinstance(o, Tensor):
                self.mark(o)
        node = next((o.grad_fn for o in outputs_of(result)       # one node for all outputs
                     if isinstance(o, Tensor) and o.grad_fn is not None), None)
        if node is not None:
            given = {id(a._data) if isinstance(a, Tensor) else id(a) for a in _leaves(args)}
            for name, value in vars(node).items():
                if not name.startswith("_") or name in ("_saved", "_to_save"):
                    self._keep_side(value, cls, given)

    def batched_like(self, source, t):
        """t = source.new_zeros(...) (new_ones, new_full, new_empty): batched when source is,
        every example starting from t's values."""
        if self.depends(source):
            xp = t.device.xp
            self.bind(t, Tensor._make(xp.broadcast_to(t._data, (self.size,) + t._data.shape).copy(),
                                      t.device))
            self.mark(t)

    def random_draw(self, kind, shape, np_dtype, generator, requires_grad, p):
        """A random op (randn, rand, a dropout mask) called inside the function: an error, the
        same draw for every example ('same', None: drawn as usual), or, as torch draws it, one
        draw of (B, *shape) whose rows are the examples' values ('different')."""
        if self.randomness == "error":
            raise RuntimeError(
                "vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")
        if self.randomness == "same":
            return None
        arr = Random.forward(None, kind, (self.size,) + tuple(shape), np_dtype, generator, p)
        batched = Tensor._make(arr, cpu)
        example = Tensor._make(arr[0].copy(), cpu)
        if requires_grad:
            example.requires_grad_(True)
        self.bind(example, batched)
        self.mark(example)
        return example

    def _check_in_place(self, cls, target):
        """An in-place op may write into a batched tensor (replay rebinds it to the batched
        result, as torch updates it), not into an unbatched one, nor into a view of a batched
        tensor or a tensor that has views: replay could not carry the write to the others."""
        name = getattr(cls, 'op_name', None) or cls.__name__
        if not self.depends(target):
            raise RuntimeError(
                f"labkit.func.vmap: the in-place op {name} writes batched values into a tensor "
                f"of shape {tuple(target.shape)} that is not batched. Use the out-of-place form "
                "(x = x + y instead of x += y), or make the tensor from a batched one "
                "(x.new_zeros(...) instead of labkit.zeros(...)).")
        if target._base is not None or id(target) in self.viewed:
            raise RuntimeError(
                f"labkit.func.vmap: the in-place op {name} writes into a batched tensor of shape "
                f"{tuple(target.shape)} that shares memory with a view; vmap cannot carry the "
                "write across the view. Use the out-of-place form (x = x + y) inside a vmapped "
                "function.")

    def _keep_side(self, value, cls, given):
        """Arrays a forward computed and kept in its ctx: made from batched data, they hold
        example 0 only (the arrays of the op's own inputs are not among them)."""
        if hasattr(value, "shape") and not isinstance(value, Tensor):
            if id(value) not in self.dep and id(value) not in given:
                self.side[id(value)] = (value, cls)
                self.dep.add(id(value))      # so that the ops reading it are recorded
        elif isinstance(value, (tuple, list)):
            for v in value:
                self._keep_side(v, cls, given)

    def escape(self, t, what):
        if self.depends(t):
            raise RuntimeError(
                f"labkit.func.vmap: {what} on a tensor that depends on the batched inputs. The "
                "function runs once for the whole batch, so a Python value (and any `if` or loop "
                "on it) cannot differ between examples. Keep the choice inside tensor ops: "
                "labkit.where(cond, a, b) instead of `if`, or take the Python value outside vmap.")
        super().escape(t, what)

    # --- replay on the batch ----------------------------------------------------------
    def convert(self, a):
        """(value, flag): the batched value of a recorded argument, flag True when batched
        ("array" for a raw index array the op was given that now differs per example)."""
        if isinstance(a, Tensor):
            v = self.lookup(a)
            if v is None and id(a._data) in self.side:
                op = self.side[id(a._data)][1]
                name = getattr(op, "op_name", None) or op.__name__
                raise RuntimeError(
                    f"labkit.func.vmap: the backward of {name} "
                    "reads an array its forward kept (not one of its outputs), which vmap has for "
                    "the first example only. Batching it would give a wrong gradient, so vmap "
                    "stops here; compute this gradient outside vmap (a loop), or write that op's "
                    "backward from its saved tensors.")
            return (a, False) if v is None else (v, True)
        if isinstance(a, (tuple, list)):
            pairs = [self.convert(x) for x in a]
            return type(a)(p[0] for p in pairs), tuple(p[1] for p in pairs)
        if hasattr(a, "shape") and not isinstance(a, Tensor):
            v = self.lookup_array(a)
            if v is not None:
                return v, "array"
            return a, "side" if id(a) in self.side else False
        return a, False

    def _refuse_side(self, cls, args):
        """An op without a rule would get the arrays it was recorded with: refuse one that a
        batched forward computed (it holds example 0 only), rather than reuse it for all."""
        for a in _leaves(args):
            if not isinstance(a, Tensor) and id(a) in self.side:
                op = self.side[id(a)][1]
                raise RuntimeError(
                    f"labkit.func.vmap: {getattr(cls, 'op_name', None) or cls.__name__} reads an "
                    f"array that {getattr(op, 'op_name', None) or op.__name__}'s forward kept "
                    "(e.g. the argmax of a max-pool), which vmap has for the first example only, "
                    "and it has no batching rule. Batching it would give a wrong result, so vmap "
                    "stops here; compute this part outside vmap (a loop).")

    def replay(self):
        for cls, args, result in self.entries:
            pairs = [self.convert(a) for a in args]
            bargs, flags = tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
            rule = table.lookup(cls, "vmap")
            rule = None if rule is table.FALLBACK else rule
            if rule is None and _has_side(flags):
                self._refuse_side(cls, bargs)
            flags = _without_side(flags)     # a rule recomputes what it needs from its inputs
            if not rules.any_batched(flags):
                continue
            out = rule(bargs, flags) if rule is not None else NotImplemented
            if out is NotImplemented:
                if _has_side(tuple(p[1] for p in pairs)):
                    self._refuse_side(cls, bargs)
                warn_once("vmap", cls, "batching (vmap)")
                out = _loop(cls, bargs, flags, self.size)
            for o, v in zip(outputs_of(result), outputs_of(out)):
                if isinstance(o, Tensor) and isinstance(v, Tensor):
                    self.bind(o, v)


def _has_side(flags):
    return any(_has_side(f) if isinstance(f, tuple) else f == "side" for f in flags)


def _without_side(flags):
    return tuple(_without_side(f) if isinstance(f, tuple) else (False if f == "side" else f)
                 for f in flags)


def _leaves(args):
    """The tensors and arrays inside an op's arguments."""
    for a in args:
        if isinstance(a, (tuple, list)):
            yield from _leaves(a)
        elif isinstance(a, Tensor) or hasattr(a, "shape"):
            yield a


def _slice(a, flag, b):
    if flag is True:
        return a[b]
    if flag == "array":
        return a[b]._data
    if isinstance(flag, tuple):
        return type(a)(_slice(x, f, b) for x, f in zip(a, flag))
    return a


def _loop(cls, args, flags, size):
    """The fallback: the op once per example, results stacked."""
    outs = [cls.apply(*(_slice(a, f, b) for a, f in zip(args, flags))) for b in range(size)]
    shapes = {tuple(o.shape) for out in outs for o in (out if isinstance(out, tuple) else (out,))
              if isinstance(o, Tensor)}
    if len(shapes) > 1 and not isinstance(outs[0], tuple):
        name = getattr(cls, "op_name", None) or cls.__name__
        raise RuntimeError(
            "vmap: We do not support batching operators that can output dynamic shape. "
            f"Attempted to vmap over {name}: the examples gave shapes {sorted(shapes)}. Keep the "
            "shape fixed inside the function (a mask with labkit.where instead of nonzero), or "
            "loop over the examples outside vmap.")
    if isinstance(outs[0], tuple):
        return tuple(stack(list(col)) for col in zip(*outs))
    return stack(outs)


def _move_to_front(x, dim):
    dim = dim % x.ndim
    return x if dim == 0 else x.permute(dim, *(i for i in range(x.ndim) if i != dim))


def _move_from_front(x, dim):
    if dim == 0:
        return x
    dim = dim % x.ndim
    order = list(range(1, x.ndim))
    order.insert(dim, 0)
    return x.permute(*order)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over a dim of its inputs (torch.func.vmap): one batched call per op.
    randomness says what a random op inside does: 'error', 'same' draw for all, 'different'.
    chunk_size is accepted for torch's signature; the batch is always done in one go."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    def wrapped(*args):
        with running:
            return impl(*args)

    def impl(*args):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap: in_dims has {len(dims)} entries but the function got "
                             f"{len(args)} arguments; give one per argument (None: not mapped).")
        leaves, rebuild = _tree.flatten(list(args))
        leaf_dims = []
        for a, d in zip(args, dims):
            n = len(_tree.flatten(a)[0])
            leaf_dims += list(_tree.flatten(d)[0]) if isinstance(d, (tuple, list, dict)) else [d] * n
        sizes = {}
        for x, d in zip(leaves, leaf_dims):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(f"vmap: in_dims maps an argument that is a "
                                 f"{type(x).__name__}, not a tensor; give it in_dims None.")
            if not -x.ndim <= d < max(x.ndim, 1) or x.ndim == 0:
                raise ValueError(f"vmap: in_dim {d} is out of range for a tensor of shape "
                                 f"{tuple(x.shape)}.")
            sizes.setdefault(x.shape[d], []).append(tuple(x.shape))
        if len(sizes) != 1:
            raise ValueError("vmap: " + ("no input is mapped: give at least one in_dims that is "
                                         "not None." if not sizes else
                                         f"the mapped dims have different sizes {sorted(sizes)} "
                                         f"(input shapes {list(sizes.values())}); they must agree."))
        size = next(iter(sizes))
        tape = BatchTape(size, randomness)
        moved = [None if d is None else _move_to_front(x, d) for x, d in zip(leaves, leaf_dims)]
        # the function runs on a copy of example 0: an in-place op on a mapped input writes the
        # whole batch back into the caller's tensor below, never example 0 twice
        examples = [x if m is None else m[0].clone() for x, m in zip(leaves, moved)]
        for e, m in zip(examples, moved):
            if m is not None:
                tape.bind(e, m)
                tape.mark(e)
        with tape:
            out = func(*rebuild(examples))
        tape.replay()
        for e, m in zip(examples, moved):
            v = None if m is None else tape.lookup(e)
            if v is not None and v is not m:        # an in-place op changed a mapped input
                with no_grad():
                    m.copy_(v)
        o_leaves, o_rebuild = _tree.flatten(out)
        o_dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(o_leaves)
        results = []
        for o, d in zip(o_leaves, o_dims):
            if not isinstance(o, Tensor):
                raise ValueError(f"vmap: the function must return tensors, got {type(o).__name__}.")
            v = tape.lookup(o)
            if v is None:               # does not depend on the mapped inputs: the same for all
                v = rules.expand_batch(o, size)
            results.append(_move_from_front(v, d))
        from .reverse import finish
        return finish(o_rebuild(results), args)
    return wrapped
