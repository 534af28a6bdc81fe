"""Images for SummaryWriter.add_image: torch's layout and scaling rules, and a small PNG
encoder (zlib, no imaging library needed)."""
import struct
import zlib

import numpy as np


def to_hwc(arr, dataformats):
    """arr laid out as dataformats ('CHW', 'HWC', 'HW') -> H x W x C, one channel made three
    (as torch's convert_to_HWC)."""
    fmt = dataformats.upper()
    if sorted(fmt) not in (sorted("CHW"), sorted("HW")) or arr.ndim != len(fmt):
        raise ValueError(f"add_image: dataformats={dataformats!r} does not describe an image of "
                         f"shape {arr.shape}; use 'CHW' (the default), 'HWC' or 'HW'.")
    if fmt == "HW" or fmt == "WH":
        arr = arr.transpose([fmt.index(c) for c in "HW"])
        return np.stack([arr, arr, arr], 2)
    arr = arr.transpose([fmt.index(c) for c in "HWC"])
    if arr.shape[2] == 1:
        arr = np.concatenate([arr, arr, arr], 2)
    if arr.shape[2] not in (3, 4):
        raise ValueError(f"add_image: an image needs 1, 3 or 4 channels, got {arr.shape[2]}.")
    return arr


def to_uint8(arr):
    """torch's rule: uint8 stays as is; anything else is taken to be in [0, 1] and scaled by
    255, clipped and truncated."""
    if arr.dtype == np.uint8:
        return arr
    return (arr.astype(np.float32) * 255).clip(0, 255).astype(np.uint8)


def png(img):
    """An H x W x C uint8 array (C = 3 or 4) as PNG bytes."""
    h, w, c = img.shape
    raw = b"".join(b"\x00" + np.ascontiguousarray(img[y]).tobytes() for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", w, h, 8, {3: 2, 4: 6}[c], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))
