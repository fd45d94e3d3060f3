"""OpenAI's server-side web search through the real openai client against a local server: Responses
(create, parse, streams, with_raw_response, async) and search-model chat completions."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from citetrace import names, research_run
from citetrace.testing import Captured

from .._net import LocalServer
from ._helpers import provider_spans, summary_of
from ._shapes import MADE_UP, SOURCE_A, SOURCE_B, openai_response, openai_stream

SOURCES = ["web_search_call.action.sources"]
TOOLS = [{"type": "web_search"}]


def _client(server: LocalServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base + "/v1", api_key="sk-test", max_retries=0)


def _serve(server: LocalServer, body: dict[str, Any] | str, path: str = "/v1/responses") -> None:
    if isinstance(body, str):
        server.routes[path] = (200, body, "text/event-stream")
    else:
        server.routes[path] = (200, json.dumps(body), "application/json")


def test_search_with_sources_is_a_search_span_and_citations_go_on_the_run(
        instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """A web_search_call becomes one search span (query hash, result URLs, ok) and url_citations the run's."""
    _serve(server, openai_response())
    with research_run("q") as run:
        response = _client(server).responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    assert response.output[0].type == "web_search_call"
    (span,) = provider_spans(cap)
    assert span[names.GEN_AI_TOOL_NAME] == "openai.web_search" and span[names.TOOL_KIND] == "search"
    assert span[names.TOOL_STATUS] == "ok" and span[names.RESULT_COUNT] == 2
    assert list(span[names.URLS_RETURNED]) == [SOURCE_A, SOURCE_B]
    assert span[names.SEARCH_SOURCES_REPORTED] is True and span[names.GEN_AI_TOOL_TYPE] == "extension"
    assert names.QUERY_HASH in span and names.QUERY_TEXT not in span  # content capture is off
    assert run.citations == [SOURCE_A]
    summary = summary_of(cap)
    assert (summary.searches, summary.citations, summary.uncited_from_retrieval, summary.cited_not_fetched) == (1, 1, 0, 0)


