"""Gemini's grounding with Google Search and Perplexity Sonar, through their real clients against a local
server: one search per grounded answer, its result URLs, and the model's citations on the run."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from google import genai
from google.genai import types
from perplexity import AsyncPerplexity, Perplexity

from citetrace import names, research_run
from citetrace.testing import Captured

from .._net import LocalServer
from ._helpers import provider_spans, summary_of
from ._shapes import MADE_UP, SOURCE_A, SOURCE_B, sse

REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
MODEL = "gemini-scripted"


def _gemini(queries: list[str], chunks: list[str], supports: list[int]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": "Spain won Euro 2024."}]},
                            "finishReason": "STOP", "groundingMetadata": {
        "webSearchQueries": queries,
        "groundingChunks": [{"web": {"uri": u, "title": "t"}} for u in chunks],
        "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 20, "text": "Spain won Euro 2024."},
                               "groundingChunkIndices": supports}]}}]}


def _client(server: LocalServer) -> genai.Client:
    return genai.Client(api_key="x", http_options=types.HttpOptions(base_url=server.base))


CONFIG = types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())])


def test_gemini_grounding_is_a_search_with_its_chunks(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """The queries and grounding chunks make one search; the supported chunks are the run's citations."""
    body = _gemini(["euro 2024 winner"], [REDIRECT + "a", REDIRECT + "b"], [1])
    server.routes[f"/v1/models/{MODEL}:generateContent"] = (200, json.dumps(body), "application/json")
    with research_run("q") as run:
        client = _client(server)  # kept: a Client closes its transport when collected
        response = client.models.generate_content(model=MODEL, contents="who won?", config=CONFIG)
    assert response.text == "Spain won Euro 2024."
    (span,) = provider_spans(cap)
    assert span[names.GEN_AI_TOOL_NAME] == "google.google_search" and span[names.RESULT_COUNT] == 2
    assert run.citations == [REDIRECT + "b"]
    summary = summary_of(cap)
    assert (summary.searches, summary.uncited_from_retrieval, summary.cited_not_fetched) == (1, 0, 0)


def test_gemini_without_grounding_did_not_search(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """A plain answer (no grounding metadata) records no search."""
    body = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi."}]}, "finishReason": "STOP"}]}
    server.routes[f"/v1/models/{MODEL}:generateContent"] = (200, json.dumps(body), "application/json")
    client = _client(server)
    client.models.generate_content(model=MODEL, contents="hi")
    assert provider_spans(cap) == []


def test_gemini_stream_sync_and_async(instrumented: Any, cap: Captured, server: LocalServer) -> None:
    """Stream chunks all reach the caller; the chunk with grounding is read once, when the stream ends."""
    first = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Spain "}]}}]}
    last = _gemini(["euro 2024 winner"], [REDIRECT + "a"], [0])
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in (first, last))
    server.routes[f"/v1/models/{MODEL}:streamGenerateContent"] = (200, body, "text/event-stream")
    client = _client(server)
    chunks = list(client.models.generate_content_stream(model=MODEL, contents="who?", config=CONFIG))
    assert len(chunks) == 2 and len(provider_spans(cap)) == 1

    async def consume() -> int:
        stream = await client.aio.models.generate_content_stream(model=MODEL, contents="who?", config=CONFIG)
        return len([c async for c in stream])

    import asyncio

    assert asyncio.run(consume()) == 2 and len(provider_spans(cap)) == 2


def _sonar(results: list[str], cited: list[str]) -> dict[str, Any]:
    return {"id": "p1", "model": "sonar", "created": 1700000000, "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Spain won [1]."},
                         "delta": {"role": "assistant", "content": ""}}],
            "citations": cited, "search_results": [{"title": "t", "url": u, "date": "2024-07-14"} for u in results]}


@pytest.mark.parametrize(("results", "status"), [([SOURCE_A, SOURCE_B], "ok"), ([], "empty")])
def test_perplexity_search_results_and_citations(instrumented: Any, cap: Captured, server: LocalServer,
                                                  results: list[str], status: str) -> None:
    """search_results make one search (empty when none); citations go on the run; a citation outside the
    results is counted."""
    server.routes["/chat/completions"] = (200, json.dumps(_sonar(results, [SOURCE_A, MADE_UP])), "application/json")
    with research_run("q") as run:
        Perplexity(base_url=server.base, api_key="pplx-test", max_retries=0).chat.completions.create(
            model="sonar", messages=[{"role": "user", "content": "who won?"}])
    (span,) = provider_spans(cap)
    assert span[names.TOOL_STATUS] == status and run.citations == [SOURCE_A, MADE_UP]
    assert MADE_UP in summary_of(cap).uncited_urls


