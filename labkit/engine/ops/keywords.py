"""torch's keyword spellings, accepted everywhere torch accepts them, in one place:

- input= and other= for the first two arguments: torch.matmul(input=a, other=b);
- numpy's axis= for dim= and keepdims= for keepdim= (torch takes both);
- out= on the functions torch gives it: the result is written into `out` (resized if its
  shape differs, with torch's warning when it had elements) and `out` is returned. As in torch,
  out= refuses to run when grad is being recorded for any argument (it cannot be differentiated).

The op files keep their plain signatures; `with_torch_keywords` wraps the public functions and
the Tensor methods once, at import. A call without keywords goes straight through.
"""
import functools
import warnings

from ..grad_mode import mode, no_grad
from ..tensor import Tensor, tensor_method

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _translate(args, kw, named):
    """torch's spellings -> fn's: input/other become the first two positional arguments
    unless fn names its own parameters so (where(condition, input, other) does)."""
    if "input" in kw and "input" not in named:
        args = (kw.pop("input"),) + args
    if "other" in kw and "other" not in named and len(args) == 1:
        args = args + (kw.pop("other"),)
    for alias, name in _ALIASES.items():
        if alias in kw:
            if name in kw:
                raise TypeError(f"got both {name}= and its alias {alias}=; give one.")
            kw[name] = kw.pop(alias)
    return args, kw


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from _tensors(a)


def _write_out(name, fn, args, kw, out):
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): out must be a Tensor, got {type(out).__name__}.")
    if mode.enabled and (out._rg or any(t._rg for t in _tensors(args + tuple(kw.values())))):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad. Drop out= "
                           "(y = labkit.{0}(...)), or compute under labkit.no_grad().".format(name))
    if name in _OUT_IS_DTYPE and kw.get("dtype") is None:
        kw["dtype"] = out.dtype          # torch: sum(x, out=int64) sums x.long()
    if name in _FACTORIES and kw.get("device") is None:
        kw["device"] = out.device        # torch.rand(2, 2, out=c): made where c lives
    result = fn(*args, **kw)
    if not isinstance(result, Tensor):
        raise TypeError(f"{name}(): out= is supported only for a single tensor result.")
    if result.device is not out.device:
        raise RuntimeError(f"{name}(): out is on {out.device} but the result is on "
                           f"{result.device}; labkit never copies between devices silently.")
    xp = out.device.xp
    if name in _OUT_SAME_DTYPE and result.dtype != out.dtype:
        raise RuntimeError(f"{name}(): Expected out tensor to have dtype {result.dtype}, but got "
                           f"{out.dtype} instead (torch's {name} does not convert into out). "
                           f"Pass out of dtype {result.dtype}, or convert afterwards.")
    if not xp.can_cast(result._data.dtype, out._data.dtype, "same_kind"):
        if name in ("cat", "concat", "concatenate", "stack"):
            raise TypeError(f"torch.{name}(): input types can't be cast to the desired output "
                            f"type {out.dtype} (the inputs give {result.dtype}).")
        raise RuntimeError(f"result type {result.dtype} can't be cast to the desired output "
                           f"type {out.dtype} ({name}(): make out {result.dtype}, or convert "
                           "the inputs).")
    if name in ("arange", "linspace") and out._data.size == result._data.size:
        result = result.reshape(out.shape)   # torch resizes out only when the count differs
    if out._data.shape != result._data.shape:
        if out._data.size:
            warnings.warn(f"{name}(): an output with one or more elements was resized since it "
                          f"had shape {list(out.shape)}, which does not match the required "
                          f"output shape {list(result.shape)}. This behavior is deprecated (as "
                          "in torch); pass an out of the right shape or none.", UserWarning,
                          stacklevel=3)
        out._data = xp.empty(result._data.shape, out._data.dtype)
    with no_grad():
        out.copy_(result)
    return out


