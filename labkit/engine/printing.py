"""How tensors print, as torch prints them (torch/_tensor_str.py), and torch.set_printoptions.

Floats: whole numbers print as `3.`; scientific notation when the largest finite magnitude is
over 1e8, or over 1000 times the smallest nonzero one, or the smallest is below 1e-4; otherwise
`precision` decimals. Every value is right-aligned to the widest, and a line holds as many as
fit in `linewidth` (torch's rule, not numpy's: notebooks' printed tensors come out the same).
"""
import math

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


class _Formatter:
    """torch's _Formatter: one width for every value, from the (summarized) values."""

    def __init__(self, arr):
        p = PRINT_OPTS["precision"]
        self.floating = arr.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        if not self.floating:
            if arr.size:   # ints and bools: the extremes are the longest
                self.max_width = max(len(f"{v}") for v in (arr.min().item(), arr.max().item()))
            return
        vals = arr[np.isfinite(arr) & (arr != 0)].astype(np.float64)
        if vals.size:
            absv = np.abs(vals)
            big, small = absv.max(), absv.min()
            self.int_mode = bool(np.all(vals == np.ceil(vals)))
            # the longest strings come from the extremes: the largest, the most negative, and
            # the smallest magnitudes (their exponents) of either sign
            ends = [vals.max(), vals.min(), vals[absv.argmin()]]
            if (vals < 0).any():
                neg = vals[vals < 0]
                ends.append(neg[np.abs(neg).argmin()])
            self.sci_mode = (big / small > 1000.0 or big > 1.0e8 or small < 1.0e-4
                             if PRINT_OPTS["sci_mode"] is None else PRINT_OPTS["sci_mode"])
            if self.sci_mode:
                self.max_width = max(len(f"{{:.{p}e}}".format(v)) for v in ends)
            elif self.int_mode:
                self.max_width = max(len(f"{v:.0f}") + 1 for v in ends)
            else:
                self.max_width = max(len(f"{{:.{p}f}}".format(v)) for v in ends)

    def width(self):
        return self.max_width

    def format(self, value):
        p = PRINT_OPTS["precision"]
        if self.floating:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{p}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
            else:
                ret = f"{{:.{p}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def format_tensor(t):
    """repr(t): the values, then size= (empty, not 1-D), device=, dtype= (not the default
    ones), grad_fn= or requires_grad=."""
    from .defaults import get_default_dtype
    meta = t.device.type == "meta"
    arr = t._data if meta else t._host()
    extras = []
    if meta:                          # no values to show: torch's form
        body = "..."
        extras.append("device='meta'")
        extras.append(f"size={tuple(arr.shape)}")
    elif arr.size == 0:
        body = "[]"
        if arr.ndim != 1:
            extras.append(f"size={tuple(arr.shape)}")
    else:
        body = _format_body(arr, indent=len("tensor("))
        if not PRINT_OPTS["edgeitems"]:
            extras.append(f"size={tuple(arr.shape)}")
    if t.device.type not in ("cpu", "meta"):
        extras.append(f"device='{t.device}'")
    default = get_default_dtype()
    plain = (np.int64, np.bool_, np.complex128 if default.itemsize == 8 else np.complex64)
    if t.dtype != default and (meta or arr.size == 0 or arr.dtype not in plain):
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


def _format_body(arr, indent):
    """torch's _tensor_str: rows nested by brackets, as many values per line as fit in
    linewidth - indent, and only edgeitems at each end of every dim past threshold values."""
    if arr.dtype.kind == "V" or arr.dtype == np.float16:   # bfloat16, half: printed as float32
        arr = arr.astype(np.float32)
    summarize = arr.size > PRINT_OPTS["threshold"]
    if arr.dtype.kind == "c":
        formatter = _ComplexFormatter(_summarized(arr) if summarize else arr)
    else:
        formatter = _Formatter(_summarized(arr) if summarize else arr)
    return _str_with_formatter(arr, indent, summarize, formatter)


class _ComplexFormatter:
    """torch's way with complex values: one formatter for the real parts and one for the
    imaginary parts, joined as `1.+2.j` / `3.-1.j`."""

    def __init__(self, arr):
        self.real, self.imag = _Formatter(arr.real), _Formatter(arr.imag)

    def width(self):
        return self.real.width() + self.imag.width() + 1     # + 1: the j

    def format(self, value):
        re = self.real.format(value.real)
        im = (self.imag.format(value.imag) + "j").lstrip()
        return re + im if im[0] in "+-" else re + "+" + im


def _summarized(arr):
    e = PRINT_OPTS["edgeitems"]
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        return np.concatenate((arr[:e], arr[-e:])) if arr.shape[0] > 2 * e and e else arr
    if not e:
        return arr[(slice(0, 0),) * arr.ndim]
    rows = list(arr[:e]) + list(arr[-e:]) if arr.shape[0] > 2 * e else list(arr)
    return np.stack([_summarized(r) for r in rows])


def _str_with_formatter(arr, indent, summarize, formatter):
    e = PRINT_OPTS["edgeitems"]
    if arr.ndim == 0:
        return formatter.format(arr.item())
    if arr.ndim == 1:
        per_line = max(1, int(math.floor((PRINT_OPTS["linewidth"] - indent) /
                                         (formatter.width() + 2))))
        if summarize and not e:
            data = ["..."]
        elif summarize and arr.shape[0] > 2 * e:
            data = ([formatter.format(v) for v in arr[:e].tolist()] + [" ..."]
                    + [formatter.format(v) for v in arr[-e:].tolist()])
        else:
            data = [formatter.format(v) for v in arr.tolist()]
        lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if summarize and arr.shape[0] > 2 * e:
        slices = ([_str_with_formatter(arr[i], indent + 1, summarize, formatter) for i in range(e)]
                  + ["..."] + [_str_with_formatter(arr[i], indent + 1, summarize, formatter)
                               for i in range(arr.shape[0] - e, arr.shape[0])])
    else:
        slices = [_str_with_formatter(r, indent + 1, summarize, formatter) for r in arr]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(slices) + "]"
