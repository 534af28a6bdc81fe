"""Reading and writing labkit's files safely: the one place that opens them.

Every file labkit loads (checkpoints, saved graphs, and any later format) is a zip archive of
JSON and .npy entries. `Archive` reads one and checks everything before it is used: only the
entry names the format allows, each once; no encryption or zip features labkit never writes;
sizes declared and bounded before anything is decompressed (no compression bombs); strict JSON
(no NaN, no numbers that overflow to inf, no duplicate keys); .npy headers with plain numeric
dtypes only (never object arrays, so never pickle). Whatever is wrong, a damaged, truncated or
tampered file gives one error type that names the file and what is wrong.

Every file labkit writes goes through `atomic_write`: to a temporary file beside the target,
flushed to disk, then renamed over it, so a crash, a kill or a full disk leaves either the old
file or the new one, complete, never a broken mixture.
"""
import contextlib
import json
import math
import os
import secrets
import struct
import zipfile
import zlib

import numpy as np

_NUMERIC = "biufc"          # numpy dtype kinds a saved array may have
_ALLOWED_FLAGS = 0x2 | 0x4 | 0x8 | 0x800   # deflate options, data descriptor, UTF-8 names


class LoadError(RuntimeError, ValueError):
    """A file labkit refuses to load: not the format asked for, damaged, or tampered with."""


class SaveError(OSError):
    """Writing a file failed; the file that was at the path before is left as it was."""


def _name(source):
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return getattr(source, "name", None) or f"<{type(source).__name__}>"


# --- reading -------------------------------------------------------------------------------

class Archive:
    """A zip archive opened for checked reading.

    what names the caller ("labkit.load"), kind the format ("labkit checkpoint");
    allowed(name) says which entry names the format has (True, or a message saying why
    not); `required` names must be there; `compressed` allows deflated entries, whose
    declared sizes together may not exceed max_inflated bytes (zipfile never inflates an
    entry past its declared size)."""

    def __init__(self, source, what, kind, error=LoadError, allowed=None, required=(),
                 compressed=False, max_inflated=256 << 20):
        self.what, self.error, self.file = what, error, _name(source)
        self.kind = kind
        self._own = isinstance(source, (str, os.PathLike))
        self._fh = open(source, "rb") if self._own else source    # a missing file: OSError
        try:
            self._check_head()
            self.zip = zipfile.ZipFile(self._fh)
            self.infos = self._check_entries(allowed, required, compressed, max_inflated)
        except Exception as e:
            self.close()
            if isinstance(e, error):
                raise
            raise self.fail(f"it is damaged ({type(e).__name__}: {e})") from None

    def _data_offset(self, info):
        """Where an entry's bytes start in the file: after its local header (30 bytes, then
        the name and the extra field, whose lengths the header gives)."""
        self._fh.seek(info.header_offset)
        head = self._fh.read(30)
        return info.header_offset + 30 + int.from_bytes(head[26:28], "little") + \
            int.from_bytes(head[28:30], "little")

    def fail(self, problem):
        """The one error for a bad file: says which file, and what is wrong with it."""
        return self.error(f"{self.what}: refusing {self.file}: {problem.rstrip('.')}.")

    def close(self):
        if getattr(self, "zip", None) is not None:
            self.zip.close()
        if self._own:
            self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _check_head(self):
        start = self._fh.tell() if hasattr(self._fh, "tell") else 0
        head = self._fh.read(8)
        self._fh.seek(start)
        self.head = head
        if not head.startswith(b"PK"):
            raise self.fail(not_a_zip(head, self.kind))

    def _check_entries(self, allowed, required, compressed, max_inflated):
        infos, inflated = {}, 0
        for info in self.zip.infolist():
            name = info.filename
            verdict = True if allowed is None else allowed(name)
            if verdict is not True:
                raise self.fail(verdict or f"it has an unexpected entry {name!r}: it is not a "
                                f"{self.kind} (a file not written by labkit, or tampered with)")
            if name in infos:
                raise self.fail(f"the entry {name!r} appears twice (a tampered file: which "
                                "copy is meant cannot be known)")
            if info.flag_bits & ~_ALLOWED_FLAGS:
                raise self.fail(f"the entry {name!r} uses zip features labkit never writes "
                                f"(flag bits {info.flag_bits:#x}: encryption or patching)")
            if info.compress_type == zipfile.ZIP_STORED:
                if info.file_size != info.compress_size:
                    raise self.fail(f"the sizes of the stored entry {name!r} disagree")
            elif info.compress_type == zipfile.ZIP_DEFLATED and compressed:
                inflated += info.file_size
                if inflated > max_inflated:
                    raise self.fail(f"its compressed entries would inflate to more than "
                                    f"{max_inflated} bytes (a compression bomb?); pass a larger "
                                    "max_bytes if you trust the file")
            else:
                raise self.fail(f"the entry {name!r} is compressed with method "
                                f"{info.compress_type}, which labkit does not write")
            infos[name] = info
        for name in required:
            if name not in infos:
                raise self.fail(f"it has no {name}: it is a zip archive, but not a {self.kind}")
        return infos

    def read(self, name):
        """The bytes of an entry, CRC-checked; any damage becomes self.error."""
        try:
            return self.zip.read(self.infos[name])
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, struct.error, ValueError,
                NotImplementedError, RuntimeError) as e:
            raise self.fail(f"the entry {name!r} is damaged ({type(e).__name__}: {e})") from None

    def json(self, name, max_bytes=64 << 20):
        """An entry's strict JSON: no NaN/Infinity, no number too large for a float, no
        duplicate keys (where a reader could pick either copy)."""
        if self.infos[name].file_size > max_bytes:
            raise self.fail(f"{name} is {self.infos[name].file_size} bytes, more than the "
                            f"{max_bytes} it may have")
        text = self.read(name)
        try:
            return json.loads(text.decode("utf-8"), parse_constant=self._constant,
                              parse_float=self._float, object_pairs_hook=self._pairs)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            raise self.fail(f"{name} is not valid JSON ({type(e).__name__}: {e})") from None

    def _constant(self, token):
        raise self.fail(f"its JSON contains {token}, which is not strict JSON")

    def _float(self, token):
        x = float(token)
        if not math.isfinite(x):
            raise self.fail(f"its JSON contains the number {token[:40]}, too large for a float")
        return x

    def _pairs(self, pairs):
        out = dict(pairs)
        if len(out) != len(pairs):
            keys = [k for k, _ in pairs]
            dup = next(k for k in keys if keys.count(k) > 1)
            raise self.fail(f"its JSON has the key {dup!r} twice in one object")
        return out

    def npy(self, name, dtype=None, shape=None, fortran_ok=True, mmap=False):
        """An entry's array (numpy .npy format), checked against the expected dtype and shape
        when given; never an object array, never pickle. mmap=True (an archive opened from a
        path, entries stored uncompressed): a copy-on-write memory map of the file instead of
        a read, so pages load when touched and writes never reach the file (torch's mmap)."""
        info = self.infos[name]
        try:
            with self.zip.open(info) as fp:
                version = np.lib.format.read_magic(fp)
                if version not in ((1, 0), (2, 0), (3, 0)):
                    raise ValueError(f"npy format version {version}")
                header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                          else np.lib.format.read_array_header_2_0)
                file_shape, fortran, file_dtype = header(fp)
                if (file_dtype.hasobject or file_dtype.kind not in _NUMERIC
                        or file_dtype.fields is not None or file_dtype.subdtype is not None):
                    raise self.fail(f"{name} holds dtype {file_dtype}; only plain numeric "
                                    "arrays are loaded (object arrays could hold code)")
                if dtype is not None and file_dtype != np.dtype(dtype):
                    raise self.fail(f"{name} holds dtype {file_dtype}, but the file's "
                                    f"description says {np.dtype(dtype)}")
                if shape is not None and tuple(file_shape) != tuple(shape):
                    raise self.fail(f"{name} holds shape {tuple(file_shape)}, but the file's "
                                    f"description says {tuple(shape)}")
                if fortran and not fortran_ok:
                    raise self.fail(f"{name} is in Fortran order, which labkit does not write")
                nbytes = math.prod(file_shape) * file_dtype.itemsize
                if fp.tell() + nbytes != info.file_size:
                    raise self.fail(f"{name} does not hold as many bytes as its header says "
                                    "(truncated or padded)")
                if mmap and nbytes and file_dtype.isnative and \
                        info.compress_type == zipfile.ZIP_STORED:
                    return np.memmap(self._fh.name, file_dtype, "c", self._data_offset(info)
                                     + fp.tell(), tuple(file_shape),
                                     "F" if fortran else "C").view(np.ndarray)
                buf = np.empty(nbytes, np.uint8)
                if fp.readinto(memoryview(buf)) != nbytes or fp.read(1):   # read(1): CRC
                    raise self.fail(f"{name} is not as long as its header says")
        except self.error:
            raise
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, struct.error, ValueError,
                SyntaxError, TypeError, NotImplementedError, RuntimeError) as e:
            raise self.fail(f"the array {name!r} is damaged ({type(e).__name__}: {e})") from None
        arr = buf.view(file_dtype).reshape(file_shape, order="F" if fortran else "C")
        if not file_dtype.isnative:
            arr = arr.astype(file_dtype.newbyteorder("="))
        return np.asarray(arr, order="C")


