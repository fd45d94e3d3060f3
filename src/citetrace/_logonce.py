"""Log a swallowed failure once per (place, exception class), so a failing backend cannot flood the logs.

Everything citetrace catches on the agent's hot path or in its services is also counted in a metric; the
log line is there so a human notices the first one. The message is redacted like every other sink.
"""

from __future__ import annotations

import logging
import threading

from citetrace._redact import redact_text

__all__ = ["OnceLogger"]

_log = logging.getLogger("citetrace")


class OnceLogger:
    """Warn about the first failure of each kind; later ones of the same kind go to DEBUG."""

    def __init__(self, component: str) -> None:
        self._component = component
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def warn(self, where: str, exc: BaseException) -> None:
        key = f"{where}:{type(exc).__qualname__}"
        with self._lock:
            first = key not in self._seen
            self._seen.add(key)
        text = redact_text(str(exc))  # a backend's message may quote a URL with its secret
        if first:
            _log.warning("%s: %s error (%s: %s); counted, not raised", self._component, where,
                         type(exc).__qualname__, text)
        else:
            _log.debug("%s: %s error again (%s: %s)", self._component, where, type(exc).__qualname__, text)