def with_torch_keywords(fn, name=None, out=False):
    """fn, also accepting input=/other=/axis=/keepdims= (and out= when `out`)."""
    name = name or fn.__name__
    code = getattr(fn, "__code__", None)
    named = frozenset(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
                      if code else ())

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        if not kw or kw.keys() <= named:    # fn's own spelling: no translation needed
            return fn(*args, **kw)
        args, kw = _translate(args, kw, named)
        o = kw.pop("out", None) if out else None
        if o is not None:
            return _write_out(name, fn, args, kw, o)
        return fn(*args, **kw)
    wrapper.__wrapped_torch_keywords__ = True
    return wrapper


# out='s dtype rules differ by op in torch: these compute in out's dtype (as dtype=), these
# want out's dtype to be the result's; the others cast the result into out (same kind only).
_FACTORIES = {"zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
              "linspace", "eye"}    # torch.rand(2, 2, out=c) fills c, in c's dtype
_OUT_IS_DTYPE = {"sum", "prod", "cumsum", "cumprod"} | _FACTORIES
_OUT_SAME_DTYPE = {"matmul", "mm", "bmm", "dot", "addmm", "baddbmm", "outer", "clamp", "clip",
                   "where"}

# The functions torch gives out=; every other public function and method gets the aliases.
OUT = {"add", "sub", "mul", "div", "matmul", "mm", "bmm", "dot", "addmm", "sum", "mean", "prod",
       "cumsum", "cat", "concat", "concatenate", "stack", "exp", "log", "sqrt", "sin", "cos",
       "tanh", "sigmoid", "abs", "clamp", "clip", "pow", "neg", "maximum", "minimum", "where",
       "floor_divide", "remainder", "atan2", "lerp", "sinh", "cosh", "log1p", "expm1", "log2",
       "log10", "square", "rsqrt", "reciprocal", "floor", "ceil", "round", "trunc", "gather",
       "index_select", "tril", "triu", "logsumexp", "norm", "eq", "ne", "lt", "le", "gt", "ge",
       "outer", "baddbmm", "erf", "sign", "argmax", "argmin", "amax", "amin", "tan", "asin",
       "acos", "atan", "arcsin", "arccos", "arctan", "cumprod", "addcmul", "addcdiv",
       "index_add", "nonzero", "masked_select", "diag", "frac"} | _FACTORIES
FUNCTIONS = OUT | {"max", "min", "var", "std", "softmax", "log_softmax", "sort", "argsort",
                   "topk", "squeeze", "unsqueeze", "flatten", "unbind", "narrow", "split",
                   "chunk", "flip", "roll", "scatter", "scatter_add", "masked_fill", "all",
                   "any", "transpose", "permute", "reshape", "clone", "median", "unique",
                   "count_nonzero", "var_mean", "std_mean", "diagonal", "repeat_interleave",
                   "movedim", "unflatten", "tril", "triu", "bincount", "cdist", "einsum"}

METHODS = ("add sub mul div matmul mm bmm dot sum mean prod cumsum amax amin max min argmax "
           "argmin var std all any softmax log_softmax logsumexp norm sort argsort topk gather "
           "scatter scatter_add index_select squeeze unsqueeze flatten unbind narrow split "
           "chunk flip roll maximum minimum pow eq ne lt le gt ge atan2 lerp floor_divide "
           "remainder clamp clip add_ sub_ mul_ div_ masked_fill where cumprod median "
           "count_nonzero unique var_mean std_mean repeat_interleave diagonal").split()


def install(namespace, names):
    """Wrap namespace[name] for each name present (a module's globals or labkit's)."""
    for n in names:
        fn = namespace.get(n)
        if callable(fn) and not getattr(fn, "__wrapped_torch_keywords__", False):
            wrapper = namespace[n] = with_torch_keywords(fn, n, out=n in OUT)
            wrapper.__module__ = namespace["__name__"]   # found again as labkit.<name>


def install_methods():
    for n in METHODS:
        fn = getattr(Tensor, n, None)
        if fn is not None and not getattr(fn, "__wrapped_torch_keywords__", False):
            tensor_method(n)(with_torch_keywords(fn, n))
