"""Tensor: an array on a device, plus what autograd needs (requires_grad, grad, grad_fn, version).

Ops are attached as methods by the modules that define them, always with `tensor_method`
(`exp = tensor_method("exp")(unary_op(Exp))`, or as a decorator), so each op's forward,
backward and Tensor method sit together in one file.
"""
import math
import warnings
import weakref

import numpy as np

from . import dtype as _dt
from .defaults import defaults
from .device import cpu
from .grad_mode import mode
from .unsupported import lacking


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""
    # Every field a tensor can have. Making a tensor assigns only the first two; the rest
    # are rarely set, so their defaults live on the class.
    _data: object        # the array (numpy on cpu, cupy on cuda)
    device: object       # the Device it lives on
    _rg = False          # requires_grad
    _grad = None         # accumulated gradient (a Tensor), for leaves and retain_grad()
    grad_fn = None       # the Node that made this tensor (None for leaves)
    _out_idx = 0         # which output of grad_fn this tensor is
    _inference = False   # made inside inference_mode (is_inference())
    _vc = None           # shared version counter [n], created on first save or in-place write
    _accum = None        # this leaf's AccumulateGrad node, made on first use in a graph
    _base = None         # the tensor this one is a view of (shares memory and version)
    _view_of = None      # (parent, view op, args) for a view: how to write a change back
    _hist_v = 0          # a view's version its grad_fn reads (in-place on the base refreshes it)
    _views = None        # a base's live views (a WeakSet), refreshed after an in-place change
    _multi_output = None  # "Output i of Split" for an output of split/chunk/unbind
    _no_grad_view = False  # a view made under no_grad of a tensor that requires grad
    _retains = False     # retain_grad() was called
    _func_input = False  # a leaf made by a labkit.func transform (no enclosing graph reaches it)
    __array_ufunc__ = None  # numpy must defer to our reflected operators: ndarray * tensor -> Tensor

    def __init__(self, data=(), *size, requires_grad=False, device=None):
        if len(size) == 1 and isinstance(size[0], bool):    # labkit's Tensor(data, requires_grad)
            size, requires_grad = (), size[0]
        if device is not None:
            _legacy_device(data, device)
        if size or (isinstance(data, (int, np.integer)) and not isinstance(data, bool)) \
                or type(data) is Size:           # legacy Tensor(2, 3): sizes, uninitialised
            data = np.empty(tuple(data) if type(data) is Size else (data,) + size, np.float32)
        device = None
        if isinstance(data, Tensor):                     # Parameter(t): t's array as it is
            data, device = data._data, data.device
        elif isinstance(data, np.ndarray):
            data = _legacy_array(data)
        elif not (hasattr(data, "__array_namespace__")
                  or hasattr(data, "__cuda_array_interface__")):   # cupy: kept as it is
            data = np.asarray(data, dtype=defaults.float)  # as torch.Tensor(...): default dtype
        self._data = data
        self.device = device or (cpu if isinstance(data, np.ndarray) else _device_of(data))
        if requires_grad:
            self.requires_grad_(True)

    # --- autograd state ---------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._rg

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Start (or stop) recording operations on this leaf tensor, in place."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "requires_grad_: you can only change requires_grad on leaf tensors. This "
                    f"tensor was made by {type(self.grad_fn).__name__}; use .detach() for a copy "
                    "that does not require grad.")
            return self
        if requires_grad and self._data.dtype.kind not in "fVc":   # V: bfloat16, c: complex
            raise RuntimeError(
                f"requires_grad_: only floating-point and complex tensors can require gradients, "
                f"but this one "
                f"is {self.dtype}. Make it float first: x = x.float() (or dtype=labkit.float32).")
        self._rg = bool(requires_grad)
        return self

    @property
    def grad(self):
        """The accumulated gradient: of a leaf after backward, or of a tensor that called
        retain_grad(); None before."""
        return self._grad

    @grad.setter
    def grad(self, g):
        if g is not None:
            _check_grad(self, g)
        self._grad = g

    @property
    def is_leaf(self):
        """True for tensors not made by a recorded op: their .grad is filled by backward."""
        return self.grad_fn is None

    @property
    def _version(self):
        vc = self._vc
        return vc[0] if vc is not None else 0

    def _bump_version(self):
        """Record an in-place change, so a backward that saved this tensor can tell."""
        if self._vc is None:
            self._vc = [0]
        self._vc[0] += 1

    @property
    def data(self):
        """This tensor's values as a tensor cut from the graph, as torch's `.data`: it shares
        memory, does not require grad, and changes made through it are neither recorded nor
        seen by the version counter (so autograd cannot warn about them: prefer .detach()
        or `with no_grad()`)."""
        out = _new(Tensor)
        out._data, out.device = self._data, self.device
        return out

    @data.setter
    def data(self, value):
        """`x.data = other` swaps the values under x without touching its graph or grad."""
        if not isinstance(value, Tensor):
            raise TypeError(f"data: expected a Tensor to assign to .data, got "
                            f"{type(value).__name__}. Wrap it first: labkit.tensor(value).")
        self._data, self.device = value._data, value.device

    def detach(self):
        """A tensor sharing this one's data (and version counter), cut from the graph."""
        out = Tensor.__new__(Tensor)
        out._data, out.device = self._data, self.device
        if self._vc is None:
            self._vc = [0]
        out._vc = self._vc
        return out

    @property
    def retains_grad(self):
        """Whether retain_grad() was called on this non-leaf tensor (False for leaves)."""
        return self._retains

    def retain_grad(self):
        """Keep .grad for this non-leaf tensor after backward (leaves keep it anyway)."""
        if self.grad_fn is None:
            if not self._rg:
                raise RuntimeError("retain_grad: this tensor does not require grad, so it will "
                                   "never get a gradient. Call x.requires_grad_() first.")
            return
        if self._retains:
            return
        self._retains = True

        def _retain(grad, ref=weakref.ref(self)):   # weak: the tensor owns its grad_fn
            t = ref()
            if t is None:
                return None
            g = grad.detach() if grad.grad_fn is None else grad
            g = Tensor._make(g._data.copy(), g.device) if g.grad_fn is None else g
            t.grad = g if t.grad is None else t.grad + g
        _retain._retains_grad = True   # the engine runs it after every other hook
        self.register_hook(_retain)

    def register_hook(self, hook):
        """Call hook(grad) when this tensor's gradient is computed; it may return a new grad."""
        if not self._rg:
            raise RuntimeError("register_hook: cannot register a hook on a tensor that does not "
                               "require grad. Call x.requires_grad_() first.")
        from .function import accumulate_node
        node = self.grad_fn if self.grad_fn is not None else accumulate_node(self)
        return node._add_pre_hook(self._out_idx, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call hook(tensor) right after backward adds into this leaf's .grad (DDP starts a
        bucket's all-reduce here; an optimizer can step a parameter as soon as its grad is
        final). Returns a handle whose remove() unregisters it."""
        if self.grad_fn is not None:
            raise RuntimeError("register_post_accumulate_grad_hook: post accumulate grad hooks "
                               "cannot be registered on non-leaf tensors (this one was made by "
                               f"{type(self.grad_fn).__name__}); register it on the leaf.")
        if not self._rg:
            raise RuntimeError("register_post_accumulate_grad_hook: cannot register a hook on a "
                               "tensor that does not require grad. Call x.requires_grad_() first.")
        from .function import _PostAccumulateHandle, accumulate_node
        node = accumulate_node(self)
        if not node._post_hooks:
            node._post_hooks = []
        node._post_hooks.append(hook)
        return _PostAccumulateHandle(node._post_hooks, hook)

    # --- shape and type -----------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    def element_size(self):
        return self._data.itemsize

    @property
    def dtype(self):
        return _dt.from_np(self._data.dtype)

    def is_contiguous(self, memory_format=None):
        """True when the elements lie in memory in row-major order (view() needs this), or in
        the order memory_format names (labkit.channels_last: N, H, W, C)."""
        from .formats import is_dense_in, memory_order
        order = memory_order(memory_format, self._data.shape, "is_contiguous")
        if order in ("C", "K"):
            return bool(self._data.flags.c_contiguous)
        return is_dense_in(self._data.shape, self.stride(), order)

    def is_floating_point(self):
        return self._data.dtype.kind in "fV"   # V: bfloat16

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor: it holds one number; use .item() to read it.")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor: it holds one number; use .item().")
        return (self[i] for i in range(self._data.shape[0]))

    # --- leaving labkit -----------------------------------------------------------------
    def item(self):
        """The single number in a one-element tensor, as a Python number."""
        self._escape("item()")
        if self.device.type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors: a 'meta' tensor "
                               "has a shape and a dtype but no values.")
        if self._data.size != 1:
            raise RuntimeError(f"item(): a Tensor with {self._data.size} elements (shape "
                               f"{tuple(self._data.shape)}) cannot be converted to one Python "
                               "number. Reduce it first (e.g. .sum() or .mean()), or use .tolist().")
        return self._data.reshape(()).item()

    def tolist(self):
        self._escape("tolist()")
        return self._host().tolist()

    def numpy(self):
        """The data as a numpy array (shared memory on cpu). Detach first if it requires grad."""
        self._escape("numpy()")
        if self._rg:
            raise RuntimeError("numpy(): can't call numpy() on a tensor that requires grad, "
                               "because numpy cannot record gradients. Use x.detach().numpy().")
        if self.device.type != "cpu":
            raise TypeError(f"numpy(): this tensor is on {self.device}; numpy only sees host "
                            "memory. Copy it first: x.cpu().numpy().")
        return self._data

    def _escape(self, what):
        """A value leaves the tensor world as a Python object: a tracer must know (it freezes)."""
        tracer = mode.tracer      # engine/hooks.py: the tracer this thread's ops go to
        if tracer is not None:
            tracer.escape(self, what)

    def _host(self):
        kind = self.device.type
        if kind == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data! A 'meta' tensor "
                                      "has a shape and a dtype only: make a real one (on cpu) "
                                      "to read values.")
        return self._data if kind == "cpu" else self._data.get()

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __bool__(self):
        self._escape("bool()")
        if self._data.size != 1:
            raise RuntimeError(f"bool(): the truth value of a tensor with {self._data.size} elements "
                               "is ambiguous. Use (x > 0).any() or (x > 0).all(), or .item() for one "
                               "element.")
        if self.device.type == "meta":
            raise RuntimeError("bool() of a meta tensor: Tensor.item() cannot be called on meta "
                               "tensors (a 'meta' tensor has a shape and a dtype, no values).")
        return bool(self._data)

    def __float__(self):
        if self._rg:
            _warn_scalar()
        return float(self._scalar("float"))

    def __int__(self):
        if self._rg:
            _warn_scalar()
        return int(self._scalar("int"))

    def _scalar(self, what):
        """The one number of float(x)/int(x): torch's ValueError (item() raises RuntimeError)."""
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars: "
                             f"{what}() got a tensor of shape {tuple(self.shape)}. Reduce it "
                             "first (e.g. .sum()), or index one element.")
        v = self.item()
        # torch converts a complex value with no imaginary part; the rest is an "overflow"
        if type(v) is complex and what != "complex":
            if v.imag != 0 or (what == "int" and not math.isfinite(v.real)):
                ctype = "double" if what == "float" else "int64_t"
                raise RuntimeError(f"value cannot be converted to type {ctype} without overflow: "
                                   f"{what}() of the complex value {v}. Take .real or .abs() "
                                   "first.")
            return v.real
        return v

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self):
        return _format(self)

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError(f"unsupported format string passed to Tensor.__format__: "
                            f"{spec!r} formats one number, and this tensor has shape "
                            f"{tuple(self.shape)}. Format x.item() or x.tolist() instead.")
        return repr(self)

    def __dir__(self):
        """Without the torch names labkit lacks (engine/unsupported.py: reading one raises)."""
        return sorted(set(object.__dir__(self)) - lacking(type(self)))

    @staticmethod
    def _make(data, device, requires_grad=False):
        """Wrap an array without checks (the hot path for op outputs)."""
        t = _new(Tensor)
        t._data = data
        t.device = device
        if requires_grad:
            t._rg = True
        if mode.inference:          # made inside inference_mode: an inference tensor
            t._inference = True
        return t


