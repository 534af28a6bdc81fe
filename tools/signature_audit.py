"""Audit labkit's call forms against torch's own signatures, derived mechanically.

    python tools/signature_audit.py               # the summary table
    python tools/signature_audit.py -v            # also every mismatch, one line each
    python tools/signature_audit.py sum max view  # only these names
    python tools/signature_audit.py --defaults    # parameters whose defaults differ

Where the signatures come from (nothing is typed in from memory):
  1. torch's C++ argument parser lists every overload when a call has a keyword no overload
     takes: torch.sum(torch.ones(1), __bogus=1) -> "sum() received an invalid combination of
     arguments ... expected one of: * (Tensor input, *, torch.dtype dtype = None) * (...)".
  2. A function with one overload raises a plainer error instead; its signature is read from
     torch's generated stubs (torch/_C/_VariableFunctions.pyi, _nn.pyi, TensorBase in
     __init__.pyi), which come from the same schema.
  3. Python-level functions (nn.functional, most of linalg ...): inspect.signature.

Audited: the names both libraries have in torch.*, torch.Tensor.*, torch.nn.functional.*,
torch.linalg.*, torch.special.*. For each overload, arguments are built from the parsed types
(a Tensor -> a small fixed tensor whose dtype and shape suit the name; an int dim -> a valid
dim; a size -> the shape) until torch accepts the call; that call is then made in several
forms on both libraries (required arguments only; all positional; trailing arguments by
keyword; every argument by keyword; explicit None for None defaults; out=; sizes as varargs,
tuple, list and torch.Size; an int or a Number as a 0-d tensor) and the results compared
(values, dtype, shape; random functions: dtype and shape). Kinds of mismatch:
  rejects   torch runs the form, labkit raises
  differs   both run it, the answers differ
  accepts   torch raises TypeError/RuntimeError/..., labkit answers (matters less)
"""
import ast
import inspect
import math
import os
import pathlib
import re
import sys
import warnings
from collections import Counter, defaultdict

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import torch  # noqa: E402

import labkit  # noqa: E402
import labkit.linalg  # noqa: E402,F401
import labkit.nn.functional  # noqa: E402,F401
import labkit.special  # noqa: E402,F401
from snippets import compare_values  # noqa: E402

# Names not worth calling: global state, I/O, memory addresses, conversions out of the library.
SKIP = re.compile(r"^(set_|save|load|manual_seed|seed|initial_seed|compile|use_deterministic|"
                  r"from_file|from_numpy|frombuffer|numpy|tolist|item|data_ptr|storage|"
                  r"untyped_storage|share_memory_|pin_memory|is_pinned|cuda|cpu|mps|xpu|to_sparse|"
                  r"backward|register_|retain_grad|requires_grad_|get_default|is_grad_enabled|"
                  r"is_inference_mode|vmap|cond|export|jit|onnx|typename|get_rng_state|"
                  r"get_device_module|sym_|is_storage|is_tensor|asarray|as_tensor|tensor$|"
                  r"Tensor|Size|dtype|device|Generator|no_grad|enable_grad|inference_mode|"
                  r"autocast|print|apply_|map_|map2_|new_tensor|align|refine_names|rename|"
                  r"unflatten_names|dim_order|element_size|nbytes|itemsize|"
                  r"resize|set_|record_stream|is_shared|module_load|__)")
RANDOM = re.compile(r"(rand|dropout|bernoulli|normal|multinomial|poisson|empty|uniform|"
                    r"exponential|cauchy|geometric|log_normal|random_|gumbel|rrelu|"
                    r"fractional_max_pool|alpha_dropout|feature_alpha|^new$)")

STUBS = pathlib.Path(torch.__file__).parent / "_C"


# ---------------------------------------------------------------- signatures
class Param:
    __slots__ = ("name", "type", "has_default", "default", "kwonly", "varargs")

    def __init__(self, name, type_, has_default=False, default=None, kwonly=False,
                 varargs=False):
        self.name, self.type, self.has_default, self.default = name, type_, has_default, default
        self.kwonly, self.varargs = kwonly, varargs

    def __repr__(self):
        d = f"={self.default!r}" if self.has_default else ""
        return f"{'*' if self.varargs else ''}{self.type} {self.name}{d}"


def _category(t):
    """A type as printed by torch's parser, in a stub, or an annotation -> one category."""
    t = t.replace("typing.", "").replace("Optional[", "").strip()
    if re.fullmatch(r"(Tensor\??|Tensor \| None)", t):
        return "tensor"
    if "tuple of Tensors" in t or "tuple[Tensor" in t or "list[Tensor" in t or \
            "Sequence[Tensor" in t:
        return "tensors"
    if t.startswith("tuple of ints") or "_size" in t or "Sequence[_int" in t or \
            t.startswith("tuple of SymInts") or t == "int[]":
        return "ints"
    if t.startswith("tuple of floats") or "Sequence[_float" in t:
        return "floats"
    if t.startswith("tuple of names") or "Dimname" in t or "str | EllipsisType" in t:
        return "names"
    if t in ("int", "_int", "SymInt", "int?", "_int | SymInt", "_int | None", "SymInt?"):
        return "int"
    if t in ("float", "_float", "float?", "_float | None", "double"):
        return "float"
    if t in ("bool", "_bool", "bool?", "_bool | None"):
        return "bool"
    if t.startswith("Number") or "Scalar" in t or "_complex" in t:
        return "number"
    if "dtype" in t:
        return "dtype"
    if "Device" in t or "device" in t:
        return "device"
    if t in ("str", "str?", "c10::string_view", "str | None"):
        return "str"
    return "other:" + t


