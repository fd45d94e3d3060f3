"""Search APIs called over plain HTTP (``requests``, ``httpx``), recognised by their documented endpoints."""

from __future__ import annotations

from citetrace.instrumentation._http._clients import ROWS
from citetrace.instrumentation._http._endpoints import ENDPOINTS, HOSTS

__all__ = ["ENDPOINTS", "HOSTS", "ROWS"]
