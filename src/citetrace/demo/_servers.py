"""Real HTTP servers on 127.0.0.1 for the demo: a JSON search endpoint and a site serving the corpus.

Both run ``ThreadingHTTPServer`` on free ports in daemon threads and stop when the ``DemoServers`` context
exits. Faults are chosen per request: the search answers 429 for ``fault=rate_limit``; a page whose front
matter carries a fault (or any page requested with ``?fault=...``) is served gone (404), too slow (it waits
``slow_seconds`` before answering) or behind a cookie wall (200 with < 200 characters of text). A fault
applies only when it is in the servers' enabled set.
"""

from __future__ import annotations

import html
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Iterable
from urllib.parse import parse_qs, urlsplit

from citetrace.demo import _faults as F
from citetrace.demo._corpus import Page, load_corpus
from citetrace.demo._search import SearchIndex

__all__ = ["DemoServers", "RequestRecord", "COOKIE_WALL_HTML", "MAX_RESULTS"]

MAX_RESULTS = 10
"""Most results one search request may ask for (``n``)."""

COOKIE_WALL_HTML = (
    "<!doctype html>\n<html><head><title>Before you continue</title></head><body>"
    "<div class=\"consent\"><p>We use cookies to improve your experience. Accept to keep reading.</p>"
    "<button>Accept all</button></div><script>document.cookie='consent=pending';</script></body></html>\n"
)
"""What a walled page answers: a banner whose readable text is far below 200 characters."""


