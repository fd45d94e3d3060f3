"""A second secret corpus, in the shapes a real agent produces (``python tests/privacy/agent_corpus.py`` prints
the table of docs/privacy.md).

Every case is one research run through real ``requests`` and ``httpx`` calls to an HTTP server on 127.0.0.1:
secrets in redirect ``Location`` targets, in URLs nested in query values (``redirect_uri=``, ``next=``), in
``raise ... from`` chains and ``ExceptionGroup``s, in the error messages of both HTTP clients, in database and
proxy URLs inside exception text, in PEM keys, in tool arguments as dataclasses, pydantic models, header lists
and form strings, in key shapes (Slack, Stripe, GCP, GitLab, Azure SAS ``sig=``), in the question and in the
final answer. All cases of one capture mode share one SQLite store, so the sinks are read back once: span
attributes and events, every table of the store, ``citetrace runs/show/eval/gate/view``, the ``citetrace ui``
pages over HTTP, and the store of a ``citetrace serve`` that received the same spans over OTLP/HTTP.

A case leaks into a sink when its own secret (unique per case) appears there; "lost spans" counts the runs that
lost a tool call's span (its recording failed), and the last row the runs whose gate called a citation the run
had read unfetched.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import io
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx
import pydantic
import requests

from citetrace import research_run, traced_tool
from citetrace.cli import main as cli_main
from citetrace.config import load_settings
from citetrace.processor import TraceSummaryProcessor
from citetrace.store import SQLiteStore
from citetrace.testing import capture_spans

__all__ = ["CASES", "APART", "SINKS", "Case", "run_corpus"]

SINKS = ("lost spans", "span attributes", "span events", "store (all tables)", "runs", "show", "eval", "gate", "view", "ui",
         "serve store", "gate called a read citation unfetched")
_GATE_WRONG = SINKS[-1]
_S = "QQSQQ"  # stands for the case's secret in a case's strings (letters only: it survives percent-encoding)
_BODY = "Solar capacity grew 24 percent in 2024 according to the agency. " * 8
_REDIRECTS: dict[str, str] = {}  # /go/<name> -> Location


@dataclasses.dataclass(frozen=True)
class Case:
    """One run's secret-bearing pieces; every string may hold ``_S``, and ``PORT`` stands for the server's."""

    id: str
    results: tuple[str, ...] = ()  # extra search result URLs (the run also reads the first one)
    fetch: str | None = None  # one more requests fetch (path or URL)
    redirect_to: str | None = None  # /go/<id> answers 302 with this Location, read by requests and httpx
    httpx_fetch: str | None = None
    kwargs: Callable[[str], dict[str, Any]] | None = None  # keyword arguments of one more fetch
    positional: Callable[[str], Any] | None = None  # one positional argument of one more fetch
    password_arg: bool = False  # login(url, "bob", secret): a secret positional argument with a secret name
    raise_from: str | None = None  # a requests HTTPError on this URL, re-raised as RuntimeError(...) from it
    group: tuple[str, ...] = ()  # an ExceptionGroup of a requests HTTPError per URL, a KeyError per other text
    raise_text: str | None = None  # ConnectionError(text)
    returned_error: str | None = None  # a fetch returning {"error": text}
    question: str | None = None
    query: str | None = None
    answer_extra: str = ""
    secret: str = ""


@dataclasses.dataclass(frozen=True)
class _Creds:
    user: str
    token: str


class _Opts(pydantic.BaseModel):
    query: str
    api_key: str


def _q(text: str) -> str:
    return urllib.parse.quote(text, safe="")


CASES: tuple[Case, ...] = (
    Case("fragment key shape", results=(f"/page#sk-{_S}",)),
    Case("fragment id_token", results=(f"/page#state=1&id_token={_S}",)),
    Case("redirect Location with access_token", redirect_to=f"/page?access_token={_S}"),
    Case("redirect Location with userinfo", redirect_to=f"http://bob:{_S}@127.0.0.1:PORT/page"),
    Case("redirect Location fragment token", redirect_to=f"/page#access_token={_S}"),
    Case("nested redirect_uri with token", results=(f"/login?redirect_uri=http://127.0.0.1:PORT/cb?access_token={_S}",)),
    Case("nested next=, percent-encoded", results=("/login?next=" + _q(f"http://127.0.0.1:PORT/cb?token={_S}"),)),
    Case("fetch of a redirector: to= encoded", fetch="/go-nowhere?to=" + _q(f"http://127.0.0.1:PORT/page?api_key={_S}")),
    Case("URL-encoded form in a query value", results=("/p?data=" + _q(f"client_secret={_S}&x=1"),)),
    Case("semicolon query separator", results=(f"/p?a=1;token={_S}",)),
    Case("raise ... from HTTPError", raise_from=f"/deny?api_key={_S}"),
    Case("ExceptionGroup", group=(f"/deny?token={_S}", f"sk-{_S}")),
    Case("httpx HTTPStatusError", httpx_fetch=f"/deny?key={_S}"),
    Case("requests HTTPError with userinfo", fetch=f"http://bob:{_S}@127.0.0.1:PORT/deny"),
    Case("returned error dict", returned_error=f"401 Unauthorized for url http://127.0.0.1:PORT/x?access_token={_S}"),
    Case("args dataclass", positional=lambda s: _Creds("bob", s)),
    Case("args pydantic model", positional=lambda s: _Opts(query="q", api_key=s)),
    Case("args headers dict in a list", kwargs=lambda s: {"headers": [{"X-Api-Key": s}]}),
    Case("args header pairs", kwargs=lambda s: {"headers": [("X-Api-Key", s)]}),
    Case("args params pairs", kwargs=lambda s: {"params": [("api_key", s), ("q", "solar")]}),
    Case("args HAR-style headers", kwargs=lambda s: {"headers": [{"name": "Authorization", "value": f"Token {s}"}]}),
    Case("args cookies=", kwargs=lambda s: {"cookies": {"sid": s}}),
    Case("args form string", kwargs=lambda s: {"data": f"grant_type=password&username=bob&password={s}"}),
    Case("args dict with a tuple key", kwargs=lambda s: {"d": {("a", "b"): 1, "token": s}}),
    Case("args proxy URL", kwargs=lambda s: {"proxy": f"http://u:{s}@127.0.0.1:3128"}),
    Case("args proxies dict", kwargs=lambda s: {"proxies": {"https": f"http://u:{s}@127.0.0.1:3128"}}),
    Case("args secret positional by name", password_arg=True),
    Case("ghp_ in an unnamed query value", results=(f"/p?x=ghp_{_S}abcdefghijkl",)),
    Case("JWT in an unnamed query value", results=(f"/p?t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.{_S}",)),
    Case("Slack xoxb-", results=(f"/p?x=xoxb-1234-5678-{_S}",)),
    Case("Stripe sk_live_", results=(f"/p?x=sk_live_{_S}",)),
    Case("GCP AIza key", results=(f"/p?x=AIzaSyA{_S}0123456789abcdef",)),
    Case("Azure SAS sig=", results=(f"/c/b?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&spr=https&sig={_S}",)),
    Case("AWS presigned X-Amz-Signature", results=(f"/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={_S}",)),
    Case("GCS X-Goog-Signature", results=(f"/o?X-Goog-Signature={_S}",)),
    Case("userinfo in a search result", results=(f"http://svc:{_S}@127.0.0.1:PORT/page",)),
    Case("proxy URL in exception text", raise_text=f"ProxyError: Unable to connect to proxy http://u:{_S}@10.0.0.1:3128"),
    Case("database URL in exception text", raise_text=f"OperationalError: could not connect to postgresql://bob:{_S}@db:5432/x"),
    Case("redis URL in exception text", raise_text=f"ConnectionError: redis://:{_S}@cache:6379/0 refused"),
    Case("wss URL in exception text", raise_text=f"WebSocketError: wss://bob:{_S}@stream.example/socket closed"),
    Case("PEM key in exception text", raise_text=f"ValueError: bad key -----BEGIN PRIVATE KEY-----\nMIIE{_S}\n-----END PRIVATE KEY-----"),
    Case("Azure connection string in exception text",
         raise_text=f"ValueError: DefaultEndpointsProtocol=https;AccountName=a;AccountKey={_S};EndpointSuffix=x"),
    Case("question with key shape and secret URL", question=f"Why does sk-{_S} fail at https://api.example/?api_key={_S}?"),
    Case("answer citing a token URL", answer_extra=f" See https://api.example/v1?token={_S} [2]."),
    Case("answer with userinfo URL", answer_extra=f" Mirror at https://bob:{_S}@mirror.example/x."),
    Case("query text with a named secret", query=f"solar api_key={_S}"),
    Case("Slack xapp- in a query value", results=(f"/p?x=xapp-1-A0123-{_S}",)),
    Case("Stripe whsec_ in a query value", results=(f"/p?x=whsec_{_S}",)),
    Case("GCP ya29. in a query value", results=(f"/p?x=ya29.{_S}",)),
    Case("GitLab glpat- in a query value", results=(f"/p?x=glpat-{_S}",)),
)
"""Each case with its own secret (``secret`` filled in below)."""

CASES = tuple(dataclasses.replace(c, secret=f"Zq{n:02d}SECRETx7Wm3Kp2Lr8") for n, c in enumerate(CASES))

# Left visible by decision (see docs/privacy.md), listed apart like the path cases.
APART: tuple[Case, ...] = tuple(dataclasses.replace(c, secret=f"Zq{90 + n:02d}SECRETx7Wm3Kp2Lr8") for n, c in enumerate((
    Case("Slack webhook URL in a query value (a path)", results=(f"/p?hook=https://hooks.slack.example/services/T0/B0/{_S}",)),
)))


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/go/"):
            self.send_response(302)
            self.send_header("Location", _REDIRECTS[path[4:]])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status, body = (401, b"denied") if path.startswith("/deny") else (200, _BODY.encode())
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextlib.contextmanager
def _site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@traced_tool(kind="search")
def web_search(query: str, results: list[str]) -> list[dict[str, str]]:
    """The scripted search: the case's result URLs."""
    return [{"url": u, "title": "t"} for u in results]


