"""Citations a provider attached outside the answer's text (OpenAI ``url_citation`` spans, Anthropic text-block
``citations``, Gemini grounding supports, Perplexity's ``[n]`` markers with its ``citations`` list) pair with
the claims they cover: coverage, the unfetched rate, the
judge, the gate, ``citetrace eval`` and the run page all see them. Each provider's real client talks to a server
on 127.0.0.1 inside a ``research_run``; the agent reads one cited page with a traced fetch so the judge has
text for one of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator

import anthropic
import openai
import pytest
import requests
from google import genai
from google.genai import types
from perplexity import Perplexity

from citetrace import names, research_run, traced_tool
from citetrace.cli import main
from citetrace.eval import evaluate_run, gate
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.store import SQLiteStore, Store
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import capture_spans
from citetrace.view import page_for_run

from instrumentation._net import LocalServer

SOLAR = "Solar capacity grew 24 percent in 2024."
WIND = "Wind output in the region was flat over the same year."
UNCITED = "Analysts expect further growth next decade."
PAGE = "<html><body><p>Annual report.</p><p>Solar capacity grew 24 percent in 2024, the agency said.</p></body></html>"
OTHER = "https://wind.example/outlook"  # cited, returned by the search, never fetched by the agent


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """A provider endpoint (routes set per test) and the cited page, on 127.0.0.1."""
    with LocalServer() as srv:
        srv.routes["/solar"] = (200, PAGE, "text/html")
        yield srv


@traced_tool(kind="fetch")
def read_page(url: str) -> str:
    return requests.get(url, timeout=5).text


def _openai(srv: LocalServer, solar: str) -> str:
    text = f"{SOLAR} {WIND} {UNCITED}"
    wind_at = text.index(WIND)
    body = {"id": "resp_1", "object": "response", "created_at": 1700000000, "status": "completed", "model": "gpt-5",
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [{"type": "web_search"}], "output": [
                {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {
                    "type": "search", "query": "solar 2024", "sources": [{"type": "url", "url": u} for u in (solar, OTHER)]}},
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
                    {"type": "output_text", "text": text, "annotations": [
                        {"type": "url_citation", "url": solar, "title": "s", "start_index": 0, "end_index": len(SOLAR)},
                        {"type": "url_citation", "url": OTHER, "title": "w", "start_index": wind_at,
                         "end_index": wind_at + len(WIND)}]}]}]}
    srv.routes["/v1/responses"] = (200, json.dumps(body), "application/json")
    client = openai.OpenAI(base_url=srv.base + "/v1", api_key="sk-test", max_retries=0)
    response = client.responses.create(model="gpt-5", input="q", tools=[{"type": "web_search"}],
                                       include=["web_search_call.action.sources"])
    return response.output_text


def _anthropic(srv: LocalServer, solar: str) -> str:
    cite = lambda url: {"type": "web_search_result_location", "url": url, "title": "t",  # noqa: E731
                        "cited_text": "from the page", "encrypted_index": "E"}
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-scripted",
            "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "solar"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                    {"type": "web_search_result", "url": u, "title": "t", "encrypted_content": "E", "page_age": None}
                    for u in (solar, OTHER)]},
                {"type": "text", "text": SOLAR, "citations": [cite(solar)]},
                {"type": "text", "text": f" {WIND}", "citations": [cite(OTHER)]},
                {"type": "text", "text": f" {UNCITED}", "citations": None}]}
    srv.routes["/v1/messages"] = (200, json.dumps(body), "application/json")
    client = anthropic.Anthropic(base_url=srv.base, api_key="sk-ant-test", max_retries=0)
    msg = client.messages.create(model="claude-scripted", max_tokens=10, messages=[{"role": "user", "content": "q"}],
                                 tools=[{"type": "web_search_20250305", "name": "web_search"}])
    return "".join(b.text for b in msg.content if b.type == "text")


def _gemini(srv: LocalServer, solar: str) -> str:
    text = f"{SOLAR} {WIND} {UNCITED}"
    wind = text.index(WIND)
    body = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
                            "groundingMetadata": {
        "webSearchQueries": ["solar 2024"],
        "groundingChunks": [{"web": {"uri": u, "title": "t"}} for u in (solar, OTHER)],
        "groundingSupports": [
            {"segment": {"startIndex": 0, "endIndex": len(SOLAR), "text": SOLAR}, "groundingChunkIndices": [0]},
            {"segment": {"startIndex": wind, "endIndex": wind + len(WIND)}, "groundingChunkIndices": [1]}]}}]}
    srv.routes["/v1/models/gemini-scripted:generateContent"] = (200, json.dumps(body), "application/json")
    client = genai.Client(api_key="x", http_options=types.HttpOptions(base_url=srv.base))
    config = types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())])
    response = client.models.generate_content(model="gemini-scripted", contents="q", config=config)
    return str(response.text)


def _perplexity(srv: LocalServer, solar: str) -> str:
    body = {"id": "p1", "model": "sonar", "created": 1700000000, "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": f"{SOLAR} [1] {WIND} [2] {UNCITED}"},
                         "delta": {"role": "assistant", "content": ""}}],
            "citations": [solar, OTHER], "search_results": [{"title": "t", "url": u} for u in (solar, OTHER)]}
    srv.routes["/chat/completions"] = (200, json.dumps(body), "application/json")
    completion = Perplexity(base_url=srv.base, api_key="pplx-test", max_retries=0).chat.completions.create(
        model="sonar", messages=[{"role": "user", "content": "q"}])
    return str(completion.choices[0].message.content)


PROVIDERS: dict[str, Callable[[LocalServer, str], str]] = {"openai": _openai, "anthropic": _anthropic,
                                                          "gemini": _gemini, "perplexity": _perplexity}


def _record(store: Store, srv: LocalServer, provider: str, rewritten: str | None = None) -> str:
    """One run: the provider answers with its citations, the agent reads the solar page and records the
    provider's answer (or a ``rewritten`` one)."""
    solar = srv.base + "/solar"
    inst = CiteTraceInstrumentor()
    inst.instrument(tools="")
    try:
        with capture_spans(store=store, processors=(TraceSummaryProcessor(store=store),)) as cap:
            with research_run(question="q", agent="hunt") as run:
                answer = PROVIDERS[provider](srv, solar)
                read_page(solar)
                run.record_answer(answer if rewritten is None else rewritten)
            cap.tracer_provider.force_flush()
    finally:
        inst.uninstrument()
    return run.id


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_provider_citations_pair_with_the_claims_they_cover(server: LocalServer, provider: str) -> None:
    """Each cited sentence pairs with its URL (judged against the fetched page, or unfetched), the third
    sentence stays uncited, and coverage, the unfetched rate and the gate count them."""
    store = SQLiteStore(":memory:")
    run_id = _record(store, server, provider)
    assert [c.url for c in store.model_citations(run_id)] == [server.base + "/solar", OTHER]
    ev = evaluate_run(store, run_id, offline=True)
    by_sentence = {p.pair.sentence.text: p for p in ev.pairs}
    solar, wind, uncited = by_sentence[SOLAR], by_sentence[WIND], by_sentence[UNCITED]
    assert len(ev.pairs) == 3, [p.as_dict() for p in ev.pairs]
    assert solar.pair.url == server.base + "/solar" and solar.in_run_store and solar.label == "SUPPORTED"
    assert wind.pair.url == OTHER and wind.in_run_store is False and wind.label == "UNFETCHED"
    assert wind.returned_by_search is True and "unfetched" in wind.flags()
    assert uncited.flags() == ["uncited"]
    coverage, dead = ev.rates["citation_coverage"], ev.rates["dead_or_unfetched_rate"]
    assert (coverage.numerator, coverage.denominator) == (2, 3)
    assert (dead.numerator, dead.denominator) == (1, 2)
    assert ev.model_citations == {"recorded": 2, "placed": 2, "not_in_text": 0}
    result = gate(ev)
    assert [reason for reason, _m in result.failures] == [names.GATE_UNFETCHED]
    assert OTHER in result.failures[0][1] and "returned by a search" in result.failures[0][1]
    assert result.notes == []