@dataclass(frozen=True)
class RequestRecord:
    """One request a demo server answered (or gave up on)."""

    server: str
    path: str
    query: str
    status: int
    fault: str | None
    at: float


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: "DemoServers", name: str, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.owner = owner
        self.name = name


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes; avoid the 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Quiet: the demo prints its own output."""

    def _send(self, status: int, body: str, content_type: str, *, fault: str | None = None,
              headers: Iterable[tuple[str, str]] = ()) -> None:
        data = body.encode("utf-8")
        parts = urlsplit(self.path)
        self.server.owner._record(self.server.name, parts.path, parts.query, status, fault)
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout fault does exactly this)

    def _json(self, status: int, payload: object, **kw: Any) -> None:
        self._send(status, json.dumps(payload), "application/json", **kw)


class _SearchHandler(_Handler):
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        parts = urlsplit(self.path)
        if parts.path == "/healthz":
            self._json(200, {"status": "ok"})
            return
        if parts.path != "/search":
            self._json(404, {"error": f"no such endpoint {parts.path!r}; use /search?q=..."})
            return
        params = parse_qs(parts.query)
        query = (params.get("q") or [""])[0].strip()
        if not query:
            self._json(400, {"error": "missing query parameter q"})
            return
        raw_n = (params.get("n") or ["5"])[0]
        if not raw_n.isdigit() or not 1 <= int(raw_n) <= MAX_RESULTS:
            self._json(400, {"error": f"n must be an integer from 1 to {MAX_RESULTS}, got {raw_n!r}"})
            return
        fault = params.get("fault", [""])[0] or None
        owner = self.server.owner
        if fault == F.RATE_LIMIT and owner.fault_enabled(F.RATE_LIMIT):
            self._json(429, {"error": "rate limit exceeded: 1 request per second"}, fault=fault,
                       headers=[("Retry-After", "1")])
            return
        hits = owner.index.search(query, int(raw_n))
        results = [
            {"url": owner.page_url(h.page.slug), "title": h.page.title, "snippet": h.snippet,
             "published": h.page.date.isoformat()}
            for h in hits
        ]
        self._json(200, {"query": query, "results": results})


class _SiteHandler(_Handler):
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        parts = urlsplit(self.path)
        owner = self.server.owner
        if parts.path == "/healthz":
            self._json(200, {"status": "ok"})
            return
        if parts.path == "/":
            links = "".join(f"<li><a href=\"{p.path}\">{html.escape(p.title)}</a></li>"
                            for p in owner.pages.values())
            self._send(200, f"<!doctype html><html><body><h1>Demo news</h1><ul>{links}</ul></body></html>",
                       "text/html; charset=utf-8")
            return
        slug = parts.path[len("/pages/"):] if parts.path.startswith("/pages/") else None
        page = owner.pages.get(slug or "")
        if page is None:
            self._send(404, "<!doctype html><html><body><h1>Not found</h1></body></html>", "text/html")
            return
        requested = parse_qs(parts.query).get("fault", [""])[0] or page.fault
        fault = requested if requested and owner.fault_enabled(requested) else None
        self._serve_page(page, fault)

    def _serve_page(self, page: Page, fault: str | None) -> None:
        owner = self.server.owner
        if fault == F.NOT_FOUND:
            self._send(404, "<!doctype html><html><body><h1>Page not found</h1></body></html>", "text/html",
                       fault=fault)
        elif fault == F.COOKIE_WALL:
            self._send(200, COOKIE_WALL_HTML, "text/html; charset=utf-8", fault=fault)
        elif fault == F.TIMEOUT:
            owner.slow_started.set()
            owner._stopping.wait(owner.slow_seconds)
            self._send(200, page.html(), "text/html; charset=utf-8", fault=fault)
        else:
            self._send(200, page.html(), "text/html; charset=utf-8")


class DemoServers:
    """The demo's search endpoint and site, on free loopback ports, for the life of a ``with`` block.

    >>> with DemoServers() as servers:
    ...     servers.search_url, servers.site_url   # 'http://127.0.0.1:P/search', 'http://127.0.0.1:Q'
    """

    def __init__(self, *, faults: Iterable[str] | str | None = None, slow_seconds: float = 1.5) -> None:
        self.faults = F.parse_faults(faults)
        if slow_seconds <= 0:
            raise ValueError(f"slow_seconds must be positive, got {slow_seconds!r}")
        self.slow_seconds = slow_seconds
        self.pages = {p.slug: p for p in load_corpus()}
        self.index = SearchIndex(list(self.pages.values()))
        self._lock = threading.Lock()
        self._log: list[RequestRecord] = []
        self._stopping = threading.Event()
        self.slow_started = threading.Event()
        """Set when a too-slow answer starts being held back (tests wait on it instead of sleeping)."""
        self._servers: list[_Server] = []
        self._threads: list[threading.Thread] = []

    # -- lifecycle ------------------------------------------------------------------------------------
    def start(self) -> "DemoServers":
        """Bind both servers on free ports and serve in background threads."""
        if self._servers:
            return self
        self._stopping.clear()
        for name, handler in (("search", _SearchHandler), ("site", _SiteHandler)):
            srv = _Server(self, name, handler)
            thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1},
                                      name=f"citetrace-demo-{name}", daemon=True)
            thread.start()
            self._servers.append(srv)
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop serving and release the ports (slow requests in flight are cut short)."""
        self._stopping.set()
        for srv in self._servers:
            srv.shutdown()
            srv.server_close()
        for thread in self._threads:
            thread.join(timeout=5)
        self._servers, self._threads = [], []

    def __enter__(self) -> "DemoServers":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- addresses ------------------------------------------------------------------------------------
    def _base(self, i: int) -> str:
        if not self._servers:
            raise RuntimeError("DemoServers is not running; use it as a context manager or call start()")
        host, port = self._servers[i].server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def search_url(self) -> str:
        """The search endpoint: GET ``{search_url}?q=...&n=5`` answers ``{"results": [{url,title,snippet}]}``."""
        return self._base(0) + "/search"

    @property
    def site_url(self) -> str:
        """The site's base URL; pages live at ``{site_url}/pages/{slug}``."""
        return self._base(1)

    def page_url(self, slug: str) -> str:
        """The URL of one corpus page on the site."""
        return f"{self.site_url}/pages/{slug}"

    def slug_of(self, url: str) -> str | None:
        """The corpus slug a site URL points at, or None."""
        prefix = self.site_url + "/pages/"
        return url[len(prefix):].split("?", 1)[0] if url.startswith(prefix) else None

    # -- faults and log -------------------------------------------------------------------------------
    def fault_enabled(self, fault: str) -> bool:
        return fault in self.faults

    def _record(self, server: str, path: str, query: str, status: int, fault: str | None) -> None:
        with self._lock:
            self._log.append(RequestRecord(server, path, query, status, fault, time.time()))

    @property
    def requests(self) -> list[RequestRecord]:
        """Every request answered so far, in order."""
        with self._lock:
            return list(self._log)
