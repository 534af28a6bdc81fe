"""labkit.save / labkit.load: checkpoints that hold data and never code.

A checkpoint is a zip archive (stored, not compressed) of
    labkit.json       the structure: dicts, lists, tuples, numbers, strings, None, and
                      {"__tensor__": i} where tensor i goes
    tensors/<i>.npy   one array per tensor, in numpy's .npy format
Loading parses JSON and reads .npy files with allow_pickle=False, so nothing in a file can
run: unlike pickle (what torch.save uses), where loading a file can execute any Python code in
it. Everything is checked before it is used, and a file that is not a labkit checkpoint, or
was cut short or tampered with, gives an error that says what is wrong.
"""
import io
import json
import math
import os
import re
import zipfile

import numpy as np

from .engine.creation import from_numpy
from .engine.device import Device, cuda_available
from .engine.tensor import Tensor
from .nn.parameter import Parameter

FORMAT = "labkit.checkpoint"
VERSION = 1
_META = "labkit.json"
_TENSOR_NAME = re.compile(r"tensors/(0|[1-9][0-9]{0,8})\.npy")
_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"}
_MAX_META_BYTES = 64 << 20
_MAX_DEPTH = 200


class CheckpointError(RuntimeError):
    """A file that labkit.load refuses: not a labkit checkpoint, damaged, or tampered with."""


# --- saving -------------------------------------------------------------------------------

def save(obj, f):
    """Save tensors and nested dict/list/tuple of tensors, numbers, strings and None (a
    state_dict, an optimizer's state, an epoch number ...) to a path or a binary file object.

    Models and functions are code, not data, and are refused: save model.state_dict() and
    rebuild the model from its class before loading it."""
    tensors = []
    index = {}
    structure = _encode(obj, tensors, index, "obj", 0)
    meta = {"format": FORMAT, "version": VERSION, "object": structure,
            "tensors": [_tensor_meta(t) for t in tensors]}
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr(_META, json.dumps(meta, allow_nan=False))
        for i, t in enumerate(tensors):
            arr = t.detach().cpu().numpy()
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
        if obj.grad_fn is not None:
            raise RuntimeError(
                f"save: {path} is a tensor made by {type(obj.grad_fn).__name__}, part of an "
                "autograd graph. A checkpoint holds values, not graphs: save obj.detach() (a "
                "graph cannot be saved with its tensors; see lecture 07 for saving whole graphs).")
        if id(obj) not in index:              # the same tensor twice is stored once
            index[id(obj)] = len(tensors)
            tensors.append(obj)
        return {"__tensor__": index[id(obj)]}
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
    elif isinstance(obj, np.ndarray):
        hint = " Wrap numpy arrays as tensors first: labkit.from_numpy(array)."
    elif isinstance(obj, np.generic):
        hint = " Convert numpy numbers to Python ones first: value.item()."
    raise TypeError(f"save: cannot save {path}, a {type(obj).__name__}. labkit checkpoints hold "
                    "tensors, numbers, strings, None, and dicts, lists and tuples of them; never "
                    "code." + hint)


def _tensor_meta(t):
    return {"dtype": t.dtype.name, "shape": list(t.shape), "device": str(t.device),
            "requires_grad": t.requires_grad, "parameter": isinstance(t, Parameter)}


# --- loading ------------------------------------------------------------------------------

def load(f, map_location=None):
    """Load what save() wrote, from a path or a binary file object.

    map_location: None puts each tensor back on the device it was saved from; a device
    ('cpu', 'cuda:0') puts all of them there; a dict {'cuda:0': 'cpu'} maps saved devices."""
    if not (map_location is None or isinstance(map_location, (str, Device, dict))):
        raise TypeError(f"load: map_location must be None, a device ('cpu', 'cuda:0') or a dict "
                        f"{{saved: target}}, got {type(map_location).__name__}.")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _load(fh, map_location)
    return _load(f, map_location)


def _load(fh, map_location):
    head = fh.read(8)
    fh.seek(0)
    if not head.startswith(b"PK"):
        raise CheckpointError(_not_a_zip(head))
    try:
        with zipfile.ZipFile(fh) as zf:
            infos = _check_entries(zf)
            meta = _read_meta(zf, infos)
            tensors = [_read_tensor(zf, infos, i, m, map_location)
                       for i, m in enumerate(meta["tensors"])]
            return _decode(meta["object"], tensors, "obj", 0)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, RecursionError) as e:
        raise CheckpointError(f"load: the checkpoint is damaged (truncated or corrupted): "
                              f"{type(e).__name__}: {e}") from None


def _not_a_zip(head):
    if not head:
        return "load: the file is empty; it is not a labkit checkpoint."
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}"):
        return ("load: this file is a Python pickle (as written by pickle.dump or an old "
                "torch.save). Loading a pickle can run any code hidden in it, so labkit never "
                "unpickles. Load it only if you trust it, with the library that wrote it, and "
                "re-save the tensors with labkit.save.")
    if head.startswith(b"\x93NUMPY"):
        return ("load: this is a single numpy .npy array, not a labkit checkpoint; read it with "
                "numpy.load(path, allow_pickle=False) and wrap it with labkit.from_numpy.")
    return (f"load: not a labkit checkpoint (a labkit checkpoint is a zip archive; this file "
            f"starts with the bytes {head!r}).")


