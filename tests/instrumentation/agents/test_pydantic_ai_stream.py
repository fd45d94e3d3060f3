"""PydanticAI's ``run_stream`` left early: the run records the text streamed so far, as a LangGraph or
smolagents stream cut early does.

Found by an outside-style check: ``async with agent.run_stream(...)`` left after the first text (a chat UI's
"stop") ended the run with no answer, so its citations, one of them made up, went unchecked. In process, the
real ``Agent`` with PydanticAI's own ``FunctionModel`` streaming its reply in pieces.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

PIECES = ["Solar grew 24 percent ", "[1](https://a.example/solar). ", "Tidal tripled ", "[2](https://never.example/t)."]
ANSWER = "".join(PIECES)


def _agent() -> Agent[None, str]:
    def whole(messages: list[object], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(ANSWER)])

    async def pieces(messages: list[object], info: AgentInfo) -> AsyncIterator[str]:
        for piece in PIECES:
            yield piece

    return Agent(FunctionModel(whole, stream_function=pieces), name="streamer")


async def _first_two_pieces() -> str:
    seen = ""
    async with _agent().run_stream("How fast is solar growing?") as result:
        async for text in result.stream_text(delta=True, debounce_by=None):
            seen += text
            if seen.startswith(PIECES[0] + PIECES[1]):
                break
    return seen


def test_run_stream_left_early_records_the_text_so_far(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    seen = asyncio.run(_first_two_pieces())
    assert seen == PIECES[0] + PIECES[1]
    (run,) = cap.store.runs()
    assert run.answer == seen and run.error_type is None
    (root,) = cap.run_spans()
    assert list((root.attributes or {})[names.CITATIONS]) == ["https://a.example/solar"]


def test_run_stream_drained_records_the_whole_answer(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    async def drained() -> str:
        async with _agent().run_stream("How fast is solar growing?") as result:
            return await result.get_output()

    assert asyncio.run(drained()) == ANSWER
    (run,) = cap.store.runs()
    assert run.answer == ANSWER