_PARAM = re.compile(r"^(?P<type>.+?) (?P<name>\w+)(?: = (?P<default>.+))?$")


def _literal(text):
    if text is None:
        return False, None
    try:
        return True, ast.literal_eval(text.replace("true", "True").replace("false", "False"))
    except (ValueError, SyntaxError):
        return True, text


def parse_overloads(message):
    """The '* (Tensor input, ...)' lines of a parser error -> [[Param, ...], ...]."""
    overloads = []
    for line in message.splitlines():
        if not line.startswith(" * ("):
            continue
        body, params, kwonly = line[4:].rstrip()[:-1], [], False
        for piece in re.split(r", (?![^()\[\]]*[)\]])", body) if body else []:
            piece = piece.strip()
            if piece == "*":
                kwonly = True
                continue
            m = _PARAM.match(piece)
            if not m:
                params = None
                break
            has, default = _literal(m["default"])
            params.append(Param(m["name"], _category(m["type"]), has, default, kwonly))
        if params is not None:
            overloads.append(params)
    return overloads


def _stub_defs():
    """name -> [ast.FunctionDef] for functions (module level) and methods (TensorBase)."""
    funcs, methods = defaultdict(list), defaultdict(list)
    for fname in ("_VariableFunctions.pyi", "_nn.pyi", "_fft.pyi"):
        p = STUBS / fname
        if p.exists():
            for node in ast.parse(p.read_text()).body:
                if isinstance(node, ast.FunctionDef):
                    funcs[node.name].append(node)
    tree = ast.parse((STUBS / "__init__.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "TensorBase":
            for f in node.body:
                if isinstance(f, ast.FunctionDef):
                    methods[f.name].append(f)
    return funcs, methods


def _stub_overloads(defs, method):
    overloads = []
    for f in defs:
        a, params = f.args, []
        pos = a.posonlyargs + a.args
        defaults = [None] * (len(pos) - len(a.defaults)) + a.defaults
        for arg, d in zip(pos, defaults):
            if method and arg.arg == "self":
                continue
            params.append(_stub_param(arg, d, False))
        if a.vararg:
            p = _stub_param(a.vararg, None, False)
            p.varargs = True
            params.append(p)
        for arg, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append(_stub_param(arg, d, True))
        overloads.append(params)
    return overloads


def _stub_param(arg, default, kwonly):
    t = ast.unparse(arg.annotation) if arg.annotation is not None else "?"
    has = default is not None
    value = None
    if has:
        try:
            value = ast.literal_eval(default)
        except ValueError:
            value = ast.unparse(default)
    return Param(arg.arg, _category(t), has, value, kwonly)


def _py_overloads(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    params = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            continue
        if p.kind is p.VAR_POSITIONAL:
            params.append(Param(p.name, _py_category(p), varargs=True))
            continue
        has = p.default is not p.empty
        params.append(Param(p.name, _py_category(p), has, p.default if has else None,
                            p.kind is p.KEYWORD_ONLY))
    return [params]


def _py_category(p):
    ann = p.annotation
    if ann is not p.empty:
        c = _category(ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann)))
        if not c.startswith("other"):
            return c
    d = p.default
    if isinstance(d, bool):
        return "bool"
    if isinstance(d, int):
        return "int"
    if isinstance(d, float):
        return "float"
    if isinstance(d, str):
        return "str"
    return "guess"


def _schema_defaults(overloads, name):
    """A stub's '...' defaults (torch._C._nn's) filled in from the native schema."""
    known = {}
    for sc in torch._C._jit_get_schemas_for_operator(f"aten::{name}"):
        for a in sc.arguments:
            if a.has_default_value():
                known.setdefault(a.name, a.default_value)
    for params in overloads:
        for p in params:
            if p.has_default and p.default is Ellipsis and p.name in known:
                p.default = known[p.name]
    return overloads


def _schema_type(arg):
    t = str(arg.type)
    t = t[len("Optional["):-1] if t.startswith("Optional[") else t
    if arg.name == "dtype":
        return "torch.dtype"
    return {"List[int]": "tuple of ints", "List[Tensor]": "tuple of Tensors",
            "number": "Number", "Scalar": "Number"}.get(t, t)


def _schema_overloads(op):
    """op's native schemas (the parser's own source) -> overloads, as the Python binding
    shows them: self is input, an out= overload is one keyword-only out."""
    schemas = torch._C._jit_get_schemas_for_operator(op)
    has_out = any(any(a.is_out for a in sc.arguments) for sc in schemas)
    overloads = []
    for sc in schemas:
        if any(a.is_out for a in sc.arguments):
            continue
        params = [Param("input" if a.name == "self" else a.name, _category(_schema_type(a)),
                        a.has_default_value(), a.default_value, a.kwarg_only)
                  for a in sc.arguments]
        if has_out:
            params.append(Param("out", "tensor", True, None, True))
        overloads.append(params)
    return overloads


def signatures(owner, name, fn, stubs):
    """(source, overloads) for torch's `fn` (owner: 'torch', 'Tensor', 'F', 'linalg' ...)."""
    probe = torch.ones(2, 2)
    if isinstance(fn, (type(torch.sum), type(probe.sum))) or not inspect.isfunction(fn):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if owner == "Tensor":
                    getattr(probe, name)(__bogus=1)
                else:
                    fn(probe, __bogus=1)
        except TypeError as e:
            ov = parse_overloads(str(e))
            if ov:
                return "parser", ov
        except Exception:   # noqa: BLE001 -- no overload list: try the stubs
            pass
        if owner in ("linalg", "special"):   # the stubs hold torch.svd, not linalg.svd
            ov = _schema_overloads(f"aten::{owner}_{name}")
            if ov:
                return "schema", ov
        funcs, methods = stubs
        defs = methods.get(name) if owner == "Tensor" else funcs.get(name)
        if defs:
            return "stub", _schema_defaults(_stub_overloads(defs, owner == "Tensor"), name)
    return "inspect", _py_overloads(fn)


# ---------------------------------------------------------------- values
class T:
    """An abstract tensor: made into each library's tensor from the same numpy array."""

    def __init__(self, array, dtype=None):
        self.array, self.dtype = array, dtype or str(array.dtype)

    def make(self, L):
        return L.tensor(self.array.copy(), dtype=getattr(L, self.dtype))

    def __repr__(self):
        if self.array.ndim == 0:
            return f"tensor({self.array.item()!r}, {self.dtype})"
        return f"T{tuple(self.array.shape)}:{self.dtype}"


class Dt:
    def __init__(self, name):
        self.name = name

    def make(self, L):
        return getattr(L, self.name)

    def __repr__(self):
        return self.name


class SizeV:
    def __init__(self, shape):
        self.shape = tuple(shape)

    def make(self, L):
        return L.Size(self.shape)

    def __repr__(self):
        return f"Size({list(self.shape)})"


class Empty:
    """out=: an empty tensor of the expected result's dtype (resized by the call)."""

    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape

    def make(self, L):
        return L.empty(self.shape, dtype=getattr(L, self.dtype))

    def __repr__(self):
        return f"out(empty{list(self.shape)}:{self.dtype})"


def materialize(v, L):
    if hasattr(v, "make"):
        return v.make(L)
    if isinstance(v, list):
        return [materialize(x, L) for x in v]
    if isinstance(v, tuple):
        return tuple(materialize(x, L) for x in v)
    return v


_rng = np.random.default_rng(0)
BASE = [(3, 4), (3, 3), (4,), (2, 3, 4), (2, 3, 4, 5), ()]
_ARRAYS = {}


def floats(shape, salt=0, lo=-1.5, hi=1.5):
    key = (shape, salt, lo, hi)
    if key not in _ARRAYS:
        r = np.random.default_rng(hash(key) % 2**32)
        _ARRAYS[key] = r.uniform(lo, hi, shape).astype(np.float32)
    return _ARRAYS[key]


MASKS = {"mask", "condition"}
INDEX = {"index", "indices", "target", "labels", "offsets", "indices_or_sections", "repeats",
         "counts", "minlength"}
SQUARE_FNS = re.compile(r"(linalg|inverse|det|cholesky|lu|qr|svd|eig|solve|matrix_|pinv|"
                        r"triangular|logdet|slogdet|trace|ormqr|householder|geqrf|potr|mm$|"
                        r"addmm|matmul|chain|multi_dot|bmm|baddbmm|addbmm|addmv|mv|ger|"
                        r"outer|inner|dot|vdot|kron)")


def tensor_candidates(pname, shape, fname):
    n = pname.lower()
    if n in MASKS:
        return [T(floats(shape, 7) > 0)]
    if n in ("index", "indices") or n.endswith("_index") or n == "idx":
        hi = max(1, min(shape) if shape else 1)
        full = np.arange(int(np.prod(shape))).reshape(shape) % hi if shape else np.array(0)
        return [T(full.astype(np.int64)), T(np.array([0, hi - 1], np.int64)),
                T(np.array([1], np.int64))]
    if n in ("target", "labels"):
        c = shape[1] if len(shape) > 1 else 2
        return [T(floats(shape, 3, 0.05, 0.95)), T(np.arange(shape[0] if shape else 1) % c)]
    if n in ("weight",) and fname.startswith("conv"):
        return [T(floats((2, shape[1] if len(shape) > 1 else 1) + (2,) * max(len(shape) - 2, 0),
                         5))]
    if n in ("boundaries", "sorted_sequence", "bins"):
        return [T(np.sort(floats((5,), 9)))]
    if n in ("repeats", "counts", "offsets", "minlength", "sizes"):
        return [T(np.full(shape[:1] or (1,), 2, np.int64))]
    salt = sum(map(ord, n)) % 11
    if n in ("p", "probs", "prob") or fname in ("multinomial", "bernoulli"):
        return [T(floats(shape, salt, 0.05, 0.95))]
    return [T(floats(shape, salt)), T(floats(shape, salt).astype(np.float64)),
            T((floats(shape, salt) * 3).astype(np.int64))]


def int_candidates(pname, shape, fname):
    n, nd = pname.lower(), max(len(shape), 1)
    if n in ("dim", "dim0", "axis", "start_dim", "source", "dimension", "ndim"):
        return [1 % nd, -1, 0]
    if n in ("dim1", "end_dim", "destination", "dim2"):
        return [-1, 0]
    if n in ("diagonal", "offset", "k") and "topk" not in fname and "kthvalue" not in fname:
        return [1, 0, -1]
    if n in ("groups", "num_groups", "upscale_factor", "downscale_factor", "chunks",
             "sections", "repeats", "n", "num_samples", "output_size", "minlength", "start",
             "step", "correction", "unbiased"):
        return [1, 2]
    if n in ("steps", "num_classes", "window_length", "bins", "length", "end", "high",
             "max", "row", "col", "N"):
        return [3, 5]
    if n in ("low", "min", "padding", "padding_idx", "ignore_index", "reduction"):
        return [0, 1]
    return [2, 1, 0]


def ints_candidates(pname, shape, fname):
    n, nd = pname.lower(), len(shape)
    if n in ("size", "shape", "sizes", "newshape"):
        if fname in ("expand", "broadcast_to", "view", "reshape", "new_empty", "new_zeros",
                     "new_ones", "new_full") or "resize" in fname:
            return [shape, (-1,)]
        if fname in ("repeat", "tile"):
            return [(2,) * nd, (2,)]
        return [shape or (2,), (2,)]
    if n in ("dims", "perm", "permutation"):
        if fname in ("permute", "movedim"):
            return [tuple(range(nd))[::-1]]
        return [(0,), (-1,)]
    if n in ("dim", "axis", "source", "destination"):
        return [(0,), (-1,), (0, 1)]
    if n in ("kernel_size", "output_size", "upscale_factor", "scale_factor"):
        return [2, (2,) * max(nd - 2, 1)]
    if n in ("stride", "dilation"):
        return [1]
    if n in ("padding", "output_padding"):
        return [0]
    if n in ("normalized_shape",):
        return [shape[-1:]]
    if n in ("shifts",):
        return [1, (1,)]
    if n in ("split_size", "split_size_or_sections", "sections", "indices", "split_sizes"):
        return [(1, shape[0] - 1) if shape else (1,), 1]
    if n == "pad":
        return [(1, 1)]
    return [shape or (2,), (2,), (1,)]


STRS = {"reduction": "sum", "indexing": "ij", "rounding_mode": "floor", "approximate": "tanh",
        "ord": "fro", "side": "right", "UPLO": "L", "interpolation": "linear",
        "mode": None, "padding": "same", "padding_mode": "zeros", "driver": None,
        "pivot": None, "norm": "ortho", "out_dtype": None, "memory_format": None}


def candidates(p, shape, fname):
    """Values to try for one parameter (first: the preferred)."""
    c, n = p.type, p.name
    if c == "tensor" or (c == "guess" and n in ("input", "other", "target", "weight", "bias",
                                                "x", "x1", "x2", "y", "A", "B", "input1",
                                                "input2", "anchor", "positive", "negative",
                                                "tensor", "self", "mat1", "mat2", "vec",
                                                "mask", "index", "src", "source", "values")):
        return tensor_candidates(n, shape, fname)
    if c == "tensors" or (c == "guess" and n in ("tensors", "inputs", "operands", "matrices")):
        return [[T(floats(shape, 1)), T(floats(shape, 2))]]
    if c == "int" or (c == "guess" and n in ("dim", "k", "n")):
        return int_candidates(n, shape, fname)
    if c == "ints":
        return ints_candidates(n, shape, fname)
    if c == "floats":
        return [(0.5, 1.0)]
    if c == "float":
        if n in ("eps",):
            return [1e-5]
        if n in ("p",) and "drop" in fname:
            return [0.5]
        if n in ("momentum",):
            return [0.2]
        return [0.5, 2.0]
    if c == "number":
        if n in ("min",):
            return [-0.5, 0]
        if n in ("max",):
            return [0.5, 1]
        return [2, 0.5]
    if c == "bool":
        d = p.default if p.has_default and isinstance(p.default, bool) else False
        return [not d, d]
    if c == "dtype":
        return [Dt("float64"), Dt("int64")]
    if c == "device":
        return ["cpu"]
    if c == "str":
        v = STRS.get(n)
        return [v] if v else []
    return []


# ---------------------------------------------------------------- calls
class Call:
    def __init__(self, owner, name, args, kwargs, form):
        self.owner, self.name, self.args, self.kwargs, self.form = owner, name, args, kwargs, form

    def key(self):
        return repr((self.args, sorted(self.kwargs.items())))

    def __repr__(self):
        a = [repr(x) for x in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        if self.owner == "Tensor":
            return f"{a[0]}.{self.name}({', '.join(a[1:])})"
        return f"{self.owner}.{self.name}({', '.join(a)})"


def resolve(L, owner, name):
    mod = {"torch": L, "Tensor": None, "F": L.nn.functional, "linalg": L.linalg,
           "special": L.special}[owner]
    return None if mod is None else getattr(mod, name)


def execute(L, call):
    args = materialize(call.args, L)
    kwargs = {k: materialize(v, L) for k, v in call.kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            if call.owner == "Tensor":
                return getattr(args[0], call.name)(*args[1:], **kwargs), kwargs.get("out")
            return resolve(L, call.owner, call.name)(*args, **kwargs), kwargs.get("out")


def _shape_only(r):
    if isinstance(r, (tuple, list)):
        return [_shape_only(x) for x in r]
    if hasattr(r, "shape") and hasattr(r, "dtype"):
        return (tuple(r.shape), str(r.dtype).split(".")[-1])
    return r


def _real(r, L):
    """r with each complex tensor as its (real, imag) pairs, which compare_values can check."""
    if isinstance(r, (tuple, list)):
        return type(r)(_real(x, L) for x in r) if type(r) in (tuple, list) else r
    if isinstance(r, L.Tensor) and r.is_complex():
        return L.view_as_real(r.resolve_conj() if hasattr(r, "resolve_conj") else r)
    return r


def outcome(call):
    """kind ('ok', 'rejects', 'differs', 'accepts', 'both_raise') and a detail."""
    try:
        tr, tout = execute(torch, call)
        terr = None
    except Exception as e:   # noqa: BLE001
        terr = e
    try:
        lr, lout = execute(labkit, call)
        lerr = None
    except Exception as e:   # noqa: BLE001
        lerr = e
    if terr is not None and lerr is not None:
        return "both_raise", ""
    if terr is not None:
        if isinstance(terr, (TypeError, RuntimeError, ValueError, IndexError)):
            return "accepts", f"torch {type(terr).__name__}: {str(terr).splitlines()[0][:120]}"
        return "both_raise", ""
    if lerr is not None:
        return "rejects", f"labkit {type(lerr).__name__}: {str(lerr).splitlines()[0][:140]}"
    try:
        if RANDOM.search(call.name):
            m, r = _shape_only(lr), _shape_only(tr)
            if m != r:
                return "differs", f"labkit {m}, torch {r}"
        else:
            compare_values(repr(call), _real(lr, labkit), _real(tr, torch))
            if tout is not None:
                compare_values(repr(call) + " (out)", _real(lout, labkit), _real(tout, torch))
                if (lr is lout) != (tr is tout):
                    return "differs", "out=: the returned tensor is not out"
    except AssertionError as e:
        return "differs", str(e).replace("\n", " ")[-200:]
    except Exception as e:   # noqa: BLE001 -- comparing failed (e.g. an unexpected type)
        return "differs", f"{type(e).__name__}: {e}"[:200]
    return "ok", ""


def torch_accepts(call):
    try:
        r, _ = execute(torch, call)
    except Exception:   # noqa: BLE001
        return None
    return r


def first_valid(owner, name, params):
    """A torch-accepted assignment {param: value} (optionals included where possible)."""
    positional = [p for p in params if not p.kwonly and p.name != "out"]
    for shape in BASE:
        for variant in range(3):
            values, ok = {}, True
            for p in params:
                if p.name == "out" or p.type in ("names",):
                    if not p.has_default:
                        ok = False
                    continue
                cands = candidates(p, shape, name)
                if not cands:
                    if not p.has_default and not p.varargs:
                        ok = False
                    continue
                values[p.name] = cands[min(variant, len(cands) - 1)]
            if not ok:
                return None
            if owner == "Tensor":
                self_v = tensor_candidates("self", shape, name)
                self_v = self_v[min(variant, len(self_v) - 1)]
            else:
                self_v = None
            # all positional first; if torch refuses, drop optional arguments one by one
            opt = [p.name for p in params if p.has_default and p.name in values]
            for drop in range(len(opt) + 1):
                vals = {k: v for k, v in values.items() if k not in opt[len(opt) - drop:]}
                call = build(owner, name, params, vals, self_v, "probe")
                if call is not None and torch_accepts(call) is not None:
                    return vals, self_v, positional
    return None


def build(owner, name, params, values, self_v, form, keyword_from=None, all_kw=False):
    """The call with `values`: positional parameters positionally up to `keyword_from`, the
    rest (and keyword-only ones) by keyword; None when a positional gap would be needed."""
    args = [self_v] if owner == "Tensor" else []
    kwargs, gap = {}, False
    pos_i = 0
    for p in params:
        if p.name not in values:
            if not p.kwonly:
                gap = True
            continue
        v = values[p.name]
        if p.kwonly:
            kwargs[p.name] = v
            continue
        if p.varargs:
            if gap or all_kw:
                return None
            args.extend(v if isinstance(v, (tuple, list)) else [v])
            continue
        by_kw = all_kw or gap or (keyword_from is not None and pos_i >= keyword_from)
        if by_kw:
            kwargs[p.name] = v
        else:
            args.append(v)
        pos_i += 1
    return Call(owner, name, args, kwargs, form)


def forms(owner, name, params, values, self_v):
    """The call forms to try for one overload's valid assignment."""
    out = []
    req = {k: v for k, v in values.items()
           if not next(p for p in params if p.name == k).has_default}
    n_req = sum(1 for p in params if not p.kwonly and not p.has_default and p.name in values)
    out.append(build(owner, name, params, req, self_v, "required"))
    out.append(build(owner, name, params, values, self_v, "positional"))
    out.append(build(owner, name, params, values, self_v, "trailing_kw", keyword_from=n_req))
    out.append(build(owner, name, params, values, self_v, "all_kw", all_kw=True))
    nones = {p.name: None for p in params if p.has_default and p.default is None
             and p.name != "out" and p.type != "names"}
    if nones:
        out.append(build(owner, name, params, {**req, **nones}, self_v, "none_defaults",
                         keyword_from=n_req))
    for p in params:
        v = values.get(p.name)
        if p.type == "ints" and isinstance(v, tuple) and len(v) > 0:
            first_pos = not p.kwonly and params.index(p) == (0 if owner == "Tensor" else 0)
            for form, alt in (("size_list", list(v)), ("size_Size", SizeV(v)),
                              ("size_varargs", v if len(v) > 1 else None)):
                if alt is None or (form == "size_varargs" and not first_pos):
                    continue
                if form == "size_varargs":
                    c = build(owner, name, params, {**req, p.name: v}, self_v, form)
                    if c is not None and c.args and p.name not in c.kwargs:
                        i = c.args.index(v) if v in c.args else None
                        if i is not None:
                            c.args = c.args[:i] + list(v) + c.args[i + 1:]
                            out.append(c)
                    continue
                out.append(build(owner, name, params, {**values, p.name: alt}, self_v, form))
        if p.type == "int" and isinstance(v, int) and not isinstance(v, bool):
            out.append(build(owner, name, params, {**values, p.name: T(np.array(v, np.int64))},
                             self_v, "int_as_tensor"))
        if p.type == "number" and isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(build(owner, name, params, {**values, p.name: float(v)} if
                             isinstance(v, int) else {**values, p.name: T(np.array(v))},
                             self_v, "number_variant"))
    if any(p.name == "out" for p in params):
        probe = build(owner, name, params, values, self_v, "out")
        r = torch_accepts(probe) if probe is not None else None
        if isinstance(r, torch.Tensor):
            dt = str(r.dtype).split(".")[-1]
            for form, shape in (("out", tuple(r.shape)), ("out_resize", (0,))):
                c = build(owner, name, params, values, self_v, form)
                c.kwargs["out"] = Empty(dt, shape)
                out.append(c)
    seen, result = set(), []
    for c in out:
        if c is not None and c.key() not in seen:
            seen.add(c.key())
            result.append(c)
    return result


# ---------------------------------------------------------------- the audit
def names():
    """(owner, name, torch fn) for each name both libraries have."""
    pairs = [("torch", torch, labkit), ("F", torch.nn.functional, labkit.nn.functional),
             ("linalg", torch.linalg, labkit.linalg), ("special", torch.special, labkit.special)]
    found = []
    for owner, t, lab in pairs:
        for n in sorted(dir(t)):
            if n.startswith("_") or SKIP.match(n) or not hasattr(lab, n):
                continue
            fn = getattr(t, n)
            if inspect.isclass(fn) or inspect.ismodule(fn) or not callable(fn):
                continue
            if owner == "torch" and getattr(fn, "__module__", "") and \
                    not str(getattr(fn, "__module__", "")).startswith("torch") and \
                    not inspect.isbuiltin(fn):
                continue
            found.append((owner, n, fn))
    for n in sorted(dir(torch.Tensor)):
        if n.startswith("_") or SKIP.match(n) or not hasattr(labkit.Tensor, n):
            continue
        fn = getattr(torch.Tensor, n)
        if callable(fn) and not isinstance(inspect.getattr_static(torch.Tensor, n), property):
            found.append(("Tensor", n, fn))
    return found


def audit(only=None, verbose=False):
    stubs = _stub_defs()
    stats, mismatches = Counter(), []
    funcs = 0
    for owner, name, fn in names():
        if only and name not in only:
            continue
        source, overloads = signatures(owner, name, fn, stubs)
        if not overloads:
            stats["no signature"] += 1
            continue
        funcs += 1
        stats["source " + source] += 1
        for params in overloads:
            found = first_valid(owner, name, params)
            if found is None:
                stats["overloads without a torch-valid call"] += 1
                continue
            stats["overloads called"] += 1
            values, self_v, _ = found
            for call in forms(owner, name, params, values, self_v):
                kind, detail = outcome(call)
                stats["forms"] += 1
                stats[kind] += 1
                if kind in ("rejects", "differs", "accepts"):
                    mismatches.append((kind, call.form, repr(call), detail))
    return funcs, stats, mismatches


# ---------------------------------------------------------------- defaults
def _labkit_signature(owner, name):
    """(labkit's parameters of owner.name, its keyword table conf) under any wrappers."""
    fn = getattr(labkit.Tensor, name) if owner == "Tensor" else resolve(labkit, owner, name)
    conf = getattr(fn, "__wrapped_torch_keywords__", None)
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None, conf
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)], conf


# Defaults that read differently and mean the same, each checked by a call without the
# argument on both libraries: torch.X losses' printed reduction=Mean is not what the binding
# passes when it is omitted (0: torch.kl_div(x, y) is elementwise), and labkit's None means
# torch's default value here.
SAME_MEANING = {("torch.binary_cross_entropy_with_logits", "reduction"),
                ("torch.cosine_embedding_loss", "reduction"),
                ("torch.hinge_embedding_loss", "reduction"), ("torch.kl_div", "reduction"),
                ("torch.margin_ranking_loss", "reduction"),
                ("torch.triplet_margin_loss", "reduction"), ("torch.ctc_loss", "reduction"),
                ("torch.std", "unbiased"), ("torch.var", "unbiased"),
                ("torch.std_mean", "unbiased"), ("torch.var_mean", "unbiased"),
                ("Tensor.std", "unbiased"), ("Tensor.var", "unbiased"),
                ("torch.trapezoid", "dx"), ("torch.trapz", "dx"),
                ("torch.cumulative_trapezoid", "dx"), ("torch.nan_to_num", "nan"),
                ("Tensor.nan_to_num", "nan"), ("Tensor.nan_to_num_", "nan"),
                ("torch.gradient", "spacing"), ("Tensor.contiguous", "memory_format"),
                ("Tensor.is_contiguous", "memory_format")}


def _same_default(t, lab):
    """Whether torch's printed default t and labkit's default lab give the same call."""
    if t in ((), []) and lab is None:       # stride=() / dims=(): absent, as labkit's None
        return True
    if isinstance(t, (list, tuple)) and t and isinstance(lab, int) and set(t) == {lab}:
        return True                         # padding=[0, 0] is padding=0
    if isinstance(t, set):
        t = sorted(t)
        lab = sorted(lab) if isinstance(lab, (tuple, list)) else lab
    if isinstance(t, str) and not isinstance(lab, str):
        t = {"None": None, "True": True, "False": False}.get(t, t)
    if isinstance(t, (list, tuple)) and isinstance(lab, (list, tuple)):
        return len(t) == len(lab) and all(_same_default(a, b) for a, b in zip(t, lab))
    if isinstance(t, bool) or isinstance(lab, bool):
        return isinstance(t, (bool, int)) and isinstance(lab, (bool, int)) and bool(t) == bool(lab)
    if isinstance(t, (int, float)) and isinstance(lab, (int, float)):
        return float(t) == float(lab) or (math.isnan(t) and math.isnan(lab))
    if isinstance(lab, type(labkit.float32)) or type(lab).__name__ in ("dtype", "device"):
        return str(lab).split(".")[-1] == str(t).split(".")[-1]
    return t == lab


DEFAULTS_COMPARED = [0]


def defaults_audit(only=None):
    """(owner.name, parameter, torch's default, labkit's) wherever both have a default for a
    parameter and they differ: a different default is a silent wrong answer. Parameters are
    matched by name, else by torch's position (a method's self excluded)."""
    stubs, found = _stub_defs(), []
    for owner, name, fn in names():
        if only and name not in only:
            continue
        lparams, conf = _labkit_signature(owner, name)
        if not lparams:
            continue
        by_name = {p.name: p for p in lparams}
        positional = [p for p in lparams if p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)]
        offset = 1 if owner == "Tensor" else 0
        seen = set()
        for params in signatures(owner, name, fn, stubs)[1]:
            i = 0
            for p in params:
                if p.varargs:
                    break
                index, i = (None, i) if p.kwonly else (i + offset, i + 1)
                if not p.has_default or p.name in ("out", "self") or p.name in seen:
                    continue
                lp = by_name.get(p.name)
                if lp is None and index is not None and index < len(positional) and \
                        positional[index].name not in {q.name for q in params}:
                    lp = positional[index]
                if lp is None or lp.default is lp.empty:
                    continue
                seen.add(p.name)
                DEFAULTS_COMPARED[0] += 1
                if not _same_default(p.default, lp.default) and \
                        (f"{owner}.{name}", p.name) not in SAME_MEANING:
                    found.append((f"{owner}.{name}", p.name, p.default, lp.default))
    return found