def _check_entries(zf):
    """Only the names labkit writes, stored uncompressed: no paths, no compression bombs."""
    if any(name == "data.pkl" or name.endswith("/data.pkl") for name in zf.namelist()):
        raise CheckpointError(
            "load: this is a PyTorch checkpoint (torch.save): its structure is a pickle, and "
            "loading a pickle can run any code hidden in it, so labkit refuses. In PyTorch, "
            "load it (if you trust it) and convert: labkit.save({k: "
            "labkit.from_numpy(v.numpy()) for k, v in sd.items()}, path).")
    infos = {}
    for info in zf.infolist():
        name = info.filename
        if name != _META and not _TENSOR_NAME.fullmatch(name):
            raise CheckpointError(f"load: unexpected entry {name!r} in the archive; a labkit "
                                  "checkpoint holds only labkit.json and tensors/<n>.npy. The "
                                  "file was not written by labkit.save, or was tampered with.")
        if name in infos:
            raise CheckpointError(f"load: the entry {name!r} appears twice in the archive; "
                                  "the file was tampered with.")
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise CheckpointError(f"load: the entry {name!r} is compressed (or its sizes "
                                  "disagree); labkit.save stores entries uncompressed, so this "
                                  "file was not written by it.")
        infos[name] = info
    if _META not in infos:
        raise CheckpointError("load: the archive has no labkit.json; it is a zip file, but not "
                              "a labkit checkpoint.")
    return infos


def _read_meta(zf, infos):
    if infos[_META].file_size > _MAX_META_BYTES:
        raise CheckpointError(f"load: labkit.json is {infos[_META].file_size} bytes, more than "
                              f"the {_MAX_META_BYTES} a checkpoint's structure can take.")
    try:
        meta = json.loads(zf.read(_META).decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise CheckpointError(f"load: labkit.json is not valid JSON ({e}).") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError("load: labkit.json does not describe a labkit checkpoint.")
    if meta.get("version") != VERSION:
        raise CheckpointError(f"load: checkpoint format version {meta.get('version')!r}; this "
                              f"labkit reads version {VERSION}. Update labkit (or re-save).")
    tensors = meta.get("tensors")
    if not isinstance(tensors, list) or set(meta) != {"format", "version", "object", "tensors"}:
        raise CheckpointError("load: labkit.json has an unexpected layout.")
    names = {f"tensors/{i}.npy" for i in range(len(tensors))}
    if names != set(infos) - {_META}:
        raise CheckpointError(f"load: labkit.json lists {len(tensors)} tensor(s), but the "
                              f"archive holds {len(infos) - 1} array file(s) that do not match.")
    return meta


def _no_constant(name):
    raise CheckpointError(f"load: labkit.json contains {name}, which is not strict JSON.")


def _read_tensor(zf, infos, i, m, map_location):
    if (not isinstance(m, dict) or set(m) != {"dtype", "shape", "device", "requires_grad",
                                              "parameter"}
            or m["dtype"] not in _DTYPES or not isinstance(m["shape"], list)
            or not all(type(s) is int and s >= 0 for s in m["shape"])
            or not isinstance(m["device"], str) or type(m["requires_grad"]) is not bool
            or type(m["parameter"]) is not bool):
        raise CheckpointError(f"load: the description of tensor {i} in labkit.json is invalid.")
    name = f"tensors/{i}.npy"
    info = infos[name]
    dtype, shape = np.dtype(m["dtype"]), tuple(m["shape"])
    with zf.open(info) as fp:
        version = np.lib.format.read_magic(fp)
        header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                  else np.lib.format.read_array_header_2_0)
        file_shape, fortran, file_dtype = header(fp)   # refuses object dtypes it cannot parse
        nbytes = math.prod(file_shape) * file_dtype.itemsize
        if file_dtype.hasobject or file_dtype != dtype or file_dtype.byteorder == ">":
            raise CheckpointError(f"load: {name} holds dtype {file_dtype}, but labkit.json says "
                                  f"{dtype}; refusing it (object arrays could hold code).")
        if tuple(file_shape) != shape or fortran or fp.tell() + nbytes != info.file_size:
            raise CheckpointError(f"load: {name} does not hold the array of shape {shape} "
                                  "that labkit.json describes (wrong shape, layout or size).")
    with zf.open(info) as fp:
        arr = np.load(io.BytesIO(fp.read()), allow_pickle=False)
    t = from_numpy(arr)
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
    device = Device(target)
    if device.type == "cuda" and not cuda_available():
        raise RuntimeError(f"load: {name} was saved on {saved}, but no CUDA GPU is usable here. "
                           "Pass map_location='cpu' to load it onto the CPU.")
    return device


def _decode(obj, tensors, path, depth):
    if depth > _MAX_DEPTH:
        raise CheckpointError(f"load: {path} is nested more than {_MAX_DEPTH} levels deep.")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [_decode(v, tensors, f"{path}[{i}]", depth + 1) for i, v in enumerate(obj)]
    if isinstance(obj, dict) and len(obj) == 1:
        (kind, value), = obj.items()
        if kind == "__tensor__" and type(value) is int and 0 <= value < len(tensors):
            return tensors[value]
        if kind == "__tuple__" and isinstance(value, list):
            return tuple(_decode(v, tensors, f"{path}[{i}]", depth + 1)
                         for i, v in enumerate(value))
        if kind == "__float__" and value in ("inf", "-inf", "nan"):
            return float(value)
        if kind == "__dict__" and isinstance(value, list):
            out = {}
            for pair in value:
                if (not isinstance(pair, list) or len(pair) != 2
                        or not isinstance(pair[0], (str, int)) or isinstance(pair[0], bool)):
                    raise CheckpointError(f"load: a malformed dict entry in {path}.")
                out[pair[0]] = _decode(pair[1], tensors, f"{path}[{pair[0]!r}]", depth + 1)
            return out
    raise CheckpointError(f"load: {path} in labkit.json is not something labkit.save writes.")
