"""labkit.save / labkit.load: checkpoints that hold data and never code.

A checkpoint is a zip archive (stored, not compressed) of
    labkit.json       the structure: dicts, lists, tuples, numbers, strings, None, and
                      {"__tensor__": i} where tensor i goes ({"__ndarray__": i} for a numpy
                      array, {"__npscalar__": i} for a numpy number)
    tensors/<i>.npy   one array per tensor, in numpy's .npy format
Loading parses JSON and reads .npy files without pickle (labkit._io.Archive, shared with
labkit.jit.load), so nothing in a file can run: unlike pickle (what torch.save uses), where
loading a file can execute any Python code in it. Everything is checked before it is used,
and a file that is not a labkit checkpoint, or was cut short or tampered with, gives a
CheckpointError that names the file and says what is wrong.
"""
import json
import math
import os
import re
import zipfile

import numpy as np

from ._io import Archive, LoadError, atomic_write
from .engine import dtype as _dt
from .engine.creation import from_numpy
from .engine.device import Device, cuda_available
from .engine.tensor import Tensor
from .nn.parameter import Parameter

FORMAT = "labkit.checkpoint"
VERSION = 1
_META = "labkit.json"
_TENSOR_NAME = re.compile(r"tensors/(0|[1-9][0-9]{0,8})\.npy")
_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
           "uint16", "uint32", "uint64", "complex64", "complex128", "bfloat16"}
_MAX_DEPTH = 200


class CheckpointError(LoadError):
    """A file that labkit.load refuses: not a labkit checkpoint, damaged, or tampered with."""


class _Refused(CheckpointError):
    """A problem found in the structure; load() adds the file's name to it."""


# --- saving -------------------------------------------------------------------------------

def save(obj, f):
    """Save tensors, numpy arrays, and nested dict/list/tuple of them, numbers, strings and
    None (a state_dict, an optimizer's state, an epoch number ...) to a path or a binary file
    object. A path is written atomically: a crash or a full disk mid-save leaves the previous
    file there intact.

    Models and functions are code, not data, and are refused: save model.state_dict() and
    rebuild the model from its class before loading it."""
    tensors = []
    index = {}
    structure = _encode(obj, tensors, index, "obj", 0)
    meta = {"format": FORMAT, "version": VERSION, "object": structure,
            "tensors": [_tensor_meta(t) for t in tensors]}
    with atomic_write(f, "save") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(_META, json.dumps(meta, allow_nan=False))
        for i, t in enumerate(tensors):
            arr = t if isinstance(t, np.ndarray) else t.detach().cpu().numpy()
            arr = np.asarray(arr, order="C")
            if arr.dtype.name == "bfloat16":   # stored as its 16 bits: npy has no bfloat16
                arr = arr.view(np.uint16)
            with zf.open(f"tensors/{i}.npy", "w", force_zip64=arr.nbytes > (1 << 30)) as out:
                np.lib.format.write_array(out, arr, allow_pickle=False)


def _encode(obj, tensors, index, path, depth):
    if depth > _MAX_DEPTH:
        raise ValueError(f"save: {path} is nested more than {_MAX_DEPTH} levels deep.")
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else {"__float__": repr(obj)}
    if isinstance(obj, Tensor):
        # a non-leaf is saved as torch saves it: its value, loaded as a leaf that keeps
        # requires_grad (the graph itself is never saved; lecture 07 saves whole graphs)
        if id(obj) not in index:              # the same tensor twice is stored once
            index[id(obj)] = len(tensors)
            tensors.append(obj)
        return {"__tensor__": index[id(obj)]}
    if isinstance(obj, (np.ndarray, np.generic)):
        if obj.dtype.name not in _DTYPES:
            raise TypeError(f"save: {path} is a numpy array of dtype {obj.dtype}; labkit "
                            "checkpoints hold numeric and bool arrays only (never objects).")
        if id(obj) not in index:
            index[id(obj)] = len(tensors)
            tensors.append(np.asarray(obj))
        return {"__ndarray__" if isinstance(obj, np.ndarray) else "__npscalar__": index[id(obj)]}
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, tensors, index, f"{path}[{i}]", depth + 1) for i, v in enumerate(obj)]
        return items if isinstance(obj, list) else {"__tuple__": items}
    if isinstance(obj, dict):
        pairs = []
        for k, v in obj.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"save: dict keys must be strings or ints, got the "
                                f"{type(k).__name__} key {k!r} in {path}.")
            pairs.append([k, _encode(v, tensors, index, f"{path}[{k!r}]", depth + 1)])
        return {"__dict__": pairs}
    hint = ""
    if hasattr(obj, "state_dict"):
        hint = (" It looks like a model or optimizer: save its state, "
                "labkit.save({'model': model.state_dict(), ...}, path), and rebuild the "
                "object from its class before loading.")
    raise TypeError(f"save: cannot save {path}, a {type(obj).__name__}. labkit checkpoints hold "
                    "tensors, numpy arrays, numbers, strings, None, and dicts, lists and tuples "
                    "of them; never code." + hint)


