"""LangGraph: a compiled graph's ``Pregel.stream``/``astream`` is the run.

``invoke``/``ainvoke``/``stream_events`` go through them, and so do ``langchain.agents.create_agent`` and
``langgraph.prebuilt.create_react_agent`` graphs (and gpt-researcher's ``multi_agents`` flow). A graph run
from inside another graph's node joins the outer run. The answer: a report under a state key
(``REPORT_KEYS``, read first, in any stream mode), else the text of the last AI message without tool calls.

A graph with a checkpointer that stops at ``interrupt()`` and is resumed with ``Command(resume=...)`` (or
``None``) on the same ``thread_id`` is one run over both calls (``_paused``): the pause is seen as an
``__interrupt__`` item, which every stream mode but ``messages``/``custom`` alone yields, and ``invoke`` too.
"""

from __future__ import annotations

from typing import Any, Mapping

from citetrace.instrumentation._agents._boundary import Boundary, Piece, agent_row

__all__ = ["ROWS", "BOUNDARY", "REPORT_KEYS", "answer_in"]

DIST = "langgraph"
REPORT_KEYS = ("final_report", "report", "final_answer", "article", "answer", "output")
"""State keys holding a finished report, in order of preference (outrank the last AI message)."""
_QUESTION_KEYS = ("question", "query", "task", "topic", "input")
_DEPTH = 3


def _message_text(message: Any) -> str | None:
    role = _message_text_role(message)
    if isinstance(message, Mapping):
        content, calls = message.get("content"), message.get("tool_calls")
    else:
        content, calls = getattr(message, "content", None), getattr(message, "tool_calls", None)
    if role not in ("ai", "assistant") or calls:
        return None
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):  # content blocks: keep the text ones
        parts = [b if isinstance(b, str) else b.get("text", "") for b in content
                 if isinstance(b, str) or (isinstance(b, Mapping) and b.get("type") == "text")]
        return "".join(parts) or None
    return None


def answer_in(item: Any, depth: int = _DEPTH) -> tuple[int, str] | None:
    """(2, report) for a report key, (1, text) for the last AI message, in a state, an ``updates`` chunk
    (``{node: update}``), a v2 stream part, or a ``(namespace, mode, chunk)`` tuple."""
    if depth <= 0:
        return None
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Mapping) and "langgraph_node" in item[1]:
        return _streamed(item[0])
    if isinstance(item, tuple) and item:
        return answer_in(item[-1], depth)
    value = getattr(item, "value", None)
    if type(item).__name__ == "GraphOutput":
        return answer_in(value, depth)
    if not isinstance(item, Mapping):
        return None
    if "type" in item and "data" in item and isinstance(item.get("type"), str):
        return answer_in(item["data"], depth)
    for key in REPORT_KEYS:
        report = item.get(key)
        if isinstance(report, str) and report.strip():
            return 2, report
    messages = item.get("messages")
    if isinstance(messages, (list, tuple)):
        for message in reversed(messages):
            text = _message_text(message)
            if text is not None:
                return 1, text
            if _message_text_role(message) in ("human", "user", "tool"):
                return None  # the newest message is not a final AI answer: no answer in this chunk
    best: tuple[int, str] | None = None
    for sub in item.values():  # ``updates`` mode: {node: update}
        if isinstance(sub, Mapping):
            found = answer_in(sub, depth - 1)
            if found is not None and (best is None or found[0] >= best[0]):
                best = found
    return best


def _streamed(message: Any) -> tuple[int, str] | None:
    """A ``messages``-mode item's message (``(message, metadata)``): an AI message or chunk without tool calls
    is (a piece of) the answer, joined with the other pieces of the same message id."""
    if getattr(message, "tool_call_chunks", None) or getattr(message, "tool_calls", None):
        return None
    if getattr(message, "type", None) not in ("ai", "AIMessageChunk"):
        return None
    content = getattr(message, "content", None)
    if isinstance(content, list):  # content blocks: keep the text ones
        content = "".join(b if isinstance(b, str) else b.get("text", "") for b in content
                          if isinstance(b, str) or (isinstance(b, Mapping) and b.get("type") == "text"))
    if not isinstance(content, str) or not content:
        return None
    key = getattr(message, "id", None)
    return 1, Piece(content, key) if isinstance(key, str) and key else content


def _message_text_role(message: Any) -> Any:
    if isinstance(message, Mapping):
        return message.get("role") or message.get("type")
    return getattr(message, "type", None)


def _question(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    data = args[0] if args else kwargs.get("input")
    if isinstance(data, str):
        return data
    if not isinstance(data, Mapping):
        return None
    messages = data.get("messages")
    if isinstance(messages, (list, tuple)):
        for message in messages:
            if isinstance(message, tuple) and len(message) == 2 and message[0] in ("user", "human"):
                return message[1] if isinstance(message[1], str) else None
            if _message_text_role(message) in ("human", "user"):
                content = message.get("content") if isinstance(message, Mapping) else getattr(message, "content", None)
                return content if isinstance(content, str) else None
    elif isinstance(messages, str):
        return messages
    for key in _QUESTION_KEYS:
        if isinstance(data.get(key), str):
            return str(data[key])
    return None


def _thread(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, str] | None:
    """(checkpointer, thread id) when the graph can be resumed: a checkpointer and a ``thread_id``."""
    saver = getattr(instance, "checkpointer", None)
    if saver is None or isinstance(saver, bool):
        return None
    config = args[1] if len(args) > 1 else kwargs.get("config")
    configurable = config.get("configurable") if isinstance(config, Mapping) else None
    thread_id = configurable.get("thread_id") if isinstance(configurable, Mapping) else None
    return None if thread_id is None else (saver, str(thread_id))


def _paused(item: Any, depth: int = _DEPTH) -> bool:
    """An ``__interrupt__`` chunk (values, updates, a ``(mode, chunk)`` tuple, a v2 part) with interrupts."""
    if depth <= 0:
        return False
    if isinstance(item, tuple) and item:
        return _paused(item[-1], depth - 1)
    if not isinstance(item, Mapping):
        return False
    if item.get("__interrupt__"):
        return True
    return isinstance(item.get("type"), str) and _paused(item.get("data"), depth - 1)


def _resumes(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """``Command(...)`` or ``None`` as the input continues the thread; any other input starts afresh."""
    data = args[0] if args else kwargs.get("input")
    return data is None or type(data).__name__ == "Command"


def _agent(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    name = getattr(instance, "name", None)
    return name if isinstance(name, str) else None


BOUNDARY = Boundary(agent=_agent, question=_question, item_answer=answer_in, default_agent="LangGraph",
                    thread=_thread, paused=_paused, resumes=_resumes)

ROWS = (
    agent_row(DIST, "langgraph.pregel.main", "Pregel.stream", BOUNDARY),
    agent_row(DIST, "langgraph.pregel.main", "Pregel.astream", BOUNDARY),
)