def not_a_zip(head, kind):
    """What a file that is not a zip archive most likely is, and what to do with it."""
    if not head:
        return "the file is empty"
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}"):
        return ("it is a Python pickle (as written by pickle.dump or an old torch.save). "
                "Loading a pickle can run any code hidden in it, so labkit never unpickles. "
                "Load it only if you trust it, with the library that wrote it, and re-save the "
                "tensors with labkit.save")
    if head.startswith(b"\x93NUMPY"):
        return ("it is a single numpy .npy array; read it with numpy.load(path, "
                "allow_pickle=False) and wrap it with labkit.from_numpy")
    return (f"it is not a {kind} (a {kind} is a zip archive; this file starts with the bytes "
            f"{head!r})")


# --- writing -------------------------------------------------------------------------------

@contextlib.contextmanager
def atomic_write(target, what):
    """A binary file to write `target` through: a temporary file in the same directory that
    replaces target (os.replace, after fsync) only once it is complete. On any failure the
    temporary file is removed and target is left as it was. A file object (io.BytesIO, an
    open file) is written directly."""
    if not isinstance(target, (str, os.PathLike)):
        yield target
        return
    path = os.fspath(target)
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)   # umask applies
    except OSError as e:
        raise SaveError(e.errno, f"{what}: cannot create a file in {folder} "
                                 f"({e.strerror}); nothing was written") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, SaveError):
            old = "the file that was there is intact" if os.path.exists(path) else \
                "no file was created"
            raise SaveError(e.errno, f"{what}: writing {path} failed ({e.strerror or e}); "
                                     f"{old}. Free some space (or pick another folder) and "
                                     "save again") from e
        raise
    with contextlib.suppress(OSError):        # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