def test_a_citation_no_search_returned_is_counted(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """A url_citation absent from the sources counts in uncited_from_retrieval and fails the run."""
    _serve(server, openai_response(cited=(SOURCE_A, MADE_UP)))
    with research_run("q"):
        _client(server).responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    summary = summary_of(cap)
    assert summary.uncited_urls == (MADE_UP,) and names.REASON_UNCITED_URL in summary.failure_reasons


def test_sources_not_requested_is_not_an_empty_search(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """Without include=sources the span says so, is ok with no count, and citations are not checked."""
    _serve(server, openai_response(sources=None, cited=(MADE_UP,)))
    with research_run("q"):
        _client(server).responses.create(model="gpt-5", input="q", tools=TOOLS)
    (span,) = provider_spans(cap)
    assert span[names.SEARCH_SOURCES_REPORTED] is False and span[names.TOOL_STATUS] == "ok"
    assert names.RESULT_COUNT not in span
    summary = summary_of(cap)
    assert summary.empty_searches == 0 and summary.uncited_from_retrieval == 0 and not summary.failed


@pytest.mark.parametrize(("sources", "status", "expected"), [([], "completed", "empty"), ([SOURCE_A], "failed", "error")])
def test_empty_and_failed_searches(instrumented: Any, cap: Captured, server: LocalServer, sources: list[str],
                                   status: str, expected: str) -> None:
    """Asked-for sources that came back empty are an empty search; a failed call is an error."""
    _serve(server, openai_response(sources=sources, cited=(), status=status))
    _client(server).responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    (span,) = provider_spans(cap)
    assert span[names.TOOL_STATUS] == expected


def test_open_page_is_a_fetch_with_nothing_stored(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """An open_page action is a fetch span of its URL; OpenAI returns no page text, so the store gets none."""
    _serve(server, openai_response(open_page=SOURCE_B))
    with research_run("q") as run:
        _client(server).responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    (fetch,) = provider_spans(cap, kind="fetch")
    assert fetch[names.URL_FULL] == SOURCE_B and fetch[names.TOOL_STATUS] == "ok"
    assert names.STORE_REF not in fetch and cap.store.documents(run.id) == []


def test_rate_limited_model_call_raises_unchanged_and_records_no_search(
        instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """A 429 on the model call is the SDK's RateLimitError, untouched; no server-side search is invented."""
    server.routes["/v1/responses"] = (429, json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}),
                                      "application/json")
    with pytest.raises(openai.RateLimitError):
        _client(server).responses.create(model="gpt-5", input="q", tools=TOOLS)
    assert provider_spans(cap) == []


def test_stream_and_stream_helper_are_read_when_they_end(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """create(stream=True) and responses.stream() give the caller every event; one search each, at the end."""
    _serve(server, openai_stream(openai_response()))
    client = _client(server)
    with research_run("q") as run:
        events = [e.type for e in client.responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES,
                                                          stream=True)]
        assert events == ["response.created"] + ["response.output_item.added", "response.output_item.done"] * 2 + [
            "response.completed"]
        assert len(provider_spans(cap)) == 1
        with client.responses.stream(model="gpt-5", input="q", tools=TOOLS, include=SOURCES) as stream:
            final = stream.get_final_response()
    assert final.output[0].type == "web_search_call"
    assert len(provider_spans(cap)) == 2 and run.citations == [SOURCE_A]


def test_raw_response_and_parse(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """with_raw_response.create (how langchain-openai calls) and parse() are each read once."""
    _serve(server, openai_response())
    client = _client(server)
    raw = client.responses.with_raw_response.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    assert raw.parse().output[0].type == "web_search_call"
    client.responses.parse(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    assert len(provider_spans(cap)) == 2


async def test_async_create_and_stream(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """The async client: a plain call and a stream, each one search span."""
    client = openai.AsyncOpenAI(base_url=server.base + "/v1", api_key="sk-test", max_retries=0)
    _serve(server, openai_response())
    await client.responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    _serve(server, openai_stream(openai_response()))
    stream = await client.responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES, stream=True)
    assert [e.type async for e in stream][-1] == "response.completed"
    assert [s[names.TOOL_STATUS] for s in provider_spans(cap)] == ["ok", "ok"]


def test_search_model_chat_completion(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """Chat Completions with web_search_options: one search with unreported sources; the nested
    url_citation annotations become the run's citations."""
    body = {"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-5-search-api", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "See the spec.", "annotations": [
            {"type": "url_citation", "url_citation": {"url": SOURCE_A, "title": "t", "start_index": 0, "end_index": 13}}]}}]}
    _serve(server, body, "/v1/chat/completions")
    with research_run("q") as run:
        _client(server).chat.completions.create(model="gpt-5-search-api", web_search_options={},
                                                messages=[{"role": "user", "content": "q"}])
    (span,) = provider_spans(cap)
    assert span[names.SEARCH_SOURCES_REPORTED] is False and run.citations == [SOURCE_A]


_PLAIN_COMPLETION = {"id": "c2", "object": "chat.completion", "created": 1, "model": "gpt-5", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Plain answer."}}]}


@pytest.mark.parametrize("absent", [openai.omit, openai.NOT_GIVEN], ids=["omit", "NOT_GIVEN"])
def test_an_omitted_web_search_options_is_no_search(instrumented: Any, cap: Captured, server: LocalServer,
                                                    absent: Any) -> None:
    """``web_search_options=omit`` is how a caller says "not given" (PydanticAI's ``OpenAIChatModel`` passes it
    on every request): no provider search span. Before, ``omit is not None`` made every chat completion a
    search, and a PydanticAI run with eleven model turns failed on ``too_many_searches``."""
    _serve(server, _PLAIN_COMPLETION, "/v1/chat/completions")
    with research_run("q"):
        out = _client(server).chat.completions.create(model="gpt-5", web_search_options=absent,
                                                      messages=[{"role": "user", "content": "q"}])
    assert out.choices[0].message.content == "Plain answer."
    assert provider_spans(cap) == []
    assert summary_of(cap).searches == 0


def test_pydantic_ai_openai_chat_model_turns_are_not_searches(instrumented: Any, cap: Captured,
                                                               server: LocalServer) -> None:
    """A PydanticAI agent on the real ``OpenAIChatModel`` (the model scripted at its HTTP transport): its model
    calls are not provider searches."""
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    _serve(server, _PLAIN_COMPLETION, "/v1/chat/completions")
    model = OpenAIChatModel("gpt-5", provider=OpenAIProvider(base_url=server.base + "/v1", api_key="sk-test"))
    with research_run("q"):
        assert Agent(model).run_sync("q").output == "Plain answer."
    assert provider_spans(cap) == [] and summary_of(cap).searches == 0


def test_uninstrumented_client_records_nothing(cap: Captured, server: LocalServer) -> None:
    """Without the instrumentor the same call makes no span (the wrapper is really what records)."""
    _serve(server, openai_response())
    _client(server).responses.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
    assert provider_spans(cap) == []


async def test_async_raw_response_is_read_once(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """AsyncOpenAI ``responses.with_raw_response.create`` returns openai's legacy raw response, whose ``parse()``
    is synchronous even on the async client (unlike anthropic's): read once, the caller's ``parse()`` unchanged,
    no never-awaited coroutine."""
    import gc
    import warnings

    _serve(server, openai_response())
    client = openai.AsyncOpenAI(base_url=server.base + "/v1", api_key="sk-test", max_retries=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        raw = await client.responses.with_raw_response.create(model="gpt-5", input="q", tools=TOOLS, include=SOURCES)
        assert raw.parse().output[0].type == "web_search_call"
        gc.collect()
    assert len(provider_spans(cap)) == 1
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
