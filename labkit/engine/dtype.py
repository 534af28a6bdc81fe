"""labkit dtypes: thin, printable names over numpy dtypes (labkit.float32 ...)."""
import numpy as np


class dtype:
    """A tensor element type; `.np` is the numpy dtype that stores it."""
    __slots__ = ("name", "np", "is_floating_point")
    is_complex = False

    def __init__(self, name):
        self.name = name
        self.np = np.dtype(name)
        self.is_floating_point = self.np.kind == "f"

    def __repr__(self):
        return f"labkit.{self.name}"

    @property
    def itemsize(self):
        return self.np.itemsize

    @property
    def is_signed(self):
        return self.np.kind in "fiVc"

    def to_complex(self):
        """The complex dtype whose parts are this float type (float32 -> complex64)."""
        got = _TO_COMPLEX.get(self.name)
        if got is None:
            half = " (torch's is complex32, ComplexHalf, which labkit does not have)" \
                if self.name in ("float16", "bfloat16") else ""
            raise RuntimeError(f"{self} has no complex counterpart in labkit{half}: float32 "
                               "and float64 have (complex64, complex128). Convert first: "
                               "x.float() or x.double().")
        return got

    def to_real(self):
        """The float type of a complex dtype's parts (complex64 -> float32); others unchanged."""
        return _TO_REAL.get(self.name, self)

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        try:
            return self.np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.np)


float16 = dtype("float16")
float32 = dtype("float32")
float64 = dtype("float64")
int8 = dtype("int8")
uint8 = dtype("uint8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
bool_ = dtype("bool")

_BY_NP = {d.np: d for d in (float16, float32, float64, int8, uint8, int16, int32, int64, bool_)}


class _Complex(dtype):
    """complex64 / complex128 (two float32 / float64 parts). Reading `.np` the first time
    switches on labkit's complex checks (engine/ops/complex_guard.py): until a complex
    tensor exists, real ops pay nothing for them."""
    __slots__ = ("_np",)
    is_complex = True

    def __init__(self, name):
        self.name = name
        self._np = np.dtype(name)
        self.is_floating_point = False

    @property
    def np(self):
        _complex_seen()
        return self._np

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self is other
        try:
            return self._np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self._np)


complex64 = _Complex("complex64")
complex128 = _Complex("complex128")
_TO_COMPLEX = {"float32": complex64, "float64": complex128}
_TO_REAL = {"complex64": float32, "complex128": float64}


def _complex_seen():
    """The first complex dtype in this process: enter them and turn the engine's checks on."""
    if complex64._np not in _BY_NP:
        _BY_NP[complex64._np], _BY_NP[complex128._np] = complex64, complex128
        from .ops.complex_guard import enable
        enable()

# torch's own names for dtypes in its error messages: ScalarType ("Float") and the C type
# ("float"), so a labkit error can quote torch's words (a student searches for those)
_SCALAR_NAMES = {"float32": ("Float", "float"), "float64": ("Double", "double"),
                 "float16": ("Half", "c10::Half"), "bfloat16": ("BFloat16", "c10::BFloat16"),
                 "int64": ("Long", "long int"), "int32": ("Int", "int"),
                 "int16": ("Short", "short int"), "int8": ("Char", "signed char"),
                 "uint8": ("Byte", "unsigned char"), "bool": ("Bool", "bool"),
                 "complex64": ("ComplexFloat", "c10::complex<float>"),
                 "complex128": ("ComplexDouble", "c10::complex<double>")}


def scalar_type_name(d, c_type=False):
    """torch's name for the dtype of a tensor or array d in its messages: "Float" ("float")."""
    name = str(getattr(d, "dtype", d)).split(".")[-1]
    return _SCALAR_NAMES.get(name, (name, name))[1 if c_type else 0]


class _BFloat16(dtype):
    """bfloat16 (float32's 8 exponent bits, 7 mantissa bits): the numpy dtype of the
    `ml_dtypes` package (JAX's), imported on first use so `import labkit` stays light.
    Its numpy kind is 'V', not 'f': test floating point with is_float(), not kind == 'f'."""
    __slots__ = ()

    def __init__(self):
        self.name = "bfloat16"
        self.is_floating_point = True

    @property
    def np(self):
        return _bfloat16_np()


bfloat16 = _BFloat16()
_BF16 = []   # the numpy dtype, once loaded


def _bfloat16_np():
    if not _BF16:
        try:
            import ml_dtypes
        except ImportError:
            raise RuntimeError("labkit.bfloat16 needs the ml_dtypes package (pip install "
                               "ml_dtypes), which provides numpy's bfloat16.") from None
        np_bf16 = np.dtype(ml_dtypes.bfloat16)
        _BF16.append(np_bf16)
        _BY_NP[np_bf16] = bfloat16
        from . import promotion
        promotion.add_bfloat16(np_bf16)
    return _BF16[0]


def is_complex(np_dtype):
    """True for numpy's complex kinds (complex64, complex128)."""
    return np_dtype.kind == "c"


def is_float(np_dtype):
    """True for numpy's float kinds and bfloat16 (whose kind is 'V')."""
    return np_dtype.kind == "f" or (np_dtype.kind == "V" and np_dtype.name == "bfloat16")


def from_np(np_dtype):
    """The labkit dtype for a numpy dtype (raises a clear error for unsupported ones)."""
    d = _BY_NP.get(np_dtype)
    if d is None and getattr(np_dtype, "name", None) == "bfloat16":
        return bfloat16
    if d is None and getattr(np_dtype, "kind", None) == "c" and np_dtype.itemsize in (8, 16):
        _complex_seen()
        return _BY_NP[np_dtype]
    if d is None:
        raise TypeError(f"labkit: numpy dtype {np_dtype} is not supported; convert to float32, "
                        "float64, bfloat16, complex64, int64 or bool first (e.g. array.astype('float32')).")
    return d


def to_np(d):
    """numpy dtype for a labkit dtype, numpy dtype, python type or name (None stays None)."""
    if d is None or isinstance(d, np.dtype):
        return d
    if isinstance(d, dtype):
        return d.np
    if d is bool:
        return bool_.np
    if d == "bfloat16" or getattr(d, "__name__", None) == "bfloat16":
        return bfloat16.np
    return from_np(np.dtype(d)).np
