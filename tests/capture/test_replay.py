"""Replay: a recorded run's tool calls answered from the store, in order, with no network access."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import Any, Iterator

import pytest
import requests

from citetrace import ReplayMiss, names, replay, research_run, traced_tool
from citetrace.pytest_plugin import citetrace_replay  # noqa: F401 - the fixture under test
from citetrace.store import MemoryStore, SQLiteStore
from citetrace.summary import SpanRecord, summarize
from citetrace.testing import Captured, capture_spans, no_network
from instrumentation._net import LocalServer  # tests/ is on sys.path (pytest's rootdir-relative import)


class QuotaError(Exception):
    """A tool's own exception type."""


class NeedsInit(Exception):
    """An exception that cannot even print without its constructor's arguments."""

    def __init__(self, code: int, detail: str) -> None:
        super().__init__(code, detail)
        self.code, self.detail = code, detail

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


@pytest.fixture
def web() -> Iterator[LocalServer]:
    """A search API and two pages on 127.0.0.1."""
    srv = LocalServer()
    srv.routes["/search"] = (200, '{"results": [{"url": "https://a.example/1"}, {"url": "https://b.example/2"}]}',
                             "application/json")
    srv.routes["/page/a"] = (200, "Page A text. " * 30, "text/html")
    srv.routes["/page/gone"] = (404, "gone", "text/plain")
    try:
        yield srv
    finally:
        srv.close()


def _tools(base: str) -> tuple[Any, Any, Any]:
    @traced_tool(kind="search")
    def search(query: str) -> list[dict[str, Any]]:
        return list(requests.get(f"{base}/search", params={"q": query}, timeout=5).json()["results"])

    @traced_tool(kind="fetch")
    def read(url: str) -> requests.Response:
        return requests.get(url, timeout=5)

    @traced_tool(kind="search")
    def quota(query: str) -> list[Any]:
        raise QuotaError(f"quota exceeded for {query!r}")

    return search, read, quota


def _agent(base: str) -> dict[str, Any]:
    search, read, quota = _tools(base)
    with research_run("q") as run:
        hits = search("lake orrin")
        a, gone = read(f"{base}/page/a"), read(f"{base}/page/gone")
        try:
            quota("x")
            error = None
        except QuotaError as exc:
            error = (type(exc), str(exc))
        run.record_answer(f"Claim [1].\n\n[1] {base}/page/a")
    return {"run": run.id, "hits": hits, "a": (a.status_code, a.text), "gone": (gone.status_code, gone.text),
            "error": error}


def _summary(cap: Captured, run_id: str) -> dict[str, Any]:
    spans = [SpanRecord.from_readable_span(s) for s in cap.spans
             if (s.attributes or {}).get(names.RUN_ID) == run_id]
    out = summarize(spans).to_dict()
    return {k: v for k, v in out.items() if k not in ("run_id", "trace_id", "keep", "total_ms", "slowest_ms")}


def test_replay_gives_the_same_results_and_summary_twice_without_network(web: LocalServer) -> None:
    """Two replays of a recorded run return what it returned (responses rebuilt, the exception raised again
    with its type and message), make the same summary, touch no socket, and are new runs marked replay_of."""
    with capture_spans(record_responses=True) as cap:
        recorded = _agent(web.base)
        first = _summary(cap, recorded["run"])
        for _ in range(2):
            with no_network() as attempts, replay(recorded["run"], store=cap.store) as rp:
                again = _agent(web.base)
            assert attempts == [] and rp.missed == 0 and rp.replayed == 4
            assert {k: v for k, v in again.items() if k != "run"} == {k: v for k, v in recorded.items() if k != "run"}
            assert again["run"] != recorded["run"]
            assert _summary(cap, again["run"]) == first
        roots = [s for s in cap.run_spans() if (s.attributes or {}).get(names.RUN_REPLAY_OF) == recorded["run"]]
        assert len(roots) == 2


def test_a_miss_raises_replaymiss_naming_the_tool(web: LocalServer) -> None:
    """A call the recording never made raises ReplayMiss with the tool and its arguments."""
    with capture_spans(record_responses=True) as cap:
        recorded = _agent(web.base)
        search, _read, _quota = _tools(web.base)
        with replay(recorded["run"], store=cap.store), pytest.raises(ReplayMiss, match=r"'search'.*another query"):
            search("another query")


