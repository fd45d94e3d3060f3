"""The ledger demo's one local server: ``/search?q=&class=&exclude=`` and ``/pages/<slug>`` on 127.0.0.1.

A page in several versions serves the next version on each later fetch, so a re-read sees the update.
It binds a free port and stops with ``stop()`` (or the context manager); nothing leaves the machine.
"""

from __future__ import annotations

import html
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from citetrace.demo._ledger_pages import LEDGER_PAGES, LedgerPage, PageVersion

__all__ = ["LedgerSite"]

_WORD = re.compile(r"[a-z0-9]+")
_MIN_MATCH = 2


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _send(self, status: int, body: str, ctype: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        parts = urlsplit(self.path)
        site = self.server.site
        if parts.path == "/search":
            qs = parse_qs(parts.query)
            results = site.search(qs.get("q", [""])[0], qs.get("class", [None])[0],
                                  tuple(x for x in qs.get("exclude", [""])[0].split(",") if x))
            self._send(200, json.dumps({"results": results}), "application/json")
            return
        if parts.path.startswith("/pages/"):
            found = site.serve(parts.path[len("/pages/"):])
            if found is not None:
                self._send(200, found, "text/html; charset=utf-8")
                return
        self._send(404, "not found", "text/plain")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, site: "LedgerSite") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.site = site


def _html(page: LedgerPage, version: PageVersion) -> str:
    esc = html.escape
    paras = "\n".join(f"<p>{esc(p)}</p>" for p in version.paragraphs)
    return (f"<!doctype html><html><head><title>{esc(page.title)}</title></head><body><article>"
            f"<h1>{esc(page.title)}</h1><p class=\"byline\">{esc(page.publisher)}, published {version.published}</p>"
            f"\n{paras}\n</article></body></html>\n")


class LedgerSite:
    """Search and pages for the ledger scenarios, with a per-page fetch counter for versions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fetches: dict[str, int] = {}
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> "LedgerSite":
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, name="ledger-demo-site", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "LedgerSite":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the ledger demo site is not running")
        return f"http://127.0.0.1:{self._server.server_port}"

    def page_url(self, slug: str) -> str:
        return f"{self.base_url}/pages/{slug}"

    def search(self, query: str, source_class: str | None, exclude: tuple[str, ...]) -> list[dict[str, str]]:
        """Pages sharing at least two keywords with the query, best first, filtered by source class."""
        words = set(_WORD.findall(query.lower()))
        scored = []
        for page in LEDGER_PAGES:
            if (source_class and page.source_class != source_class) or page.source_class in exclude:
                continue
            score = len(words & set(page.keywords))
            if score >= _MIN_MATCH:
                scored.append((-score, page.slug, page))
        return [{"url": self.page_url(p.slug), "title": p.title, "source_class": p.source_class}
                for _s, _slug, p in sorted(scored)]

    def serve(self, slug: str) -> str | None:
        """The page's HTML: version n on the n-th fetch (the last version from then on)."""
        page = next((p for p in LEDGER_PAGES if p.slug == slug), None)
        if page is None:
            return None
        with self._lock:
            n = self._fetches.get(slug, 0)
            self._fetches[slug] = n + 1
        return _html(page, page.versions[min(n, len(page.versions) - 1)])
