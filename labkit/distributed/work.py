"""Work: the handle an `async_op=True` call returns, over an MPI non-blocking request.

The transfer runs while the caller computes; `wait()` blocks until it is done and then writes
the result into the tensors. MPI moves a non-blocking operation along when the process calls
into MPI (wait, is_completed, another collective): calling is_completed() now and then in a
long computation keeps a large transfer moving.
"""
from ._wait import wait_for


class Work:
    """torch.distributed's Work: wait(), is_completed(), is_success(), exception(), result(),
    get_future(); source_rank() for a receive."""

    def __init__(self, group, req, what, finish=None, outputs=(), poll=False, status=None):
        self._group, self._req, self._what = group, req, what
        self._finish, self._outputs = finish, list(outputs)
        self._poll, self._status = poll, status      # poll: point-to-point waits are bounded
        self._done, self._exc = req is None, None

    @classmethod
    def done(cls, outputs=()):
        """A Work that has already completed (a call that finished synchronously)."""
        return cls(None, None, "done", outputs=outputs)

    def _complete(self):
        self._done, finish, self._finish = True, self._finish, None
        self._req = None
        if finish is not None:
            try:
                finish(self._status)
            except Exception as e:
                self._exc = e
                raise

    def is_completed(self):
        """True once the operation finished (tests the request: it also moves it along)."""
        if not self._done and self._req.Test(self._status):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        """Block until the operation finished and its result is in the tensors; returns True."""
        if self._exc is not None:
            raise self._exc
        if not self._done:
            if self._poll or timeout is not None:
                limit = self._group.timeout if timeout is None else _seconds(timeout)
                wait_for(self._req, limit, self._late(limit), self._status)
            else:
                self._req.Wait(self._status)
            self._complete()
        return True

    def _late(self, limit):
        me = self._group.rank()
        return lambda: RuntimeError(
            f"{self._what} on rank {me} did not complete within {limit:g} s: its peer never made "
            "the matching call (a send needs a recv on the other rank with the same tag, and "
            "the other way round).")

    def is_success(self):
        return self._done and self._exc is None

    def exception(self):
        return self._exc

    def result(self):
        """The output tensors, once done."""
        self.wait()
        return self._outputs

    def source_rank(self):
        """The rank a completed receive got its message from."""
        self.wait()
        if self._status is None:
            raise RuntimeError(f"source_rank: {self._what} is not a receive.")
        return self._status.Get_source()

    def synchronize(self):
        self.wait()

    def get_future(self):
        return Future(self)


class Future:
    """torch.futures.Future over a Work: wait() / value() give the output tensors; then(fn)
    calls fn(future) once the work is done and returns a Future of its result."""

    def __init__(self, work, fn=None, parent=None):
        self._work, self._fn, self._parent = work, fn, parent
        self._value, self._has_value = None, False

    def done(self):
        return self._work.is_completed() and (self._parent is None or self._parent.done())

    def wait(self):
        if not self._has_value:
            if self._parent is None:
                self._value = self._work.result()
            else:
                self._parent.wait()
                self._value = self._fn(self._parent)
            self._has_value = True
        return self._value

    def value(self):
        return self.wait()

    def then(self, fn):
        return Future(self._work, fn, self)


def _seconds(timeout):
    return timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
