"""DistributedDataParallel: one model replica per process, gradients averaged during backward.

At wrap: ranks compare parameter shapes, then rank 0's parameters and buffers are broadcast,
so every replica starts identical. Gradients are grouped into buckets (about bucket_cap_mb
each) in REVERSE registration order, because backward produces the last layer's gradients
first. A post-accumulate-grad hook on every parameter counts arrivals; when a bucket's last
gradient lands, its asynchronous all-reduce starts while backward keeps computing earlier
layers (the engine runs a hooked leaf's AccumulateGrad as soon as its last consumer has run, as
torch's does, and DDP drives MPI's progress before every backward node: see _poll). Buckets
are launched strictly in index order (MPI pairs collectives by call order, so every rank must
start them in the same order). The hook that delivers the iteration's last
gradient waits for all buckets and writes the averaged gradients back: torch waits in the
autograd engine's final callback; waiting in the last hook is the same moment here, because
every gradient has been accumulated by then, and needs no engine change. So `backward()`
returns with every `.grad` averaged over ranks.
"""
import time
from contextlib import contextmanager

from ...engine import hooks as engine_hooks
from ...engine.grad_mode import no_grad
from ...engine.creation import tensor, zeros
from ...engine.tensor import Tensor
from ..module import Module

_FIRST_BUCKET_BYTES = 1024 * 1024   # torch's first (last-layer) bucket: small, starts early


def _dist():
    from ... import distributed as dist   # MPI loads only with a process group
    if not dist.is_initialized():
        raise RuntimeError("DistributedDataParallel: no process group. Call "
                           "labkit.distributed.init_process_group() first, and launch with "
                           "`python -m labkit.distributed.run --nproc-per-node N script.py` "
                           "(or mpiexec -n N python script.py).")
    return dist


def _tensors_in(obj):
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors_in(o)


def _walk(output):
    """Ids of the leaves the autograd graph of `output` leads to (torch runs the same search
    when find_unused_parameters=True)."""
    seen, found = set(), set()
    stack = [t.grad_fn for t in _tensors_in(output) if t.grad_fn is not None]
    found.update(id(t) for t in _tensors_in(output) if t.grad_fn is None and t.requires_grad)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        leaf = getattr(node, "variable", None)
        if leaf is not None:
            found.add(id(leaf))
        stack.extend(e[0] for e in node._edges if e is not None and e[0] is not None)
    return found


class _Bucket:
    def __init__(self, index, params):
        self.index, self.params = index, params
        self.pending, self.work, self.flat, self.finished = len(params), None, None, False


