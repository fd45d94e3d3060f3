"""The contract between ``citetrace serve``'s HTTP layer and the service: callbacks in, limits, one result type.

Apart from ``_http`` so the service can be read (and the receiver swapped) without the connection handling.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from citetrace.serve._decode import Decoded

__all__ = ["Accepted", "Ingest", "Limits"]


class Accepted(NamedTuple):
    """What the service did with a decoded request: spans refused after decoding, and why."""

    refused: int
    problem: str
    retry: bool = False
    """Nothing was taken because the service is shutting down: answer 503 so the sender retries."""


class Ingest:
    """The callbacks and limits the handler needs; the service provides them."""

    def __init__(
        self,
        *,
        accept: Callable[[Decoded], Accepted],
        answered: Callable[[int, str | None], None],
        health: Callable[[], dict[str, object]],
        draining: Callable[[], bool],
        on_error: Callable[[BaseException], None],
        max_body_bytes: int,
        token: str | None,
        keys: frozenset[str] | None = None,
    ) -> None:
        self.accept = accept
        self.answered = answered
        self.health = health
        self.draining = draining
        self.on_error = on_error
        self.max_body_bytes = max_body_bytes
        self.token = token
        self.keys = keys


class Limits(NamedTuple):
    """The HTTP layer's bounds (docs/collector.md, "Bounded")."""

    max_connections: int = 1024
    request_timeout: float = 30.0
    max_inflight_bytes: int = 64 * 1024 * 1024
    max_decode_bytes: int = 32 * 1024 * 1024
    decode_workers: int = 4