def test_citations_outside_the_recorded_text_are_counted_not_guessed(server: LocalServer) -> None:
    """A run that records a rewritten answer keeps the model's citations, but eval places none of them: it says
    how many it could not place, and the gate's note about citations outside the text still applies."""
    store = SQLiteStore(":memory:")
    run_id = _record(store, server, "openai",
                     rewritten="Output from photovoltaics rose by roughly a quarter last year, says the agency.")
    ev = evaluate_run(store, run_id, offline=True)
    assert ev.model_citations == {"recorded": 2, "placed": 0, "not_in_text": 2}
    assert [p.flags() for p in ev.pairs] == [["uncited"]]
    result = gate(ev, rules=(names.GATE_NO_CITATIONS,))
    assert result.passed and any("outside its text" in note for note in result.notes)


def test_eval_cli_and_run_page_show_the_pairs(server: LocalServer, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """`citetrace eval --json` lists the provider-cited pairs, `gate` exits 1 naming the unread citation, the
    offline-evaluated run page shows the verdict on the cited URL, and `show` lists the model's citations."""
    db = tmp_path / "store.db"
    store = SQLiteStore(db)
    run_id = _record(store, server, "openai")
    store.close()
    assert main(["eval", run_id, "--store", str(db), "--offline", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    cited = [(p["sentence_text"], p["url"], p["marker"]) for p in out["pairs"] if p["has_citation"]]
    assert cited == [(SOLAR, server.base + "/solar", "url_citation"), (WIND, OTHER, "url_citation")]
    assert out["model_citations"]["placed"] == 2
    assert main(["gate", run_id, "--store", str(db), "--offline"]) == 1
    assert OTHER in capsys.readouterr().out
    reader = SQLiteStore(db)
    page = page_for_run(reader, run_id, evaluate=True)
    reader.close()
    assert "SUPPORTED" in page and OTHER in page
    assert main(["show", run_id, "--store", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "model citations (2" in shown and f'url_citation               {OTHER}  "{WIND}"' in shown
    assert main(["show", run_id, "--store", str(db), "--json"]) == 0
    assert [c["url"] for c in json.loads(capsys.readouterr().out)["model_citations"]] == [server.base + "/solar", OTHER]
