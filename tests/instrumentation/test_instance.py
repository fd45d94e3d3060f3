"""Instance state: rows that take the query or URL from ``self`` (``Patch.pass_instance`` + ``_instance``)."""

from __future__ import annotations

import importlib
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from citetrace import names
from citetrace.capture._core import ToolSpec
from citetrace.capture._extract import query_hash
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.instrumentation._instance import QUERY_FROM_INSTANCE, URL_FROM_INSTANCE
from citetrace.instrumentation._patcher import Patcher
from citetrace.instrumentation._table_types import Patch
from citetrace.testing import Captured, capture_spans

from ._net import LocalServer
from .conftest import one_tool_span

HITS = json.dumps([{"url": "https://r.example/1"}, {"url": "https://r.example/2"}])
PAGE = "A page about retrievers that is long enough to be counted as a real read of the page."


class Retriever:
    """Like gpt-researcher's retrievers: the query is given to the constructor, ``search`` takes none."""

    def __init__(self, query: str, base: str) -> None:
        self.query = query
        self.base = base

    def search(self, max_results: int = 5) -> list[dict[str, str]]:
        with urllib.request.urlopen(f"{self.base}/search?n={max_results}", timeout=5) as response:
            hits: list[dict[str, str]] = json.loads(response.read())
        return hits[:max_results]

    async def asearch(self, max_results: int = 5) -> list[dict[str, str]]:
        return self.search(max_results)


class Reader:
    """A scraper that keeps its URL on the instance."""

    def __init__(self, url: str, base: str) -> None:
        self.url = url
        self.base = base

    def read(self) -> str:
        with urllib.request.urlopen(f"{self.base}/page", timeout=5) as response:
            return response.read().decode()


@pytest.fixture
def srv() -> Iterator[LocalServer]:
    """A real HTTP server holding a result list and a page."""
    with LocalServer() as server:
        server.routes["/search"] = (200, HITS, "application/json")
        server.routes["/page"] = (200, PAGE, "text/plain")
        yield server


@pytest.fixture
def rows() -> Iterator[None]:
    """Rows for the classes above, each taking the query/URL from the instance."""
    search = ToolSpec("retriever.search", names.TOOL_KIND_SEARCH, query_from=QUERY_FROM_INSTANCE, skip_self=True)
    read = ToolSpec("reader.read", names.TOOL_KIND_FETCH, url_from=URL_FROM_INSTANCE, skip_self=True)
    patcher = Patcher({})
    patcher.start([Patch("", __name__, "Retriever.search", search, pass_instance=True),
                   Patch("", __name__, "Retriever.asearch", search, is_async=True, pass_instance=True),
                   Patch("", __name__, "Reader.read", read, pass_instance=True)], check_versions=False)
    try:
        yield
    finally:
        patcher.stop()


def test_query_from_instance(rows: None, cap: Captured, srv: LocalServer) -> None:
    """The span carries the hash of ``self.query``; the call's own result is returned unchanged."""
    hits = Retriever("mercury orbit", srv.base).search(max_results=2)
    assert [h["url"] for h in hits] == ["https://r.example/1", "https://r.example/2"]
    attrs = one_tool_span(cap)
    assert attrs[names.QUERY_HASH] == query_hash("mercury orbit")
    assert attrs[names.RESULT_COUNT] == 2


async def test_async_query_from_instance(rows: None, srv: LocalServer) -> None:
    """The async row reads ``self.query`` too (content capture on shows the text)."""
    with capture_spans(capture_content=True) as cap:
        await Retriever("async query", srv.base).asearch()
        attrs = one_tool_span(cap)
    assert attrs[names.QUERY_TEXT] == "async query"


def test_url_from_instance_is_stored(rows: None, cap: Captured, srv: LocalServer) -> None:
    """A fetch whose URL is ``self.url`` stores the page under that URL."""
    assert Reader("https://docs.example/retrievers", srv.base).read() == PAGE
    attrs = one_tool_span(cap)
    assert attrs[names.URL_FULL] == "https://docs.example/retrievers"
    assert cap.store.get_ref(str(attrs[names.STORE_REF])) == PAGE


def test_argument_wins_over_instance() -> None:
    """A string argument is the query; the instance is read only when there is none."""
    holder = Retriever("from self", "http://127.0.0.1:9")
    assert QUERY_FROM_INSTANCE((holder, "from arg"), {}) == "from arg"
    assert QUERY_FROM_INSTANCE((holder,), {"query": "kw"}) == "kw"
    assert QUERY_FROM_INSTANCE((holder,), {"max_results": 3}) == "from self"
    assert URL_FROM_INSTANCE((object(),), {}) is None


SOURCE = '''
import urllib.request, json

class MyRetriever:
    def __init__(self, query, base):
        self.query = query
        self.base = base

    def search(self, max_results=5):
        with urllib.request.urlopen(self.base + "/search", timeout=5) as response:
            return json.loads(response.read())[:max_results]
'''


def test_citetrace_tools_method_reads_self_query(tmp_path: Path, cap: Captured, srv: LocalServer) -> None:
    """A CITETRACE_TOOLS ``Class.method`` entry takes the query from ``self.query`` with no code change."""
    (tmp_path / "my_retrievers_h16.py").write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="my_retrievers_h16:MyRetriever.search=search", libraries=False)
    try:
        mod: Any = importlib.import_module("my_retrievers_h16")
        assert len(mod.MyRetriever("user retriever query", srv.base).search(max_results=1)) == 1
        attrs = one_tool_span(cap)
    finally:
        instrumentor.uninstrument()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("my_retrievers_h16", None)
    assert attrs[names.GEN_AI_TOOL_NAME] == "MyRetriever.search"
    assert attrs[names.QUERY_HASH] == query_hash("user retriever query")
    assert attrs[names.RESULT_COUNT] == 1