class DistributedDataParallel(Module):
    """Wrap a module so that backward() leaves gradients averaged over all ranks."""

    def __init__(self, module, device_ids=None, output_device=None, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False):
        super().__init__()
        if process_group is not None:
            raise NotImplementedError("DistributedDataParallel: only the default process group "
                                      "(process_group=None) is supported.")
        dist = _dist()
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.bucket_cap_mb = 25 if bucket_cap_mb is None else bucket_cap_mb
        self.require_backward_grad_sync = True
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self._names = {id(p): n for n, p in named}
        self._world = dist.get_world_size()
        self._check_shapes(dist, module)
        with no_grad():
            for t in [p for _, p in module.named_parameters()] + self._buffers_list():
                dist.broadcast(t.detach(), src=0)
        self._buckets = self._make_buckets([p for _, p in named], self.bucket_cap_mb)
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._handles = [p.register_post_accumulate_grad_hook(self._grad_ready)
                         for _, p in named]
        self._expected = None   # ids of params whose gradient this backward waits for
        self.timeline = None    # a list to record ("launch"/"done", bucket, time) in: "done"
        #                         is when a poll between gradients, or the final wait, saw it

    # --- wrap-time checks ------------------------------------------------------------------
    def _buffers_list(self):
        return [b for _, b in self.module.named_buffers() if b is not None]

    def _check_shapes(self, dist, module):
        """Every rank must hold the same parameters: all-gather (count, shapes) and name the
        first disagreement on every rank (so all raise, none hangs in a later collective)."""
        named = list(module.named_parameters())
        code = [v for _, p in named for v in (len(p.shape), *p.shape)]
        head = tensor([len(named), len(code)])
        heads = [tensor([0, 0]) for _ in range(self._world)]
        dist.all_gather(heads, head)
        heads = [h.tolist() for h in heads]
        if any(h != heads[0] for h in heads):
            raise RuntimeError(
                "DistributedDataParallel: ranks disagree on the model: (parameter count, shape "
                f"entries) per rank = {heads}. Build the same model on every rank before "
                "wrapping it.")
        mine = tensor(code if code else [0])
        codes = [tensor([0] * max(len(code), 1)) for _ in range(self._world)]
        dist.all_gather(codes, mine)
        shapes = [self._decode(c.tolist(), named) for c in codes]
        for i, (name, _) in enumerate(named):
            per_rank = [s[i] for s in shapes]
            if any(s != per_rank[0] for s in per_rank):
                raise RuntimeError(
                    f"DistributedDataParallel: ranks disagree on the shape of parameter "
                    f"'{name}': " + ", ".join(f"rank {r}: {list(s)}" for r, s in
                                              enumerate(per_rank)) +
                    ". Every rank must build the same model (same sizes, same order).")

    @staticmethod
    def _decode(code, named):
        shapes, i = [], 0
        for _ in named:
            ndim = code[i]
            shapes.append(tuple(code[i + 1:i + 1 + ndim]))
            i += 1 + ndim
        return shapes

    @staticmethod
    def _make_buckets(params, cap_mb):
        """Reverse registration order, one dtype/device per bucket, first bucket <= 1 MiB."""
        buckets, cur, size, cap = [], [], 0, min(_FIRST_BUCKET_BYTES, cap_mb * 1024 * 1024)
        for p in reversed(params):
            nbytes = p._data.nbytes
            if cur and (size + nbytes > cap or p.dtype != cur[0].dtype
                        or p.device != cur[0].device):
                buckets.append(_Bucket(len(buckets), cur))
                cur, size, cap = [], 0, cap_mb * 1024 * 1024
            cur.append(p)
            size += nbytes
        buckets.append(_Bucket(len(buckets), cur))
        return buckets

    # --- forward -----------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        if self._expected and self._unused_checked:   # a backward started, did not finish
            self._unfinished_error()
        dist = _dist()
        if self.broadcast_buffers and self._world > 1:
            with no_grad():
                for b in self._buffers_list():
                    dist.broadcast(b.detach(), src=0)
        out = self.module(*args, **kwargs)
        if self.require_backward_grad_sync and any(t.requires_grad for t in _tensors_in(out)):
            self._prepare(out)
        return out

    def _prepare(self, out):
        reached = _walk(out)
        if self._watch not in engine_hooks.node_hooks:
            engine_hooks.node_hooks.append(self._watch)   # read by the backward that follows
        self._expected = {pid for pid in self._names}
        self._unused = [pid for pid in self._names if pid not in reached]
        self._unused_checked = False
        for b in self._buckets:
            if b.work is not None:   # left by a backward that failed: MPI may still write flat
                b.work.wait()
            b.pending, b.work, b.finished = len(b.params), None, False
        self._next = 0

    def _unfinished_error(self):
        missing = [self._names[pid] for pid in self._names if pid in self._expected]
        self._expected = None
        self._stop_polling()
        raise RuntimeError(
            "DistributedDataParallel: expected to have finished reduction in the prior "
            "iteration before starting a new one: these parameters received no gradient in "
            f"its backward: {', '.join(missing)}. Make sure every output of the forward "
            "takes part in the loss that backward() is called on (e.g. add up the losses of "
            "all heads).")

    # --- backward: hooks, buckets, finalize ---------------------------------------------------
    def _grad_ready(self, param):
        if self._expected is None or id(param) not in self._expected:
            return   # no_sync, or a forward without DDP: local only
        if not self._unused_checked:
            self._unused_checked = True
            if self._unused:
                self._mark_unused()
        self._mark(param)

    def _mark_unused(self):
        if not self.find_unused_parameters:
            names = [self._names[pid] for pid in self._unused]
            self._expected = None
            self._stop_polling()
            raise RuntimeError(
                "DistributedDataParallel: parameters received no gradient (they were not "
                f"used to compute the output): {', '.join(names)}. Pass "
                "find_unused_parameters=True to DistributedDataParallel, or remove them from "
                "the model.")
        params = {id(p): p for b in self._buckets for p in b.params}
        for pid in list(self._unused):
            self._mark(params[pid])

    def _mark(self, param):
        self._expected.discard(id(param))
        bucket = self._bucket_of[id(param)]
        bucket.pending -= 1
        if bucket.pending == 0:
            while self._next < len(self._buckets) and self._buckets[self._next].pending == 0:
                self._launch(self._buckets[self._next])
                self._next += 1
        self._poll()
        if not self._expected:
            self._finalize()

    def _watch(self, node, grads):
        """The engine calls this before every node of the backward that follows a DDP forward
        (until its end: the engine reads its hooks once per backward): it drives MPI (_poll)."""
        self._poll()

    def _poll(self):
        """Drive MPI's progress on the buckets in flight. MPI moves a non-blocking all-reduce
        only inside MPI calls (a large one needs several), so this runs between gradients and
        before every backward node: the transfer advances between the layers' computations
        instead of all at once in the final wait."""
        for b in self._buckets[:self._next]:
            if b.work is not None and not b.finished and b.work.is_completed():
                b.finished = True
                self._record("done", b.index)

    def _stop_polling(self):
        if self._watch in engine_hooks.node_hooks:
            engine_hooks.node_hooks.remove(self._watch)

    def _launch(self, bucket):
        with no_grad():
            if bucket.flat is None:   # one buffer per bucket, kept: no allocation per step
                bucket.flat = zeros(sum(p.numel() for p in bucket.params),
                                    dtype=bucket.params[0].dtype, device=bucket.params[0].device)
            offset = 0
            for p in bucket.params:
                n = p.numel()
                if p.grad is None:
                    bucket.flat[offset:offset + n].zero_()
                else:
                    bucket.flat[offset:offset + n].copy_(p.grad.reshape(-1))
                offset += n
        self._record("launch", bucket.index)
        bucket.work = _dist().all_reduce(bucket.flat, async_op=True)

    def _finalize(self):
        self._expected = None
        self._stop_polling()
        used = None
        if self.find_unused_parameters:   # which params some rank used (torch's bitmap)
            used = self._globally_used()
        with no_grad():
            for bucket in self._buckets:
                bucket.work.wait()
                if not bucket.finished:
                    self._record("done", bucket.index)
                bucket.flat.div_(self._world)
                offset = 0
                for p in bucket.params:
                    n = p.numel()
                    avg = bucket.flat[offset:offset + n].view(p.shape)
                    offset += n
                    if used is not None and not used[id(p)]:
                        continue
                    if p.grad is None:
                        p.grad = avg.clone()
                    else:
                        p.grad.copy_(avg)
                bucket.work = None

    def _globally_used(self):
        unused = set(self._unused)
        flags = tensor([0.0 if pid in unused else 1.0 for pid in self._names])
        _dist().all_reduce(flags)
        return {pid: f > 0 for pid, f in zip(self._names, flags.tolist())}

    def _record(self, event, index):
        if self.timeline is not None:
            self.timeline.append((event, index, time.perf_counter()))

    # --- public API ----------------------------------------------------------------------------
    @contextmanager
    def no_sync(self):
        """Gradients of forwards/backwards run inside accumulate locally; the first backward
        after the block all-reduces the accumulated sum (put the forward inside too)."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def bucket_names(self):
        """Parameter names per bucket, in launch order (the last layers first)."""
        return [[self._names[id(p)] for p in b.params] for b in self._buckets]