def test_perplexity_stream_async_and_through_the_openai_client(instrumented: Any, cap: Captured,
                                                               server: LocalServer) -> None:
    """A Sonar stream is read from its last chunk with results; the OpenAI client pointed at Perplexity
    carries the same fields and is read the same way."""
    chunk = dict(_sonar([SOURCE_A], [SOURCE_A]), object="chat.completion.chunk")
    server.routes["/chat/completions"] = (200, "".join(f"data: {json.dumps(chunk)}\n\n" for _ in range(2)) + "data: [DONE]\n\n",
                                          "text/event-stream")

    async def consume() -> int:
        client = AsyncPerplexity(base_url=server.base, api_key="pplx-test", max_retries=0)
        stream = await client.chat.completions.create(model="sonar", messages=[{"role": "user", "content": "q"}],
                                                      stream=True)
        return len([c async for c in stream])

    import asyncio

    assert asyncio.run(consume()) == 2 and len(provider_spans(cap)) == 1
    server.routes["/chat/completions"] = (200, json.dumps(_sonar([SOURCE_B], [SOURCE_B])), "application/json")
    openai.OpenAI(base_url=server.base, api_key="pplx-test", max_retries=0).chat.completions.create(
        model="sonar", messages=[{"role": "user", "content": "q"}])
    spans = provider_spans(cap)
    assert len(spans) == 2 and list(spans[1][names.URLS_RETURNED]) == [SOURCE_B]
    assert spans[1][names.GEN_AI_TOOL_NAME] == "perplexity.search"


def test_gemini_grounding_with_no_chunks_is_an_empty_search(instrumented: Any, cap: Captured,
                                                            server: LocalServer) -> None:
    """A grounded answer whose search found nothing is an empty search."""
    server.routes[f"/v1/models/{MODEL}:generateContent"] = (200, json.dumps(_gemini(["x"], [], [])), "application/json")
    client = _client(server)
    client.models.generate_content(model=MODEL, contents="q", config=CONFIG)
    (span,) = provider_spans(cap)
    assert span[names.TOOL_STATUS] == "empty"


def test_rate_limited_model_calls_raise_unchanged_and_record_nothing(instrumented: Any, cap: Captured,
                                                                     server: LocalServer) -> None:
    """A 429 from Gemini's or Perplexity's API is the SDK's own error, untouched; no search is invented."""
    from google.genai import errors
    from perplexity import RateLimitError

    body = json.dumps({"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})
    server.routes[f"/v1/models/{MODEL}:generateContent"] = (429, body, "application/json")
    server.routes["/chat/completions"] = (429, body, "application/json")
    client = _client(server)
    with pytest.raises(errors.ClientError) as gemini:
        client.models.generate_content(model=MODEL, contents="q", config=CONFIG)
    assert gemini.value.code == 429
    with pytest.raises(RateLimitError):
        Perplexity(base_url=server.base, api_key="pplx-test", max_retries=0).chat.completions.create(
            model="sonar", messages=[{"role": "user", "content": "q"}])
    assert provider_spans(cap) == []


@pytest.mark.parametrize("metadata", [
    {},  # what the API sends when grounding could not run (no permission, the model chose not to search)
    {"retrievalQueries": ["acme sso"], "groundingChunks": [{"retrievedContext": {"uri": "gs://bucket/acme.pdf",
                                                                                  "title": "acme.pdf"}}],
     "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 3, "text": "Hi."}, "groundingChunkIndices": [0]}]},
], ids=["empty", "retrieval_only"])
def test_gemini_grounding_without_a_web_search_records_no_search(instrumented: Any, cap: Captured,
                                                                 server: LocalServer, metadata: dict[str, Any]) -> None:
    """Grounding metadata that names no web search query and no web chunk is not a Google Search: empty metadata,
    or grounding on a Vertex AI Search / RAG data store (``retrievedContext`` chunks, ``retrievalQueries``). Before,
    each was recorded as an empty ``google.google_search``, so the run failed on empty_search."""
    body = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi."}]}, "finishReason": "STOP",
                            "groundingMetadata": metadata}]}
    server.routes[f"/v1/models/{MODEL}:generateContent"] = (200, json.dumps(body), "application/json")
    with research_run("q"):
        client = _client(server)
        assert client.models.generate_content(model=MODEL, contents="q", config=CONFIG).text == "Hi."
    assert provider_spans(cap) == []
    assert summary_of(cap).empty_searches == 0
