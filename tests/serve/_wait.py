"""Waiting on a real `citetrace serve` process: its health endpoint, and a condition with a deadline."""

from __future__ import annotations

import time
import urllib.request
from typing import Callable


def healthy(port: int) -> bool:
    """Whether serve answers /healthz on 127.0.0.1:``port``."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
            return True
    except OSError:
        return False


def until(predicate: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    """Poll ``predicate`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
