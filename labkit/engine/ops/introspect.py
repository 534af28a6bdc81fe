"""Questions about a tensor's memory that torch programs ask: nelement (numel), stride (in
elements, as torch), data_ptr (the address of the first element: views of one tensor share
memory, copies do not)."""
from ..tensor import Tensor, tensor_method


@tensor_method("nelement")
def nelement(x):
    return x.numel()


@tensor_method("data_ptr")
def data_ptr(x):
    """The address of x's first element (x.data_ptr() == y.data_ptr(): same memory start)."""
    d = x._data
    if hasattr(d, "__array_interface__"):
        return d.__array_interface__["data"][0]
    return d.data.ptr


@tensor_method("stride")
def stride(x, dim=None):
    """Steps in elements between neighbours along each dim (numpy counts bytes)."""
    d = x._data
    shape = d.shape
    if d.size == 0 and not any(d.strides):   # numpy gives a new empty array 0 strides:
        s, step = [], 1                       # torch's row-major ones
        for n in reversed(shape):
            s.append(step)
            step *= max(n, 1)
        s = tuple(reversed(s))
    else:                        # a view's own strides (x[:, 3:] of a (2, 3, 4) keeps 12, 4, 1,
        s = [b // d.itemsize for b in d.strides]       # a transposed column keeps its 1, 4);
        for i in reversed(range(len(s))):              # a dim of size 1 that numpy strides 0
            if shape[i] == 1 and s[i] == 0:            # (None, unsqueeze): torch's unsqueeze
                s[i] = shape[i + 1] * s[i + 1] if i + 1 < len(s) else 1   # rule
        s = tuple(s)
    if dim is None:
        return s
    return s[dim]


@tensor_method("storage_offset")
def storage_offset(x):
    """How many elements into its memory block x starts (a view's offset in its base)."""
    d, owner = x._data, x._data
    while getattr(owner, "base", None) is not None:
        owner = owner.base
    if not hasattr(owner, "dtype") or owner.size == 0 or d.size == 0:
        return 0
    start = data_ptr(x) - (owner.__array_interface__["data"][0]
                           if hasattr(owner, "__array_interface__") else owner.data.ptr)
    return start // d.itemsize


def _itemsize(x):
    return x._data.dtype.itemsize


def _nbytes(x):
    return x._data.dtype.itemsize * x.numel()


Tensor.itemsize = property(_itemsize, doc="Bytes per element (as element_size()).")
Tensor.nbytes = property(_nbytes, doc="Bytes of the elements (numel * itemsize), as torch: "
                                      "the elements the tensor shows, not its whole storage.")


def _attach_layout_queries():
    """x.layout is labkit.strided and the is_sparse/is_quantized/... family False: labkit's
    tensors are all dense, and code that asks (to pick a sparse path) takes the dense one."""
    from ..formats import strided
    Tensor.layout = property(lambda x: strided, doc="Always labkit.strided (dense memory).")
    for name in ("is_sparse", "is_sparse_csr", "is_quantized", "is_nested", "is_mkldnn",
                 "is_mps", "is_xpu", "is_xla", "is_ipu", "is_maia", "is_mtia", "is_vulkan"):
        setattr(Tensor, name, property(lambda x: False))
    Tensor.is_meta = property(lambda x: x.device.type == "meta",
                              doc="Whether x is a meta tensor (a shape and a dtype, no values).")


_attach_layout_queries()


@tensor_method("to_dense")
def to_dense(x, dtype=None, *, masked_grad=None):
    """x itself (it is dense already), or x in dtype."""
    return x if dtype is None else x.to(dtype)