def test_passthrough_reaches_the_real_tool_and_empty_returns_nothing(web: LocalServer) -> None:
    """passthrough calls the local server for a miss; empty returns an empty result without calling."""
    with capture_spans(record_responses=True) as cap:
        recorded = _agent(web.base)
        search, _read, _quota = _tools(web.base)
        before = len(web.requests)
        with replay(recorded["run"], store=cap.store, miss="passthrough"):
            assert len(search("new query")) == 2
        assert len(web.requests) == before + 1
        with no_network() as attempts, replay(recorded["run"], store=cap.store, miss="empty"):
            assert search("new query") == []
        assert attempts == []


def test_nothing_is_recorded_unless_asked(web: LocalServer) -> None:
    """By default no response is recorded, so there is nothing to replay."""
    with capture_spans() as cap:
        recorded = _agent(web.base)
        assert cap.store.responses(recorded["run"]) == []


def test_recorded_responses_are_redacted() -> None:
    """Secrets in a recorded response (a URL's api_key) are redacted, and replay still matches the call."""
    @traced_tool(kind="search")
    def search(query: str, api_key: str) -> list[dict[str, str]]:
        return [{"url": f"https://a.example/r?api_key={api_key}"}]

    with capture_spans(record_responses=True) as cap:
        with research_run("q") as run:
            search("x", api_key="sk-live-abcdefabcdef0123")
        (recorded,) = cap.store.responses(run.id)
        assert "abcdefabcdef0123" not in str(recorded.payload)
        with replay(run.id, store=cap.store):
            assert "api_key" in search("x", api_key="sk-live-abcdefabcdef0123")[0]["url"]


async def test_async_tools_replay() -> None:
    """An async tool's recorded value comes back from an awaited replay."""
    @traced_tool(kind="search")
    async def search(query: str) -> list[dict[str, str]]:
        return [{"url": "https://a.example/async"}]

    with capture_spans(record_responses=True) as cap:
        with research_run("q") as run:
            first = await search("x")
        with no_network(), replay(run.id, store=cap.store):
            assert await search("x") == first


def test_the_pytest_fixture_replays_for_the_test(web: LocalServer, citetrace_replay: Any) -> None:  # noqa: F811
    """citetrace_replay(run_id) replays until the test ends."""
    with capture_spans(record_responses=True) as cap:
        recorded = _agent(web.base)
        rp = citetrace_replay(recorded["run"], store=cap.store)
        with no_network() as attempts:
            _agent(web.base)
        assert attempts == [] and rp.replayed == 4


def test_generator_tools_replay_their_items() -> None:
    """A generator search tool and an async-generator fetch tool yield their recorded items again."""
    @traced_tool(kind="search")
    def stream_search(query: str) -> Iterator[dict[str, str]]:
        yield {"url": "https://a.example/1"}
        yield {"url": "https://b.example/2"}

    @traced_tool(kind="fetch")
    async def stream_page(url: str) -> Any:
        yield "Page "
        yield "text."

    async def read(url: str) -> list[Any]:
        return [chunk async for chunk in stream_page(url)]

    with capture_spans(record_responses=True) as cap:
        with research_run("q") as run:
            first = list(stream_search("x"))
            page = asyncio.run(read("https://a.example/1"))
        with no_network() as attempts, replay(run.id, store=cap.store) as rp:
            assert list(stream_search("x")) == first
            assert "".join(asyncio.run(read("https://a.example/1"))) == "".join(page)
        assert attempts == [] and rp.replayed == 2 and rp.missed == 0


UNKNOWN = "20990101-000000-deadbeef"


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("citetrace")]


