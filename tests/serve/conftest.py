"""A running citetrace serve (in this process, real sockets on free loopback ports) per test."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from citetrace.config import load_settings
from citetrace.serve import ServeOptions, Service
from citetrace.store import MemoryStore, open_store


@pytest.fixture
def store() -> MemoryStore:
    st = open_store("memory://")
    assert isinstance(st, MemoryStore)
    return st


@pytest.fixture
def make_service(store: MemoryStore) -> Iterator[object]:
    """Factory: start a Service with options/settings overrides; all are stopped after the test."""
    started: list[Service] = []

    def make(token: str | None = None, max_body_bytes: int = 1 << 20, grace_seconds: float = 0.2,
             max_connections: int = 64, request_timeout: float = 5.0, max_inflight_bytes: int = 1 << 26,
             max_decode_bytes: int = 1 << 25, **settings: Any) -> Service:
        options = ServeOptions(host="127.0.0.1", port=0, metrics_port=0, token=token, grace_seconds=grace_seconds,
                               max_body_bytes=max_body_bytes, max_connections=max_connections,
                               request_timeout=request_timeout, max_inflight_bytes=max_inflight_bytes,
                               max_decode_bytes=max_decode_bytes)
        service = Service(options, settings=load_settings(**settings), store=store).start()
        started.append(service)
        return service

    yield make
    for service in started:
        service.stop(drain_seconds=0)
