"""CITETRACE_TOOLS: the user's own functions wrapped by configuration, before or after their import."""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
from pathlib import Path
from typing import Iterator

import pytest
import responses
import tavily

from citetrace import names, traced_tool
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import importable, one_tool_span

SOURCE = '''
from citetrace import traced_tool

def web_search(query, max_results=3):
    """Search my index."""
    return [{"url": f"https://mine.example/{i}", "title": query} for i in range(max_results)]

async def async_search(query):
    return [{"url": "https://mine.example/async"}]

class Browser:
    def open(self, url):
        return "page text that is long enough to count as a read " * 2

@traced_tool(kind="search", name="decorated")
def already_traced(query):
    return [{"url": "https://mine.example/d"}]
'''


@pytest.fixture
def user_module(tmp_path: Path) -> Iterator[str]:
    """A fresh importable module name (not yet imported) holding SOURCE."""
    with importable(tmp_path, SOURCE, "user_tools") as name:
        yield name


def test_wraps_functions_imported_after_instrument(user_module: str, instrumentor: CiteTraceInstrumentor,
                                                   cap: Captured) -> None:
    """Functions and methods named in CITETRACE_TOOLS are wrapped when their module is imported later."""
    instrumentor.instrument(tools=f"{user_module}:web_search=search,{user_module}:Browser.open=fetch",
                            libraries=False)
    assert user_module not in sys.modules
    mod = importlib.import_module(user_module)
    assert len(mod.web_search("my query")) == 3
    search = one_tool_span(cap)
    assert search[names.GEN_AI_TOOL_NAME] == "web_search"
    assert search[names.RESULT_COUNT] == 3
    cap.clear()
    mod.Browser().open("https://mine.example/page")
    fetch = one_tool_span(cap)
    assert fetch[names.GEN_AI_TOOL_NAME] == "Browser.open"
    assert fetch[names.URL_FULL] == "https://mine.example/page"
    assert fetch[names.TOOL_STATUS] == names.STATUS_OK


def test_wraps_functions_imported_before_instrument(user_module: str, instrumentor: CiteTraceInstrumentor,
                                                    cap: Captured) -> None:
    """A module already imported is wrapped at instrument(), and restored exactly at uninstrument()."""
    mod = importlib.import_module(user_module)
    original = mod.web_search
    instrumentor.instrument(tools=f"{user_module}:web_search=search", libraries=False)
    assert mod.web_search is not original
    mod.web_search("q")
    assert one_tool_span(cap)[names.TOOL_KIND] == names.TOOL_KIND_SEARCH
    instrumentor.uninstrument()
    assert mod.web_search is original


def test_async_function(user_module: str, instrumentor: CiteTraceInstrumentor, cap: Captured) -> None:
    """An async function is wrapped as async: awaiting it gives the result and one span."""
    instrumentor.instrument(tools=f"{user_module}:async_search=search", libraries=False)
    mod = importlib.import_module(user_module)
    assert asyncio.run(mod.async_search("q")) == [{"url": "https://mine.example/async"}]
    assert list(one_tool_span(cap)[names.URLS_RETURNED]) == ["https://mine.example/async"]


def test_bad_entries_reported_once_and_ignored(user_module: str, instrumentor: CiteTraceInstrumentor,
                                               cap: Captured, caplog: pytest.LogCaptureFixture) -> None:
    """Malformed entries and missing functions are each logged once with the reason; good entries apply."""
    raw = (f"no_colon=search,{user_module}:web_search=browse,{user_module}:missing_fn=search,"
           f"{user_module}:web_search=search")
    with caplog.at_level(logging.WARNING):
        instrumentor.instrument(tools=raw, libraries=False)
        mod = importlib.import_module(user_module)
        instrumentor.uninstrument()
        instrumentor.instrument(tools=raw, libraries=False)
    messages = [r.getMessage() for r in caplog.records]
    assert sum("missing ':'" in m for m in messages) == 1
    assert sum("kind must be 'search' or 'fetch'" in m for m in messages) == 1
    assert sum("missing_fn" in m for m in messages) == 1
    mod.web_search("q")
    assert one_tool_span(cap)[names.GEN_AI_TOOL_NAME] == "web_search"


def test_already_decorated_function_gets_one_span(user_module: str, instrumentor: CiteTraceInstrumentor,
                                                  cap: Captured) -> None:
    """Wrapping a @traced_tool function again never makes two spans: the outer wrapper owns the call."""
    instrumentor.instrument(tools=f"{user_module}:already_traced=search", libraries=False)
    mod = importlib.import_module(user_module)
    mod.already_traced("q")
    assert one_tool_span(cap)[names.GEN_AI_TOOL_NAME] == "already_traced"


@responses.activate
def test_traced_tool_around_instrumented_client_is_one_span(instrumented: CiteTraceInstrumentor,
                                                            cap: Captured) -> None:
    """A user's @traced_tool calling an instrumented Tavily client: one span, the user's."""
    responses.post("https://api.tavily.com/search", json={"results": [{"url": "https://t.example/1"}]})

    @traced_tool(kind="search", name="my_search")
    def my_search(query: str) -> object:
        return tavily.TavilyClient(api_key="k").search(query)

    my_search("q")
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "my_search"
    assert list(attrs[names.URLS_RETURNED]) == ["https://t.example/1"]


LLAMA_SOURCE = '''
from llama_index.core.tools import FunctionTool

def _search(query: str) -> list:
    """Search my index."""
    return [{"url": f"https://mine.example/{i}"} for i in range(2)]

async def _asearch(query: str) -> list:
    """Search my index, async."""
    return [{"url": "https://mine.example/async"}]

web_search = FunctionTool.from_defaults(fn=_search, name="web_search")
async_search = FunctionTool.from_defaults(async_fn=_asearch, name="async_search")
'''


def test_llamaindex_function_tool_objects(tmp_path: Path, instrumentor: CiteTraceInstrumentor, cap: Captured) -> None:
    """An entry naming a LlamaIndex ``FunctionTool`` object wraps the functions its ``call``/``acall`` run (what
    its agents call; before, only calling the object itself made a span): one span per call, sync or async."""
    with importable(tmp_path, LLAMA_SOURCE, "llama_tools") as name:
        instrumentor.instrument(tools=f"{name}:web_search=search,{name}:async_search=search", libraries=False)
        mod = importlib.import_module(name)
        out = mod.web_search.call(query="solar")
        assert out.raw_output == [{"url": "https://mine.example/0"}, {"url": "https://mine.example/1"}]
        assert one_tool_span(cap)[names.RESULT_COUNT] == 2
        cap.clear()
        asyncio.run(mod.web_search.acall(query="solar"))
        assert one_tool_span(cap)[names.RESULT_COUNT] == 2
        cap.clear()
        asyncio.run(mod.async_search.acall(query="wind"))
        mod.async_search.call(query="wind")
        assert [dict(s.attributes or {})[names.RESULT_COUNT] for s in cap.tool_spans()] == [1, 1]
