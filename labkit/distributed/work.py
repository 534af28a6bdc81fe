"""Work: the handle an `async_op=True` call returns, over an MPI non-blocking request.

The transfer runs while the caller computes; `wait()` blocks until it is done and then writes
the result into the tensors. MPI moves a non-blocking operation along when the process calls
into MPI (wait, is_completed, another collective): calling is_completed() now and then in a
long computation keeps a large transfer moving.
"""
from .watchdog import bounded


class Work:
    """torch.distributed's Work: wait(), is_completed(), is_success(), exception(), result(),
    get_future(); source_rank() for a receive."""

    def __init__(self, group, req, what, finish=None, outputs=(), status=None, start=None,
                 check=None):
        """`req`: the MPI request, or `start()` makes it once `check` (the call comparison,
        in flight) has passed; the group starts checked Works in call order."""
        self._group, self._req, self._what = group, req, what
        self._finish, self._outputs, self._status = finish, list(outputs), status
        self._start, self._check, self._exc, self._done = start, check, None, False
        if check is not None:
            group.pending.append(self)
            group.flush(wait=False)       # may start it (or an earlier one) right away
        elif start is not None:
            self._begin()                 # no comparison to wait for
        elif req is not None:
            group.active[self] = None     # MPI uses our buffers until done: keep them alive
        else:
            self._done = True

    def _begin(self):
        """Wait for the call comparison (if any), then start the transfer."""
        check, self._check = self._check, None
        try:
            if check is not None:
                self._group.fingerprint.finish(check)
        except RuntimeError as e:
            self._done, self._exc, self._finish = True, e, None
            raise
        if self._start is not None:
            self._req = self._start()
            self._group.active[self] = None
        else:
            self._complete()

    @classmethod
    def done(cls, outputs=()):
        """A Work that has already completed (a call that finished synchronously)."""
        return cls(None, None, "done", outputs=outputs)

    def _complete(self):
        self._done, finish, self._finish = True, self._finish, None
        self._req = None
        if self._group is not None:
            self._group.active.pop(self, None)
        if finish is not None:
            try:
                finish(self._status)
            except Exception as e:
                self._exc = e
                raise

    def is_completed(self):
        """True once the operation finished (tests the request: it also moves it along)."""
        if self._check is not None:
            self._group.flush(wait=False)
            if self._check is not None:
                return False
        if not self._done and self._req.Test(self._status):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        """Block until the operation finished and its result is in the tensors; returns True."""
        if self._check is not None:
            self._group.flush(upto=self)
        if self._exc is not None:
            raise self._exc
        if not self._done:
            limit = self._group.timeout if timeout is None else _seconds(timeout)
            bounded(limit, self._late(limit), self._req.Wait, self._status)
            self._complete()
        return True

    def _late(self, limit):
        me = self._group.rank()
        return lambda: (
            f"{self._what} on rank {me} did not complete within {limit:g} s: a peer never made "
            "the matching call (a send needs a recv on the other rank with the same tag and the "
            "other way round; a collective needs every rank).")

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
