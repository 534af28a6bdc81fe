"""Ops that change the shape but not the values: reshape/view, transpose, permute, expand,
squeeze, unsqueeze, flatten, clone. Views share memory and the version counter with their base.

Each view remembers how it was made (`_view_of = (parent, op, args)`), and each view op has a
`put_back(parent, new_view, *args)`: the parent's new value once the view holds `new_view`. The
in-place ops use both to record x.add_(1) on a view as a change of its base, as torch does.
"""
import weakref

from ..formats import is_dense_in, memory_order
from ..function import Function
from ..grad_mode import mode
from ..tensor import Tensor, tensor_method
from .table import Numpy
from . import rules


def _as_view(out, base, op=None, args=()):
    """Mark `out` as a view of `base` made by op(base, *args): writes to either show in both."""
    vc = base._vc
    if vc is None:
        vc = base._vc = [0]
    out._vc = vc
    root = base._base if base._base is not None else base
    out._base = root
    if not mode.enabled and (base._rg or root._rg):
        out._no_grad_view = True   # torch forbids changing it in place once grad mode is on
    if op is not None:
        out._view_of = (base, op, args)
        out._hist_v = vc[0]   # the version its grad_fn reads; in-place ops on root refresh it
        if root.grad_fn is not None or not root._rg:   # a leaf that requires grad is never
            views = root._views                         # changed in place while recording
            if views is None:
                views = root._views = weakref.WeakSet()
            views.add(out)
    return out


def watch_multi_output(out, label):
    """out is one output of a multi-output view op (split, chunk, unbind): torch refuses to
    change it in place while recording, and to use it after its base changed in place (the
    base's in-place ops reach it through the root's live views)."""
    out._multi_output = label
    out._hist_v = out._vc[0]
    root = out._base
    if out._view_of is None and root is not None and (root.grad_fn is not None
                                                     or not root._rg):  # (else: listed already)
        if root._views is None:
            root._views = weakref.WeakSet()
        root._views.add(out)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _reshape_onnx(w, node, out):
    target = w.reshape_target(node.outputs[0])
    w.emit("Reshape", [w.name(node.args[0]), w.const(target, "int64")], out)


class Reshape(Function):
    node_name = "ViewBackward0"
    op_name = "reshape"
    numpy, onnx = Numpy("{0}.reshape({shape})", view=True), staticmethod(_reshape_onnx)

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x._data.shape
        try:
            return x._data.reshape(shape)
        except ValueError:
            raise RuntimeError(
                f"reshape/view: shape {list(shape)} is invalid for a tensor of shape "
                f"{tuple(x.shape)} ({x._data.size} elements): the new shape must hold the same "
                "number of elements (use -1 for one dimension to have it inferred).") from None

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    @staticmethod
    def put_back(parent, new, *args):
        return Reshape.apply(new, parent._data.shape)

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        x, shape = args
        return Reshape.apply(x, (x.shape[0],) + tuple(shape))


