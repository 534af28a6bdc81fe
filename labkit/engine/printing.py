"""How tensors print, as torch prints them (torch/_tensor_str.py), and torch.set_printoptions.

Floats: whole numbers print as `3.`; scientific notation when the largest finite magnitude is
over 1e8, or over 1000 times the smallest nonzero one, or (non-whole values) the smallest is
below 1e-4; otherwise `precision` decimals. Every value is right-aligned to the widest.
"""
import numpy as np

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
PRINT_OPTS = dict(_DEFAULTS)
_PROFILES = {"default": _DEFAULTS,
             "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
             "full": {"precision": 4, "threshold": float("inf"), "edgeitems": 3, "linewidth": 80}}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """As torch: `profile` ("default", "short", "full") first, then the options given; sci_mode
    is always set (None: chosen from the values, the default)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, "
                             f"got {profile!r}")
        PRINT_OPTS.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            PRINT_OPTS[name] = value
    PRINT_OPTS["sci_mode"] = sci_mode


def _float_formatter(arr):
    p = PRINT_OPTS["precision"]
    finite = np.abs(arr[np.isfinite(arr)]).astype(np.float64)
    nonzero = finite[finite != 0]
    int_mode = bool(np.all(finite == np.ceil(finite)))
    sci = False
    if nonzero.size:
        big, small = nonzero.max(), nonzero.min()
        sci = big / small > 1000.0 or big > 1.0e8 or (not int_mode and small < 1.0e-4)
    if PRINT_OPTS["sci_mode"] is not None:
        sci = PRINT_OPTS["sci_mode"]
    if sci:
        fmt = f"{{:.{p}e}}".format
    elif int_mode:
        fmt = "{:.0f}.".format
    else:
        fmt = f"{{:.{p}f}}".format

    def one(v):
        return fmt(v) if np.isfinite(v) else f"{v}"

    ends = arr[np.isfinite(arr)]
    ends = (ends.min(), ends.max()) if ends.size else ()
    width = max((len(one(v)) for v in ends), default=0)   # torch: over the finite values only
    return lambda v: one(v).rjust(width)


def format_tensor(t):
    """repr(t): the values, then size= (empty, not 1-D), device=, dtype= (not the default
    ones), grad_fn= or requires_grad=."""
    arr = t._host()
    body = _format_body(arr)
    extras = []
    if arr.size == 0 and arr.ndim != 1:
        extras.append(f"size={tuple(arr.shape)}")
    if t.device.type != "cpu":
        extras.append(f"device='{t.device}'")
    if arr.dtype not in (np.float32, np.int64, np.bool_) or (arr.size == 0 and arr.dtype != np.float32):
        extras.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._rg:
        extras.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, extras, indent=len("tensor("))


def _add_suffixes(text, suffixes, indent):
    """torch's rule: a suffix that would pass the line width starts a new, indented line."""
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS["linewidth"]:
            text += ",\n" + " " * indent + suffix
            last_line_len = indent + len(suffix)
        else:
            text += ", " + suffix
            last_line_len += len(suffix) + 2
    return text + ")"


def _format_body(arr):
    if arr.dtype.kind == "V":          # bfloat16: printed through float32, as its values are
        arr = arr.astype(np.float32)
    options = dict(separator=", ", prefix="tensor(", threshold=PRINT_OPTS["threshold"],
                   edgeitems=PRINT_OPTS["edgeitems"])
    if PRINT_OPTS["linewidth"] != _DEFAULTS["linewidth"]:
        # only when asked: lines still wrap by numpy's rule (75 columns by default), which the
        # lectures' stored outputs were made with; torch's own rule differs in where it breaks
        options["max_line_width"] = PRINT_OPTS["linewidth"]
    if options["threshold"] == float("inf"):
        options["threshold"] = np.iinfo(np.int64).max
    if arr.dtype.kind == "f" and arr.size:
        options["formatter"] = {"float_kind": _float_formatter(arr)}
    return np.array2string(arr, **options).replace(", ..., ", ",  ..., ")   # torch's spacing
