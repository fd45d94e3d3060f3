"""CITETRACE_TOOLS entries naming generator and async-generator tools (a page streamed in chunks, search hits
yielded one by one): one span that lasts for the iteration, as ``@traced_tool`` gives, never a 0 ms ``ok``
span with nothing read. The pages come from a real HTTP server on 127.0.0.1 through the real httpx client."""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Iterator

import pytest

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._net import LocalServer
from .conftest import importable, one_tool_span

SOURCE = '''
import httpx

def stream_page(url):
    """Read a page in chunks."""
    with httpx.stream("GET", url) as r:
        r.raise_for_status()
        yield from r.iter_text(chunk_size=64)

def hits(query, base):
    """Search hits, one at a time."""
    for i in range(3):
        yield {"url": f"{base}/hit/{i}", "title": query}

class Reader:
    def __init__(self):
        self.client = httpx.AsyncClient()

    async def stream(self, url):
        async with self.client.stream("GET", url) as r:
            r.raise_for_status()
            async for chunk in r.aiter_text(chunk_size=64):
                yield chunk
'''
PAGE = "A page about solar capacity, long enough to be a real read. " * 20


@pytest.fixture
def streams_module(tmp_path: Path) -> Iterator[str]:
    """A fresh importable module name (not yet imported) holding SOURCE."""
    with importable(tmp_path, SOURCE, "user_streams") as name:
        yield name


def _pages(server: LocalServer) -> None:
    server.routes["/page"] = (200, PAGE, "text/html")
    server.routes["/broken"] = (500, "server error", "text/plain")


def test_generator_fetch_is_one_span_over_the_iteration(streams_module: str, instrumentor: CiteTraceInstrumentor,
                                                        cap: Captured, server: LocalServer) -> None:
    """A generator fetch named in CITETRACE_TOOLS: its chunks reach the caller unchanged, and its span holds
    the joined text's size and status, with the text stored."""
    _pages(server)
    instrumentor.instrument(tools=f"{streams_module}:stream_page=fetch", libraries=False)
    mod = importlib.import_module(streams_module)
    gen = mod.stream_page(f"{server.base}/page")
    assert cap.tool_spans() == []  # a generator runs nothing until iterated
    assert "".join(gen) == PAGE
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == names.STATUS_OK
    assert span[names.RESULT_SIZE] == len(PAGE)
    assert span[names.URL_FULL] == f"{server.base}/page"
    assert names.STORE_REF in span  # the joined text went into the store


def test_generator_fetch_that_raises_is_an_error(streams_module: str, instrumentor: CiteTraceInstrumentor,
                                                 cap: Captured, server: LocalServer) -> None:
    """A 500 raised inside the generator fails its span with the HTTP status; the caller gets the exception."""
    _pages(server)
    instrumentor.instrument(tools=f"{streams_module}:stream_page=fetch", libraries=False)
    mod = importlib.import_module(streams_module)
    with pytest.raises(Exception) as raised:
        list(mod.stream_page(f"{server.base}/broken"))
    assert type(raised.value).__name__ == "HTTPStatusError"
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == names.STATUS_ERROR
    assert span[names.HTTP_RESPONSE_STATUS_CODE] == 500


def test_generator_search_counts_what_it_yielded(streams_module: str, instrumentor: CiteTraceInstrumentor,
                                                 cap: Captured) -> None:
    """A search generator's yielded hits are its results: count and URLs as for a returned list."""
    instrumentor.instrument(tools=f"{streams_module}:hits=search", libraries=False)
    mod = importlib.import_module(streams_module)
    got = list(mod.hits("solar", "https://idx.example"))
    assert [h["url"] for h in got] == [f"https://idx.example/hit/{i}" for i in range(3)]
    span = one_tool_span(cap)
    assert span[names.RESULT_COUNT] == 3
    assert list(span[names.URLS_RETURNED]) == [h["url"] for h in got]


def test_async_generator_method_fetch(streams_module: str, instrumentor: CiteTraceInstrumentor, cap: Captured,
                                      server: LocalServer) -> None:
    """An async-generator method (``Class.method``): one span per page over the iteration, ok with its size for
    a page, an error with its status for a 500."""
    _pages(server)
    instrumentor.instrument(tools=f"{streams_module}:Reader.stream=fetch", libraries=False)
    mod = importlib.import_module(streams_module)
    reader = mod.Reader()

    async def read(url: str) -> str:
        return "".join([chunk async for chunk in reader.stream(url)])

    assert asyncio.run(read(f"{server.base}/page")) == PAGE
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == names.STATUS_OK
    assert span[names.RESULT_SIZE] == len(PAGE)
    assert span[names.URL_FULL] == f"{server.base}/page"
    cap.clear()
    with pytest.raises(Exception):
        asyncio.run(read(f"{server.base}/broken"))
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == names.STATUS_ERROR
    assert span[names.HTTP_RESPONSE_STATUS_CODE] == 500


def test_generator_stays_a_generator_for_inspect(streams_module: str, instrumentor: CiteTraceInstrumentor) -> None:
    """The wrapped names still say what they are (a framework reading the signature sees a generator)."""
    import inspect

    instrumentor.instrument(tools=f"{streams_module}:stream_page=fetch,{streams_module}:Reader.stream=fetch",
                            libraries=False)
    mod = importlib.import_module(streams_module)
    assert inspect.isgeneratorfunction(mod.stream_page)
    assert inspect.isasyncgenfunction(mod.Reader.stream)
    assert inspect.isasyncgenfunction(mod.Reader().stream)
