"""The OpenTelemetry Collector's probabilistic tail-sampling hash, replicated bit for bit.

The collector keeps a trace when FNV-1a-64 over ``salt bytes || 16 trace-id bytes`` is at most
``MaxUint64 * percent / 100``. Using the same function in-process means the embedded tier and the collector
tier keep exactly the same healthy traces.
"""

from __future__ import annotations

import functools
from fractions import Fraction

__all__ = ["fnv1a_64", "sample_hash", "keep_by_hash", "collector_threshold"]

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
    return fnv1a_64(tid, _salt_state(salt))


@functools.lru_cache(maxsize=16)
def _salt_state(salt: str) -> int:
    """FNV state after the salt bytes (the same for every trace, so computed once per salt)."""
    return fnv1a_64(salt.encode("utf-8"))


@functools.lru_cache(maxsize=64)
def collector_threshold(percent: float) -> int:
    """The collector's ``calculateThreshold(percent / 100)``, bit for bit.

    Go computes ``big.Float(MaxUint64) * big.NewFloat(ratio)`` at 64-bit precision (round to nearest even) and
    truncates with ``Uint64()`` (clamped to 0..MaxUint64). The float shortcut ``int(MaxUint64 * pct / 100)``
    is one too high for most percentages (e.g. 2 %: 368934881474191040 vs Go's 368934881474191039).
    """
    ratio = percent / 100  # float64 division, as in the Go code
    if ratio <= 0:
        return 0
    exact = Fraction(_MAX_UINT64) * Fraction(ratio)
    exp = exact.numerator.bit_length() - exact.denominator.bit_length()
    if exact < Fraction(2) ** exp:
        exp -= 1  # now 2**exp <= exact < 2**(exp + 1)
    scale = Fraction(2) ** (63 - exp)
    rounded = Fraction(round(exact * scale)) / scale  # 64-bit mantissa, round half to even
    return min(_MAX_UINT64, int(rounded))


def keep_by_hash(trace_id: int | bytes, *, salt: str, percent: float) -> bool:
    """True when the collector's ``probabilistic`` policy with this salt and percentage keeps the trace."""
    return sample_hash(trace_id, salt) <= collector_threshold(float(percent))
