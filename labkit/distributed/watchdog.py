"""Blocking MPI calls with a deadline: a call that outlives the group's timeout ends the job
with a message instead of hanging forever.

The call itself stays MPI's blocking one (MPI waits for peers faster than any Python loop could);
one daemon thread looks at the deadline now and then, and when it has passed prints what this
rank was waiting for and leaves with exit code 1, which makes mpiexec stop every rank. mpi4py
releases the GIL inside MPI calls, so the thread runs while the main thread waits.
"""
import os
import sys
import threading
import time


class Watchdog:
    def __init__(self):
        self._deadline = None      # time.monotonic() by which the armed call must return
        self._describe = None      # () -> the message for a late call
        self._period = 1.0
        self._thread = None

    def arm(self, seconds, describe):
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="labkit-dist-watchdog",
                                            daemon=True)
            self._thread.start()
        self._period = min(self._period, max(seconds / 10, 0.01))
        self._describe = describe
        self._deadline = time.monotonic() + seconds

    def disarm(self):
        self._deadline = None

    def _watch(self):
        while True:
            time.sleep(self._period)
            deadline, describe = self._deadline, self._describe
            if deadline is not None and time.monotonic() > deadline:
                sys.stdout.flush()
                sys.stderr.write(f"{describe()}\nlabkit.distributed: stopping every rank.\n")
                sys.stderr.flush()
                os._exit(1)


_watchdog = Watchdog()


def bounded(seconds, describe, call, *args):
    """call(*args), a blocking MPI call; after `seconds` the job ends with describe()."""
    _watchdog.arm(seconds, describe)
    try:
        return call(*args)
    finally:
        _watchdog.disarm()