def _verified(owner, name, fn, params):
    """The stub's names torch's parser really takes (stubs name some differently: one_hot's
    `tensor` is `input` to the parser): a keyword it does not know is 'unexpected'."""
    probe = torch.ones(2, 2)
    keep = []
    for p in params:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if owner == "Tensor":
                    getattr(probe, name)(**{p.name: object()})
                else:
                    fn(**{p.name: object()})
        except Exception as e:   # noqa: BLE001
            first = p is params[0] and not p.kwonly
            missing = re.search(r'missing \d+ required positional arguments?: "(\w+)"', str(e))
            if first and (missing and missing[1] != p.name or "unexpected keyword" in str(e)):
                p = Param(_first_name(owner, name, fn) or p.name, p.type, p.has_default,
                          p.default)
            elif "unexpected keyword" in str(e):
                continue
        keep.append(p)
    return keep


def _first_name(owner, name, fn):
    """The parser's name for the first parameter: what it says is missing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (getattr(torch.ones(2, 2), name) if owner == "Tensor" else fn)()
    except Exception as e:   # noqa: BLE001
        m = re.search(r'missing \d+ required positional arguments?: "(\w+)"', str(e))
        return m and m[1]
    return None


def write_table(path):
    """labkit/engine/ops/torch_signatures.txt: per name, torch's parameter names per overload
    (positional ones in order | keyword-only ones), which labkit/engine/ops/keywords.py reads
    to accept torch's keyword names and out= on every function torch gives them."""
    stubs, lines = _stub_defs(), []
    for owner, name, fn in names():
        source, overloads = signatures(owner, name, fn, stubs)
        if not overloads:
            continue
        row = []
        for params in overloads:
            if source == "stub":
                params = _verified(owner, name, fn, params)
            def mark(p):           # '#': an int or ints parameter (a 0-d int tensor passes)
                return p.name + ("#" if p.type in ("int", "ints") else "")
            pos = [mark(p) for p in params if not p.kwonly and not p.varargs]
            kw = [mark(p) for p in params if p.kwonly]
            star = [p for p in params if p.varargs]
            if star:
                pos.append("*" + ("#" if star[0].type in ("int", "ints") else ""))
            ov = ",".join(pos) + "|" + ",".join(kw)
            if ov not in row:
                row.append(ov)
        lines.append(f"{owner}.{name}\t" + "\t".join(row))
    header = ("# torch's parameter names for the names labkit shares with it, per overload:\n"
              "# positional names in order (* = varargs) | keyword-only names; # marks an int or\n"
              "# a tuple of ints (where torch takes a 0-d integer tensor too). Generated by\n"
              "# `python tools/signature_audit.py --write-table` (torch " + torch.__version__ +
              "); read by keywords.py.\n")
    pathlib.Path(path).write_text(header + "\n".join(lines) + "\n")
    print(f"wrote {path}: {len(lines)} names")


