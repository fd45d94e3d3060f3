"""Fixtures for the eval tests: a run store with one recorded run, and real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

import pytest

from citetrace.store import MemoryStore, RunRecord, ToolCallRecord

UNEMPLOYMENT = (
    "Statistics Office of Nordland\n\nPublished: 2 April 2024.\n\n"
    "The unemployment rate rose to 4.2% in March 2024, the statistics office said on Tuesday. "
    "It had been 3.9% in February. The labour force grew by 12,000 people to 2.1 million.\n\n"
    "Wages rose 3.1 percent over the year, while consumer prices rose 2.4 percent."
)
JOBS = (
    "Jobs report for March\n\nPublished 5 April 2024.\n\nThe rate was the highest since January 2021. "
    "Employers in construction cut 4,500 jobs, and average weekly pay reached $1,120."
)


def serve(handler: Callable[[BaseHTTPRequestHandler], None]) -> tuple[ThreadingHTTPServer, str]:
    """Start a threaded HTTP server on a free port; every method goes to ``handler``."""

    class H(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            handler(self)

        do_HEAD = do_POST = do_GET

    server = ThreadingHTTPServer(("127.0.0.1", 0), H)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def http_server() -> Iterator[Callable[[Callable[[BaseHTTPRequestHandler], None]], str]]:
    """Start servers on demand; all are shut down after the test."""
    servers: list[ThreadingHTTPServer] = []

    def start(handler: Callable[[BaseHTTPRequestHandler], None]) -> str:
        server, url = serve(handler)
        servers.append(server)
        return url

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def reply(h: BaseHTTPRequestHandler, status: int, body: Any = b"", headers: dict[str, str] | None = None) -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    h.send_response(status)
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    if h.command != "HEAD":
        h.wfile.write(data)


def make_run(store: MemoryStore, answer: str | None, run_id: str = "run-1", started: float | None = None) -> None:
    """Record a run that searched, read the unemployment and jobs pages, and failed to read one more."""
    started = time.time() if started is None else started
    store.put_run(RunRecord(run_id, "ab" * 16, "tester", "How is the labour market?", started, answer=answer))
    store.put_document(run_id, "https://stats.example/unemployment", UNEMPLOYMENT, status="ok")
    store.put_document(run_id, "https://jobs.example/2024/march", JOBS, status="ok")
    store.put_document(run_id, "https://broken.example/page", "", status="error", http_status=500)
    store.put_calls([
        ToolCallRecord(run_id, 0, "search", "search", "ok", started, 5.0,
                       urls_returned=["https://stats.example/unemployment", "https://broken.example/page"]),
        ToolCallRecord(run_id, 1, "fetch", "fetch", "ok", started, 5.0, url="https://stats.example/unemployment"),
    ])


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()
