"""A run whose citations the model attached outside its text (Anthropic ``citations`` on text blocks; the
answer's text has no URL): the run's summary counts them and eval pairs them with the sentence they cover, so
the gate's ``no_citations`` rule must not say the report "carries no citation". The real anthropic client against a server on 127.0.0.1, inside a
``research_run`` with the summary processor writing the run's summary."""

from __future__ import annotations

import json
from typing import Iterator

import anthropic
import pytest

from citetrace import names
from citetrace.eval import evaluate_run, gate
from citetrace.store import MemoryStore

from _instrumented import summarized_run
from instrumentation._net import LocalServer

SOURCE = "https://solar.example/report"
TEXT = "Solar capacity grew 24 percent in 2024."


def _message() -> dict[str, object]:
    blocks = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "solar 2024"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
            {"type": "web_search_result", "url": SOURCE, "title": "t", "encrypted_content": "E", "page_age": None}]},
        {"type": "text", "text": TEXT, "citations": [{"type": "web_search_result_location", "url": SOURCE, "title": "t",
                                                      "cited_text": "24 percent", "encrypted_index": "E"}]},
    ]
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-scripted", "stop_reason": "end_turn",
            "stop_sequence": None, "content": blocks, "usage": {"input_tokens": 1, "output_tokens": 1}}


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """An Anthropic Messages endpoint on 127.0.0.1."""
    with LocalServer() as srv:
        srv.routes["/v1/messages"] = (200, json.dumps(_message()), "application/json")
        yield srv


def test_model_citations_are_not_no_citations(server: LocalServer) -> None:
    """The summary has the model's citation and eval pairs it with the sentence its text block is, so the gate
    does not fail no_citations and needs no note about citations it could not place."""
    store = MemoryStore()
    with summarized_run(store) as run:
        client = anthropic.Anthropic(base_url=server.base, api_key="sk-ant-test", max_retries=0)
        msg = client.messages.create(model="claude-scripted", max_tokens=10, messages=[{"role": "user", "content": "q"}],
                                     tools=[{"type": "web_search_20250305", "name": "web_search"}])
        run.record_answer("".join(b.text for b in msg.content if b.type == "text"))
    ev = evaluate_run(store, run.id, offline=True)
    assert ev.run_summary is not None and ev.run_summary["citations"] == 1
    coverage = ev.rates["citation_coverage"]
    assert (coverage.numerator, coverage.denominator) == (1, 1)
    assert [(p.pair.url, p.pair.marker) for p in ev.pairs] == [(SOURCE, "web_search_result_location")]
    result = gate(ev, rules=(names.GATE_NO_CITATIONS,))
    assert result.passed, result.failures
    assert result.notes == []


def test_a_bibliography_without_markers_still_fails_no_citations() -> None:
    """Sources listed under the report but tied to no claim are in the text: no_citations still fails (the note
    is only for citations the text does not carry at all)."""
    from eval.conftest import make_run
    from citetrace.eval._evaluate import evaluate_run as evaluate

    store = MemoryStore()
    make_run(store, "Unemployment rose to 4.2% in March 2024.\n\n## Sources\n- https://stats.example/unemployment\n")
    record = store.get_run("run-1")
    assert record is not None
    store.put_summary("run-1", {"citations": 1, "failure_reasons": []}, trace_id=record.trace_id, agent="tester")
    result = gate(evaluate(store, "run-1", offline=True), rules=(names.GATE_NO_CITATIONS,))
    assert [r for r, _m in result.failures] == [names.GATE_NO_CITATIONS] and result.notes == []