class Transpose(Function):
    node_name = "TransposeBackward0"
    numpy = Numpy("swapaxes({0}, {1}, {2})", view=True)

    @staticmethod
    def onnx(w, node, out):
        x, d0, d1 = node.args
        perm = list(range(len(w.ref(node).shape)))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        w.emit("Transpose", [w.name(x)], out, perm=perm)

    @staticmethod
    def forward(ctx, x, d0, d1):
        ctx.d0, ctx.d1 = d0, d1
        if x._data.ndim < 2:               # 0-d and 1-D: a new view of the same values
            return x._data.view()
        return x.device.xp.swapaxes(x._data, d0, d1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(ctx.d0, ctx.d1), None, None

    @staticmethod
    def put_back(parent, new, d0, d1):
        return Transpose.apply(new, d0, d1)

    jvp = classmethod(rules.same_op)

    @classmethod
    def vmap(cls, args, batched):
        x, d0, d1 = args
        return cls.apply(x, d0 + 1, d1 + 1)


class T(Transpose):
    node_name = "TBackward0"


class Permute(Function):
    node_name = "PermuteBackward0"
    numpy = Numpy(lambda gen, node, name, out: f"{gen.arg(node.args[0])}.transpose("
                                               f"{gen.lit(tuple(node.args[1]))})", view=True)

    @staticmethod
    def onnx(w, node, out):
        w.emit("Transpose", [w.name(node.args[0])], out, perm=list(node.args[1]))

    @staticmethod
    def forward(ctx, x, dims):
        nd = x._data.ndim
        if len(dims) != nd:
            raise RuntimeError(f"permute: the tensor has {nd} dims (shape {tuple(x.shape)}) but "
                               f"{len(dims)} were given ({list(dims)}); list each dim once.")
        dims = tuple(_norm_dim(d, nd, "permute") for d in dims)
        if len(set(dims)) != nd:
            raise RuntimeError(f"permute(): duplicate dims are not allowed ({list(dims)}); for "
                               f"a tensor of shape {tuple(x.shape)} give a reordering of "
                               f"0..{nd - 1}.")
        ctx.dims = dims
        return x._data.transpose(dims) if nd else x._data.view()

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(tuple(_inverse(ctx.dims))), None

    @staticmethod
    def put_back(parent, new, dims):
        return Permute.apply(new, tuple(_inverse(dims)))

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        x, dims = args
        n = x.ndim - 1
        return Permute.apply(x, (0,) + tuple(d % n + 1 for d in dims))


def _inverse(dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return inverse


class Expand(Function):
    """Broadcast to a larger shape without copying (a read-only view)."""
    node_name = "ExpandBackward0"
    numpy = Numpy("broadcast_to({0}, {shape})", view=True)

    @staticmethod
    def onnx(w, node, out):
        w.emit("Expand", [w.name(node.args[0]), w.const(w.expand_target(node), "int64")], out)

    @staticmethod
    def forward(ctx, x, shape):
        d = x._data
        lead = len(shape) - d.ndim
        if lead >= 0 and shape[lead:] == d.shape and all(s == 1 for s in shape[:lead]):
            return d[(None,) * lead + (Ellipsis,)]   # nothing grows: a writeable view, as torch
            # (d[()] of a 0-d array would be a copied scalar: later writes would not show)
        try:
            return x.device.xp.broadcast_to(d, shape)
        except ValueError:
            raise RuntimeError(f"expand: cannot expand shape {tuple(x.shape)} to {list(shape)}: only "
                               "dimensions of size 1 can grow (and new ones added on the left)."
                               ) from None

    @staticmethod
    def backward(ctx, grad):
        return grad, None  # the engine's sum_to reduces it to the input's shape

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        x, shape = args
        return Expand.apply(rules.lift(x, len(shape)), (x.shape[0],) + tuple(shape))

    put_back = Reshape.put_back   # only a view where nothing grew is writeable


class Squeeze(Function):
    node_name = "SqueezeBackward0"
    numpy, onnx = Numpy("{0}.reshape({shape})", view=True), staticmethod(_reshape_onnx)

    @staticmethod
    def forward(ctx, x, dims):
        ctx.shape = x._data.shape
        return x._data.reshape([s for i, s in enumerate(x._data.shape) if i not in dims])

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    put_back = Reshape.put_back

    jvp = classmethod(rules.same_op)

    @classmethod
    def vmap(cls, args, batched):
        x, dims = args
        return cls.apply(x, tuple(d + 1 for d in dims))


class SqueezeDim(Squeeze):
    node_name = "SqueezeBackward1"  # squeeze(dim)
    op_name = "squeeze"


class SqueezeDims(Squeeze):
    node_name = "SqueezeBackward2"  # squeeze((dim, ...))
    op_name = "squeeze"


class Unsqueeze(Function):
    node_name = "UnsqueezeBackward0"
    numpy, onnx = Numpy("expand_dims({0}, {1})", view=True), staticmethod(_reshape_onnx)

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return x.device.xp.expand_dims(x._data, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None

    put_back = Reshape.put_back

    jvp = classmethod(rules.same_op)

    @staticmethod
    def vmap(args, batched):
        x, dim = args
        return Unsqueeze.apply(x, dim + 1)


def dense_order(shape, strides):
    """The dims from outermost to innermost of the dense copy torch's preserve_format makes
    (ATen's infer_dense_strides): an insertion sort by stride that leaves stride-0 (expanded)
    dims where they are, so x.t().expand(2, 3, 2).clone() has strides (6, 1, 3), not (6, 2, 1)."""
    perm = list(range(len(shape) - 1, -1, -1))       # innermost first

    def should_swap(d0, d1):
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return 1 if s0 > s1 else -1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, len(shape)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm[::-1]


def dense_copy(xp, d, dtype):
    """d copied (cast to dtype) into the dense layout torch gives it (dense_order)."""
    perm = dense_order(d.shape, d.strides)        # outermost dim first
    out = xp.empty([d.shape[i] for i in perm], dtype)
    out = out.transpose([perm.index(i) for i in range(d.ndim)])
    out[...] = d
    return out


class Clone(Function):
    """A copy. order "K" keeps the input's layout (torch's preserve_format: a transposed
    input's clone is transposed in memory too, so x.t().clone().view(-1) fails as in torch);
    contiguous() asks for "C"."""
    node_name = "CloneBackward0"
    onnx = "Identity"
    numpy = Numpy(lambda gen, node, name, out: [f"{name} = {out}",
                                                f"copyto({name}, {gen.arg(node.args[0])})"])

    @staticmethod
    def forward(ctx, x, order="K"):
        d = x._data
        if isinstance(order, tuple):      # a memory format's dim order (channels_last)
            inverse = sorted(range(len(order)), key=order.__getitem__)
            return x.device.xp.ascontiguousarray(d.transpose(order)).transpose(inverse)
        if order != "K" or d.flags.c_contiguous or d.size == 0:
            return d.copy(order=order)
        return dense_copy(x.device.xp, d, d.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    jvp = classmethod(rules.same_op)
    vmap = classmethod(rules.elementwise)


def _view(cls, x, *args):
    out = cls.apply(x, *args)
    return _as_view(out, x, cls, args)


def _norm_dim(dim, ndim, name):
    """dim in range(ndim) (a 0-d tensor accepts 0 and -1, as in torch); else torch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{name}: dimension {dim} is out of range for a tensor with {ndim} "
                         f"dimension(s) (valid: {-n} to {n - 1}).")
    return dim % ndim if ndim else 0


@tensor_method("reshape")
def reshape(x, *sizes, shape=None):
    """The same elements in a new shape (a view when the memory layout allows); the shape as
    sizes, a tuple, or shape= (torch's keyword)."""
    shape = _shape_arg(sizes if shape is None else (shape,))
    out = Reshape.apply(x, shape)
    if x._data.flags.c_contiguous or x.device.xp.may_share_memory(out._data, x._data):
        return _as_view(out, x, Reshape, (shape,))
    return out  # numpy had to copy (x was transposed): in-place changes to it do not reach x


@tensor_method("view")
def view(x, *sizes, size=None):
    if len(sizes) == 1 and size is None and view_dtype.is_dtype(sizes[0]):   # x.view(dtype)
        return view_dtype.view_dtype(x, sizes[0])
    shape = _shape_arg(sizes if size is None else (size,))
    if not x._data.flags.c_contiguous and x._data.size > 1 and not _viewable(x._data, shape):
        raise RuntimeError(
            f"view: this tensor of shape {tuple(x.shape)} is not contiguous in memory (it was "
            "transposed or permuted), so it cannot be viewed in a new shape without a copy. "
            "Use .reshape(...) instead, or .contiguous().view(...).")
    return _view(Reshape, x, shape)


from . import view_dtype  # noqa: E402  (it builds on _as_view above)


def _viewable(arr, shape):
    """Whether arr (not contiguous) can take `shape` without a copy: torch's view() stride rule,
    which numpy's copy=False reshape applies too."""
    try:
        arr.reshape(shape, copy=False)
        return True
    except (ValueError, TypeError):      # TypeError: an array module without copy=
        return False


@tensor_method("flatten")
def flatten(x, start_dim=0, end_dim=-1):
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, 1)
    s, e = _norm_dim(start_dim, nd, "flatten"), _norm_dim(end_dim, nd, "flatten")
    if s > e:
        raise RuntimeError(f"flatten() has invalid args: start_dim cannot come after end_dim "
                           f"({start_dim} > {end_dim} for shape {tuple(x.shape)}).")
    shape = x._data.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(x, shape[:s] + (n,) + shape[e + 1:])


@tensor_method("transpose", "swapaxes")
def transpose(x, dim0, dim1):
    nd = x._data.ndim
    return _view(Transpose, x, _norm_dim(dim0, nd, "transpose"), _norm_dim(dim1, nd, "transpose"))


@tensor_method("t")
def t(x):
    """Transpose a matrix (a 1-D or 0-D tensor gives a new view of the same values)."""
    if x._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, got {tuple(x.shape)}; use "
                           ".transpose(dim0, dim1) or .mT for batches of matrices.")
    return _view(T, x, 0, min(x._data.ndim, 2) - 1 if x._data.ndim else 0)


Tensor.T = property(lambda x: _view(Permute, x, tuple(range(x._data.ndim - 1, -1, -1))),
                    doc="The transpose (all dims reversed).")


def _mT(x, name="mT"):
    if x._data.ndim == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. "
                           f"Got 1-D tensor. Use x.unsqueeze(0).{name} for a row, or x itself.")
    return transpose(x, -2, -1) if x._data.ndim else transpose(x, 0, 0)


def _H(x):
    if x._data.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{x._data.ndim}-D tensor. For batches of matrices, use tensor.mH.")
    return transpose(x, 0, 1) if x._data.ndim else transpose(x, 0, 0)


def _conj(t):
    return t.conj() if t._data.dtype.kind == "c" else t


Tensor.mT = property(_mT, doc="Transpose of the last two dims.")
Tensor.mH = property(lambda x: _conj(_mT(x, "mH")), doc="The conjugate transpose of the last "
                     "two dims (mT for real tensors).")
Tensor.H = property(lambda x: _conj(_H(x)), doc="The conjugate transpose of a matrix (its "
                    "transpose for real tensors).")


@tensor_method("permute")
def permute(x, *order, dims=None):
    dims = order if dims is None else (dims,)
    if not dims:
        raise TypeError("permute() missing 1 required positional arguments: \"dims\" (for a "
                        "0-d tensor, x.permute(()) is the identity).")
    return _view(Permute, x, _shape_arg(dims))


@tensor_method("expand")
def expand(x, *sizes, size=None):
    shape = _shape_arg(sizes if size is None else (size,))
    lead = len(shape) - x._data.ndim
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be greater "
                           f"or equal to the number of dimensions in the tensor ({x._data.ndim}).")
    for i, s in enumerate(shape):
        if s == -1 and i < lead:
            raise RuntimeError(f"expand: the expanded size of the tensor (-1) isn't allowed in a "
                               f"leading, non-existing dimension {i}; give its size.")
        if s < -1:
            raise RuntimeError(f"expand: invalid size {s} in {list(shape)}.")
    shape = tuple(x._data.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    return _view(Expand, x, shape)


@tensor_method("expand_as")
def expand_as(x, other):
    return expand(x, other.shape)


@tensor_method("squeeze")
def squeeze(x, dim=None):
    """Remove dims of size 1 (all of them, or the given one(s) if they are 1)."""
    shape = x._data.shape
    if dim is None:
        dims = tuple(i for i, s in enumerate(shape) if s == 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = tuple(d for d in (_norm_dim(d, len(shape), "squeeze") for d in dims)
                     if shape and shape[d] == 1)
    cls = Squeeze if dim is None else SqueezeDim if isinstance(dim, int) else SqueezeDims
    return _view(cls, x, dims)


@tensor_method("unsqueeze")
def unsqueeze(x, dim):
    """Insert a dim of size 1 at position dim."""
    nd = x._data.ndim + 1
    return _view(Unsqueeze, x, _norm_dim(dim, nd, "unsqueeze"))


@tensor_method("select")
def select(x, dim, index):
    """x[..., index, ...] at dim (a view without that dim), as torch.select."""
    nd = x._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _norm_dim(dim, nd, "select")
    n = x._data.shape[dim]
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(x.shape)} at dimension {dim}")
    return x[(slice(None),) * dim + (index,)]


@tensor_method("ravel")
def ravel(x):
    """The elements as 1-D: a view when x is contiguous, else a copy (as torch)."""
    return reshape(x, -1)


@tensor_method("clone")
def clone(x, *, memory_format=None):
    """A copy with its own memory; gradients flow through it. It keeps x's memory order
    (preserve_format) unless memory_format names another."""
    return Clone.apply(x, memory_order(memory_format, x._data.shape, "clone"))


@tensor_method("contiguous")
def contiguous(x, memory_format=None):
    """x itself when its memory is already in row-major order (or memory_format's), else a
    copy that is."""
    order = memory_order(memory_format, x._data.shape, "contiguous")
    if not isinstance(order, tuple):
        return x if x._data.flags.c_contiguous else Clone.apply(x, "C")
    return x if is_dense_in(x._data.shape, x.stride(), order) else Clone.apply(x, order)

