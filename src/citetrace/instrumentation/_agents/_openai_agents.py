"""OpenAI Agents SDK: ``AgentRunner.run`` and ``AgentRunner.run_streamed`` are the run.

``Runner.run``/``run_sync``/``run_streamed`` are classmethods calling ``DEFAULT_AGENT_RUNNER``; ``run_sync``
drives ``run`` on a loop, so the two rows cover all three. ``run_streamed`` returns a
``RunResultStreaming`` at once while the agent loop runs in ``run_loop_task``: the run ends when that task
does (drained or not), with ``final_output``, or with the error the SDK stored for ``stream_events`` to
raise. ``agent.as_tool()`` calls ``Runner.run`` inside a tool, inside the outer run, so it joins it.
The answer is ``final_output`` (a structured ``output_type`` is read through ``str()``).

Tool approvals (``function_tool(needs_approval=True)``): the run returns with ``interruptions`` and no
output; the application approves on ``result.to_state()`` and passes that state to ``Runner.run`` again. That
is one run (``_paused``): parked on the first pending approval item, which ``to_state()`` carries over as the
same object, and continued by the call whose input is that state.
"""

from __future__ import annotations

from typing import Any

from citetrace.instrumentation._agents._boundary import Boundary, agent_row, text_of
from citetrace.instrumentation._agents._deferred import Later, handle_row

__all__ = ["ROWS", "BOUNDARY"]

DIST = "openai-agents"
_MODULE = "agents.run"


def _agent(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    agent = args[0] if args else kwargs.get("starting_agent")
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) else None


def _question(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The input: a str, or the text of the last user message of an input-item list."""
    value = args[1] if len(args) > 1 else kwargs.get("input")
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in reversed(value):
            if isinstance(item, dict) and item.get("role") == "user":
                content = item.get("content")
                if isinstance(content, str):
                    return content
                if isinstance(content, list):
                    texts = [str(p["text"]) for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
                    return "\n".join(texts) or None
    return None


def _answer(result: Any) -> str | None:
    return text_of(getattr(result, "final_output", None))


def _stored_error(result: Any) -> BaseException | None:
    error = getattr(result, "_stored_exception", None)
    return error if isinstance(error, BaseException) else None


def _pending_approval(runner: Any, result: Any) -> tuple[Any, str] | None:
    """A result that stopped for tool approvals: (its first pending approval item, "")."""
    pending = getattr(result, "interruptions", None)
    return (pending[0], "") if isinstance(pending, list) and pending else None


def _resumed_approval(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, str] | None:
    """A ``RunState`` as the input: the approval item it resumes (the same object the result held)."""
    value = args[1] if len(args) > 1 else kwargs.get("input")
    if type(value).__name__ != "RunState":
        return None
    pending = getattr(getattr(value, "_current_step", None), "interruptions", None)
    return (pending[0], "") if isinstance(pending, list) and pending else None


BOUNDARY = Boundary(agent=_agent, question=_question, answer=_answer, default_agent="openai-agents",
                    pauses_on=_pending_approval, thread=_resumed_approval, resumes=lambda *_: True)
STREAMED = Later(BOUNDARY, done=lambda result: result.run_loop_task, failure=_stored_error)

ROWS = (
    agent_row(DIST, _MODULE, "AgentRunner.run", BOUNDARY),
    handle_row(DIST, _MODULE, "AgentRunner.run_streamed", STREAMED),
)
