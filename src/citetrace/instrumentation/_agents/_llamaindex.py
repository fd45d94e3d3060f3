"""LlamaIndex agent workflows: ``workflows.workflow.Workflow.run`` is the run.

``FunctionAgent``/``ReActAgent``/``CodeActAgent.run`` and ``AgentWorkflow.run`` all end in
``Workflow.run``, which returns a ``WorkflowHandler`` at once while the steps run in tasks it starts: the
run is current while ``run`` schedules them (asyncio copies it into each task), and ends when the handler
resolves, whether it is awaited or its ``stream_events()`` drained. The answer is the stop event's result:
an ``AgentOutput``'s ``response.content``, or a plain workflow's result through ``str()``. An agent run
from another agent's tool joins the outer run.

The tools: ``TavilyToolSpec.search``/``extract`` call ``TavilyClient.search``/``extract``, which
citetrace wraps; sync tools run in ``run_in_executor`` with the context copied, so they land in the run.
"""

from __future__ import annotations

from typing import Any

from citetrace.instrumentation._agents._boundary import Boundary, text_of
from citetrace.instrumentation._agents._deferred import Later, handle_row

__all__ = ["ROWS", "BOUNDARY"]

DIST = "llama-index-workflows"
_QUESTION_KEYS = ("user_msg", "query", "question", "input", "topic", "task")


def _agent(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The agent's ``name``, an ``AgentWorkflow``'s ``root_agent``, else the workflow class name."""
    for attr in ("name", "root_agent"):
        value = getattr(instance, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(instance).__name__ if instance is not None else None


def _message_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)  # a ChatMessage
    return content if isinstance(content, str) else None


def _question(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """``user_msg`` of the start event (agents), else the first question-like keyword (plain workflows)."""
    start = kwargs.get("start_event")
    if start is None and len(args) > 1:
        start = args[1]
    for key in _QUESTION_KEYS:
        value = getattr(start, key, None) if start is not None else None
        if value is None:
            value = kwargs.get(key)
        text = _message_text(value)
        if text:
            return text
    return None


def _answer(handler: Any) -> str | None:
    stop = handler.get_stop_event()
    result = getattr(stop, "result", stop) if type(stop).__name__ == "StopEvent" else stop
    response = getattr(result, "response", None)
    if response is not None and type(result).__name__ == "AgentOutput":
        return _message_text(response)
    return text_of(result)


BOUNDARY = Boundary(agent=_agent, question=_question, answer=_answer, default_agent="llamaindex")
HANDLER = Later(BOUNDARY, done=lambda handler: handler)

ROWS = (handle_row(DIST, "workflows.workflow", "Workflow.run", HANDLER),)
