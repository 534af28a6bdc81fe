"""The backward engine: walk the recorded Nodes in reverse creation order, iteratively.

Reverse creation order is a valid topological order (an op's inputs are always made before
it), so no recursion and no dependency counting are needed: a heap keyed on the sequence
number hands out each node once, after all its consumers, with its summed gradient.

One exception, as in torch: while some leaf has a post-accumulate-grad hook (DDP starts an
all-reduce there), backward counts each leaf's consumers and runs its AccumulateGrad as soon
as the last one has run. A leaf's node is made at its first use, long ago, so by sequence
number it would run only at the very end of backward.
"""
import itertools
from heapq import heappop, heappush

import numpy as np

from . import dtype as _dt
from .function import AccumulateGrad, accumulate_node
from .grad_mode import mode, no_grad, process, set_anomaly
from .hooks import HookList
from .tensor import Tensor, tensor_method

_make = Tensor._make
_ndarray = np.ndarray


def sum_to(grad, shape):
    """Sum a broadcast gradient back to `shape`: the one place broadcasting is undone."""
    gshape = grad.shape
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, gshape[lead:])):
        raise RuntimeError(f"sum_to: a gradient of shape {tuple(gshape)} cannot be reduced to "
                           f"shape {tuple(shape)}: the shapes are not broadcast-compatible.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and gshape[lead + i] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    return grad


def _collect(roots):
    """Every node reachable from the roots, in the order backward runs them (reverse
    creation order), found with an explicit stack: deep graphs never hit the recursion limit."""
    seen = set()
    nodes = []
    stack = [r for r in roots if r is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        for e in node._edges:
            if e is not None and e[0] is not None and e[0] not in seen:
                stack.append(e[0])
    nodes.sort(key=_by_seq, reverse=True)
    return nodes


def _by_seq(node):
    return node._seq


def execution_order(tensors):
    """The nodes behind `tensors` in the exact order backward() processes them."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    return _collect([t.grad_fn if t.grad_fn is not None else t._accum for t in tensors])


def _root_grads(outputs, grad_outputs):
    roots = []
    for i, (t, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(t, Tensor):
            raise TypeError(f"backward: expected tensors, got {type(t).__name__}")
        if not t._rg:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn: "
                "nothing was recorded, so there is nothing to differentiate. Set "
                "requires_grad=True on the weights (x = labkit.randn(3, requires_grad=True)) "
                "before computing, and do not compute the loss under no_grad().")
        if g is None:
            if t._data.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs, but this output has "
                    f"shape {tuple(t.shape)}. Reduce it to one number first (loss = y.sum() or "
                    "y.mean()), or pass gradient=<a tensor of the same shape> to backward().")
            g = _make(_one_like(t._data, t.device.xp), t.device)
        else:
            if not isinstance(g, Tensor):
                g = _make(t.device.xp.asarray(g, dtype=t._data.dtype), t.device)
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(f"backward: gradient has shape {tuple(g.shape)} but the output "
                                   f"has shape {tuple(t.shape)}; they must match.")
            if g.device is not t.device:
                raise RuntimeError(f"backward: gradient is on {g.device} but the output is on "
                                   f"{t.device}; move it with gradient.to(output.device).")
            if g._data.dtype != t._data.dtype:   # as torch: the output's dtype, before any
                g = g.to(_dt.from_np(t._data.dtype))  # formula (a mean's 1/n in float64)
        node = t.grad_fn if t.grad_fn is not None else accumulate_node(t)
        roots.append((node, t._out_idx, g))
    return roots


_ONES = {}   # (shape, dtype) -> a read-only numpy array of one 1: the implicit root gradient


def _one_like(arr, xp):
    """d loss / d loss: a cached read-only array on the cpu (making one costs 0.5 us per
    backward; read-only, so a formula that wrote into its incoming gradient would raise)."""
    if xp is not np:
        return xp.ones(arr.shape, arr.dtype)
    key = (arr.shape, arr.dtype)
    one = _ONES.get(key)
    if one is None:
        one = _ONES[key] = np.ones(arr.shape, arr.dtype)
        one.flags.writeable = False
    return one


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 accumulate=True, allow_unused=False):
    """Run the engine. With `inputs`, return their gradients instead of accumulating.

    A max-heap on sequence number yields the nodes in reverse creation order; a node is pushed
    when its first gradient arrives and popped only after every node made later (all its
    consumers) has run, so its gradient is complete by then. Each node is one of: a leaf
    (accumulate_leaf adds into .grad) or an op: call_backward runs its formula, checked, then
    each gradient goes to the node that made that input, fitted to the input's shape and
    dtype when it differs (_fit), and summed into what that node has received (_add). The
    common case of that hand-over (the right shape and dtype, a node seen for the first time)
    is written out in the loop: it runs once per edge of the graph (W2 measures it).
    A chain skips the heap: when a node starts the gradient of exactly one node and no other
    node waits, nothing can add to that gradient any more, so that node runs next directly.
    """
    roots = _root_grads(outputs, grad_outputs)
    buffers = {}     # node -> the gradients summed so far, one per output
    heap = []        # (-seq, node) for every node with a gradient waiting
    for node, idx, g in roots:                                  # seed
        _add(buffers, heap, node, idx, g)
    targets = needed = through = results = None
    if inputs is not None:
        targets, results = _targets(inputs), [None] * len(inputs)
        needed, through = _needed(_collect([r[0] for r in roots]), targets)
    handed = {id(g._data) for _, _, g in roots}  # arrays a leaf must copy before keeping
    waiting = None   # leaf node -> consumers not run yet (a complete leaf is queued first)
    if accumulate and process.post_accumulate_hooks:
        waiting = _leaf_consumers(roots)
    prev = mode.enabled
    mode.enabled = bool(create_graph)
    watchers = mode.node_hooks
    rare = targets is not None or waiting is not None or bool(watchers) or process.anomaly
    arrays = not (create_graph or process.anomaly or watchers      # nothing records the
                  or (process.hooked and mode.tracer is not None))  # formulas: arrays may flow
    try:
        while heap:
            node = heappop(heap)[1]
            grads = buffers.pop(node, None)   # None: a leaf already run first (rare)
            while grads is not None:  # runs node, then the node it handed on (see hold), ...
                if node._hooks:
                    grads = _run_hooks(node, _as_tensors(grads, node))
                if rare:     # grad(inputs=...), node hooks (viz, jit), leaf readiness
                    if targets is not None and node in targets:
                        for i, idx in targets[node]:
                            results[i] = _as_tensor(grads[idx], node)
                    for fn in watchers:
                        fn(node, grads)
                    if through is not None and node not in through:
                        break   # grad() w.r.t. a non-leaf (or a leaf: nothing accumulates)
                edges = node._edges
                if not edges:                              # a leaf's AccumulateGrad
                    if accumulate:
                        accumulate_leaf(node, _as_tensor(grads[0], node), create_graph, handed)
                    break
                out = NotImplemented
                if len(grads) == 1:
                    g = grads[0]
                    fast = node._fn.backward_arrays if arrays else None
                    if fast is not None and g is not None:     # the formula on arrays
                        out = fast(node, g._data if isinstance(g, Tensor) else g)
                    if out is NotImplemented and not rare:     # call_backward, inlined
                        out = node._fn.backward(node, g if isinstance(g, Tensor) else
                                                _make(g, node._device))
                        if type(out) is not tuple:
                            out = (out,)
                if out is NotImplemented:
                    out = call_backward(node, _as_tensors(grads, node))
                hold = None    # the first node this one starts a gradient for, kept out of
                try:           # the heap: if nothing else waits, its gradient is complete
                    for e, g in zip(edges, out, strict=True):   # send each to its input
                        if g is None or e is None:
                            continue
                        nxt, idx = e
                        if nxt is None or (rare and needed is not None and nxt not in needed):
                            continue
                        a = g if type(g) is _ndarray else g._data if type(g) is Tensor else None
                        if a is None or a.shape != nxt._out_shapes[idx] \
                                or a.dtype is not nxt._out_dtypes[idx]:
                            g = _fit(node, edges.index(e), g, nxt, idx)
                        if nxt in buffers or len(nxt._out_shapes) != 1:
                            _add(buffers, heap, nxt, idx, g)
                        elif hold is None and not rare:
                            hold, held = nxt, g
                        elif nxt is hold:                  # a second gradient for it (x * x)
                            _queue(buffers, heap, hold, held)
                            hold = None
                            _add(buffers, heap, nxt, idx, g)
                        else:                              # its first gradient: queue it
                            heappush(heap, (-nxt._seq, nxt))
                            buffers[nxt] = [g]
                except ValueError as err:
                    if len(out) == len(edges):
                        raise
                    if not _only_nones_after(out, edges, err):
                        raise _arity_error(node, out) from None
                    # (extra trailing Nones: every edge got its gradient; torch drops them)
                if rare and waiting is not None:
                    _release_leaves(edges, waiting, heap, buffers)
                if not retain_graph and node._saved:      # free what forward saved
                    node._saved = None
                if hold is None:
                    break
                if heap:     # another node waits: hold may still receive from it
                    _queue(buffers, heap, hold, held)
                    break
                node, grads = hold, [held]   # a chain: no heap round trip (W2 measures it)
    finally:
        mode.enabled = prev
    if results is not None:
        for i, r in enumerate(results):
            if r is None and not allow_unused:
                raise RuntimeError(
                    f"grad: input {i} was not used to compute the outputs, so its gradient is "
                    "undefined. Pass allow_unused=True to get None for it.")
    return results


def _as_tensor(g, node):
    """A gradient that flowed as an array (backward_arrays), as the Tensor hooks, leaves and
    Tensor formulas receive."""
    return g if g is None or isinstance(g, Tensor) else _make(g, node._device)


def _as_tensors(grads, node):
    return [_as_tensor(g, node) for g in grads]


def _leaf_consumers(roots):
    """{AccumulateGrad node: how many edges of the graph lead to it}."""
    counts, seen = {}, set()
    stack = [r[0] for r in roots]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for e in node._edges:
            if e is not None and e[0] is not None:
                nxt = e[0]
                if type(nxt) is AccumulateGrad:
                    counts[nxt] = counts.get(nxt, 0) + 1
                else:
                    stack.append(nxt)
    return counts


def _release_leaves(edges, waiting, heap, buffers):
    """A node has run: each leaf it was the last consumer of is complete and runs next (its
    key sorts before every node's; the last released runs first)."""
    for e in edges:
        if e is not None and e[0] in waiting:
            left = waiting[e[0]] = waiting[e[0]] - 1
            if left == 0 and e[0] in buffers:
                heappush(heap, (_FIRST - next(_released), e[0]))


_FIRST = -(1 << 62)          # below every -seq
_released = itertools.count()


def call_backward(node, grads):
    """node's backward formula on its outputs' gradients, with the checks that make its
    mistakes readable: used twice, wrong number of gradients, nan (anomaly mode)."""
    if node._saved is None:
        node.saved_tensors  # raises "backward through the graph a second time"
    if len(grads) == 1:                  # unrolled: a star call costs 140 ns more per node
        out = node._fn.backward(node, grads[0])
    else:
        if node._materialize:
            _zeros_for_unused(node, grads)
        out = node._fn.backward(node, *grads)
    if type(out) is not tuple:
        out = (out,)
    if len(out) != len(node._edges):
        if not _only_nones_after(out, node._edges):
            raise _arity_error(node, out)
        out = out[:len(node._edges)]
    if process.anomaly and _CHECK_NAN[0]:
        _check_nan(node, out)
    return out


def _fit(node, i, g, nxt, idx):
    """The gradient node's backward returned for its input i, made what input i's node
    expects: a Tensor, summed back to the input's shape (broadcasting undone), cast to its
    dtype (as torch: each input gets its own dtype)."""
    if not isinstance(g, Tensor):
        g = _make(np.asarray(g) if isinstance(g, np.generic) else g, node._device)
    shape = nxt._out_shapes[idx]
    if g._data.shape != shape:
        g = _reduce_grad(node, i, g, shape)
    dt = nxt._out_dtypes[idx]
    if g._data.dtype != dt:
        if g._data.dtype.kind == "c" and dt.kind != "c":
            g = g.real     # as torch: a real input keeps the real part of a complex gradient
        g = g.to(_dt.from_np(dt))
    return g


def _queue(buffers, heap, node, g):
    """Queue node with its first gradient g (a single-output node)."""
    heappush(heap, (-node._seq, node))
    buffers[node] = [g]


def _add(buffers, heap, node, idx, g):
    """Sum g into the gradient of node's output idx (queueing node on its first one)."""
    slot = buffers.get(node)
    if slot is None:
        heappush(heap, (-node._seq, node))
        slot = buffers[node] = [None] * len(node._out_shapes)
    old = slot[idx]
    if old is None:
        slot[idx] = g
    elif type(old) is _ndarray and type(g) is _ndarray:    # both flowed as arrays
        slot[idx] = np.asarray(old + g) if old.ndim == 0 else old + g
    else:
        slot[idx] = _as_tensor(old, node) + _as_tensor(g, node)


def accumulate_leaf(node, g, create_graph, handed=()):
    """Add g into the leaf's .grad (nothing when the leaf itself was freed), then run the
    leaf's post-accumulate-grad hooks."""
    leaf = node.variable
    if leaf is None:
        return
    _accumulate(leaf, g, create_graph, handed)
    for fn in tuple(node._post_hooks):
        fn(leaf)


def _targets(inputs):
    """{node: [(input position, output index), ...]} for the inputs of grad()."""
    targets = {}
    for i, t in enumerate(inputs):
        if not t._rg:
            raise RuntimeError(f"grad: input {i} does not require grad, so it is not part of "
                               "the graph. Create it with requires_grad=True.")
        node = t.grad_fn if t.grad_fn is not None else accumulate_node(t)
        targets.setdefault(node, []).append((i, t._out_idx))
    return targets


def _needed(nodes, targets):
    """(nodes that must receive a gradient, nodes that must run): a node runs only if some
    target lies beyond it; a target with nothing needed beyond it is only read (torch does
    not run, nor free, the node of a non-leaf input of grad())."""
    needed, through = set(), set()
    for node in reversed(nodes):
        if any(e is not None and e[0] in needed for e in node._edges):
            through.add(node)
            needed.add(node)
        elif node in targets:
            needed.add(node)
    return needed, through


def _run_hooks(node, grads):
    """Each output's hooks in registration order, retain_grad's last (as torch 2.x: .grad holds
    the gradient after every hook)."""
    hooks = node._hooks
    if hooks:
        for idx, fns in hooks.items():
            for fn in sorted(fns, key=_retains_last):
                if grads[idx] is None:
                    continue
                new = fn(grads[idx])
                if new is not None:
                    grads[idx] = new
    return grads


def _retains_last(fn):
    return getattr(fn, "_retains_grad", False)


observers = HookList("node_hooks")  # the old name of hooks.node_hooks (fn(node, grads))


def _zeros_for_unused(node, grads):
    """An output that no path used gets a zero gradient (as torch materializes it)."""
    for i, g in enumerate(grads):
        if g is None:
            grads[i] = _make(node._device.xp.zeros(node._out_shapes[i], node._out_dtypes[i]),
                             node._device)


def _only_nones_after(out, edges, err=None):
    """backward returned more gradients than forward took arguments, all the extra ones None
    (torch drops those); with err, also that the only error was zip's length check."""
    return len(out) > len(edges) and all(g is None for g in out[len(edges):]) and (
        err is None or "zip()" in str(err))


def _arity_error(node, out):
    return RuntimeError(
        f"{type(node).__name__}: backward returned {len(out)} gradient(s) but forward took "
        f"{len(node._edges)} argument(s); return one per forward argument (None for "
        "non-tensors).")


def _reduce_grad(node, i, g, shape):
    try:
        return sum_to(g, shape)
    except RuntimeError:
        raise RuntimeError(
            f"{type(node).__name__} returned an invalid gradient at index {i}: got shape "
            f"{tuple(g.shape)} but expected a shape broadcastable to {tuple(shape)}. "
            "A backward must return one gradient per input, shaped like that input.") from None


def _accumulate(leaf, g, create_graph, handed):
    if g._data.dtype != leaf._data.dtype:
        arr = g._data.real if leaf._data.dtype.kind != "c" else g._data   # as _fit
        g = _make(arr.astype(leaf._data.dtype), g.device)
    if create_graph:
        leaf.grad = g if leaf.grad is None else leaf.grad + g
        return
    if g.grad_fn is not None:
        g = g.detach()
    old = leaf.grad
    if old is None:
        arr = g._data
        if arr.base is not None or not _writeable(arr) or id(arr) in handed:
            arr = arr.copy()
            g = _make(arr, g.device)
        handed.add(id(arr))
        leaf._grad = _make(arr, g.device)     # fits by construction: no setter checks
    elif old.grad_fn is not None or not _writeable(old._data):
        leaf._grad = old.detach() + g
    else:
        old._data += g._data
        old._bump_version()


def _writeable(arr):
    return getattr(arr.flags, "writeable", True)  # cupy arrays have no such flag


def _check_nan(node, grads):
    for i, g in enumerate(grads):
        if g is None:
            continue
        arr = g._data if isinstance(g, Tensor) else g
        if arr.dtype.kind == "f" and bool(node._device.xp.isnan(arr).any()):
            where = "".join(node._trace or ["    (created before anomaly mode was turned on)\n"])
            raise RuntimeError(
                f"Function '{type(node).__name__}' returned nan values in its {i}th output.\n"
                f"The forward op that made this node was called here:\n{where}"
                "Look for log or sqrt of a non-positive number, 0/0, inf-inf, or exp overflowing.")


@tensor_method("backward")
def backward(tensors, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute d(tensors)/d(leaf) for every leaf in the graph, adding into each leaf's .grad."""
    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if gradient is None or isinstance(gradient, Tensor):
        gradient = (gradient,) * len(tensors) if gradient is None else (gradient,)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        res = run_backward(tensors, tuple(gradient), retain_graph, create_graph, inputs=inputs,
                           accumulate=False, allow_unused=True)
        for t, g in zip(inputs, res):
            if g is not None:
                _accumulate(t, g, create_graph, set())
        return None
    run_backward(tensors, tuple(gradient), retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching any .grad (JAX-style, and for grad-of-grad).
    materialize_grads=True gives zeros, not None, for an input the outputs do not use."""
    if is_grads_batched:
        raise NotImplementedError("grad(is_grads_batched=True) is not supported by labkit: "
                                  "call grad once per row of grad_outputs, or use "
                                  "labkit.func.vmap over labkit.func.vjp.")
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads "
                         "is True: an unused input gets zeros, so it is allowed.")
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = (grad_outputs,) * len(outputs) if grad_outputs is None else (grad_outputs,)
    if retain_graph is None:
        retain_graph = create_graph
    res = run_backward(outputs, tuple(grad_outputs), retain_graph, create_graph, inputs=inputs,
                       accumulate=False, allow_unused=allow_unused)
    if materialize_grads:
        from .creation import zeros_like
        res = [zeros_like(x) if g is None else g for g, x in zip(res, inputs)]
    return tuple(res)


def zero_grad(tensors, set_to_none=True):
    """Forget each tensor's gradient (backward adds into .grad, it does not replace): set it
    to None, or fill it with zeros in place (Module.zero_grad and Optimizer.zero_grad)."""
    for t in tensors:
        if t.grad is None:
            continue
        if set_to_none:
            t.grad = None
            continue
        if t.grad.grad_fn is not None:
            t.grad = t.grad.detach()
        with no_grad():
            t.grad.zero_()


_CHECK_NAN = [True]     # anomaly mode's nan check (detect_anomaly(check_nan=False) skips it)


class detect_anomaly:
    """Record where each op was created and stop at the first backward that makes nan
    (check_nan=False: record, but let nan through)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = (process.anomaly, _CHECK_NAN[0])
        set_anomaly(True)
        _CHECK_NAN[0] = bool(self.check_nan)
        return self

    def __exit__(self, *exc):
        set_anomaly(self.prev[0])
        _CHECK_NAN[0] = self.prev[1]
        return False


class set_detect_anomaly(detect_anomaly):
    """Anomaly mode on or off at once; as a with-block, back to what it was at the end."""

    def __init__(self, mode, check_nan=True):
        self.prev = (process.anomaly, _CHECK_NAN[0])
        set_anomaly(mode)
        _CHECK_NAN[0] = bool(check_nan)

    def __enter__(self):
        return self


def is_anomaly_enabled():
    return process.anomaly


def is_anomaly_check_nan_enabled():
    return _CHECK_NAN[0]


__all__ = ["backward", "grad", "sum_to", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "execution_order", "zero_grad"]
