"""Anthropic's server tools web_search and web_fetch through the real anthropic client against a local
server: create, stream=True, messages.stream(), parse, with_raw_response, async, and the beta classes."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest

from citetrace import names, research_run
from citetrace.testing import Captured

from .._net import LocalServer
from ._helpers import provider_spans, summary_of
from ._shapes import MADE_UP, SOURCE_A, SOURCE_B, anthropic_blocks, anthropic_message, anthropic_stream

PAGE = "OpenTelemetry concepts. " * 20
TOOLS = [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
         {"type": "web_fetch_20250910", "name": "web_fetch"}]
ARGS: dict[str, Any] = {"model": "claude-scripted", "max_tokens": 100, "messages": [{"role": "user", "content": "q"}],
                        "tools": TOOLS}


def _client(server: LocalServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base, api_key="sk-ant-test", max_retries=0)


def _serve(server: LocalServer, blocks: list[dict[str, Any]], *, stream: bool = False) -> None:
    if stream:
        server.routes["/v1/messages"] = (200, anthropic_stream(blocks), "text/event-stream")
    else:
        server.routes["/v1/messages"] = (200, json.dumps(anthropic_message(blocks)), "application/json")


def test_search_fetch_and_citations(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """web_search is a search with its query and result URLs (read: their content went to the model);
    web_fetch is a fetch whose text is stored; text citations go on the run."""
    _serve(server, anthropic_blocks(fetch=(SOURCE_B, PAGE), cited=(SOURCE_A, SOURCE_B)))
    with research_run("q") as run:
        message = _client(server).messages.create(**ARGS)
    assert [b.type for b in message.content][0] == "server_tool_use"
    search, fetch = provider_spans(cap)
    assert search[names.GEN_AI_TOOL_NAME] == "anthropic.web_search" and list(search[names.URLS_RETURNED]) == [SOURCE_A, SOURCE_B]
    assert search[names.SEARCH_CONTENT_RETURNED] is True and search[names.GEN_AI_TOOL_CALL_ID] == "srvtoolu_1"
    assert fetch[names.URL_FULL] == SOURCE_B and fetch[names.TOOL_STATUS] == "ok"
    (doc,) = cap.store.documents(run.id)
    assert doc.text == PAGE and doc.url == SOURCE_B
    assert run.citations == [SOURCE_A, SOURCE_B]
    summary = summary_of(cap)
    assert (summary.searches, summary.reads, summary.citations, summary.uncited_from_retrieval,
            summary.cited_not_fetched) == (1, 1, 2, 0, 0)


def test_a_citation_no_search_returned_is_counted(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """A cited URL that no web_search result carried is uncited_from_retrieval and never read."""
    _serve(server, anthropic_blocks(cited=(SOURCE_A, MADE_UP)))
    with research_run("q"):
        _client(server).messages.create(**ARGS)
    summary = summary_of(cap)
    assert summary.uncited_urls == (MADE_UP,) and summary.unfetched_urls == (MADE_UP,)


@pytest.mark.parametrize(("code", "status"), [("too_many_requests", "rate_limited"), ("max_uses_exceeded", "error"),
                                              ("unavailable", "error")])
def test_search_error_codes(instrumented: Any, cap: Captured, server: LocalServer, code: str, status: str) -> None:
    """A web_search_tool_result_error maps its code to a status and keeps the code on the span."""
    _serve(server, anthropic_blocks(error=code, cited=()))
    _client(server).messages.create(**ARGS)
    (span,) = provider_spans(cap)
    assert span[names.TOOL_STATUS] == status and span[names.TOOL_ERROR_CODE] == code


def test_empty_search_and_failed_fetch(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """No results is an empty search; a web_fetch error is a failed read with nothing stored."""
    _serve(server, anthropic_blocks(results=[], fetch_error="url_not_accessible", cited=()))
    with research_run("q") as run:
        _client(server).messages.create(**ARGS)
    search, fetch = provider_spans(cap)
    assert search[names.TOOL_STATUS] == "empty"
    assert fetch[names.TOOL_STATUS] == "error" and fetch[names.TOOL_ERROR_CODE] == "url_not_accessible"
    assert summary_of(cap).failed_reads == 1
    assert all(d.text == "" for d in cap.store.documents(run.id))


def test_a_fetch_result_with_no_document_is_an_empty_read(instrumented: Any, cap: Captured,
                                                          server: LocalServer) -> None:
    """A web_fetch_tool_result whose content holds no document (malformed, or cut short) brought nothing back:
    an empty read of the URL its server_tool_use asked for, nothing stored (it was an ok read)."""
    blocks = anthropic_blocks(fetch=(SOURCE_B, PAGE), cited=())
    for block in blocks:
        if block["type"] == "web_fetch_tool_result":
            block["content"] = {"type": "web_fetch_result"}
    _serve(server, blocks)
    with research_run("q") as run:
        _client(server).messages.create(**ARGS)
    _, fetch = provider_spans(cap)
    assert fetch[names.TOOL_STATUS] == "empty" and fetch[names.URL_FULL] == SOURCE_B
    assert all(d.text == "" for d in cap.store.documents(run.id))


def test_search_results_store_no_text(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """Search results carry encrypted content only: nothing goes into the store for them."""
    _serve(server, anthropic_blocks())
    with research_run("q") as run:
        _client(server).messages.create(**ARGS)
    assert cap.store.documents(run.id) == []


def test_streams_are_folded_without_changing_the_events(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """create(stream=True) and messages.stream() hand over every event; each is read once, at its end."""
    blocks = anthropic_blocks(fetch=(SOURCE_B, PAGE), cited=(SOURCE_A,))
    _serve(server, blocks, stream=True)
    client = _client(server)
    with research_run("q") as run:
        events = list(client.messages.create(**ARGS, stream=True))
        assert events[0].type == "message_start" and events[-1].type == "message_stop"
        assert len(provider_spans(cap)) == 2
        with client.messages.stream(**ARGS) as stream:
            final = stream.get_final_message()
    assert final.content[1].type == "web_search_tool_result"
    assert [s[names.TOOL_KIND] for s in provider_spans(cap)] == ["search", "fetch"] * 2
    assert run.citations == [SOURCE_A]


def test_raw_response_parse_and_beta(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """with_raw_response (how langchain-anthropic calls), parse() and the beta class are each read once."""
    _serve(server, anthropic_blocks())
    client = _client(server)
    raw = client.messages.with_raw_response.create(**ARGS)
    assert raw.parse().content[0].type == "server_tool_use"
    client.messages.parse(**ARGS)
    client.beta.messages.create(**ARGS)
    assert len(provider_spans(cap)) == 3


async def test_async_create_and_stream(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """The async client, plain and streamed, and the async beta stream helper."""
    client = anthropic.AsyncAnthropic(base_url=server.base, api_key="sk-ant-test", max_retries=0)
    _serve(server, anthropic_blocks())
    await client.messages.create(**ARGS)
    _serve(server, anthropic_blocks(), stream=True)
    stream = await client.messages.create(**ARGS, stream=True)
    assert [e.type async for e in stream][-1] == "message_stop"
    async with client.beta.messages.stream(**ARGS) as helper:
        await helper.get_final_message()
    assert [s[names.TOOL_STATUS] for s in provider_spans(cap)] == ["ok", "ok", "ok"]


def test_the_sdks_own_span_is_kept_and_not_doubled(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """anthropic's own model-call span stays one span; our tool spans sit in the same trace beside it."""
    _serve(server, anthropic_blocks())
    client = anthropic.Anthropic(base_url=server.base, api_key="sk-ant-test", max_retries=0,
                                 open_telemetry={"tracer_provider": cap.tracer_provider})
    with research_run("q"):
        client.messages.create(**ARGS)
    model_spans = [s for s in cap.spans if (s.attributes or {}).get("gen_ai.operation.name") == "chat"]
    tools = [s for s in cap.tool_spans() if (s.attributes or {}).get(names.TOOL_PROVIDER_SIDE)]
    assert len(tools) == 1 and len(model_spans) == 1
    assert len({s.context.trace_id for s in model_spans + tools}) == 1


