"""The OpenTelemetry Collector's probabilistic tail-sampling hash, replicated bit for bit.

The collector keeps a trace when FNV-1a-64 over ``salt bytes || 16 trace-id bytes`` is at most
``MaxUint64 * percent / 100``. Using the same function in-process means the embedded tier and the collector
tier keep exactly the same healthy traces.
"""

from __future__ import annotations

__all__ = ["fnv1a_64", "sample_hash", "keep_by_hash"]

_OFFSET = 0xCBF29CE484222325
_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF
_MAX_UINT64 = _MASK


def fnv1a_64(data: bytes, start: int = _OFFSET) -> int:
    """FNV-1a, 64 bit."""
    h = start
    for byte in data:
        h ^= byte
        h = (h * _PRIME) & _MASK
    return h


def sample_hash(trace_id: int | bytes, salt: str) -> int:
    """The collector's hash of a trace id (int or its 16 big-endian bytes) under ``salt``."""
    tid = trace_id if isinstance(trace_id, bytes) else trace_id.to_bytes(16, "big")
    if len(tid) != 16:
        raise ValueError(f"trace id must be 16 bytes, got {len(tid)}")
    return fnv1a_64(tid, fnv1a_64(salt.encode("utf-8")))


def keep_by_hash(trace_id: int | bytes, *, salt: str, percent: float) -> bool:
    """True when the collector's ``probabilistic`` policy with this salt and percentage keeps the trace."""
    if percent <= 0:
        return False
    if percent >= 100:
        return True
    threshold = int(_MAX_UINT64 * percent / 100)
    return sample_hash(trace_id, salt) <= threshold
