"""The fake network for the framework end-to-end scripts: only the transport is replaced.

The parent test runs a real HTTP server on 127.0.0.1 (``tests.instrumentation._net.LocalServer``). The
agent script, started with nothing but environment variables set, calls ``reroute(base)``: every
``requests``, urllib3 ``PoolManager``, httpx transport, ``urllib.request`` handler and aiohttp request for a non-local URL goes to ``{base}/{host}{path}?{query}`` over real HTTP (the
framework's tools, parsing and error handling all run), and ddgs' Rust client ``primp`` is replaced by the
forwarding stand-in, limited to the DuckDuckGo engine so which engine runs is deterministic.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/instrumentation, for _net
from _net import FakePrimp, local_url  # noqa: E402

__all__ = ["reroute", "local_url"]


def reroute(base: str) -> None:
    """Send requests' and ddgs' traffic to the local server at ``base``."""
    import requests.adapters

    send = requests.adapters.HTTPAdapter.send

    def local_send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        request.url = local_url(base, request.url)
        kwargs["verify"] = False
        return send(self, request, *args, **kwargs)

    requests.adapters.HTTPAdapter.send = local_send  # type: ignore[method-assign]

    import urllib3

    urlopen = urllib3.PoolManager.urlopen

    def local_urlopen(self: Any, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        return urlopen(self, method, local_url(base, url), *args, **kwargs)

    urllib3.PoolManager.urlopen = local_urlopen  # type: ignore[method-assign]  # trafilatura's transport

    _reroute_httpx(base)
    _reroute_urllib(base)

    try:
        import aiohttp
    except ImportError:
        pass
    else:
        request = aiohttp.ClientSession._request

        async def local_request(self: Any, method: str, str_or_url: Any, *args: Any, **kwargs: Any) -> Any:
            return await request(self, method, local_url(base, str(str_or_url)), *args, **kwargs)

        aiohttp.ClientSession._request = local_request  # type: ignore[method-assign]

    try:
        import ddgs.ddgs as ddgs_mod
        import ddgs.http_client
    except ImportError:
        return

    class _Server:
        def __init__(self, base_url: str) -> None:
            self.base = base_url

    ddgs.http_client.primp = FakePrimp(_Server(base))  # type: ignore[arg-type]
    ddgs_mod.ENGINES["text"] = {"duckduckgo": ddgs_mod.ENGINES["text"]["duckduckgo"]}


def _reroute_httpx(base: str) -> None:
    """httpx's transports (knowledge-storm's ``WebPageHelper`` reads result pages with ``httpx.Client``): the
    request keeps its URL for everything above the transport (clients, citetrace's rules), and is sent to
    the local server."""
    try:
        import httpx
    except ImportError:
        return
    handle, handle_async = httpx.HTTPTransport.handle_request, httpx.AsyncHTTPTransport.handle_async_request

    def local_handle(self: Any, request: Any) -> Any:
        request.url = httpx.URL(local_url(base, str(request.url)))
        return handle(self, request)

    async def local_handle_async(self: Any, request: Any) -> Any:
        request.url = httpx.URL(local_url(base, str(request.url)))
        return await handle_async(self, request)

    httpx.HTTPTransport.handle_request = local_handle  # type: ignore[method-assign]
    httpx.AsyncHTTPTransport.handle_async_request = local_handle_async  # type: ignore[method-assign]


def _reroute_urllib(base: str) -> None:
    """``urllib.request`` (gpt-researcher's Xquik retriever): below the openers, where the HTTP(S) handler opens
    the connection, so ``urlopen``, openers and citetrace's rules above all see the original request."""
    import http.client
    import urllib.request

    do_open = urllib.request.AbstractHTTPHandler.do_open

    def local_do_open(self: Any, http_class: Any, req: Any, **kwargs: Any) -> Any:
        target = local_url(base, req.full_url)
        if target != req.full_url:
            req.full_url = target
            http_class = http.client.HTTPConnection
            kwargs = {}  # the TLS context and hostname check of the https handler
        return do_open(self, http_class, req, **kwargs)

    urllib.request.AbstractHTTPHandler.do_open = local_do_open  # type: ignore[method-assign]
