"""Checksums recomputed after a model file was damaged on purpose: what an
attacker (or a buggy writer) produces, so that the checks behind the
checksums are reached."""

import json
import struct
import zlib

import numpy as np


def seal_header(data):
    """``data`` with the header checksum that matches its header bytes: what
    an attacker (or a buggy writer) produces, so the checks behind the
    checksum are reached."""
    length = struct.unpack("<Q", data[16:24])[0]
    crc = zlib.crc32(data[24:24 + length])
    return data[:12] + struct.pack("<I", crc) + data[16:]



def reseal(data):
    """``data`` with every checksum recomputed: the array checksums in the
    header from the bytes now at each array's place, then the header's.
    Leaves what cannot be parsed as it is."""
    data = bytes(data)
    try:
        length = struct.unpack("<Q", data[16:24])[0]
        header = json.loads(data[24:24 + length])
        first = min(a["offset"] for a in header["arrays"])
        for a in header["arrays"]:
            n = np.dtype(a["dtype"]).itemsize * int(np.prod(a["shape"], dtype=object))
            a["crc32"] = zlib.crc32(data[a["offset"]:a["offset"] + n])
        raw = json.dumps(header).encode()
        if 24 + len(raw) <= first:
            data = (data[:16] + struct.pack("<Q", len(raw)) + raw
                    + bytes(first - 24 - len(raw)) + data[first:])
    except Exception:
        pass
    return seal_header(data)

