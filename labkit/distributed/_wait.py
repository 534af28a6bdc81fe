"""Waiting on an MPI request without hanging forever: spin briefly, then sleep in growing naps
(so ranks sharing a core let each other run), and give up with a message at the deadline."""
import time


def wait_for(req, timeout, on_timeout, status=None):
    """Return once `req` completes; after `timeout` seconds raise on_timeout() instead."""
    test = req.Test
    for _ in range(200):                         # the common case: the peers are already there
        if test(status):
            return
    end = time.perf_counter() + timeout
    nap = 1e-5
    while not test(status):
        if time.perf_counter() > end:
            raise on_timeout()
        time.sleep(nap)
        nap = min(nap * 2, 1e-3)
