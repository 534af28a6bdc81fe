"""A one-way channel for a worker's batches: a pipe the main process can wait on, with the
worker's writes done by a background thread (a put never blocks the worker).

multiprocessing.Queue does the same, but waiting on it together with the worker's exit needs
the queue's private `_reader`; here the main process holds the pipe's receiving Connection
itself, which `multiprocessing.connection.wait` takes as it is.
"""
import queue
import threading


def channel(ctx):
    """(receiver, sender): the receiver is a Connection (recv_bytes, poll, wait), the sender
    a Sender to hand to the worker process."""
    receiver, writer = ctx.Pipe(duplex=False)
    return receiver, Sender(writer)


class Sender:
    """The worker's end: put(bytes) queues, a daemon thread writes them to the pipe in order."""

    def __init__(self, writer):
        self._writer = writer
        self._items = None
        self._thread = None

    def put(self, payload):
        if self._thread is None:          # started lazily, in the worker process
            self._items = queue.SimpleQueue()
            self._thread = threading.Thread(target=self._feed, daemon=True,
                                            name="DataLoader result sender")
            self._thread.start()
        self._items.put(payload)

    def _feed(self):
        while True:
            payload = self._items.get()
            if payload is None:
                return
            try:
                self._writer.send_bytes(payload)
            except OSError:               # the main process closed its end: nobody listens
                return

    def close(self):
        """Stop sending. A worker's exit does not wait for batches nobody reads (the thread
        is a daemon), as with Queue.cancel_join_thread."""
        if self._thread is not None:
            self._items.put(None)
        else:
            self._writer.close()