@traced_tool(kind="fetch")
def read_page(url: str, *extra: Any, **options: Any) -> str:
    """A requests fetch that raises on 4xx."""
    response = requests.get(url, timeout=5)
    response.raise_for_status()
    return response.text


@traced_tool(kind="fetch")
def read_response(url: str) -> requests.Response:
    """A requests fetch returning the response (its ``.history`` says where it was redirected)."""
    return requests.get(url, timeout=5)


@traced_tool(kind="fetch")
def read_httpx(url: str) -> httpx.Response:
    """An httpx fetch following redirects, raising on 4xx."""
    response = httpx.get(url, timeout=5, follow_redirects=True)
    response.raise_for_status()
    return response


@traced_tool(kind="fetch")
def login(url: str, user: str, password: str) -> str:
    """A fetch whose secret argument is passed positionally."""
    return requests.get(url, timeout=5).text


@traced_tool(kind="fetch")
def read_or_error(url: str, error: str) -> dict[str, str]:
    """A fetch that reports its failure in the result."""
    return {"error": error}


@traced_tool(kind="fetch")
def failing_read(url: str, case: Case, sub: Callable[[str], str]) -> str:
    """A fetch that fails the case's way."""
    if case.raise_from:
        try:
            requests.get(sub(case.raise_from), timeout=5).raise_for_status()
        except requests.HTTPError as exc:
            raise RuntimeError("the read failed") from exc
    if case.group:
        errors: list[Exception] = []
        for item in case.group:
            try:
                if item.startswith("/"):
                    requests.get(sub(item), timeout=5).raise_for_status()
                else:
                    raise KeyError(sub(item))
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)
        raise getattr(builtins, "ExceptionGroup")("two reads failed", errors)
    raise ConnectionError(sub(case.raise_text or ""))


