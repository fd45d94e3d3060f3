"""The question of a run under a foreign root, read off the root's own attributes (the shapes OpenInference,
OpenLLMetry, Langfuse and the GenAI conventions write), and only with content capture on."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

from citetrace import names, traced_tool
from citetrace.processor._question import MAX_CHARS, foreign_question

from .conftest import Rig

Q = "How fast is solar growing?"

SHAPES: dict[str, dict[str, Any]] = {
    "openinference smolagents task (text)": {names.OI_INPUT_VALUE: Q},
    "openinference langgraph messages": {
        names.OI_INPUT_VALUE: json.dumps({"messages": [{"role": "user", "content": Q}]}),
        names.OI_INPUT_MIME_TYPE: "application/json"},
    "openinference serialized HumanMessage": {
        names.OI_INPUT_VALUE: json.dumps({"messages": [[{"lc": 1, "type": "constructor",
                                                          "id": ["langchain", "schema", "messages", "HumanMessage"],
                                                          "kwargs": {"content": Q, "type": "human"}}]]}),
        names.OI_INPUT_MIME_TYPE: "application/json"},
    "openinference (role, text) pairs": {
        names.OI_INPUT_VALUE: json.dumps({"messages": [["system", "be brief"], ["user", Q]]}),
        names.OI_INPUT_MIME_TYPE: "application/json"},
    "openinference question key": {names.OI_INPUT_VALUE: json.dumps({"question": Q}),
                                   names.OI_INPUT_MIME_TYPE: "application/json"},
    "openllmetry workflow input": {
        names.TRACELOOP_ENTITY_INPUT: json.dumps({"inputs": {"messages": [{"role": "user", "content": Q}]},
                                                  "tags": [], "metadata": {}, "kwargs": {}})},
    "langfuse trace input": {names.LANGFUSE_TRACE_INPUT: json.dumps({"query": Q})},
    "gen_ai input messages": {names.GEN_AI_INPUT_MESSAGES: json.dumps([
        {"role": "system", "parts": [{"type": "text", "content": "be brief"}]},
        {"role": "user", "parts": [{"type": "text", "content": Q}]}])},
    "gen_ai prompt": {names.GEN_AI_PROMPT: Q},
}


@pytest.mark.parametrize("attrs", list(SHAPES.values()), ids=list(SHAPES))
def test_each_shape_gives_the_question(attrs: dict[str, Any]) -> None:
    """Every input shape a foreign root carries gives the user's question."""
    assert foreign_question(attrs) == Q


def test_no_question_where_none_is_carried() -> None:
    """No input attribute, an assistant-only history, or JSON without a question give None (nothing made up)."""
    assert foreign_question({}) is None
    assert foreign_question({names.OI_INPUT_VALUE: json.dumps({"messages": [{"role": "ai", "content": "x"}]}),
                             names.OI_INPUT_MIME_TYPE: "application/json"}) is None
    assert foreign_question({names.OI_INPUT_VALUE: "{not json", names.OI_INPUT_MIME_TYPE: "application/json"}) is None


def test_long_questions_are_cut() -> None:
    """A question is bounded in length."""
    assert len(foreign_question({names.OI_INPUT_VALUE: "q" * (MAX_CHARS * 3)}) or "") == MAX_CHARS


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [{"url": "https://solar.example/a"}]


@pytest.mark.parametrize("capture", [True, False], ids=["content-capture", "default"])
def test_a_foreign_root_run_records_its_question_with_content_capture_only(make_rig: Callable[..., Rig],
                                                                          capture: bool) -> None:
    """The stored run of a foreign root has the question its input.value carried (URLs redacted) when
    content capture is on, and none by default."""
    rig = make_rig(capture_content=capture)
    attrs = {"openinference.span.kind": "AGENT", names.OI_INPUT_VALUE: Q + " See https://x.example/?token=s3cret"}
    with rig.tracer.start_as_current_span("ToolCallingAgent.run", attributes=attrs):
        search("solar")
    rig.flush()
    (run,) = rig.store.runs()
    if capture:
        assert run.question is not None and run.question.startswith(Q) and "s3cret" not in run.question
    else:
        assert run.question is None