def test_raw_streamed_response_is_read_when_the_callers_stream_ends(instrumented: Any, cap: Captured,
                                                                    server: LocalServer) -> None:
    """with_raw_response.create(stream=True), langchain-anthropic's streaming call: the caller's parse()
    gives every event, and the searches are read when that stream ends."""
    _serve(server, anthropic_blocks(fetch=(SOURCE_B, PAGE)), stream=True)
    raw = _client(server).messages.with_raw_response.create(**ARGS, stream=True)
    assert provider_spans(cap) == []
    events = [e.type for e in raw.parse()]
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert [s[names.TOOL_KIND] for s in provider_spans(cap)] == ["search", "fetch"]


async def test_async_raw_response_is_read_and_its_parse_awaited(instrumented: Any, cap: Captured,
                                                                 server: LocalServer) -> None:
    """AsyncAnthropic ``with_raw_response.create``, plain and streamed: the searches are read (the plain one at
    once, the stream when the caller's stream ends), and the caller's ``await raw.parse()`` gets the SDK's own
    result. Before, the async raw response's ``parse()`` was called without ``await``: nothing was recorded and
    the agent's stderr got "coroutine 'AsyncAPIResponse.parse' was never awaited"."""
    import gc
    import warnings

    client = anthropic.AsyncAnthropic(base_url=server.base, api_key="sk-ant-test", max_retries=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _serve(server, anthropic_blocks())
        raw = await client.messages.with_raw_response.create(**ARGS)
        assert (await raw.parse()).content[0].type == "server_tool_use"
        assert [s[names.TOOL_KIND] for s in provider_spans(cap)] == ["search"]
        _serve(server, anthropic_blocks(fetch=(SOURCE_B, PAGE)), stream=True)
        raw = await client.messages.with_raw_response.create(**ARGS, stream=True)
        events = [e.type async for e in await raw.parse()]
        gc.collect()
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert [s[names.TOOL_KIND] for s in provider_spans(cap)] == ["search", "search", "fetch"]
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []


def test_a_paused_turns_search_keeps_its_query(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """``stop_reason: pause_turn``: the ``server_tool_use`` (with the query) comes in one response, its result in
    the continued turn, whose request carries that assistant turn. The search is recorded with the query's
    hash, as an unpaused one is; before, the continued turn's reader saw only the result, so the search had no
    query hash and repeated queries across paused turns could not be counted."""
    blocks = anthropic_blocks(fetch=(SOURCE_B, PAGE), query="solar capacity 2024")
    client = _client(server)
    _serve(server, blocks)
    client.messages.create(**ARGS)
    unpaused = {s[names.TOOL_KIND]: s for s in provider_spans(cap)}
    uses = [b for b in blocks if b["type"] == "server_tool_use"]
    paused = dict(anthropic_message(uses), stop_reason="pause_turn")
    server.routes["/v1/messages"] = (200, json.dumps(paused), "application/json")
    first = client.messages.create(**ARGS)
    assert len(provider_spans(cap)) == 2  # nothing more yet: no result came back
    _serve(server, [b for b in blocks if b["type"] != "server_tool_use"])
    client.messages.create(**dict(ARGS, messages=[*ARGS["messages"], {"role": "assistant", "content": first.content}]))
    resumed = {s[names.TOOL_KIND]: s for s in provider_spans(cap)[2:]}
    assert resumed["search"][names.QUERY_HASH] == unpaused["search"][names.QUERY_HASH]
    assert resumed["fetch"]["url.full"] == unpaused["fetch"]["url.full"] == SOURCE_B
