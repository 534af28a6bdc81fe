"""torch's keyword spellings, accepted everywhere torch accepts them, in one place:

- input= and other= for the first two arguments: torch.matmul(input=a, other=b);
- numpy's axis= for dim= and keepdims= for keepdim= (torch takes both);
- every other name torch gives a parameter: torch_signatures.txt lists torch's parameter names
  per overload (generated from torch's own argument parser by tools/signature_audit.py), so
  x.logical_and(other=y), torch.isin(elements=..., test_elements=...) or
  linalg.norm(input=A, ord=2) reach the parameter at that position whatever labkit calls it;
- out= on the functions torch gives it: the result is written into `out` (resized if its
  shape differs, with torch's warning when it had elements) and `out` is returned. As in torch,
  out= refuses to run when grad is being recorded for any argument (it cannot be differentiated);
- a 0-d integer tensor where torch takes an int (x.sum(torch.tensor(1))), as torch's parser
  reads ints through __index__;
- keyword-only arguments torch has and labkit has no use for, at values that change nothing
  (layout=None, generator=None, pin_memory=False, non_blocking=...).

The op files keep their plain signatures; `with_torch_keywords` wraps the public functions and
the Tensor methods torch's table names once, at import (`install_table`). A call without
keywords, or with the op's own names only, goes straight through. A keyword neither torch nor
the op knows raises torch's TypeError naming the function and the keyword, with the valid ones.
"""
import difflib
import functools
import pathlib
import re
import warnings

from ..grad_mode import mode, no_grad
from ..tensor import Tensor, tensor_method

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


# keyword-only arguments torch takes and labkit has no use for, at values that change nothing
_NO_EFFECT = {"pin_memory": (False,), "non_blocking": (False, True),
              "implicit": (False, True)}     # expand(implicit=): a tracing mark in torch


def _translate(args, kw, named, positions=None, own=(), kwonly=(), names=None):
    """torch's spellings -> fn's: input/other become the first two positional arguments
    unless fn names its own parameters so (where(condition, input, other) does); a name torch
    gives the parameter at position i (`positions`) becomes the i-th positional argument when
    the ones before it are given, else fn's own name for position i (`own`). input/other are
    not torch's names where torch's table (`names`) lacks them: linalg.det(A=...) only."""
    if "input" in kw and "input" not in named and (names is None or "input" in names):
        args = (kw.pop("input"),) + args
    if "other" in kw and "other" not in named and len(args) == 1 and \
            (names is None or "other" in names):
        args = args + (kw.pop("other"),)
    for alias, name in _ALIASES.items():
        if alias in kw and alias not in named:
            if name in kw:
                raise TypeError(f"got both {name}= and its alias {alias}=; give one.")
            kw[name] = kw.pop(alias)
    for k in [k for k in kw if k in kwonly and k not in named]:
        if kw[k] is None or kw[k] in _NO_EFFECT.get(k, ()):    # layout=None, generator=None ...
            del kw[k]
    while len(args) < len(own) and own[len(args)] in kw and positions and any(
            k in positions and k not in named for k in kw):   # tile(input=x, dims=d): place
        args = args + (kw.pop(own[len(args)]),)                # x first, then torch's dims
    if positions:
        for i, k in sorted((positions[k], k) for k in kw
                           if k not in named and k in positions and k != "out"):
            if i == len(args):
                args = args + (kw.pop(k),)
            elif len(args) < i < len(own) and own[i] not in kw and own[i] not in positions:
                kw[own[i]] = kw.pop(k)      # labkit's name for torch's parameter at i
    return args, kw


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from _tensors(a)