def main(argv):
    if "--write-table" in argv:
        return write_table(pathlib.Path(__file__).resolve().parents[1] /
                           "labkit/engine/ops/torch_signatures.txt")
    if "--defaults" in argv:
        only = {a for a in argv if not a.startswith("-")} or None
        rows = defaults_audit(only)
        for key, pname, t, lab in rows:
            print(f"{key:36s} {pname:20s} torch {t!r:28} labkit {lab!r}")
        print(f"defaults compared: {DEFAULTS_COMPARED[0]}; that differ: {len(rows)} (and "
              f"{len(SAME_MEANING)} that read differently and mean the same, SAME_MEANING)")
        return None
    verbose = "-v" in argv
    only = {a for a in argv if not a.startswith("-")} or None
    funcs, stats, mismatches = audit(only, verbose)
    by_kind = Counter(k for k, *_ in mismatches)
    by_form = Counter((k, f) for k, f, *_ in mismatches)
    print(f"functions and methods audited: {funcs}")
    for k in ("source parser", "source schema", "source stub", "source inspect", "no signature",
              "overloads called", "overloads without a torch-valid call", "forms", "ok",
              "both_raise"):
        print(f"  {k:40s} {stats[k]}")
    print("mismatches by kind:")
    for k in ("rejects", "differs", "accepts"):
        print(f"  {k:40s} {by_kind[k]}")
    print("mismatches by kind and form:")
    for (k, f), n in sorted(by_form.items()):
        print(f"  {k:10s} {f:28s} {n}")
    if verbose:
        for kind, form, call, detail in sorted(mismatches):
            print(f"{kind:8s} {form:14s} {call}  --  {detail}")


if __name__ == "__main__":
    torch.manual_seed(0)
    labkit.manual_seed(0)
    main(sys.argv[1:])
