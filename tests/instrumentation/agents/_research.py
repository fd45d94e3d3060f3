"""The framework end-to-end tests' world: a Tavily API and web pages on 127.0.0.1, and the runner that starts
an agent script in a subprocess with nothing but environment variables set and reads its runs back with
``citetrace runs --json`` (the CLI a user would use).

One scripted research session per framework runs against it, with outcomes fixed by the request itself:

- ``POST /search``: a query with ``nothing`` finds no results; ``throttle`` gets HTTP 429 (tavily-python
  raises ``UsageLimitExceededError``); any other query returns the two ``GOOD`` pages;
- ``POST /serper/search`` (or ``/google.serper.dev/search``, Serper's own host rerouted): the same outcomes in
  Serper's shape (CrewAI's ``SerperDevTool``, knowledge-storm's ``SerperRM``); a query with ``broken`` gets no
  response at all (the connection is closed; logged with status 0);
- ``POST /v1/responses``: an OpenAI Responses API reply whose model used its hosted web search;
- ``POST /v1/chat/completions``: the reply of the scripted chat model ``ResearchWeb.chat`` (when set), and
  ``POST /v1/embeddings``: the same unit vector for every input (every chunk is equally relevant);
- a query with ``mixed`` finds one readable page, one gone (404) and one rate-limited (429);
- ``POST /extract``: each URL under ``/page/`` is read (``raw_content``), any other one fails
  (``failed_results``);
- ``GET /page/<name>``: an HTML page; ``GET /slow/<name>``: 429; anything else: 404.

``ANSWER`` cites one page that was searched and read, one that was only searched, and one that no search
returned: the summary figures each test expects follow from it (``EXPECTED``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

PAGE_TEXT = "Readable text about OpenTelemetry tracing for research agents. " * 10
PAGE_HTML = f"<html><head><title>Page</title></head><body><article><p>{PAGE_TEXT}</p></article></body></html>"
INVENTED = "https://invented.example/never-searched"


class ResearchWeb:
    """A threaded HTTP server on a free port that stops when closed; ``requests`` lists (method, path, status)
    of every answered request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, int]] = []
        self.chat: Callable[[dict[str, Any]], str] | None = None
        """The scripted chat model behind ``POST /v1/chat/completions``: the request body -> the reply text."""
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path == "/v1/responses":
                    self._send(200, web.responses_api(body))
                elif self.path == "/v1/chat/completions" and web.chat is not None and body.get("stream"):
                    self._stream(chat_chunks(body, web.chat(body)))
                elif self.path == "/v1/chat/completions" and web.chat is not None:
                    self._send(200, chat_completion(body, web.chat(body)))
                elif self.path == "/v1/embeddings":
                    self._send(200, embeddings(body))
                elif self.path.startswith(("/serper/", "/google.serper.dev/")) and "broken" in str(body.get("q")):
                    web.requests.append((self.command, self.path, 0))
                    self.close_connection = True  # no response at all: the client raises (RemoteDisconnected)
                elif self.path.startswith(("/serper/", "/google.serper.dev/")):
                    self._send(*web.serper(str(body.get("q", ""))))
                elif self.path.endswith("/search"):
                    self._send(*web.search(str(body.get("query", ""))))
                elif self.path.endswith("/extract"):
                    urls = body.get("urls")
                    self._send(*web.extract(urls if isinstance(urls, list) else [urls]))
                else:
                    self._send(404, {"detail": "no such endpoint"})

            def do_GET(self) -> None:  # noqa: N802
                if self.path.startswith("/page/"):
                    self._send(200, PAGE_HTML, "text/html; charset=utf-8")
                elif self.path.startswith("/slow/"):
                    self._send(429, "slow down", "text/plain")
                else:
                    self._send(404, "not found", "text/plain")

            def _send(self, status: int, payload: Any, ctype: str = "application/json") -> None:
                web.requests.append((self.command, self.path, status))
                data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, events: list[dict[str, Any]]) -> None:
                web.requests.append((self.command, self.path, 200))
                data = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data.encode())))
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.good = [f"{self.base}/page/a", f"{self.base}/page/b"]
        self.mixed = [self.good[0], f"{self.base}/gone/x", f"{self.base}/slow/y"]
        """What a query with ``mixed`` finds: one readable page, one gone (404), one rate-limited (429)."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    def search(self, query: str) -> tuple[int, Any]:
        """The Tavily search answer for ``query``."""
        if "throttle" in query:
            return 429, {"detail": {"error": "rate limit exceeded"}}
        if "nothing" in query:
            return 200, {"query": query, "results": []}
        urls = self.mixed if "mixed" in query else self.good
        results = [{"url": u, "title": u.rsplit("/", 1)[-1], "content": "snippet", "score": 0.9} for u in urls]
        return 200, {"query": query, "results": results}

    def serper(self, query: str) -> tuple[int, Any]:
        """The same answers in Serper's shape (``POST /serper/search``, ``{"organic": [{"link", ...}]}``)."""
        status, found = self.search(query)
        if status != 200:
            return status, {"message": "Too many requests"}
        organic = [{"title": r["title"], "link": r["url"], "snippet": r["content"], "position": i + 1}
                   for i, r in enumerate(found["results"])]
        return 200, {"searchParameters": {"q": query}, "organic": organic}

    def responses_api(self, request: dict[str, Any]) -> dict[str, Any]:
        """An OpenAI Responses API answer in which the model used its hosted ``web_search`` tool: one search
        (``action.sources`` = the two pages) and one ``open_page`` of the first, then ``answer()`` as text."""
        text = self.answer()
        output = [
            {"type": "web_search_call", "id": "ws_1", "status": "completed",
             "action": {"type": "search", "query": "what is opentelemetry",
                        "sources": [{"type": "url", "url": u} for u in self.good]}},
            {"type": "web_search_call", "id": "ws_2", "status": "completed",
             "action": {"type": "open_page", "url": self.good[0]}},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]},
        ]
        return {"id": "resp_1", "object": "response", "created_at": 1700000000, "status": "completed",
                "model": str(request.get("model", "gpt-5")), "output": output, "parallel_tool_calls": True,
                "tool_choice": "auto", "tools": [{"type": "web_search"}]}

    def extract(self, urls: list[Any]) -> tuple[int, Any]:
        """The Tavily extract answer: pages under /page/ are read, the others fail."""
        ok = [{"url": u, "raw_content": PAGE_TEXT} for u in urls if "/page/" in str(u)]
        failed = [{"url": u, "error": "could not fetch"} for u in urls if "/page/" not in str(u)]
        return 200, {"results": ok, "failed_results": failed}

    def answer(self) -> str:
        """The final report every scripted agent gives: [1] read, [2] only searched, [3] never searched."""
        return (f"OpenTelemetry traces agents [1]. Spans nest [2]. Some say otherwise [3].\n\n"
                f"[1]: {self.good[0]}\n[2]: {self.good[1]}\n[3]: {INVENTED}\n")

    def close(self) -> None:
        """Stop serving and release the port."""
        self.httpd.shutdown()
        self.httpd.server_close()


