"""Which library versions the auto-instrumentation supports.

``_instruments`` is deliberately empty. ``opentelemetry-instrument`` skips an instrumentation whose declared
dependencies are missing, and every dependency declared under ``instruments`` is required. citetrace wraps
eight optional libraries *and* the user's own functions (``CITETRACE_TOOLS``), which need no library at all,
so it declares none and checks each library itself: a row applies only when its distribution's installed
version is inside ``SUPPORTED``; otherwise it is logged once and skipped.

``SUPPORTED`` is also the one source of the ``[libraries]`` extra in pyproject.toml: the extra is exactly
``LIBRARIES`` with their ``SUPPORTED`` ranges, plus ``LIBRARY_HELPERS`` (packages two of them need for the
calls citetrace wraps). ``tests/instrumentation/test_package.py`` checks that pyproject.toml says the same, and
prints the lines to paste when it does not.
"""

from __future__ import annotations

from typing import Final

__all__ = ["LIBRARIES", "LIBRARY_HELPERS", "SUPPORTED", "_instruments", "libraries_extra"]

_instruments: Final[tuple[str, ...]] = ()

SUPPORTED: Final[dict[str, str]] = {
    "tavily-python": ">=0.5,<1",
    "exa-py": ">=2.0,<3",
    "ddgs": ">=9.0,<10",
    "duckduckgo-search": ">=7.0,<9",
    "serpapi": ">=0.1.5,<2",
    "google-search-results": ">=2.4,<3",
    "firecrawl-py": ">=4.0,<5",
    "crawl4ai": ">=0.9.5,<0.10",
    "trafilatura": ">=1.8,<3",
    "urllib3": ">=1.26,<3",
    "smolagents": ">=1.20,<2",
    "langchain-community": ">=0.3,<0.5",
    "langchain-core": ">=0.3,<2",
    "langchain-tavily": ">=0.2,<0.3",
    "langgraph": ">=1.0,<2",
    "gpt-researcher": ">=0.14,<0.17",
    "knowledge-storm": ">=1.0,<2",
    "openai-agents": ">=0.20,<1",
    "pydantic-ai-slim": ">=2.0,<3",
    "llama-index-workflows": ">=2.0,<3",
    "llama-index-tools-tavily-research": ">=0.6,<0.7",
    "llama-index-tools-brave-search": ">=0.6,<0.7",
    "llama-index-tools-duckduckgo": ">=0.6,<0.7",
    "openai": ">=2.0,<4",
    "anthropic": ">=0.60,<3",
    "crewai": ">=1.0,<2",
    "crewai-tools": ">=1.0,<2",
    "google-genai": ">=1.0,<4",
    "perplexityai": ">=0.10,<1",
    "requests": ">=2.28,<3",
    "httpx": ">=0.24,<1",
    "aiohttp": ">=3.9,<4",
    "mcp": ">=1.9,<3",
}
"""Distribution name -> supported version range (PEP 440 specifier)."""

LIBRARIES: Final[tuple[str, ...]] = (
    "tavily-python", "exa-py", "ddgs", "duckduckgo-search", "serpapi", "google-search-results", "firecrawl-py",
    "trafilatura", "smolagents", "langchain-community", "langchain-tavily", "mcp",
)
"""The search/fetch libraries of the ``[libraries]`` extra (frameworks and provider SDKs have extras of their own)."""

LIBRARY_HELPERS: Final[tuple[str, ...]] = (
    "lxml_html_clean>=0.4",  # trafilatura's HTML cleaning (lxml.html.clean moved out of lxml)
    "markdownify>=0.13",  # smolagents' VisitWebpageTool
)
"""Requirements of the ``[libraries]`` extra that citetrace does not wrap itself."""


def libraries_extra() -> list[str]:
    """The ``[libraries]`` extra's requirements, derived from ``SUPPORTED`` (one source for both)."""
    return [f"{dist}{SUPPORTED[dist]}" for dist in LIBRARIES] + list(LIBRARY_HELPERS)