def _write_out(name, fn, args, kw, out):
    if isinstance(out, (tuple, list)) and all(isinstance(o, Tensor) for o in out):
        pass
    elif not isinstance(out, Tensor):
        raise TypeError(f"{name}(): out must be a Tensor, got {type(out).__name__}.")
    if mode.enabled and any(t._rg for t in _tensors((out,) + args + tuple(kw.values()))):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad. Drop out= "
                           "(y = labkit.{0}(...)), or compute under labkit.no_grad().".format(name))
    if name in _OUT_IS_DTYPE and kw.get("dtype") is None:
        kw["dtype"] = out.dtype          # torch: sum(x, out=int64) sums x.long()
    if name in _FACTORIES and kw.get("device") is None:
        kw["device"] = out.device        # torch.rand(2, 2, out=c): made where c lives
    result = fn(*args, **kw)
    if isinstance(out, (tuple, list)) and isinstance(result, tuple) and \
            len(out) == len(result):     # max(x, 1, out=(values, indices)): each in its own
        return type(result)(*(_write_out(name, lambda r=r: r, (), {}, o)
                              for r, o in zip(result, out)))
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


def with_torch_keywords(fn, name=None, out=False, positions=None, kwonly=(), ints=None,
                        names=None, overloads=()):
    """fn, also accepting input=/other=/axis=/keepdims= (and out= when `out`), torch's names
    for its positional parameters (`positions`: name -> index, self/input at 0), and a 0-d
    integer tensor where torch takes an int (`ints`: see _torch_names)."""
    name = name or fn.__name__
    code = _code(fn)
    own = code.co_varnames[:code.co_argcount] if code else ()
    named = frozenset(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
                      if code else ()) - ({"out"} if out else set())   # out= is written here
    conf = {"out": out, "positions": dict(positions or {}), "kwonly": set(kwonly),
            "ints": ints or _NO_INTS, "names": None if names is None else set(names),
            "overloads": list(overloads)}

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        if name in NUMBER_INPUT:                              # torch.add(2, 3): tensor(5)
            if args and type(args[0]) in (int, float, bool):
                args = (_wrapped_number(args[0]),) + args[1:]
            elif type(kw.get("input")) in (int, float, bool):
                kw = {**kw, "input": _wrapped_number(kw["input"])}
        if conf["ints"] is not _NO_INTS:
            _refuse_floats(name, args, conf["ints"])
        at = conf["positions"].get("inplace")
        in_place = at is not None and (kw.get("inplace") or len(args) > at and args[at] is True)
        if in_place and "inplace" not in named:
            return _in_place(name, wrapper, args, kw, at, False)
        try:
            if not kw or kw.keys() <= named:    # fn's own spelling: no translation needed
                return fn(*args, **kw)
            args2, kw2 = _translate(args, dict(kw), named, conf["positions"], own,
                                    conf["kwonly"], conf["names"])
            o = kw2.pop("out", None) if conf["out"] else None
            if o is not None:
                return _write_out(name, fn, args2, kw2, o)
            return fn(*args2, **kw2)
        except NotImplementedError:
            if not in_place:                # fn has no in-place form of its own: emulate it
                raise
            return _in_place(name, wrapper, args, kw, at, True)
        except (TypeError, IndexError, RuntimeError, ValueError) as e:
            fixed = _as_ints(args, kw, conf["ints"])   # x.sum(torch.tensor(1)): torch takes it
            if fixed is None and conf["overloads"] and isinstance(e, TypeError):
                fixed = _packed(args, kw, conf["overloads"]) or \
                    _by_overload(args, kw, conf["overloads"])
            if fixed is None:
                _name_valid_keywords(e, name, kw, named, conf)
                raise
        return wrapper(*fixed[0], **fixed[1])
    wrapper.__wrapped_torch_keywords__ = conf
    return wrapper


_NO_INTS = ((), None, frozenset())