def _one_run(case: Case, base: str, n: int) -> str:
    port = base.rsplit(":", 1)[1]

    def sub(text: str) -> str:
        text = text.replace(_S, case.secret).replace("PORT", port)
        return base + text if text.startswith("/") else text

    page = f"{base}/page?n={n}"
    question = sub(case.question) if case.question else f"How fast is solar growing? ({n})"
    with research_run(question=question, agent="agent-corpus") as run:
        hits = web_search(sub(case.query) if case.query else "solar growth", [page, *map(sub, case.results)])
        with contextlib.suppress(Exception):
            if case.kwargs:
                read_page(f"{page}&k=1", **case.kwargs(case.secret))
            if case.positional:
                read_page(f"{page}&o=1", case.positional(case.secret))
            if case.password_arg:
                login(f"{page}&l=1", "bob", case.secret)
            if case.fetch:
                read_page(sub(case.fetch))
            if case.returned_error:
                read_or_error(f"{page}&e=1", sub(case.returned_error))
        if case.redirect_to:
            _REDIRECTS[str(n)] = sub(case.redirect_to)
            with contextlib.suppress(Exception):
                read_response(f"{base}/go/{n}")
            with contextlib.suppress(Exception):
                read_httpx(f"{base}/go/{n}")
        if case.httpx_fetch:
            with contextlib.suppress(Exception):
                read_httpx(sub(case.httpx_fetch))
        if case.raise_from or case.group or case.raise_text:
            with contextlib.suppress(BaseException):
                failing_read(f"{page}&f=1", case, sub)
        cited = hits[-1]["url"]  # the case's own result when it has one
        read_page(cited)
        run.record_answer(f"Solar capacity grew 24 percent in 2024 [1].{sub(case.answer_extra)}\n\n"
                          f"[1] {cited}\n[2] https://never.example/{n}\n")
    return run.id