def test_an_unknown_replay_run_refuses_every_call_and_never_goes_live(
        web: LocalServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """CITETRACE_REPLAY naming no run logs one warning, then every traced call (sync, fetch, under a
    passthrough policy) raises ReplayMiss naming the run and the store, and the local server gets no request."""
    monkeypatch.setenv(names.ENV_REPLAY, UNKNOWN)
    monkeypatch.setenv(names.ENV_REPLAY_MISS, "passthrough")
    search, read, _quota = _tools(web.base)
    with caplog.at_level(logging.WARNING), capture_spans() as cap:
        with research_run("q"):
            for call in (lambda: search("lake orrin"), lambda: read(f"{web.base}/page/a"), lambda: search("again")):
                with pytest.raises(ReplayMiss, match=rf"^replay of run {UNKNOWN} cannot answer tool '\w+': "
                                                     rf"no run '{UNKNOWN}' to replay in memory"):
                    call()
        (root,) = cap.run_spans()
    assert web.requests == []
    assert (root.attributes or {})[names.RUN_REPLAY_OF] == UNKNOWN
    (warning,) = _warnings(caplog)
    assert f"{names.ENV_REPLAY}={UNKNOWN} cannot be replayed: no run" in warning and "\n" not in warning


def test_a_run_recorded_without_responses_says_so_on_every_call(
        web: LocalServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Replaying a run recorded without CITETRACE_RECORD_RESPONSES (by env or by replay(), any miss policy,
    async too) raises ReplayMiss saying the run recorded no responses and how to record them; nothing goes out."""
    store = MemoryStore()
    with capture_spans(store=store):
        recorded = _agent(web.base)["run"]
    before = len(web.requests)
    search, read, _quota = _tools(web.base)
    why = rf"run {recorded} recorded no tool responses \(record it with {names.ENV_RECORD_RESPONSES}=true\)$"
    monkeypatch.setenv(names.ENV_REPLAY, recorded)
    with caplog.at_level(logging.WARNING), capture_spans(store=store):
        with pytest.raises(ReplayMiss, match=rf"tool 'search': {why}"):
            search("lake orrin")
        with pytest.raises(ReplayMiss, match=rf"tool 'read': {why}"):
            read(f"{web.base}/page/a")
    assert len(_warnings(caplog)) == 1
    monkeypatch.delenv(names.ENV_REPLAY)

    @traced_tool(kind="search")
    async def asearch(query: str) -> list[Any]:
        return list(requests.get(f"{web.base}/search", params={"q": query}, timeout=5).json()["results"])

    with capture_spans(store=store), replay(recorded, store=store, miss="empty") as rp:
        with pytest.raises(ReplayMiss, match=why):
            asyncio.run(asearch("lake orrin"))
    assert rp.missed == 1 and len(web.requests) == before


def test_an_unreadable_store_refuses_replay_instead_of_going_live(
        web: LocalServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the store cannot be read (its responses table dropped behind its back), CITETRACE_REPLAY still
    serves nothing live: each call raises ReplayMiss naming the run and the store error."""
    broken = SQLiteStore(str(tmp_path / "store.db"))
    with sqlite3.connect(tmp_path / "store.db") as db:
        db.execute("DROP TABLE tool_responses")
    monkeypatch.setenv(names.ENV_REPLAY, UNKNOWN)
    search, _read, _quota = _tools(web.base)
    with capture_spans(store=broken):
        with pytest.raises(ReplayMiss, match=rf"run {UNKNOWN} could not be read from the store \(\w+Error: "):
            search("lake orrin")
    broken.close()
    assert web.requests == []


def test_http_errors_raised_by_urllib_requests_and_httpx_replay_whole(web: LocalServer) -> None:
    """A 404 raised by urllib (``urlopen``), requests (``raise_for_status``) and httpx comes back from replay as an
    exception the agent can use like the live one: its type, message, status (urllib's ``code``/``status``/
    ``reason``, requests' and httpx's ``response.status_code``) and a traceback that prints. Before, urllib's
    HTTPError was rebuilt without its constructor: every attribute raised KeyError('file'), so ``e.code``, ``str(e)``
    and printing the traceback failed (the interpreter lost sys.stderr), and the recorded span lost its 404; httpx's
    HTTPStatusError came back with a requests.Response and no request (``e.request`` raised RuntimeError)."""
    import traceback
    import urllib.error
    import urllib.request

    import httpx

    @traced_tool(kind="fetch")
    def with_urllib(url: str) -> str:
        return str(urllib.request.urlopen(url, timeout=5).read().decode())

    @traced_tool(kind="fetch")
    def with_requests(url: str) -> str:
        response = requests.get(url, timeout=5)
        response.raise_for_status()
        return response.text

    @traced_tool(kind="fetch")
    def with_httpx(url: str) -> str:
        response = httpx.get(url, timeout=5)
        response.raise_for_status()
        return response.text

    def agent() -> tuple[str, list[tuple[Any, ...]]]:
        seen: list[tuple[Any, ...]] = []
        with research_run("q") as run:
            for tool in (with_urllib, with_requests, with_httpx):
                try:
                    tool(f"{web.base}/page/gone")
                except urllib.error.HTTPError as exc:
                    seen.append((type(exc), str(exc), exc.code, exc.status, exc.reason,
                                 "urllib.error.HTTPError: HTTP Error 404" in "".join(traceback.format_exception(exc))))
                except requests.HTTPError as exc:
                    seen.append((type(exc), str(exc).split(" for url")[0], exc.response.status_code))
                except httpx.HTTPStatusError as exc:  # httpx's own response and request, as the live error has
                    seen.append((type(exc), str(exc).split(" for url")[0], exc.response.status_code,
                                 type(exc.response), str(exc.request.url), exc.request.method))
        return run.id, seen

    with capture_spans(record_responses=True) as cap:
        recorded_id, recorded = agent()
        with no_network() as attempts, replay(recorded_id, store=cap.store) as rp:
            _again_id, again = agent()
        assert attempts == [] and rp.replayed == 3
        assert again == recorded and recorded[0][:5] == (urllib.error.HTTPError, "HTTP Error 404: Not Found", 404,
                                                         404, "Not Found")
        statuses = [(s.attributes or {}).get("http.response.status_code") for s in cap.spans
                    if (s.attributes or {}).get("gen_ai.tool.name") == "with_urllib"]
        assert statuses == [404, 404]


def test_an_exception_that_needs_its_constructor_to_print_replays_printable() -> None:
    """A tool's exception whose __str__ reads what __init__ set: rebuilt without calling __init__ it could not
    print (AttributeError from str(), and from the traceback). It comes back as a subclass, so ``except NeedsInit``
    still catches it, with the recorded message and a traceback that prints."""
    import traceback

    @traced_tool(kind="search")
    def picky(query: str) -> list[Any]:
        raise NeedsInit(503, f"backend down for {query}")

    def agent() -> tuple[str, tuple[Any, ...]]:
        with research_run("q") as run:
            try:
                picky("x")
            except NeedsInit as exc:
                return run.id, (str(exc), "NeedsInit: 503: backend down for x" in "".join(traceback.format_exception(exc)))
        raise AssertionError("not raised")

    with capture_spans(record_responses=True) as cap:
        recorded_id, recorded = agent()
        with no_network(), replay(recorded_id, store=cap.store):
            _again_id, again = agent()
    assert again == recorded == ("503: backend down for x", True)


def test_an_unrecorded_oversized_response_keeps_the_calls_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """A response over the recording cap keeps its place as an "unrecorded" mark: a later call with the same
    arguments still gets its own response, and the oversized one is a miss that says why (under the miss
    policy: ReplayMiss naming the size, or the real tool with passthrough). Before, the oversized response was
    dropped, so the second fetch of the URL replayed as the first and the last call raised "no recorded
    response left", which reads as an agent that changed."""
    from citetrace.capture import _responses

    monkeypatch.setattr(_responses, "MAX_PAYLOAD_BYTES", 1000)
    pages = iter(["big " * 1000, "small page " * 30])

    @traced_tool(kind="fetch")
    def read(url: str) -> str:
        """A page that is huge the first time and small the second."""
        return next(pages)

    with capture_spans(record_responses=True) as cap:
        with research_run("q") as run:
            read("https://x.example/p")
            read("https://x.example/p")
        with no_network(), replay(run.id, store=cap.store):
            with research_run("q"):
                with pytest.raises(ReplayMiss, match=r"'read'.*over 1000 bytes.*not recorded"):
                    read("https://x.example/p")
                assert read("https://x.example/p") == "small page " * 30
        with replay(run.id, store=cap.store, miss="passthrough"):
            pages = iter(["live page " * 30])
            with research_run("q"):
                assert read("https://x.example/p") == "live page " * 30
                assert read("https://x.example/p") == "small page " * 30
