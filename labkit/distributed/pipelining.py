"""Pipeline parallelism with point-to-point sends (torch.distributed.pipelining's names).

Rank i holds stage i of a network cut into world_size pieces. ScheduleGPipe splits the batch
into micro-batches; every micro-batch's activation flows forward rank to rank (send/recv),
then every micro-batch's gradient flows back. While stage 0 works on micro-batch 2, stage 1
works on micro-batch 1: that is the parallelism. At the start and the end some stages wait
(the bubble): with S stages and M micro-batches the idle share is (S - 1) / (M + S - 1).
Each message is a shape header (int64) then the data, so stages need not know shapes ahead.
"""
import time

from ..engine.creation import empty, tensor
from ..engine.grad_mode import no_grad
from ..engine.ops.join import cat

_HEADER = 8   # ndim + up to 7 dims


class PipelineStage:
    """This rank's piece of the model: stage_index of num_stages (one stage per rank)."""

    def __init__(self, submodule, stage_index, num_stages, device=None):
        from .. import distributed as dist
        if num_stages != dist.get_world_size() or stage_index != dist.get_rank():
            raise ValueError(f"PipelineStage: one stage per rank here, so stage_index must be "
                             f"the rank ({dist.get_rank()}) and num_stages the world size "
                             f"({dist.get_world_size()}); got {stage_index} of {num_stages}.")
        self.submod, self.stage_index, self.num_stages = submodule, stage_index, num_stages
        self.is_first, self.is_last = stage_index == 0, stage_index == num_stages - 1


def _isend(t, dst, pending):
    """Send without waiting for the receiver (it may still be computing): the stage goes on
    with its next micro-batch. `pending` keeps the requests (and buffers) until step's end."""
    from .. import distributed as dist
    if t.dim() > _HEADER - 1:
        raise ValueError(f"pipelining: activations of {t.dim()} dims; at most {_HEADER - 1}.")
    head = [t.dim(), *t.shape]
    head, data = tensor(head + [0] * (_HEADER - len(head))), t.detach().contiguous()
    pending += [(dist.isend(head, dst), head), (dist.isend(data, dst), data)]


def _recv(src, dtype):
    from .. import distributed as dist
    head = empty(_HEADER, dtype=tensor([0]).dtype)
    dist.recv(head, src)
    head = head.tolist()
    out = empty(*head[1:1 + head[0]], dtype=dtype)
    dist.recv(out, src)
    return out


class ScheduleGPipe:
    """All forwards, then all backwards (GPipe). step(x, target=y, losses=[]) on every rank:
    stage 0 passes the input, the last stage the target; the last stage returns the outputs.
    Each micro-batch's loss is divided by n_microbatches, so the gradients are those of the
    mean loss over the whole batch. `timeline` lists (stage, "F"/"B", micro, start, end)."""

    def __init__(self, stage, n_microbatches, loss_fn=None):
        self.stage, self.n, self.loss_fn = stage, n_microbatches, loss_fn
        self.timeline = []

    def step(self, *args, target=None, losses=None):
        st, mod = self.stage, self.stage.submod
        me = st.stage_index
        dtype = next(iter(mod.parameters())).dtype
        xs = args[0].chunk(self.n) if st.is_first else [None] * self.n
        ys = target.chunk(self.n) if st.is_last else [None] * self.n
        inputs, outputs, pending = [], [], []
        for m in range(self.n):                      # forward every micro-batch
            x = xs[m] if st.is_first else _recv(me - 1, dtype).requires_grad_()
            t0 = time.perf_counter()
            out = mod(x)
            if st.is_last:
                loss = self.loss_fn(out, ys[m])
                if losses is not None:
                    losses.append(loss.detach())
                out = (out, loss / self.n)
            self.timeline.append((me, "F", m, t0, time.perf_counter()))
            if not st.is_last:
                _isend(out, me + 1, pending)
            inputs.append(x)
            outputs.append(out)
        for m in range(self.n):                      # then backward every micro-batch
            if st.is_last:
                t0 = time.perf_counter()
                outputs[m][1].backward()
            else:
                grad = _recv(me + 1, dtype)
                t0 = time.perf_counter()
                outputs[m].backward(grad)
            self.timeline.append((me, "B", m, t0, time.perf_counter()))
            if not st.is_first:
                _isend(inputs[m].grad, me - 1, pending)
        for work, _ in pending:
            work.wait()
        if st.is_last:
            with no_grad():
                return cat([o[0] for o in outputs])
        return None
