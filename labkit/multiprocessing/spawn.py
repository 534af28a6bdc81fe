"""spawn(fn, args, nprocs): fn(i, *args) in nprocs new processes (i = 0 .. nprocs - 1), as
torch.multiprocessing.spawn. When one fails, the others are stopped and its traceback is
raised in the parent (ProcessRaisedException), or how it died (ProcessExitedException)."""
import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """fn raised in process error_index; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """Process error_index exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                            self.signal_name)


def _run(fn, i, args, errors):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:            # noqa: BLE001 -- sent to the parent, which raises it
        errors.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """True once every process has ended well; raises for the first that failed."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            i = self.sentinels.pop(sentinel)
            self.processes[i].join()
            if self.processes[i].exitcode != 0:
                failed = i
                break
        if failed is None:
            return not self.sentinels
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        p = self.processes[failed]
        if self.error_queues[failed].empty():
            code = p.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(f"process {failed} terminated with signal {name}",
                                             failed, p.pid, code, name)
            raise ProcessExitedException(f"process {failed} terminated with exit code {code}",
                                         failed, p.pid, code)
        raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following "
                                     f"error:\n{self.error_queues[failed].get()}", failed, p.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        errors = ctx.SimpleQueue()
        p = ctx.Process(target=_run, args=(fn, i, args, errors), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(errors)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """fn(i, *args) for i in range(nprocs), each in its own process; waits for all (join)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
