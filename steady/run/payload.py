"""Real payloads: what ``steady run`` sends, and how a receiver checks it (ours).

A *message* (one broadcast) is ``size`` bytes: an 8-byte sequence number, an 8-byte
checksum of the body, then ``size - 16`` body bytes drawn from a generator seeded by the
sequence number (so a corrupted, misplaced or duplicated message is recognised by its
own content, not by the plan).  The checksum is position-dependent: the sum modulo 2^64
of the body's 64-bit words, each times its own odd multiplier (so a flipped bit always
changes it, and two swapped words almost always), plus the trailing bytes and the
length -- about 15 µs for 64 KB, where CRC-32 takes 40 to 70: receivers check every
message inside the timed loop.  A *transfer* is one MPI
message: a 32-byte header (transfer id, emulated begin and end in nanoseconds, number of
messages), then its messages back to back.  A clear-to-send is two 64-bit integers
(transfer id, the time the receiver's in-port is free).  All little-endian.
"""

from __future__ import annotations

import numpy as np

HEADER = 16            # bytes of a message's own header
TRANSFER_HEADER = 32   # bytes before a transfer's first message
MIN_SIZE = HEADER      # a message of 16 bytes has an empty body
_HEAD = np.dtype([("seq", "<u8"), ("sum", "<u8")])
_ODD: dict[int, np.ndarray] = {}
_TRANSFER = np.dtype([("id", "<i8"), ("begin", "<i8"), ("end", "<i8"), ("count", "<i8")])


def message(seq: int, size: int) -> np.ndarray:
    """Message ``seq`` of ``size`` bytes (uint8 array)."""
    out = np.empty(size, dtype=np.uint8)
    body = np.random.default_rng(seq).integers(0, 256, size - HEADER, dtype=np.uint8)
    out[HEADER:] = body
    head = np.zeros(1, dtype=_HEAD)
    head["seq"], head["sum"] = seq, checksum(out[HEADER:])
    out[:HEADER] = head.view(np.uint8)
    return out


def checksum(body: np.ndarray) -> int:
    """The body's checksum (module docstring)."""
    whole = len(body) // 8 * 8
    words = body[:whole].view("<u8")
    odd = _ODD.get(len(words))
    if odd is None:   # 2·(i·φ mod 2^63) + 1, φ the 64-bit golden ratio: odd, spread
        i = np.arange(len(words), dtype=np.uint64)
        odd = _ODD[len(words)] = (i * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
    total = int((words * odd).sum(dtype=np.uint64))
    return (total + int(body[whole:].sum()) * 257 + len(body)) % 2 ** 64


def read_message(buffer) -> tuple[int, bool]:
    """(sequence number, checksum good) of one message's bytes."""
    head = np.frombuffer(buffer[:HEADER], dtype=_HEAD)[0]
    return int(head["seq"]), checksum(buffer[HEADER:]) == int(head["sum"])


def pack_transfer(tid: int, begin: int, end: int, messages, size: int) -> np.ndarray:
    """One transfer's bytes: the header, then ``messages`` (arrays of ``size`` bytes)."""
    out = np.empty(TRANSFER_HEADER + len(messages) * size, dtype=np.uint8)
    head = np.array([(tid, begin, end, len(messages))], dtype=_TRANSFER)
    out[:TRANSFER_HEADER] = head.view(np.uint8)
    for k, m in enumerate(messages):
        out[TRANSFER_HEADER + k * size:TRANSFER_HEADER + (k + 1) * size] = m
    return out


def transfer_buffer(count: int, size: int) -> np.ndarray:
    """An empty buffer for a transfer of ``count`` messages."""
    return np.empty(TRANSFER_HEADER + count * size, dtype=np.uint8)


def unpack_transfer(buffer: np.ndarray, size: int):
    """(id, begin, end, [message views]) of a received transfer."""
    head = np.frombuffer(buffer[:TRANSFER_HEADER], dtype=_TRANSFER)[0]
    count = int(head["count"])
    views = [buffer[TRANSFER_HEADER + k * size:TRANSFER_HEADER + (k + 1) * size]
             for k in range(count)]
    return int(head["id"]), int(head["begin"]), int(head["end"]), views
