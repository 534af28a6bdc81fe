"""SummaryWriter: scalars, groups of scalars, histograms, text and the autograd graph as
TensorBoard event files (one events.out.tfevents.* file per writer and run directory)."""
import os
import socket
import time

import numpy as np

try:
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.graph_pb2 import GraphDef
    from tensorboard.compat.proto.node_def_pb2 import NodeDef
    from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
    from tensorboard.compat.proto.tensor_pb2 import TensorProto
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
except ImportError as e:                      # pragma: no cover - depends on the install
    raise ImportError("labkit.utils.tensorboard needs the tensorboard package: "
                      "pip install tensorboard") from e

from ...engine.tensor import Tensor
from .image import png, to_hwc, to_uint8


def _default_bins():
    """torch's bins='tensorflow': exponential buckets growing by 10% from 1e-12 to 1e20."""
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-x for x in reversed(pos)] + [0] + pos


def _numpy(x):
    if isinstance(x, Tensor):
        return x.detach().cpu().numpy().astype(np.float64)
    return np.asarray(x, dtype=np.float64)


def _scalar(value, tag):
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise ValueError(f"add_scalar({tag!r}): expected a number or a one-element tensor, "
                             f"got shape {tuple(value.shape)}. Reduce it first (.mean()).")
        return float(value.item())
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"add_scalar({tag!r}): expected a number, got "
                        f"{type(value).__name__}.") from None


def _check_logdir(logdir):
    """Make the directory, and refuse at once (before any file exists) if it is not writable."""
    try:
        os.makedirs(logdir, exist_ok=True)
    except OSError as e:
        raise PermissionError(f"SummaryWriter: cannot create the log directory {logdir!r} "
                              f"({e.strerror}). Pass log_dir= a folder you can write to, e.g. "
                              "'runs/exp1' under your home or the course folder.") from None
    if not os.path.isdir(logdir) or not os.access(logdir, os.W_OK | os.X_OK):
        raise PermissionError(f"SummaryWriter: the log directory {logdir!r} is not writable. "
                              "Pass log_dir= a folder you can write to (e.g. 'runs/exp1').")


class SummaryWriter:
    """SummaryWriter(log_dir=None, comment='', purge_step=None, max_queue=10, flush_secs=120,
    filename_suffix=''); log_dir defaults to runs/<date>_<host><comment>, as torch."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            stamp = time.strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        _check_logdir(self.log_dir)
        self._max_queue, self._flush_secs, self._suffix = max_queue, flush_secs, filename_suffix
        self._writer = self._open(self.log_dir)
        self._all = {self.log_dir: self._writer}
        self._closed = False
        if purge_step is not None:
            self._writer.add_event(Event(step=purge_step, file_version="brain.Event:2"))

    def _open(self, logdir):
        return EventFileWriter(logdir, self._max_queue, self._flush_secs, self._suffix)

    def get_logdir(self):
        return self.log_dir

    def _add(self, summary, step, walltime, writer=None):
        if self._closed:
            raise RuntimeError("SummaryWriter: this writer is closed; make a new one.")
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if step is not None:
            event.step = int(step)
        (writer or self._writer).add_event(event)

    # --- what the course logs ------------------------------------------------------------
    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        value = _scalar(scalar_value, tag)
        self._add(Summary(value=[Summary.Value(tag=tag, simple_value=value)]), global_step,
                  walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several curves on one chart: each goes to its own run folder
        <log_dir>/<main_tag>_<key>, under the tag main_tag (as torch)."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(self.log_dir, main_tag.replace("/", "_") + "_" + tag)
            if path not in self._all:
                _check_logdir(path)
                self._all[path] = self._open(path)
            self._add(Summary(value=[Summary.Value(tag=main_tag,
                                                   simple_value=_scalar(value, tag))]),
                      global_step, walltime, self._all[path])

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        v = _numpy(values).reshape(-1)
        if v.size == 0:
            raise ValueError(f"add_histogram({tag!r}): the input has no element.")
        if not np.isfinite(v).all():
            raise ValueError(f"add_histogram({tag!r}): the values hold inf or nan; a histogram "
                             "of them is meaningless. Check for divergence first.")
        if isinstance(bins, str) and bins == "tensorflow":
            bins = _default_bins()
        self._add(Summary(value=[Summary.Value(tag=tag, histo=_histogram(v, bins, max_bins))]),
                  global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """One image (PNG) for the IMAGES tab; floats are read as [0, 1], uint8 as is."""
        arr = img_tensor.detach().cpu().numpy() if isinstance(img_tensor, Tensor) \
            else np.asarray(img_tensor)
        img = to_uint8(to_hwc(arr, dataformats))
        image = Summary.Image(height=img.shape[0], width=img.shape[1], colorspace=img.shape[2],
                              encoded_image_string=png(img))
        self._add(Summary(value=[Summary.Value(tag=tag, image=image)]), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
            plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
        tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                             tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
        self._add(Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                               tensor=tensor)]), global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """The autograd graph of model(input_to_model): one node per backward Node (named as
        torch's grad_fn), parameters as inputs. (torch draws the jit trace; labkit draws the
        graph that backward walks, which lecture 02 shows too.)"""
        if input_to_model is None:
            raise ValueError("add_graph: pass input_to_model (an example input) so the graph "
                             "can be recorded.")
        args = input_to_model if isinstance(input_to_model, (tuple, list)) else (input_to_model,)
        out = model(*args)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        graph = _graph_def(model, [o for o in outs if isinstance(o, Tensor)])
        if self._closed:
            raise RuntimeError("SummaryWriter: this writer is closed; make a new one.")
        self._writer.add_event(Event(graph_def=graph.SerializeToString(),
                                     wall_time=time.time()))

    def flush(self):
        for w in self._all.values():
            w.flush()

    def close(self):
        if self._closed:
            return
        for w in self._all.values():
            w.flush()
            w.close()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _histogram(values, bins, max_bins):
    """torch's make_histogram: numpy's counts, trimmed to the bins that hold values (and one
    empty bin left, since TensorBoard keeps only right edges)."""
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        sub = len(counts) // max_bins
        rem = len(counts) % sub
        if rem:
            counts = np.pad(counts, [[0, sub - rem]])
        counts = counts.reshape(-1, sub).sum(axis=-1)
        limits = np.concatenate([limits[:-1:sub], limits[-1:]])
    cum = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(cum, [0, cum[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


def _graph_def(model, outputs):
    names = {}
    params = {id(p): n for n, p in getattr(model, "named_parameters", lambda: [])()}
    nodes = []
    order = []
    seen = set()
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:                       # iterative walk (deep graphs never recurse)
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        stack.extend(f for f, _ in fn.next_functions if f is not None)
    for i, fn in enumerate(reversed(order)):
        leaf = getattr(fn, "variable", None)
        if leaf is not None and id(leaf) in params:
            name = "params/" + params[id(leaf)]
        else:
            name = f"{type(fn).__name__}_{i}"
        names[id(fn)] = name
    for fn in reversed(order):
        node = NodeDef(name=names[id(fn)], op=type(fn).__name__)
        node.input.extend(names[id(f)] for f, _ in fn.next_functions if f is not None)
        nodes.append(node)
    return GraphDef(node=nodes)