def _tensor_meta(t):
    if isinstance(t, np.ndarray):
        return {"dtype": t.dtype.name, "shape": list(t.shape), "device": "cpu",
                "requires_grad": False, "parameter": False}
    return {"dtype": t.dtype.name, "shape": list(t.shape), "device": str(t.device),
            "requires_grad": t.requires_grad, "parameter": isinstance(t, Parameter)}


# --- loading ------------------------------------------------------------------------------

def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None):
    """Load what save() wrote, from a path or a binary file object (io.BytesIO ...).

    map_location, as in torch.load: None puts each tensor back on the device it was saved
    from; a device ('cpu', 'cuda:0', labkit.device(...)) puts all of them there; a dict
    {'cuda:0': 'cpu'} maps saved devices; a callable fn(tensor_on_cpu, saved_device) returns
    the tensor to use (or None for the default).
    weights_only: labkit only ever loads data, so True (torch's default) is what it always
    does; False is refused, because the code it would allow is exactly what labkit never runs.
    mmap=True maps the arrays from the file (copy-on-write) instead of reading them: a large
    checkpoint loads at once and takes memory only as its tensors are used.
    """
    if weights_only is False or pickle_module is not None:
        raise ValueError(
            "load: weights_only=False (or a pickle_module) asks to unpickle the file, which can "
            "run any code in it. "
            "labkit never unpickles: its checkpoints hold only data (tensors, arrays, numbers, "
            "strings, containers), which is what weights_only=True (the default) loads. Drop "
            "the argument. For a pickle you trust, load it with the library that wrote it.")
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if not (map_location is None or callable(map_location)
            or isinstance(map_location, (str, Device, dict))):
        raise TypeError(f"load: map_location must be None, a device ('cpu', 'cuda:0'), a dict "
                        f"{{saved: target}} or a function(tensor, saved_device), got "
                        f"{type(map_location).__name__}.")
    with Archive(f, "load", "labkit checkpoint", CheckpointError, allowed=_allowed,
                 required=(_META,)) as ar:
        meta = _read_meta(ar)
        arrays = [_read_array(ar, i, m, mmap) for i, m in enumerate(meta["tensors"])]
        made = {}

        def tensor(i):
            if i not in made:
                made[i] = _make_tensor(arrays[i], meta["tensors"][i], map_location,
                                       f"tensors/{i}.npy")
            return made[i]
        try:
            return _decode(meta["object"], tensor, arrays, "obj", 0)
        except _Refused as e:
            raise ar.fail(str(e)) from None
        except RecursionError:
            raise ar.fail("its structure is nested too deeply") from None


def _allowed(name):
    if name == "data.pkl" or name.endswith("/data.pkl"):
        return ("it is a PyTorch checkpoint (torch.save): its structure is a pickle, and "
                "loading a pickle can run any code hidden in it, so labkit never unpickles. In "
                "PyTorch, load it (if you trust it) and convert: labkit.save({k: "
                "labkit.from_numpy(v.numpy()) for k, v in sd.items()}, path)")
    return name == _META or bool(_TENSOR_NAME.fullmatch(name))


def _read_meta(ar):
    meta = ar.json(_META)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ar.fail("labkit.json does not describe a labkit checkpoint")
    if meta.get("version") != VERSION:
        raise ar.fail(f"it is checkpoint format version {meta.get('version')!r}; this labkit "
                      f"reads version {VERSION}. Update labkit (or re-save)")
    tensors = meta.get("tensors")
    if not isinstance(tensors, list) or set(meta) != {"format", "version", "object", "tensors"}:
        raise ar.fail("labkit.json has an unexpected layout")
    names = {f"tensors/{i}.npy" for i in range(len(tensors))}
    if names != set(ar.infos) - {_META}:
        raise ar.fail(f"labkit.json lists {len(tensors)} tensor(s), but the archive holds "
                      f"{len(ar.infos) - 1} array file(s) that do not match")
    return meta


