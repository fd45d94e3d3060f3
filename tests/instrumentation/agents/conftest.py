"""Fixtures for the framework end-to-end tests: the fake web every agent script talks to."""

from __future__ import annotations

from typing import Iterator

import pytest

from .._net import LocalServer
from ._e2e import serve_search_api, serve_web
from ._research import ResearchWeb


@pytest.fixture
def web() -> Iterator[LocalServer]:
    """A real HTTP server on 127.0.0.1 with the fake web (search engines, pages, a Tavily API)."""
    srv = serve_web(LocalServer())
    serve_search_api(srv, ["https://news.example/a", "https://news.example/b"])
    try:
        yield srv
    finally:
        srv.close()


@pytest.fixture(scope="module")
def research_web() -> Iterator[ResearchWeb]:
    """The fake Tavily/Serper/Responses API and pages of ``_research``, shared by one test module's agents."""
    srv = ResearchWeb()
    try:
        yield srv
    finally:
        srv.close()
