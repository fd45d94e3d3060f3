"""A byte budget shared by threads: what ``citetrace serve`` uses to bound bodies held and bodies decoded.

Taking never blocks: a request that does not fit is answered 503 with ``Retry-After`` (the OTLP exporter
retries with backoff), which keeps memory bounded without queueing work the process cannot hold.
"""

from __future__ import annotations

import threading

__all__ = ["ByteBudget"]


class ByteBudget:
    """At most ``limit`` bytes taken at once; ``peak`` is the most ever taken (for tests and benchmarks)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self._used = 0
        self.peak = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        """Bytes taken right now."""
        return self._used

    def try_take(self, amount: int) -> bool:
        """Take ``amount`` bytes if they fit under the limit; return whether they were taken."""
        with self._lock:
            if self._used + amount > self.limit:
                return False
            self._used += amount
            if self._used > self.peak:
                self.peak = self._used
            return True

    def give(self, amount: int) -> None:
        """Give back bytes taken earlier."""
        with self._lock:
            self._used = max(0, self._used - amount)
