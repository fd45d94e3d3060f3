"""A LangGraph agent whose model searches server-side, configured by environment variables only: one run,
its provider-side searches and reads in the summary, and a citation the provider never returned counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from .._net import LocalServer
from ..agents._e2e import figures, run_agent
from ._shapes import MADE_UP, SOURCE_A, SOURCE_B, anthropic_blocks, anthropic_message, anthropic_stream, openai_response

SCRIPT = str(Path(__file__).parent / "scripts" / "langgraph_provider_search.py")
PAGE = "OpenTelemetry concepts. " * 20


@pytest.fixture
def api() -> Iterator[LocalServer]:
    """OpenAI's and Anthropic's APIs on 127.0.0.1, each citing one page its search returned and one it did not."""
    with LocalServer() as srv:
        srv.routes["/v1/responses"] = (200, json.dumps(openai_response(cited=(SOURCE_A, MADE_UP))), "application/json")
        blocks = anthropic_blocks(fetch=(SOURCE_B, PAGE), cited=(SOURCE_A, MADE_UP))
        srv.routes["/v1/messages"] = (200, json.dumps(anthropic_message(blocks)), "application/json")
        yield srv


@pytest.mark.parametrize(("provider", "reads"), [("openai", 0), ("anthropic", 1), ("anthropic-stream", 1)])
def test_one_run_with_provider_searches_and_an_uncited_url(tmp_path: Path, api: LocalServer, provider: str,
                                                           reads: int) -> None:
    """The agent is one run; the provider's search (and Anthropic's fetch) are in its summary; of its two
    citations, the one no search returned is uncited_from_retrieval and, never read, cited_not_fetched
    (langchain-anthropic streaming too: a raw streamed response, read when the stream ends)."""
    if provider == "anthropic-stream":
        blocks = anthropic_blocks(fetch=(SOURCE_B, PAGE), cited=(SOURCE_A, MADE_UP))
        api.routes["/v1/messages"] = (200, anthropic_stream(blocks), "text/event-stream")
    _printed, runs = run_agent(tmp_path, SCRIPT, api.base, provider)
    assert len(runs) == 1 and runs[0]["agent"] == "provider-scout"
    assert figures(runs[0]) == {"searches": 1, "reads": reads, "empty_searches": 0, "failed_reads": 0,
                                "rate_limited": 0, "citations": 2, "uncited_from_retrieval": 1,
                                "cited_not_fetched": 1}
    assert runs[0]["summary"]["uncited_urls"] == [MADE_UP]