# The functions whose input torch's parser takes as a Python number too (a "wrapped number":
# torch.add(2, 3) is tensor(5), torch.div(2, 3) float32); the others want a Tensor there.
NUMBER_INPUT = {"add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                "floor_divide"}


def _wrapped_number(v):
    from ..creation import tensor
    return tensor(v)


def _in_place(name, wrapper, args, kw, at, has_inplace):
    """F.relu(x, inplace=True) and the other activations and dropouts with torch's inplace:
    computed out of place (on a copy of x while autograd records, so what backward saved is
    not overwritten) and written into x with copy_, which bumps x's version and makes x's
    grad_fn the copy, as torch's in-place forms do. Same values and gradients; one more tensor.
    A Tensor method name_ taking nothing else (relu_) does it in place itself."""
    args, kw = list(args), dict(kw)
    x = args[0] if args else kw.pop("input")
    if at == 1 and len(args) <= 2 and not kw.keys() - {"inplace"} and \
            hasattr(Tensor, name + "_") and isinstance(x, Tensor):
        return getattr(x, name + "_")()
    if len(args) > at:
        args[at] = False
    else:
        kw["inplace"] = False
    if not has_inplace:                   # fn has no inplace parameter: drop it
        if len(args) > at and at == len(args) - 1:
            args.pop()
        kw.pop("inplace", None)
    copy = x.clone() if mode.enabled and x.requires_grad else x
    return x.copy_(wrapper(copy, *args[1:], **kw))


def _name_valid_keywords(error, name, kw, named, conf):
    """A keyword the call gave that neither torch nor fn knows: raise torch's TypeError that
    names it, with the valid keywords (and the closest one), instead of Python's bare one."""
    m = _UNEXPECTED.search(str(error)) if isinstance(error, TypeError) else None
    if m is None or m.group(1) not in kw:   # not about this call's keywords (or not that error)
        return
    valid = set(named if conf["names"] is None else conf["names"])  # torch's, else fn's
    valid = {k for k in valid if k != "self" and not k.startswith("_")}
    valid |= {"out"} if conf["out"] else set()
    valid |= {a for a, n in _ALIASES.items() if n in valid}
    if m.group(1) in valid:
        raise TypeError(f"{name}(): labkit does not take torch's keyword {m.group(1)}= yet; "
                        "leave it out (or at its default).") from None
    close = difflib.get_close_matches(m.group(1), sorted(valid), 1)
    hint = f" Did you mean {close[0]}=?" if close else ""
    raise TypeError(f"{name}() got an unexpected keyword argument '{m.group(1)}'; valid "
                    f"keywords: {', '.join(sorted(valid)) or 'none'}.{hint}") from None


_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")


def _code(fn):
    """The code of fn, under any functools.wraps decorators (memory.allocating ...)."""
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return getattr(fn, "__code__", None)


def _packed(args, kw, overloads):
    """x.hsplit(1, 2) as x.hsplit((1, 2)): torch's parser takes a method's lone int-list
    parameter as varargs too. None when that is not this call."""
    if len(args) > 2 and isinstance(args[0], Tensor) and \
            all(isinstance(a, int) and not isinstance(a, bool) for a in args[1:]) and \
            any(len(pos) == 2 and pos[0] == "self" for pos in overloads):
        return (args[0], tuple(args[1:])), kw
    return None


def _by_overload(args, kw, overloads):
    """Keywords that name positional parameters placed as torch's first matching overload
    places them (arange(end=5) is arange(5), randint(high=3, size=s) is randint(3, s));
    None when no overload takes one more of them positionally."""
    positional = {n for pos in overloads for n in pos}
    for pos in overloads:
        if len(args) >= len(pos) or pos[len(args)] not in kw:
            continue
        a, k = list(args), dict(kw)
        while len(a) < len(pos) and pos[len(a)] in k:
            a.append(k.pop(pos[len(a)]))
        if not positional & k.keys():       # every positional name given has its place
            return tuple(a), k
    return None


def _refuse_floats(name, args, ints):
    """torch's TypeError for a float where every overload takes an int (x.topk(2.0),
    x.repeat(2.0, 1)): labkit's ops would otherwise round or use it silently."""
    slots, star, _ = ints
    for i, a in enumerate(args):
        if isinstance(a, float) and (i in slots or star is not None and i >= star):
            raise TypeError(f"{name}(): argument at position {i} must be int, not float "
                            f"({a!r}); torch takes an int there.")


def _int_of(v):
    """A 0-d integer tensor or a numpy integer as its int (torch's parser reads ints through
    __index__)."""
    if isinstance(v, Tensor) and v.ndim == 0 and v._data.dtype.kind in "iu":
        return int(v.item())
    if type(v).__module__ == "numpy" and getattr(v, "dtype", None) is not None and \
            v.dtype.kind in "iu" and getattr(v, "ndim", 1) == 0:
        return int(v)
    if isinstance(v, (tuple, list)) and any(_int_of(e) is not None for e in v):
        items = [e if type(e) is int else _int_of(e) for e in v]
        return None if None in items else type(v)(items) if isinstance(v, tuple) else items
    return None


def _as_ints(args, kw, ints):
    """args, kw with 0-d integer tensors at torch's int parameters made ints; None if none."""
    slots, star, names = ints
    args, changed = list(args), False
    for i, a in enumerate(args):
        if i in slots or (star is not None and i >= star):
            v = _int_of(a)
            if v is not None:
                args[i], changed = v, True
    for k in names & kw.keys():
        v = _int_of(kw[k])
        if v is not None:
            kw = {**kw, k: v}
            changed = True
    return (tuple(args), kw) if changed else None


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


def _table():
    """'owner.name' -> [(positional names, keyword-only names), ...]: torch's overloads."""
    if not _TABLE:
        for line in pathlib.Path(__file__).with_name("torch_signatures.txt").read_text() \
                .splitlines():
            if line and not line.startswith("#"):
                key, *overloads = line.split("\t")
                _TABLE[key] = [tuple(part.split(",") if part else [] for part in o.split("|"))
                               for o in overloads]
    return _TABLE


_TABLE = {}


def _torch_names(owner, n):
    """(name -> position, whether torch gives out=, keyword-only names, int slots, every name
    or None if torch's table lacks owner.n) for torch's owner.n. Int slots: (positions every
    overload takes an int at, where int varargs start, names of int parameters); a position
    some overload takes a tensor at is not one."""
    positions, has_out, kwnames, names = {}, False, set(), set()
    offset = 1 if owner == "Tensor" else 0       # a method's self is position 0
    int_at, other_at, star, int_names, clash = set(), set(), None, set(), set()
    for pos, kwonly in _table().get(f"{owner}.{n}", ()):
        for i, p in enumerate(pos):
            (int_at if p.endswith("#") else other_at).add(i + offset)
            p = p.rstrip("#")
            if p == "*":
                star = i + offset if pos[i].endswith("#") else star
            else:
                names.add(p)
                if positions.setdefault(p, i + offset) != i + offset:
                    clash.add(p)            # arange(end) / arange(start, end): no position
                if pos[i].endswith("#"):
                    int_names.add(p)
        kwonly = [k.rstrip("#") for k in kwonly]
        has_out = has_out or "out" in kwonly
        kwnames.update(kwonly)
    for p in clash:
        del positions[p]
    ints = (frozenset(int_at - other_at), star, frozenset(int_names))
    ints = ints if ints[0] or star is not None or int_names else _NO_INTS
    key = f"{owner}.{n}"
    return positions, has_out, kwnames, ints, names | kwnames if key in _table() else None


def _overloads(owner, n):
    """torch's positional names per overload of owner.n (a method's with 'self' first)."""
    first = ["self"] if owner == "Tensor" else []
    return [tuple(first + [p.rstrip("#") for p in pos]) for pos, _ in _table().get(
        f"{owner}.{n}", ())]


def _needs(fn, has_out):
    """Whether fn gets the wrapper: every Python function torch's table names does (torch's
    keyword names, 0-d int tensors, and an unexpected keyword named with the valid ones), but
    one taking **kwargs passes names on to an op that has them, and needs it for out= only."""
    code = _code(fn)
    if code is None:
        return False
    return has_out or not code.co_flags & 0x08


_WRAPPERS = {}     # a namespace function -> its wrapper, shared by every namespace holding it


def install_table(namespace, owner):
    """Wrap every function of a namespace (a module's globals, or Tensor for owner 'Tensor')
    that torch's table gives names or out= it lacks."""
    get = (lambda n: Tensor.__dict__.get(n)) if owner == "Tensor" else namespace.get
    prefix = owner + "."
    for key in _table():
        if not key.startswith(prefix):
            continue
        n = key[len(prefix):]
        fn = get(n)
        if not callable(fn) or isinstance(fn, type):
            continue
        positions, has_out, kwnames, ints, names = _torch_names(owner, n)
        if owner != "Tensor" and fn in _WRAPPERS:   # one function, two namespaces: one wrapper
            namespace[n] = fn = _WRAPPERS[fn]       # (labkit.linalg.matrix_exp is matrix_exp)
        conf = getattr(fn, "__wrapped_torch_keywords__", None)
        if isinstance(conf, dict):          # wrapped already: learn this owner's names too
            for k, i in positions.items():
                conf["positions"].setdefault(k, i)
            conf["out"] = conf["out"] or (has_out and owner != "Tensor")
            conf["kwonly"] |= kwnames
            if names is not None:
                conf["names"] = (conf["names"] or set()) | names
            if conf["ints"] is _NO_INTS:
                conf["ints"] = ints
            conf["overloads"] += _overloads(owner, n)
            continue
        if not _needs(fn, has_out and owner != "Tensor") or (
                owner == "Tensor" and _bare(fn, positions, kwnames, names)):
            continue
        wrapper = with_torch_keywords(fn, n, out=has_out and owner != "Tensor",
                                      positions=positions, kwonly=kwnames, ints=ints,
                                      names=names, overloads=_overloads(owner, n))
        if owner == "Tensor":
            tensor_method(n)(wrapper)
        else:
            wrapper.__module__ = namespace.get("__name__", wrapper.__module__)
            namespace[n] = _WRAPPERS[fn] = wrapper


def install(namespace, names):
    """Wrap namespace[name] for each name present (a module's globals or labkit's)."""
    for n in names:
        fn = namespace.get(n)
        if callable(fn) and not getattr(fn, "__wrapped_torch_keywords__", False):
            positions, _, kwnames, ints, names = _torch_names("torch", n)
            wrapper = namespace[n] = with_torch_keywords(fn, n, out=n in OUT, positions=positions,
                                                         kwonly=kwnames, ints=ints, names=names,
                                                         overloads=_overloads("torch", n))
            wrapper.__module__ = namespace["__name__"]   # found again as labkit.<name>
            _WRAPPERS[fn] = wrapper


def _bare(fn, positions, kwnames, names):
    """A method that takes nothing but self, in torch and here (x.tanh(), x.exp(), x.t()): a
    wrapper would translate nothing, and Python's own TypeError already names the method and
    the keyword, so it stays unwrapped (these are the hot elementwise ops: W2 measures them)."""
    code = _code(fn)
    return (code is not None and code.co_argcount == 1 and not code.co_kwonlyargcount
            and not code.co_flags & 0x0C and not positions and not kwnames and not names)


def install_methods():
    for n in METHODS:
        fn = getattr(Tensor, n, None)
        if fn is not None and not getattr(fn, "__wrapped_torch_keywords__", False):
            positions, _, kwnames, ints, names = _torch_names("Tensor", n)
            if _bare(fn, positions, kwnames, names):
                continue
            tensor_method(n)(with_torch_keywords(fn, n, positions=positions, kwonly=kwnames,
                                                 ints=ints, names=names,
                                                 overloads=_overloads("Tensor", n)))
    install_table(None, "Tensor")
