"""Network edges for the instrumentation tests: a real HTTP server on 127.0.0.1 and a primp stand-in.

``LocalServer`` answers from a route table (path prefix -> status, body, content type) and records what it
was asked. ``FakePrimp`` replaces the ``primp`` module (a Rust HTTP client that neither ``responses`` nor
``respx`` can see) at the lowest Python boundary: it forwards each request over real HTTP to the local
server, prefixing the path with the original host, so the library's parsing runs on real responses.
"""

from __future__ import annotations

import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, Iterator


def local_url(base: str, url: str) -> str:
    """Where ``url`` is served on the local server at ``base`` (``/<host><path>?<query>``; local URLs unchanged)."""
    parts = urllib.parse.urlsplit(url)
    if parts.hostname in ("127.0.0.1", "localhost"):
        return url
    return f"{base}/{parts.hostname}{parts.path}" + (f"?{parts.query}" if parts.query else "")


@contextmanager
def fake_dns(hosts: Iterable[str]) -> Iterator[None]:
    """Resolve each named host to 127.0.0.1 (every client's DNS lookup ends in ``socket.getaddrinfo``), so a
    real client sends its real request for ``http://<host>:<local port>/...`` to a local server; every other
    name resolves as before. Proxy variables are ignored meanwhile."""
    import os

    names = {host.lower() for host in hosts}
    original = socket.getaddrinfo
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.lower().endswith("_proxy")}

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if isinstance(name, str) and name.lower() in names:
            return original("127.0.0.1", port, *args, **kwargs)
        return original(host, port, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.getaddrinfo = original
        os.environ.update(saved)


def closed_port() -> int:
    """A loopback port nothing listens on (connecting is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """A threaded HTTP server on a free port; ``routes[prefix] = (status, body, content_type)``."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, str | bytes, str]] = {}  # bytes are served as they are
        self.sequences: dict[str, list[tuple[int, str, str]]] = {}
        """Answers given once each, in order, before ``routes`` (a 429 then the page: a retry that recovers)."""
        self.requests: list[tuple[str, str, bytes]] = []
        self.redirects: dict[str, str] = {}
        """``redirects[path] = location``: that exact path answers 301 to the location (before ``sequences``)."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.requests.append((self.command, self.path, body))
                if self.path in server.redirects:
                    self.send_response(301)
                    self.send_header("Location", server.redirects[self.path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, text, ctype = server.route(self.path)
                payload = text if isinstance(text, bytes) else text.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def route(self, path: str) -> tuple[int, str | bytes, str]:
        """The next queued answer for exactly ``path``, else the longest route prefix matching it (404 when none)."""
        queued = self.sequences.get(path)
        if queued:
            return queued.pop(0)
        best = max((p for p in self.routes if path.startswith(p)), key=len, default=None)
        return self.routes[best] if best is not None else (404, "not found", "text/plain")

    def close(self) -> None:
        """Stop serving and release the port."""
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "LocalServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Response:
    def __init__(self, status: int, content: bytes, url: str) -> None:
        self.status_code = status
        self.content = content
        self.text = content.decode("utf-8", "replace")
        self.url = url
        self.text_markdown = self.text_plain = self.text_rich = self.text


class FakePrimp:
    """Stands in for the ``primp`` module: ``Client`` forwards to ``server`` over real HTTP."""

    class TimeoutError(Exception):
        """primp's timeout error."""

    def __init__(self, server: LocalServer) -> None:
        fake = self

        class Client:
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                self.headers: dict[str, str] = {}

            def headers_update(self, headers: dict[str, str]) -> None:
                self.headers.update(headers)

            def set_cookies(self, url: str, cookies: dict[str, str]) -> None:
                pass

            def request(self, method: str, url: str, params: Any = None, data: Any = None, **kwargs: Any) -> _Response:
                return fake.forward(method, url, params, data)

            def get(self, url: str, **kwargs: Any) -> _Response:
                return self.request("GET", url, **kwargs)

            def post(self, url: str, **kwargs: Any) -> _Response:
                return self.request("POST", url, **kwargs)

        self.Client = Client
        self.server = server

    def forward(self, method: str, url: str, params: Any, data: Any) -> _Response:
        """Send the request to the local server under ``/<host><path>`` and wrap its answer."""
        parts = urllib.parse.urlsplit(url)
        query = urllib.parse.urlencode(params or {})
        target = f"{self.server.base}/{parts.hostname}{parts.path}" + (f"?{query}" if query else "")
        body = urllib.parse.urlencode(data).encode() if isinstance(data, dict) else None
        request = urllib.request.Request(target, data=body, method=method)
        try:
            with urllib.request.urlopen(request, timeout=5) as resp:
                return _Response(resp.status, resp.read(), url)
        except urllib.error.HTTPError as err:
            return _Response(err.code, err.read(), url)


class OtlpReceiver(LocalServer):
    """A LocalServer that accepts OTLP/HTTP protobuf on ``/v1/traces`` and decodes the spans it got."""

    def __init__(self) -> None:
        super().__init__()
        self.routes["/v1/traces"] = (200, "", "application/x-protobuf")

    def spans(self) -> list[dict[str, Any]]:
        """Every span received: name, ids, parent id, attributes (arrays as lists), resource attributes."""
        import gzip

        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        out: list[dict[str, Any]] = []
        for method, path, body in list(self.requests):
            if method != "POST" or not path.startswith("/v1/traces"):
                continue
            request = ExportTraceServiceRequest()
            request.ParseFromString(gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body)
            for rs in request.resource_spans:
                resource = {a.key: a.value.string_value for a in rs.resource.attributes}
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        attrs: dict[str, Any] = {}
                        for a in span.attributes:
                            kind = a.value.WhichOneof("value")
                            if kind == "array_value":
                                attrs[a.key] = [v.string_value for v in a.value.array_value.values]
                            elif kind:
                                attrs[a.key] = getattr(a.value, kind)
                        out.append({"name": span.name, "trace_id": span.trace_id.hex(), "span_id": span.span_id.hex(),
                                    "parent": span.parent_span_id.hex(), "attrs": attrs, "resource": resource})
        return out
