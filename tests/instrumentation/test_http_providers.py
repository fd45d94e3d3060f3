"""Provider-side web search answered over plain HTTP: an agent (or LiteLLM, which posts to Anthropic with httpx)
calling the Messages, Responses or chat-completions API with ``requests``/``httpx`` instead of the SDK gets the
same server-side search and fetch spans and the model's citations on its run as the SDK rows give. Only the
transport is replaced (``responses``, ``respx``); the SDK's own call stays one reading, never two."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import requests
import responses
import respx
from perplexity import Perplexity

from citetrace import names, research_run
from citetrace.testing import Captured

from .providers._shapes import SOURCE_A, SOURCE_B, anthropic_blocks, anthropic_message, openai_response

CITED_ONLY = "https://never.example/made-up"


def _provider_spans(cap: Captured) -> list[dict[str, Any]]:
    return [dict(s.attributes or {}) for s in cap.tool_spans() if (s.attributes or {}).get(names.TOOL_PROVIDER_SIDE)]


def _sonar(results: list[str], cited: list[str]) -> dict[str, Any]:
    return {"id": "p1", "model": "sonar", "created": 1700000000, "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Spain won [1]."},
                         "delta": {"role": "assistant", "content": ""}}],
            "citations": cited, "search_results": [{"title": "t", "url": u, "date": "2024-07-14"} for u in results]}


@responses.activate
def test_anthropic_messages_with_requests(instrumented: Any, cap: Captured) -> None:
    """POST api.anthropic.com/v1/messages with requests: its web_search and web_fetch are spans of the run and
    its text blocks' citations the run's citations; the caller's response is untouched."""
    body = anthropic_message(anthropic_blocks(fetch=(SOURCE_B, "Fetched page text, long enough to count. " * 8),
                                              cited=(SOURCE_A, CITED_ONLY)))
    responses.post("https://api.anthropic.com/v1/messages", json=body)
    with research_run(question="q", agent="raw-http") as run:
        got = requests.post("https://api.anthropic.com/v1/messages", timeout=5, headers={"x-api-key": "sk-ant-secret"},
                            json={"model": "claude", "max_tokens": 10, "messages": [{"role": "user", "content": "q"}],
                                  "tools": [{"type": "web_search_20250305", "name": "web_search"}]})
    assert got.json() == body
    spans = _provider_spans(cap)
    assert [(s[names.GEN_AI_TOOL_NAME], s[names.TOOL_STATUS]) for s in spans] == [
        ("anthropic.web_search", "ok"), ("anthropic.web_fetch", "ok")]
    assert list(spans[0][names.URLS_RETURNED]) == [SOURCE_A, SOURCE_B]
    (root,) = cap.run_spans()
    assert list((root.attributes or {})[names.CITATIONS]) == [SOURCE_A, CITED_ONLY]
    assert run.id


@respx.mock
def test_perplexity_chat_with_async_httpx(instrumented: Any, cap: Captured) -> None:
    """POST api.perplexity.ai/chat/completions with httpx.AsyncClient (how LiteLLM-style clients call it): one
    search of its search_results, its citations on the run."""
    respx.post("https://api.perplexity.ai/chat/completions").mock(
        return_value=httpx.Response(200, json=_sonar([SOURCE_A, SOURCE_B], [SOURCE_A])))

    async def ask() -> int:
        async with httpx.AsyncClient() as client:
            r = await client.post("https://api.perplexity.ai/chat/completions",
                                  json={"model": "sonar", "messages": [{"role": "user", "content": "q"}]})
            return r.status_code

    with research_run(question="q", agent="raw-http"):
        assert asyncio.run(ask()) == 200
    (span,) = _provider_spans(cap)
    assert (span[names.GEN_AI_TOOL_NAME], list(span[names.URLS_RETURNED])) == ("perplexity.search", [SOURCE_A, SOURCE_B])
    assert list((cap.run_spans()[0].attributes or {})[names.CITATIONS]) == [SOURCE_A]


