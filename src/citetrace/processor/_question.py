"""The question of a run under a root another instrumentation made, read off that root's own attributes.

Only with citetrace's content capture on (a question is content), and only where the root carries one:

- OpenInference ``input.value``: plain text (smolagents' task), or JSON (``input.mime_type``
  ``application/json``) holding LangChain/LangGraph inputs: the first human/user message of ``messages``
  (dicts, ``[role, text]`` pairs, or LangChain's serialized ``HumanMessage``), else a ``question``, ``query``,
  ``task``, ``topic`` or ``input`` key;
- OpenTelemetry GenAI ``gen_ai.input.messages`` (JSON list of ``{role, parts}``), else ``gen_ai.prompt``;
- OpenLLMetry ``traceloop.entity.input`` and Langfuse ``langfuse.trace.input`` /
  ``langfuse.observation.input``, read like ``input.value``.

Nothing found means no question, as before. The text is cut to ``MAX_CHARS``.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from citetrace import names

__all__ = ["foreign_question", "MAX_CHARS"]

MAX_CHARS = 4000
_TEXT_KEYS = ("question", "query", "task", "topic", "input", "prompt")
_USER = ("user", "human", "HumanMessage")
_DEPTH = 4


def foreign_question(attrs: Mapping[str, Any]) -> str | None:
    """The question in a foreign root's attributes, or None."""
    for key in (names.OI_INPUT_VALUE, names.TRACELOOP_ENTITY_INPUT, names.LANGFUSE_TRACE_INPUT,
                names.LANGFUSE_OBSERVATION_INPUT):
        found = _from_value(attrs.get(key), json_hint=attrs.get(names.OI_INPUT_MIME_TYPE) == "application/json"
                            or key != names.OI_INPUT_VALUE)
        if found:
            return found[:MAX_CHARS]
    messages = _json(attrs.get(names.GEN_AI_INPUT_MESSAGES))
    found = _first_user(messages, _DEPTH) if isinstance(messages, list) else None
    if not found and isinstance(attrs.get(names.GEN_AI_PROMPT), str):
        found = str(attrs[names.GEN_AI_PROMPT]).strip() or None
    return found[:MAX_CHARS] if found else None


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def _from_value(value: Any, json_hint: bool) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    parsed = _json(value) if json_hint or value.lstrip()[:1] in ("{", "[") else None
    if parsed is None:
        return None if json_hint and value.lstrip()[:1] in ("{", "[") else value.strip()
    return _in(parsed, _DEPTH)


def _in(data: Any, depth: int) -> str | None:
    """The question inside a parsed input: a str, a first user message, or a text key (a few levels down)."""
    if depth <= 0:
        return None
    if isinstance(data, str):
        return data.strip() or None
    if isinstance(data, list):
        return _first_user(data, depth)
    if not isinstance(data, Mapping):
        return None
    if "messages" in data:
        found = _in(data["messages"], depth - 1)
        if found:
            return found
    for key in _TEXT_KEYS:
        if isinstance(data.get(key), str) and data[key].strip():
            return str(data[key]).strip()
    for key in ("inputs", "kwargs", "args"):  # OpenLLMetry's {"inputs": ...}, LangChain's serialized kwargs
        if key in data:
            found = _in(data[key], depth - 1)
            if found:
                return found
    return None


def _first_user(messages: list[Any], depth: int) -> str | None:
    for message in messages:
        if isinstance(message, list) and len(message) == 2 and message[0] in _USER and isinstance(message[1], str):
            return message[1].strip() or None
        if isinstance(message, list):  # LangGraph batches: [[message, ...]]
            found = _first_user(message, depth - 1) if depth > 1 else None
            if found:
                return found
            continue
        if not isinstance(message, Mapping):
            continue
        kwargs = message.get("kwargs")
        body: Mapping[str, Any] = kwargs if isinstance(kwargs, Mapping) else message
        ident = message.get("id")
        role = body.get("role") or body.get("type") or (ident[-1] if isinstance(ident, list) and ident else None)
        if role in _USER:
            return _content(body)
    return None


def _content(message: Mapping[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        return content.strip() or None
    parts = message.get("parts") if content is None else content
    if isinstance(parts, list):  # GenAI parts / content blocks: the text ones
        text = "".join(str(p.get("content") or p.get("text") or "") for p in parts
                       if isinstance(p, Mapping) and p.get("type") == "text")
        return text.strip() or None
    return None