EXPECTED = {
    # the session every scripted agent runs: search (2 results), search "nothing" (empty),
    # search "throttle" (429), read page/a (ok), read /gone/x (failed)
    "searches": 3,
    "reads": 2,
    "empty_searches": 1,
    "failed_reads": 1,
    "rate_limited": 1,
    "citations": 3,
    "uncited_from_retrieval": 1,
    "cited_not_fetched": 2,
}
"""The summary figures of that session with ``ANSWER``."""


SCRIPTS = Path(__file__).parent / "scripts"


def agent_env(tmp_path: Path, extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """What an agent script gets: this environment without any CITETRACE_*/OTEL_* of the test run, plus
    CITETRACE_AUTO_INSTRUMENT=true, a fresh sqlite store in ``tmp_path`` and no exporter or metrics."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(CITETRACE_AUTO_INSTRUMENT="true", CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}",
               OTEL_TRACES_EXPORTER="none", OTEL_METRICS_EXPORTER="none", OTEL_LOGS_EXPORTER="none",
               CITETRACE_METRICS="off")
    env.update(extra_env or {})
    return env


def run_script(tmp_path: Path, path: Path | str, *argv: str, extra_env: dict[str, str] | None = None,
               python: str = sys.executable, timeout: float = 120) -> str:
    """Run the agent script at ``path`` in ``tmp_path`` with ``agent_env``; return its stdout (fails with its
    stderr when it exits non-zero)."""
    proc = subprocess.run([python, str(path), *argv], cwd=tmp_path, env=agent_env(tmp_path, extra_env),
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def run_agent(tmp_path: Path, script: str, *argv: str, extra_env: dict[str, str] | None = None,
              python: str = sys.executable) -> str:
    """Run ``scripts/<script>`` (an agent that imports nothing of citetrace), copied into ``tmp_path`` as
    agent.py, with ``agent_env``; return its stdout."""
    (tmp_path / "agent.py").write_text((SCRIPTS / script).read_text())
    return run_script(tmp_path, "agent.py", *argv, extra_env=extra_env, python=python)


def runs(tmp_path: Path) -> list[dict[str, Any]]:
    """``citetrace runs --json`` on the script's store, oldest first."""
    proc = subprocess.run([sys.executable, "-m", "citetrace", "runs", "--json", "--limit", "100", "--store",
                           f"sqlite:///{tmp_path / 'store.db'}"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return list(reversed(json.loads(proc.stdout)))


def show(tmp_path: Path, run_id: str) -> dict[str, Any]:
    """``citetrace show RUN_ID --json``: the run with its calls and stored documents."""
    proc = subprocess.run([sys.executable, "-m", "citetrace", "show", run_id, "--json", "--store",
                           f"sqlite:///{tmp_path / 'store.db'}"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(proc.stdout))


def figures(run: dict[str, Any]) -> dict[str, Any]:
    """The summary figures the tests compare with ``EXPECTED``."""
    summary = run.get("summary") or {}
    return {key: summary.get(key) for key in EXPECTED}


def one_run(tmp_path: Path, web: ResearchWeb, script: str, mode: str, **kwargs: Any) -> dict[str, Any]:
    """Run ``script`` in ``mode`` (it prints ``True`` when the framework returned the scripted answer) and
    return the one run ``citetrace runs --json`` lists (fails on any other number)."""
    out = run_agent(tmp_path, script, web.base, mode, web.answer(), **kwargs)
    assert out.strip() == "True", out
    found = runs(tmp_path)
    assert len(found) == 1, [r["agent"] for r in found]
    return found[0]


def two_concurrent_runs(tmp_path: Path, web: ResearchWeb, script: str, pairs: list[tuple[str, str]],
                        **kwargs: Any) -> list[dict[str, Any]]:
    """Run ``script``'s ``concurrent`` mode (two invocations at once) and check it made exactly two runs, in
    two traces, named and asked as ``pairs`` says; return them."""
    out = run_agent(tmp_path, script, web.base, "concurrent", web.answer(), **kwargs)
    assert out.strip() == "[True, True]", out
    found = runs(tmp_path)
    assert sorted((r["agent"], r["question"]) for r in found) == pairs
    assert len({r["trace_id"] for r in found}) == 2
    return found


def chat_completion(request: dict[str, Any], text: str) -> dict[str, Any]:
    """An OpenAI Chat Completions reply carrying ``text``."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
            "model": str(request.get("model", "gpt-4o-mini")),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def chat_chunks(request: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The same reply as server-sent ``chat.completion.chunk`` events (``stream: true``): the text in one
    delta, then the finish."""
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
            "model": str(request.get("model", "gpt-4o-mini"))}
    return [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
            {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def embeddings(request: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Embeddings reply: one and the same unit vector per input, as floats or base64 as asked."""
    import base64
    import struct

    inputs = request.get("input")
    count = len(inputs) if isinstance(inputs, list) and inputs and not isinstance(inputs[0], int) else 1
    vector = [1.0] + [0.0] * 7
    value: Any = vector
    if request.get("encoding_format") == "base64":
        value = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
    return {"object": "list", "model": str(request.get("model", "text-embedding-3-small")),
            "data": [{"object": "embedding", "index": i, "embedding": value} for i in range(count)],
            "usage": {"prompt_tokens": 1, "total_tokens": 1}}