@responses.activate
def test_openai_responses_sources_follow_the_request_body(instrumented: Any, cap: Captured) -> None:
    """POST api.openai.com/v1/responses: the request body's ``include`` says whether sources were asked for, as
    the SDK call's keyword does: an answer listing none is an empty search when they were asked for, an
    unreported one when they were not."""
    responses.post("https://api.openai.com/v1/responses", json=openai_response(sources=None))
    for include, reported in ((["web_search_call.action.sources"], True), (None, False)):
        cap.clear()
        payload: dict[str, Any] = {"model": "gpt-5", "input": "q", "tools": [{"type": "web_search"}]}
        if include:
            payload["include"] = include
        requests.post("https://api.openai.com/v1/responses", json=payload, timeout=5)
        (span,) = _provider_spans(cap)
        assert span[names.SEARCH_SOURCES_REPORTED] is reported
        assert span[names.TOOL_STATUS] == (names.STATUS_EMPTY if reported else names.STATUS_OK)


@responses.activate
def test_gemini_generate_content_with_requests(instrumented: Any, cap: Captured) -> None:
    """POST generativelanguage.googleapis.com/v1beta/models/{model}:generateContent (its REST answer is
    camelCase JSON): one grounded search of its chunks, the supported chunk cited; the API key in the query
    string reaches no span; ``:streamGenerateContent`` and another model path are not read."""
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    answer = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Spain won Euro 2024."}]},
                              "groundingMetadata": {"webSearchQueries": ["euro 2024 winner"],
                                                    "groundingChunks": [{"web": {"uri": SOURCE_A, "title": "a"}},
                                                                        {"web": {"uri": SOURCE_B, "title": "b"}}],
                                                    "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 20},
                                                                           "groundingChunkIndices": [1]}]}}]}
    responses.post(url, json=answer)
    responses.post(url.replace(":generateContent", ":streamGenerateContent"), json=[answer])
    with research_run(question="q", agent="raw-http"):
        requests.post(url, params={"key": "AIzaSecretKey1234567890abcdefghijklmnop"}, timeout=5,
                      json={"contents": [{"parts": [{"text": "q"}]}], "tools": [{"googleSearch": {}}]})
        requests.post(url.replace(":generateContent", ":streamGenerateContent"), json={}, timeout=5)
    (span,) = _provider_spans(cap)
    assert (span[names.GEN_AI_TOOL_NAME], list(span[names.URLS_RETURNED])) == ("google.google_search", [SOURCE_A, SOURCE_B])
    assert list((cap.run_spans()[0].attributes or {})[names.CITATIONS]) == [SOURCE_B]
    assert "AIzaSecret" not in repr([dict(s.attributes or {}) for s in cap.spans])


@responses.activate
def test_streams_errors_and_other_paths_make_nothing(instrumented: Any, cap: Captured) -> None:
    """A streamed request (SSE, not read here), an error answer and another path of the same host make no span."""
    responses.post("https://api.anthropic.com/v1/messages", body="event: ping\ndata: {}\n\n",
                   content_type="text/event-stream")
    responses.post("https://api.openai.com/v1/responses", json={"error": {"message": "rate"}}, status=429)
    responses.get("https://api.anthropic.com/v1/models", json={"data": []})
    requests.post("https://api.anthropic.com/v1/messages", json={"model": "c", "stream": True, "messages": []}, timeout=5)
    assert requests.post("https://api.openai.com/v1/responses", json={"model": "m"}, timeout=5).status_code == 429
    requests.get("https://api.anthropic.com/v1/models", timeout=5)
    assert _provider_spans(cap) == []


@respx.mock
def test_the_sdk_call_is_read_once(instrumented: Any, cap: Captured) -> None:
    """perplexityai's SDK posts with httpx: its own row reads the answer, and the HTTP layer underneath does not
    read it a second time."""
    respx.post("https://api.perplexity.ai/chat/completions").mock(
        return_value=httpx.Response(200, json=_sonar([SOURCE_A], [SOURCE_A])))
    Perplexity(api_key="pplx-test", max_retries=0).chat.completions.create(
        model="sonar", messages=[{"role": "user", "content": "q"}])
    assert len(_provider_spans(cap)) == 1
