"""The gate on a run whose provider-side search did not report its sources (OpenAI Responses without
``include=["web_search_call.action.sources"]``): it still fails ``cited_not_fetched`` (there is no text to check
the claim against), but says why instead of "cited but never fetched", which overstated: the model may have read
the page server-side. The run's summary carries ``unreported_searches``, which the gate reads. The real openai
client against a server on 127.0.0.1, inside a ``research_run`` with the summary processor writing the summary."""

from __future__ import annotations

import json
from typing import Iterator

import openai
import pytest

from citetrace import names
from citetrace.eval import evaluate_run, gate
from citetrace.store import MemoryStore

from _instrumented import summarized_run
from instrumentation._net import LocalServer
from instrumentation.providers._shapes import SOURCE_A, openai_response

SOURCES = ["web_search_call.action.sources"]


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """An OpenAI Responses endpoint on 127.0.0.1 answering with one search citing SOURCE_A; the sources
    are in the answer only when the request asked for them, as OpenAI answers."""
    with LocalServer() as srv:
        srv.routes["/v1/responses"] = (200, json.dumps(openai_response(sources=None)), "application/json")
        srv.routes["/with-sources/v1/responses"] = (200, json.dumps(openai_response()), "application/json")
        yield srv


def _run(store: MemoryStore, base: str, include: list[str] | None) -> str:
    with summarized_run(store) as run:
        client = openai.OpenAI(base_url=base + "/v1", api_key="sk-test", max_retries=0)
        kwargs = {"include": include} if include else {}
        response = client.responses.create(model="gpt-5", input="q", tools=[{"type": "web_search"}], **kwargs)
        run.record_answer(f"{response.output_text} [1]\n\n[1] {SOURCE_A}")
    return run.id


def test_unreported_sources_are_said_in_the_summary_and_the_gate(server: LocalServer) -> None:
    """unreported_searches=1 in the stored summary; the gate fails on the cited URL naming the unreported
    search and how to get the check, not "never fetched"."""
    store = MemoryStore()
    run_id = _run(store, server.base, None)
    ev = evaluate_run(store, run_id, offline=True)
    assert ev.run_summary is not None and ev.run_summary["unreported_searches"] == 1
    result = gate(ev, rules=(names.GATE_UNFETCHED,))
    assert not result.passed
    ((rule, message),) = result.failures
    assert rule == names.GATE_UNFETCHED
    assert "never fetched" not in message and SOURCE_A in message
    assert "did not report its sources" in message and "web_search_call.action.sources" in message


def test_reported_sources_keep_the_plain_wording(server: LocalServer) -> None:
    """With the sources asked for, the summary counts no unreported search and the gate's message is the
    searched-but-never-fetched one."""
    store = MemoryStore()
    run_id = _run(store, server.base + "/with-sources", SOURCES)
    ev = evaluate_run(store, run_id, offline=True)
    assert ev.run_summary is not None and ev.run_summary["unreported_searches"] == 0
    ((_rule, message),) = gate(ev, rules=(names.GATE_UNFETCHED,)).failures
    assert "returned by a search" in message and "did not report" not in message
