"""``citetrace ui``: the run list and the run pages, served read-only on 127.0.0.1.

A small ``ThreadingHTTPServer`` is enough here: one person browsing their own runs, no uploads, GET only.
Requests are bounded (a read timeout per connection, http.server's own line limits); anything but GET
or HEAD is a 405, except, when the browser was started with a review queue (``ReviewDesk``), a small
token-checked form POST to ``/review`` that labels the pair on screen (see ``_review``). The pages are the ones ``citetrace view`` writes, with the same Content-Security-Policy,
also sent as a header.
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from citetrace._stopsignals import STOP_GRACE_S
from citetrace._redact import redact_report
from citetrace.store import Store, StoreError
from citetrace.view._page import content_security_policy, render_message, render_run_list
from citetrace.view._review import MAX_FORM_BYTES, ReviewDesk
from citetrace.view._runs import FILTERS, BadQuery, ViewError, list_page, page_for_run

__all__ = ["RunBrowser"]

_log = logging.getLogger("citetrace.view")
_READ_TIMEOUT_S = 10.0
_REVIEW_PATHS = ("/review", "/review/")


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    timeout = _READ_TIMEOUT_S
    server_version = "citetrace-ui"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        _log.debug("ui: " + format, *args)

    def _send(self, status: int, body: str, *, head: bool = False) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Content-Security-Policy", content_security_policy(body))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _route(self) -> tuple[int, str]:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items() if v}
        store = self.server.store
        if parts.path in ("/", "/runs", "/runs/"):
            try:
                listing = list_page(store, query)
            except BadQuery as exc:
                return HTTPStatus.BAD_REQUEST, render_message(str(exc))
            return HTTPStatus.OK, render_run_list(listing, filters={k: query[k] for k in FILTERS if k in query})
        if parts.path in _REVIEW_PATHS:
            if self.server.review is None:
                return HTTPStatus.NOT_FOUND, render_message("no review queue: start `citetrace ui --review-queue FILE "
                                                    "--labeller NAME --labels-out FILE`")
            return HTTPStatus.OK, self.server.review.page()
        if parts.path.startswith("/runs/"):
            ref = unquote(parts.path[len("/runs/"):])
            try:
                return HTTPStatus.OK, page_for_run(store, ref, evaluate=query.get("evaluate") == "1", back="/")
            except ViewError as exc:
                return HTTPStatus.NOT_FOUND, render_message(str(exc))
        return HTTPStatus.NOT_FOUND, render_message(f"nothing at {parts.path}")

    def _get(self, head: bool) -> None:
        try:
            status, body = self._route()
        except StoreError as exc:  # the store went away (file removed, server down): say so, and try again next time
            _log.warning("ui: cannot serve %s: %s", self.path, exc)
            status, body = HTTPStatus.SERVICE_UNAVAILABLE, render_message(
                f"the run store is unavailable, try again: {redact_report(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)}")
        except Exception as exc:  # a broken page must answer, not kill the connection silently
            _log.warning("ui: cannot serve %s: %s", self.path, exc)
            status, body = HTTPStatus.INTERNAL_SERVER_ERROR, render_message(f"cannot show this page: {type(exc).__name__}")
        self._send(status, body, head=head)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._get(head=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._get(head=True)

    def _refuse(self) -> None:
        takes_post = self.server.review is not None and urlsplit(self.path).path in _REVIEW_PATHS
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, HEAD, POST" if takes_post else "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        review = self.server.review
        if review is None or urlsplit(self.path).path not in _REVIEW_PATHS:
            self._refuse()
            return
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if not 0 < length <= MAX_FORM_BYTES or kind != "application/x-www-form-urlencoded":
            self._send(HTTPStatus.BAD_REQUEST, render_message(f"a review post is an urlencoded form of at most "
                                                      f"{MAX_FORM_BYTES} bytes"))
            self.close_connection = True
            return
        raw = self.rfile.read(length).decode("utf-8", "replace")
        form = {k: v[0] for k, v in parse_qs(raw).items() if v}
        status, message = review.post(form, self.headers.get("Origin"), self.server.origin)
        if status == HTTPStatus.SEE_OTHER:
            self.send_response(status)
            self.send_header("Location", "/review")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._send(status, review.page(message) if status == HTTPStatus.CONFLICT else render_message(message))

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _refuse  # noqa: N815

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a request line too long, a malformed request, an unknown method) as our
        one-line page with our headers, not its stock HTML without a policy."""
        self.close_connection = True
        if getattr(self, "request_version", "") == "HTTP/0.9":  # an unparsable request line: answer with headers
            self.request_version = "HTTP/1.0"
        short = self.responses.get(code, ("error",))[0]
        self._send(code, render_message(f"{code} {message or short}"), head=getattr(self, "command", "") == "HEAD")


class _Server(ThreadingHTTPServer):
    """Daemon request threads, counted so that a stop can give the ones in flight a bounded time to finish."""

    daemon_threads = True
    block_on_close = False  # RunBrowser.stop waits for requests itself, within a bound

    def __init__(self, address: tuple[str, int], store: Store, review: ReviewDesk | None) -> None:
        self.store = store
        self.review = review
        self._idle = threading.Condition()
        self._active = 0
        if ":" in address[0]:  # --host ::1 or ::, an IPv6 address (socketserver's default family is IPv4 only)
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        host, port = self.server_address[:2]
        shown = host.decode() if isinstance(host, bytes) else str(host)
        self.origin = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}"

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._idle:
            self._active += 1
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line in the log, never socketserver's traceback on stderr (a client gone, a socket closed at stop)."""
        exc = sys.exc_info()[1]
        _log.debug("ui: request from %s failed: %s: %s", client_address[0] if client_address else "?",
                   type(exc).__name__, exc)

    def wait_idle(self, timeout: float) -> int:
        """Wait up to ``timeout`` s for the requests in flight to finish; return how many still are."""
        with self._idle:
            self._idle.wait_for(lambda: self._active == 0, timeout)
            return self._active


class RunBrowser:
    """The local run browser. ``with RunBrowser(store) as ui: print(ui.url)``; binds 127.0.0.1 by default.
    ``review`` adds the review queue's labelling page at ``/review``."""

    def __init__(self, store: Store, *, host: str = "127.0.0.1", port: int = 0,
                 review: ReviewDesk | None = None) -> None:
        self._server = _Server((host, port), store, review)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return self._server.origin + "/"

    def start(self) -> "RunBrowser":
        """Serve in a daemon thread."""
        # a 0.1 s poll (http.server's default is 0.5 s) so that a stop is seen at once
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="citetrace-ui", daemon=True)
        self._thread.start()
        return self

    def stop(self, grace_s: float = STOP_GRACE_S) -> int:
        """Stop accepting (the listening socket is closed first), give the requests in flight ``grace_s`` seconds
        to finish, and return how many still had not (left to their daemon threads, which end with the process)."""
        if self._thread is not None:
            self._server.shutdown()  # returns once the loop has seen it (within its 0.1 s poll)
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()
        return self._server.wait_idle(grace_s)

    def __enter__(self) -> "RunBrowser":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