def _expected_calls(case: Case) -> int:
    """Tool calls the case's run makes: the search, the final read, and one per extra step."""
    extra = sum(bool(x) for x in (case.kwargs, case.positional, case.password_arg, case.fetch, case.returned_error,
                                  case.httpx_fetch, case.raise_from or case.group or case.raise_text))
    return 2 + extra + (2 if case.redirect_to else 0)


def _text(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _dump(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        return "\n".join(con.iterdump())
    finally:
        con.close()


def _cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        cli_main(list(argv))
    return out.getvalue() + err.getvalue()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[str], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {proc.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)  # polling a port that is not open yet: there is no event to wait on
    raise RuntimeError(f"{url} did not answer in {seconds} s")


@contextlib.contextmanager
def _process(*argv: str) -> Iterator[subprocess.Popen[str]]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, "-m", "citetrace", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(15)


def _ui_pages(uri: str, run_ids: list[str]) -> tuple[str, dict[str, str]]:
    port = _free_port()
    with _process("ui", "--port", str(port), "--store", uri) as proc:
        base = f"http://127.0.0.1:{port}"
        _wait_http(base + "/", proc)
        get = lambda path: urllib.request.urlopen(base + path, timeout=10).read().decode("utf-8", "replace")  # noqa: E731
        return get("/"), {rid: get(f"/runs/{rid}") for rid in run_ids}


def _serve_store(spans: list[Any], db: Path, runs: int) -> str:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    port = _free_port()
    with _process("serve", "--port", str(port), "--metrics-port", "0", "--grace-seconds", "0",
                  "--store", f"sqlite:///{db}") as proc:
        _wait_http(f"http://127.0.0.1:{port}/healthz", proc)
        exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")
        for start in range(0, len(spans), 200):
            exporter.export(spans[start:start + 200])
        exporter.shutdown()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # serve writes each summary after its grace period
            if db.exists() and _dump(db).count('INSERT INTO "summaries"') >= runs:
                break
            time.sleep(0.1)
    return _dump(db)


def run_corpus(cases: tuple[Case, ...], *, capture_content: bool) -> dict[str, dict[str, bool]]:
    """{case id: {sink: leaked}} for ``cases``, run in one store."""
    with tempfile.TemporaryDirectory() as tmp, _site() as base:
        db = Path(tmp) / "store.db"
        store = SQLiteStore(db)
        summary = TraceSummaryProcessor(settings=load_settings(capture_content=capture_content), store=store)
        per_case: dict[str, dict[str, str]] = {}
        spans: list[Any] = []
        with capture_spans(store=store, processors=(summary,), capture_content=capture_content) as cap:
            for n, case in enumerate(cases):
                cap.clear()
                run_id = _one_run(case, base, n)
                got = cap.spans
                spans.extend(got)
                tools = [s for s in got if s.name.startswith("execute_tool")]
                per_case[case.id] = {
                    "run": run_id,
                    "lost spans": "" if len(tools) == _expected_calls(case) else case.secret,
                    "span attributes": _text([[s.name, dict(s.attributes or {}), s.status.description] for s in got]),
                    "span events": _text([[e.name, dict(e.attributes or {})] for s in got for e in s.events]),
                }
        summary.shutdown()
        store.close()
        uri = f"sqlite:///{db}"
        stored = _dump(db)
        runs = _cli("runs", "--store", uri, "--limit", "1000") + _cli("runs", "--store", uri, "--limit", "1000", "--json")
        common = ("--store", uri, "--offline", "--judge", "deterministic")
        for sinks in per_case.values():
            rid = sinks["run"]
            sinks["store (all tables)"] = stored
            sinks["runs"] = runs
            sinks["show"] = _cli("show", rid, "--store", uri) + _cli("show", rid, "--store", uri, "--json")
            sinks["eval"] = _cli("eval", rid, *common) + _cli("eval", rid, *common, "--json")
            gate_json = _cli("gate", rid, *common, "--json")
            sinks["gate"] = _cli("gate", rid, *common) + gate_json
            # the run read what it cited but never.example: the gate must name only that one
            failures = _text(json.loads(gate_json[gate_json.index("{"):])["failures"])
            sinks["gate called a read citation unfetched"] = failures if "127.0.0.1" in failures else ""
            sinks["view"] = _cli("view", rid, "--store", uri, "--evaluate", "-o", "-")
        ui_list, ui_runs = _ui_pages(uri, [s["run"] for s in per_case.values()])
        serve_store = _serve_store(spans, Path(tmp) / "serve.db", len(cases))
        for sinks in per_case.values():
            sinks["ui"] = ui_list + ui_runs[sinks["run"]]
            sinks["serve store"] = serve_store
    by_id = {c.id: c for c in cases}
    return {cid: {sink: (texts[sink] != "") if sink == _GATE_WRONG else by_id[cid].secret in texts[sink]
                  for sink in SINKS} for cid, texts in per_case.items()}


def main() -> None:  # pragma: no cover - prints the table for the docs
    """Leaks per sink with content capture off and on, the leaking cases, then the cases listed apart."""
    results = {mode: run_corpus(CASES, capture_content=mode == "on") for mode in ("off", "on")}
    print(f"{len(CASES)} cases\n| sink | capture off | capture on |\n|---|---:|---:|")
    for sink in SINKS:
        print(f"| {sink} | " + " | ".join(str(sum(r[sink] for r in res.values())) for res in results.values()) + " |")
    for mode, res in results.items():
        for cid, leaked in res.items():
            if any(leaked.values()):
                print(f"  capture {mode}: {cid}: {', '.join(s for s, v in leaked.items() if v)}")
    print("listed apart:")
    for cid, leaked in run_corpus(APART, capture_content=True).items():
        print(f"  {cid}: {', '.join(s for s, v in leaked.items() if v) or 'none'}")


if __name__ == "__main__":  # pragma: no cover
    main()
