"""The liveness check: HEAD with a GET fallback, redirects, timeouts, bounded concurrency and a cache."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Callable

from citetrace.eval import Resolver

from .conftest import reply


def site(http_server: Callable[..., str], log: list[tuple[str, str]], state: dict[str, int]) -> str:
    lock = threading.Lock()

    def handle(h: BaseHTTPRequestHandler) -> None:
        with lock:
            log.append((h.command, h.path))
            state["active"] = state.get("active", 0) + 1
            state["peak"] = max(state.get("peak", 0), state["active"])
        try:
            if h.path == "/ok":
                reply(h, 200, b"hello")
            elif h.path == "/no-head":
                reply(h, 405 if h.command == "HEAD" else 200, b"body")
            elif h.path == "/moved":
                reply(h, 301, b"", {"Location": "/ok"})
            elif h.path == "/gone":
                reply(h, 404, b"missing")
            elif h.path == "/slow":
                time.sleep(1.5)
                reply(h, 200, b"late")
            elif h.path.startswith("/busy"):
                time.sleep(0.2)
                reply(h, 200, b"ok")
        finally:
            with lock:
                state["active"] -= 1

    return http_server(handle)


def test_head_get_fallback_redirects_and_dead_pages(http_server: Callable[..., str]) -> None:
    """200 is live; 405 on HEAD falls back to GET; redirects are followed; 404 is dead."""
    log: list[tuple[str, str]] = []
    base = site(http_server, log, {})
    got = Resolver(timeout=5).check([f"{base}/ok", f"{base}/no-head", f"{base}/moved", f"{base}/gone"])
    ok, nohead, moved, gone = (got[f"{base}{p}"] for p in ("/ok", "/no-head", "/moved", "/gone"))
    assert ok.live and ok.method == "HEAD" and ok.status == 200
    assert nohead.live and nohead.method == "GET" and ("GET", "/no-head") in log
    assert moved.live and moved.final_url == f"{base}/ok"
    assert not gone.live and gone.status == 404


def test_timeout_is_dead_with_error(http_server: Callable[..., str]) -> None:
    """A server slower than the timeout counts as not live, with the exception class as the error."""
    base = site(http_server, [], {})
    result = Resolver(timeout=0.3).check([f"{base}/slow"])[f"{base}/slow"]
    assert not result.live and result.error is not None and "Timeout" in result.error


def test_concurrency_is_bounded(http_server: Callable[..., str]) -> None:
    """No more than ``workers`` requests are in flight at once."""
    state: dict[str, int] = {}
    base = site(http_server, [], state)
    Resolver(timeout=5, workers=2).check([f"{base}/busy{i}" for i in range(6)])
    assert state["peak"] == 2


def test_cache_in_memory_and_on_disk(http_server: Callable[..., str], tmp_path: object) -> None:
    """A second check within the TTL sends no request, also from a new resolver reading the cache file."""
    log: list[tuple[str, str]] = []
    base = site(http_server, log, {})
    cache = f"{tmp_path}/live.json"
    Resolver(cache_path=cache).check([f"{base}/ok"])
    Resolver(cache_path=cache).check([f"{base}/ok"])
    assert log == [("HEAD", "/ok")]
    Resolver(cache_path=cache, cache_ttl=0).check([f"{base}/ok"])
    assert len(log) == 2


def test_non_http_urls_are_not_requested() -> None:
    """A citation that is not an http(s) URL is reported dead without any request."""
    r = Resolver().check(["ftp://files.example/x"])["ftp://files.example/x"]
    assert not r.live and r.error == "not an http(s) URL"
