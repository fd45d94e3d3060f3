"""PydanticAI: ``Agent.iter`` is the run, and its built-in ``web_fetch`` tool is a fetch.

``run`` and ``run_stream`` enter ``iter`` (an async context manager); ``run_sync`` and
``run_stream_events`` go through ``run``: one row covers them all. The run is current from ``__aenter__``
to ``__aexit__`` and its answer is ``AgentRun.result.output`` (a structured output through ``str()``). An
agent called from another agent's tool (agent delegation) runs inside that run and joins it.

The built-in search tools are plain library calls citetrace already wraps: ``tavily_search_tool`` calls
``AsyncTavilyClient.search`` and ``duckduckgo_search_tool`` calls ddgs' ``DDGS.text``. ``web_fetch_tool``
downloads with its own httpx2 client, so ``WebFetchLocalTool.__call__`` is wrapped here: it returns
``{url, title, content}`` (or ``BinaryContent``) and raises ``ModelRetry`` naming the HTTP error (a 429 in
it is ``rate_limited``). Patched on the class, so tools made after instrumenting are covered.

Deferred tools (``requires_approval=True``, or ``CallDeferred``): the run ends with a
``DeferredToolRequests`` output; the application runs the agent again with ``message_history`` and
``deferred_tool_results``. That is one run (``_paused``), keyed on the agent and the smallest pending tool
call id, which the results name again; the ``DeferredToolRequests`` is not an answer.

``run_stream`` left early (the caller leaves ``async with`` before the final answer): ``AgentRun.result`` is
never set, so the answer is the text the yielded ``StreamedRunResult`` has received (offered to the run when
it is made, ``offer_partial``), as a generator cut early records the text seen so far.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._agents._boundary import Boundary, offer_partial, text_of
from citetrace.instrumentation._agents._deferred import context_row
from citetrace.instrumentation._table_types import Patch, Switch, Wrap

__all__ = ["ROWS", "BOUNDARY", "WEB_FETCH"]

DIST = "pydantic-ai-slim"


def _agent(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    name = getattr(instance, "name", None)
    return name if isinstance(name, str) else None


def _question(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """``user_prompt``: a str, or the str parts of a sequence of user content."""
    prompt = args[0] if args else kwargs.get("user_prompt")
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, (list, tuple)):
        return "\n".join(p for p in prompt if isinstance(p, str)) or None
    return None


def _answer(agent_run: Any) -> str | None:
    result = getattr(agent_run, "result", None)
    return None if result is None else text_of(getattr(result, "output", None))


def _fetched_text(result: Any) -> str | None:
    content = result.get("content") if isinstance(result, dict) else None
    return content if isinstance(content, str) else None


def _streamed_text(result: Any) -> str | None:
    """The text parts of the response a ``StreamedRunResult`` has received so far."""
    parts = getattr(getattr(result, "response", None), "parts", None) or ()
    text = "".join(p.content for p in parts if type(p).__name__ == "TextPart" and isinstance(p.content, str))
    return text or None


def _offer_stream(switch: Switch) -> Any:
    """``StreamedRunResult.__init__`` (made by ``run_stream`` inside the run): offer its text so far, which
    the run records if the caller leaves the stream before the final answer."""

    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        result = wrapped(*args, **kwargs)
        if switch.active:
            offer_partial(lambda: _streamed_text(instance))
        return result

    return wrapper


def _deferred_ids(value: Any) -> list[str]:
    """The tool call ids a ``DeferredToolRequests`` (its ``approvals``/``calls``) or a ``DeferredToolResults``
    (its ``approvals``/``calls`` maps) names."""
    ids: list[str] = []
    for field in ("approvals", "calls"):
        entries = getattr(value, field, None) or ()
        ids += [str(e) if isinstance(e, str) else str(getattr(e, "tool_call_id", "")) for e in entries]
    return [i for i in ids if i]


def _waiting(agent: Any, agent_run: Any) -> tuple[Any, str] | None:
    """A run that ended asking for deferred tool results: (the agent, its smallest pending call id)."""
    output = getattr(getattr(agent_run, "result", None), "output", None)
    if type(output).__name__ != "DeferredToolRequests":
        return None
    ids = _deferred_ids(output)
    return (agent, min(ids)) if ids else None


def _continuing(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, str] | None:
    """A call given ``deferred_tool_results``: (this agent, the smallest call id they answer)."""
    ids = _deferred_ids(kwargs.get("deferred_tool_results"))
    return (instance, min(ids)) if ids else None


BOUNDARY = Boundary(agent=_agent, question=_question, answer=_answer, default_agent="pydantic-ai",
                    pauses_on=_waiting, thread=_continuing, resumes=lambda *_: True)
WEB_FETCH = ToolSpec("pydantic_ai.web_fetch", names.TOOL_KIND_FETCH, url_from=_shapes.url_list_from(0, "url"),
                     result_text=_fetched_text, classify=_shapes.probe_classify, is_rate_limit=_shapes.rate_limited)

ROWS = (
    context_row(DIST, "pydantic_ai.agent", "Agent.iter", BOUNDARY),
    Wrap(DIST, "pydantic_ai.result", "StreamedRunResult.__init__", _offer_stream),
    Patch(DIST, "pydantic_ai.common_tools.web_fetch", "WebFetchLocalTool.__call__", WEB_FETCH, is_async=True),
)
