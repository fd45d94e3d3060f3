"""OpenAI Agents SDK tool approvals: a run that stops for approval (``needs_approval=True``) and is resumed
with ``Runner.run(agent, result.to_state())`` is one run (``_agents/_paused.py``).

Found by an outside-style check: two runs, the first with the search and no answer, the resumed one with
the fetch and the answer, FAILED ``uncited_url`` (the URL it cited came from the first run's search). In
process: the real SDK with its own ``ScriptedModel``; the tools are citetrace ``traced_tool`` functions.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.instrumentation._agents import _paused
from citetrace.testing import Captured

from ._approvals import ANSWER, PAGE, fetch, search

set_tracing_disabled(True)  # the SDK's own tracing exports to OpenAI; there is no network here


@function_tool
def web_search(query: str) -> str:
    """Search the web."""
    return str(search(query))


@function_tool(needs_approval=True)
def read_page(url: str) -> str:
    """Read a page (a human approves each read)."""
    return fetch(url)


def _agent() -> Agent[Any]:
    steps = [[function_call("web_search", {"query": "solar 2024"}, call_id="s1")],
             [function_call("read_page", {"url": PAGE}, call_id="r1")],
             [assistant_message(ANSWER)]]
    return Agent(name="approver", instructions="research", tools=[web_search, read_page], model=ScriptedModel(steps))


async def _approved(streamed: bool) -> tuple[str, int]:
    agent = _agent()
    result: Any = await Runner.run(agent, "How fast is solar growing?")
    resumes = 0
    while result.interruptions:
        state = result.to_state()
        for item in result.interruptions:
            state.approve(item)
        if streamed:
            result = Runner.run_streamed(agent, state)
            async for _event in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, state)
        resumes += 1
    return str(result.final_output), resumes


@pytest.mark.parametrize("streamed", [False, True])
def test_approved_and_resumed_run_is_one_run(instrumented: CiteTraceInstrumentor, cap: Captured,
                                             streamed: bool) -> None:
    answer, resumes = asyncio.run(_approved(streamed))
    assert (answer, resumes) == (ANSWER, 1)
    (run,) = cap.store.runs()
    assert (run.agent, run.question, run.answer, run.error_type) == ("approver", "How fast is solar growing?",
                                                                      ANSWER, None)
    assert [(c.kind, c.status) for c in cap.store.calls(run.run_id)] == [("search", "ok"), ("fetch", "ok")]
    assert _paused.parked_count() == 0
    (root,) = cap.run_spans()
    assert len({s.context.trace_id for s in cap.spans}) == 1 and root.parent is None


def test_a_run_stopped_for_approval_and_dropped_ends_at_the_sweep(instrumented: CiteTraceInstrumentor,
                                                                  cap: Captured) -> None:
    """Never resumed: parked, then ended as it stood (no answer, not failed) past the TTL."""
    import time

    from citetrace import _telemetry

    result: Any = asyncio.run(Runner.run(_agent(), "How fast is solar growing?"))
    assert result.interruptions and cap.store.runs()[0].ended_at is None
    _paused.sweep(time.monotonic() + _telemetry.current().settings.trace_ttl_seconds + 1)
    (run,) = cap.store.runs()
    assert run.ended_at is not None and run.answer is None and run.error_type is None
