"""The declarative wrap table: every library row, in one place, for the instrumentor and the docs."""

from __future__ import annotations

from citetrace.instrumentation import (
    _crawl4ai,
    _ddgs,
    _exa,
    _firecrawl,
    _gpt_researcher_web,
    _langchain,
    _langchain_tavily,
    _langchain_web,
    _llamaindex_tools,
    _mcp,
    _requests_status,
    _serpapi,
    _smolagents,
    _storm_web,
    _tavily,
    _trafilatura,
)
from citetrace.instrumentation import _agents, _http, _providers, _threads
from citetrace.instrumentation._patcher import Row

__all__ = ["ROWS"]

ROWS: tuple[Row, ...] = (
    *_tavily.ROWS,
    *_exa.ROWS,
    *_ddgs.ROWS,
    *_serpapi.ROWS,
    *_firecrawl.ROWS,
    *_crawl4ai.ROWS,
    *_trafilatura.ROWS,
    *_smolagents.ROWS,
    *_langchain.ROWS,
    *_langchain_tavily.ROWS,
    *_langchain_web.ROWS,
    *_llamaindex_tools.ROWS,
    *_mcp.ROWS,
    *_gpt_researcher_web.ROWS,
    *_storm_web.ROWS,
    *_agents.ROWS,
    *_providers.ROWS,
    *_requests_status.ROWS,
    *_http.ROWS,
    *_threads.ROWS,
)