_new = object.__new__
Tensor.__module__ = "labkit"   # type(t) prints <class 'labkit.Tensor'>, as torch's does


def _legacy_array(a):
    """torch.Tensor(ndarray) is in the default dtype, whatever the array's: shared when that is
    already its dtype, else converted (a complex array loses its imaginary part, as in torch)."""
    want = np.dtype(defaults.float)
    if a.dtype == want:
        return a
    if a.dtype.kind == "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
        a = a.real
    return a.astype(want)


def _legacy_device(data, device):
    """torch.Tensor(data, device=...): only the default device, and not for a tensor (as torch)."""
    from .device import Device
    want = defaults.device or cpu
    if isinstance(data, Tensor):
        raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, "
                           "device=device) is not supported. Use labkit.tensor(...) or "
                           "labkit.as_tensor(...) instead.")
    if Device(device).type != want.type:
        raise RuntimeError(f"legacy constructor expects device type: {want.type} but device "
                           f"type: {Device(device).type} was passed. Use labkit.tensor(data, "
                           f"device={str(device)!r}) instead.")


def _check_grad(t, g):
    """torch's checks on assigning x.grad: a gradient must fit the tensor it belongs to."""
    if not isinstance(g, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(g).__name__}. Wrap it first: x.grad = labkit.tensor(value).")
    if g._data.shape != t._data.shape:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(g.shape)}' to a "
                           f"tensor of size '{list(t.shape)}'. Please ensure that the gradient "
                           "and the tensor are the same size.")
    if g._data.dtype != t._data.dtype:
        raise RuntimeError(f"attempting to assign a gradient with dtype {g.dtype} to a tensor "
                           f"with dtype {t.dtype}: a gradient has its tensor's dtype. Convert "
                           f"it first: x.grad = g.to({t.dtype}).")
    if g.device != t.device:
        raise RuntimeError(f"attempting to assign a gradient on {g.device} to a tensor on "
                           f"{t.device}. Move it first: x.grad = g.to(x.device).")


def _warn_scalar():
    """torch's warning, once per process, for float()/int() of a tensor that requires grad."""
    global _warned_scalar
    if not _warned_scalar:
        _warned_scalar = True
        import warnings
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                      "unexpected behavior.\nConsider using tensor.detach() first.",
                      UserWarning, stacklevel=3)


_warned_scalar = False


class Size(tuple):
    """A tensor's shape: a tuple that prints like PyTorch's."""

    def __repr__(self):
        return f"labkit.Size({list(self)})"

    def __getitem__(self, index):
        """A slice of a Size is a Size (x.shape[1:]), as torch's."""
        got = tuple.__getitem__(self, index)
        return Size(got) if isinstance(index, slice) else got

    def __add__(self, other):
        return Size(tuple.__add__(self, other)) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return Size(other + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


def _device_of(data):
    from .device import device_of_array
    return device_of_array(data)


def tensor_method(*names):
    """Attach a function to Tensor under the given names (the op modules use this)."""
    def attach(fn):
        for name in names:
            setattr(Tensor, name, fn)
        return fn
    return attach


def _format(t):
    from .printing import format_tensor
    return format_tensor(t)

