"""Provider responses in their documented wire shapes (see shared/reference/provider-web-search.md), as JSON
and as server-sent event streams, for the real SDK clients to parse from a local server."""

from __future__ import annotations

import json
from typing import Any

SOURCE_A = "https://opentelemetry.io/docs/specs/semconv/gen-ai/"
SOURCE_B = "https://opentelemetry.io/docs/concepts/"
MADE_UP = "https://never-returned.example/claim"


def sse(events: list[tuple[str, dict[str, Any]]]) -> str:
    """A text/event-stream body."""
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


# -- OpenAI Responses ------------------------------------------------------------------------------------
def openai_response(*, sources: list[str] | None = (SOURCE_A, SOURCE_B), cited: tuple[str, ...] = (SOURCE_A,),  # type: ignore[assignment]
                    status: str = "completed", open_page: str | None = None, query: str = "otel genai semconv") -> dict[str, Any]:
    action: dict[str, Any] = {"type": "search", "query": query}
    if sources is not None:
        action["sources"] = [{"type": "url", "url": u} for u in sources]
    output: list[dict[str, Any]] = [{"type": "web_search_call", "id": "ws_1", "status": status, "action": action}]
    if open_page:
        output.append({"type": "web_search_call", "id": "ws_2", "status": "completed",
                       "action": {"type": "open_page", "url": open_page}})
    text = "GenAI conventions are in development."
    output.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
        {"type": "output_text", "text": text, "annotations": [
            {"type": "url_citation", "url": u, "title": "t", "start_index": 0, "end_index": len(text)} for u in cited]}]})
    return {"id": "resp_1", "object": "response", "created_at": 1700000000, "status": "completed", "model": "gpt-5",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [{"type": "web_search"}]}


def openai_stream(response: dict[str, Any]) -> str:
    """The events of a streamed response: created, each output item added and done, completed (which
    carries the whole response)."""
    created = dict(response, status="in_progress", output=[])
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"type": "response.created", "sequence_number": 0, "response": created})]
    for i, item in enumerate(response["output"]):
        for kind in ("added", "done"):
            events.append((f"response.output_item.{kind}", {"type": f"response.output_item.{kind}",
                                                            "sequence_number": len(events), "output_index": i,
                                                            "item": item}))
    events.append(("response.completed", {"type": "response.completed", "sequence_number": len(events),
                                          "response": response}))
    return sse(events)


# -- Anthropic Messages -----------------------------------------------------------------------------------
def anthropic_blocks(*, results: list[str] | None = (SOURCE_A, SOURCE_B), error: str | None = None,  # type: ignore[assignment]
                     fetch: tuple[str, str] | None = None, fetch_error: str | None = None,
                     cited: tuple[str, ...] = (SOURCE_A,), query: str = "otel genai semconv") -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                                     "input": {"query": query}}]
    if error:
        content: Any = {"type": "web_search_tool_result_error", "error_code": error}
    else:
        content = [{"type": "web_search_result", "url": u, "title": "t", "encrypted_content": "Eqg", "page_age": None}
                   for u in results or ()]
    blocks.append({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": content})
    if fetch or fetch_error:
        url = fetch[0] if fetch else SOURCE_B
        blocks.append({"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_fetch", "input": {"url": url}})
        fcontent: Any = ({"type": "web_fetch_tool_result_error", "error_code": fetch_error} if fetch_error else
                         {"type": "web_fetch_result", "url": url, "retrieved_at": "2026-11-30T10:00:00Z",
                          "content": {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                                     "data": fetch[1] if fetch else ""}}})
        blocks.append({"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2", "content": fcontent})
    blocks.append({"type": "text", "text": "Still in development.", "citations": [
        {"type": "web_search_result_location", "url": u, "title": "t", "cited_text": "Status", "encrypted_index": "Eo8"}
        for u in cited]})
    return blocks


def anthropic_message(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-scripted", "stop_reason": "end_turn",
            "stop_sequence": None, "content": blocks,
            "usage": {"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": 1}}}


def anthropic_stream(blocks: list[dict[str, Any]]) -> str:
    """The raw events of a streamed message: tool inputs as input_json_delta, results whole, text and
    citations as deltas."""
    start = anthropic_message([])
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for i, block in enumerate(blocks):
        if block["type"] == "server_tool_use":
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": dict(block, input={})}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
        elif block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": "", "citations": None}}))
            for citation in block["citations"]:
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "citations_delta", "citation": citation}}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                "type": "text_delta", "text": block["text"]}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": block}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                     "usage": {"output_tokens": 5}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return sse(events)