def _read_array(ar, i, m, mmap=False):
    if (not isinstance(m, dict) or set(m) != {"dtype", "shape", "device", "requires_grad",
                                              "parameter"}
            or m["dtype"] not in _DTYPES or not isinstance(m["shape"], list)
            or not all(type(s) is int and s >= 0 for s in m["shape"])
            or not isinstance(m["device"], str) or type(m["requires_grad"]) is not bool
            or type(m["parameter"]) is not bool):
        raise ar.fail(f"the description of tensor {i} in labkit.json is invalid")
    name = f"tensors/{i}.npy"
    info = ar.infos[name]
    bits = m["dtype"] == "bfloat16"      # bfloat16 travels as uint16 (its bit pattern)
    stored = "uint16" if bits else m["dtype"]
    if math.prod(m["shape"]) * np.dtype(stored).itemsize > info.file_size:
        raise ar.fail(f"{name} does not hold the array of shape {tuple(m['shape'])} that "
                      "labkit.json describes")
    arr = ar.npy(name, stored, m["shape"], fortran_ok=False, mmap=mmap)
    return arr.view(_dt.bfloat16.np) if bits else arr


def _make_tensor(arr, m, map_location, name):
    t = from_numpy(arr)
    mapped = None
    if callable(map_location) and not isinstance(map_location, (Device, dict)):
        mapped = map_location(t, m["device"])          # torch's fn(storage, location)
        if mapped is not None and not isinstance(mapped, Tensor):
            raise TypeError(f"load: map_location returned a {type(mapped).__name__} for "
                            f"{name}; it must return a tensor (or None for the default).")
        map_location = None
    if mapped is not None:
        t = mapped
    else:
        device = _target_device(m["device"], map_location, name)
        if device is not t.device:
            t = t.to(device)
    if m["parameter"]:
        return Parameter(t, requires_grad=m["requires_grad"])
    return t.requires_grad_(m["requires_grad"]) if m["requires_grad"] else t


def _target_device(saved, map_location, name):
    if isinstance(map_location, dict):
        target = map_location.get(saved, saved)
    elif map_location is None:
        target = saved
    else:
        target = map_location
    try:
        Device(saved)
    except (RuntimeError, TypeError, ValueError):
        raise _Refused(f"{name} was saved on {saved!r}, which is not a device; the file was "
                       "tampered with") from None
    device = Device(target)
    if device.type == "cuda" and not cuda_available():
        raise RuntimeError(f"load: {name} was saved on {saved}, but no CUDA GPU is usable here. "
                           "Pass map_location='cpu' to load it onto the CPU.")
    return device


def _decode(obj, tensor, arrays, path, depth):
    if depth > _MAX_DEPTH:
        raise _Refused(f"{path} is nested more than {_MAX_DEPTH} levels deep")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [_decode(v, tensor, arrays, f"{path}[{i}]", depth + 1) for i, v in enumerate(obj)]
    if isinstance(obj, dict) and len(obj) == 1:
        (kind, value), = obj.items()
        if kind in ("__tensor__", "__ndarray__", "__npscalar__") and type(value) is int \
                and 0 <= value < len(arrays):
            if kind == "__tensor__":
                return tensor(value)
            return arrays[value] if kind == "__ndarray__" else arrays[value][()]
        if kind == "__tuple__" and isinstance(value, list):
            return tuple(_decode(v, tensor, arrays, f"{path}[{i}]", depth + 1)
                         for i, v in enumerate(value))
        if kind == "__float__" and value in ("inf", "-inf", "nan"):
            return float(value)
        if kind == "__dict__" and isinstance(value, list):
            out = {}
            for pair in value:
                if (not isinstance(pair, list) or len(pair) != 2
                        or not isinstance(pair[0], (str, int)) or isinstance(pair[0], bool)):
                    raise _Refused(f"a malformed dict entry in {path}")
                out[pair[0]] = _decode(pair[1], tensor, arrays, f"{path}[{pair[0]!r}]", depth + 1)
            return out
    raise _Refused(f"{path} in labkit.json is not something labkit.save writes")


# --- torch.serialization's allow-list, accepted so torch programs run unchanged ------------
# torch.load(weights_only=True) unpickles, and add_safe_globals names the classes it may build.
# labkit never unpickles (a checkpoint is JSON and raw arrays), so there is nothing to
# allow: these record the names and change nothing else.
_safe_globals = []


def add_safe_globals(safe_globals):
    """Accepted for torch compatibility: labkit never unpickles, so no allow-list is needed."""
    _safe_globals.extend(safe_globals)


def get_safe_globals():
    return list(_safe_globals)


def clear_safe_globals():
    _safe_globals.clear()


class safe_globals:
    """with safe_globals([...]): accepted as torch's; labkit loads no pickled code anyway."""

    def __init__(self, safe_globals):
        self._globals = list(safe_globals)

    def __enter__(self):
        self._before = list(_safe_globals)
        add_safe_globals(self._globals)

    def __exit__(self, *exc):
        _safe_globals[:] = self._before
