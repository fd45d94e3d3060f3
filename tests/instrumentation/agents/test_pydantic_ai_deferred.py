"""PydanticAI deferred tools: a run that ends asking for approval (``requires_approval=True``) and is run
again with ``deferred_tool_results`` is one run (``_agents/_paused.py``).

Found by an outside-style check: two runs; the first recorded ``str(DeferredToolRequests(...))`` as its
answer, so the URL in the pending call's arguments was a citation "never fetched" (FAILED), and the second,
with the fetch and the report, FAILED ``uncited_url`` (its URL came from the first run's search). In
process: the real ``Agent`` with PydanticAI's own ``FunctionModel``; the tools are ``traced_tool`` functions.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from citetrace import _telemetry
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.instrumentation._agents import _paused
from citetrace.testing import Captured

from ._approvals import ANSWER, PAGE, fetch, search



def _agent() -> Agent[None, Any]:
    calls = [("web_search", {"query": "solar 2024"}), ("read_page", {"url": PAGE})]

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelRequest) for m in messages) - 1
        if turn < len(calls):
            name, args = calls[turn]
            return ModelResponse(parts=[ToolCallPart(name, json.dumps(args), tool_call_id=f"call-{turn}")])
        return ModelResponse(parts=[TextPart(ANSWER)])

    agent: Agent[None, Any] = Agent(FunctionModel(respond), name="approver", output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def web_search(query: str) -> str:
        """Search the web."""
        return str(search(query))

    @agent.tool_plain(requires_approval=True)
    def read_page(url: str) -> str:
        """Read a page (a human approves each read)."""
        return fetch(url)

    return agent


def test_approved_and_continued_run_is_one_run(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    async def approved() -> Any:
        agent = _agent()
        result = await agent.run("How fast is solar growing?")
        assert isinstance(result.output, DeferredToolRequests)
        approvals = DeferredToolResults(approvals={c.tool_call_id: True for c in result.output.approvals})
        return await agent.run(message_history=result.all_messages(), deferred_tool_results=approvals)

    assert asyncio.run(approved()).output == ANSWER
    (run,) = cap.store.runs()
    assert (run.agent, run.question, run.answer, run.error_type) == ("approver", "How fast is solar growing?",
                                                                      ANSWER, None)
    assert [(c.kind, c.status) for c in cap.store.calls(run.run_id)] == [("search", "ok"), ("fetch", "ok")]
    assert _paused.parked_count() == 0


def test_a_run_left_waiting_for_approval_has_no_answer(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Never continued: ended past the TTL as it stood; the pending requests are not its answer."""
    result = asyncio.run(_agent().run("How fast is solar growing?"))
    assert isinstance(result.output, DeferredToolRequests)
    _paused.sweep(time.monotonic() + _telemetry.current().settings.trace_ttl_seconds + 1)
    (run,) = cap.store.runs()
    assert run.ended_at is not None and run.answer is None and run.error_type is None
