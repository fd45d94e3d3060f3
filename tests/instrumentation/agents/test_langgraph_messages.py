"""LangGraph ``stream_mode="messages"`` (token streaming, what chat UIs use): the answer is the last AI
message, joined from its streamed chunks.

Found by an outside-style check: a graph streamed with ``stream_mode="messages"`` only recorded no answer
(its items are ``(message chunk, metadata)`` pairs, which no reader took), so the run had no citations and
its made-up one went unflagged; docs/frameworks.md said every stream mode was read. In process, the real
``create_agent`` with LangChain's own ``GenericFakeChatModel``, which streams its replies in chunks.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.tools import tool

from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

ANSWER = "Solar grew 24 percent [1](https://a.example/solar) and tidal tripled [2](https://never.example/t)."


class Scripted(GenericFakeChatModel):  # type: ignore[misc]
    """Accepts tools; the script decides the calls. Streams a tool-calling reply as one chunk carrying its
    ``tool_call_chunks`` (LangChain's own fake drops tool calls when streaming), any other reply word by word,
    as a provider's stream does."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        reply = next(self.messages)
        key = f"reply-{id(reply)}"
        if reply.tool_calls:
            calls = [{"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                     for i, c in enumerate(reply.tool_calls)]
            parts = [AIMessageChunk(content=reply.content, id=key, tool_call_chunks=calls)]
        else:
            parts = [AIMessageChunk(content=word, id=key) for word in re.split(r"(\s)", reply.content) if word]
        for part in parts:
            chunk = ChatGenerationChunk(message=part)
            if run_manager is not None:
                run_manager.on_llm_new_token(str(part.content), chunk=chunk)
            yield chunk


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"facts about {topic}"


def _agent() -> Any:
    from langchain.agents import create_agent

    script = [AIMessage(content="Let me look that up.", tool_calls=[{"name": "lookup", "args": {"topic": "solar"},
                                                                      "id": "c1"}]),
              AIMessage(content=ANSWER)]
    return create_agent(Scripted(messages=iter(script)), [lookup], name="chatty")


QUESTION = {"messages": [("user", "How fast is solar growing?")]}


@pytest.mark.parametrize("modes", ["messages", ["messages"], ["updates", "messages"], ["messages", "custom"]])
def test_messages_mode_answer_is_the_last_ai_message(instrumented: CiteTraceInstrumentor, cap: Captured,
                                                     modes: Any) -> None:
    items = list(_agent().stream(QUESTION, stream_mode=modes))
    assert len(items) > 4, "the reply came in chunks"
    (run,) = cap.store.runs()
    assert run.answer == ANSWER


def test_a_token_stream_cut_early_records_the_text_so_far(instrumented: CiteTraceInstrumentor,
                                                          cap: Captured) -> None:
    """Closed after the answer's first three words: the answer seen so far, as for any stream."""
    stream = _agent().stream(QUESTION, stream_mode="messages")
    seen = ""
    for message, _meta in stream:
        if message.type == "AIMessageChunk" and not message.tool_call_chunks:
            seen += str(message.content)
            if len(seen.split()) == 3:
                break
    stream.close()
    (run,) = cap.store.runs()
    assert run.answer == seen == "Solar grew 24"
