"""The run record serve files beside each summary: the root's own times and the content it carries, redacted;
a rootless run's tool-span extent; content of the wrong type dropped without costing the span."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from prometheus_client import CollectorRegistry

from citetrace import names
from citetrace.serve import decode_body, encode_request
from citetrace.serve._assembler import DECODED_KEYS, SUMMARY_INPUTS, Assembler
from citetrace.serve._decode import WireSpan
from citetrace.summary import SpanRecord, SummaryMetrics, Thresholds

from ._spans import failing_run, healthy_run

SECRET = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def wire(spans: Sequence[SpanRecord]) -> list[WireSpan]:
    """The spans as serve's receiver decodes them (the keys it decodes)."""
    body = encode_request(spans, service_name="svc").SerializeToString()
    return decode_body(body, "application/x-protobuf", DECODED_KEYS).spans


def assembler(clock: Clock) -> Assembler:
    return Assembler(metrics=SummaryMetrics(CollectorRegistry()), thresholds=Thresholds(), clock=clock,
                     grace_seconds=1.0, ttl_seconds=30.0)


def with_root_attrs(spans: list[SpanRecord], **attrs: Any) -> list[SpanRecord]:
    *tools, root = spans
    return [*tools, replace(root, attributes={**root.attributes, **attrs})]


def test_a_rooted_runs_record_is_the_roots_times_question_answer_and_error() -> None:
    """Times are the root's (ns to s), the question and answer the root carries, redacted, and its error.type."""
    clock = Clock()
    asm = assembler(clock)
    spans = with_root_attrs(failing_run(0x51), **{
        names.RUN_QUESTION: f"Why did key {SECRET} leak?", names.ANSWER_TEXT: "Because [1].",
        names.ERROR_TYPE: "TimeoutError"})
    asm.add(wire(spans))
    clock.now += 1.5
    [(summary, run)] = asm.finalize_due()
    root = spans[-1]
    assert (run.run_id, run.trace_id, run.agent) == (summary.run_id, summary.trace_id, summary.agent)
    assert (run.started_at, run.ended_at) == (root.start_ns / 1e9, root.end_ns / 1e9)
    assert run.question is not None and run.question.startswith("Why did key ") and SECRET not in run.question
    assert (run.answer, run.error_type) == ("Because [1].", "TimeoutError")


def test_a_root_without_content_files_no_question() -> None:
    """Content capture off in the agent: the root carries no question or answer, and the record has none."""
    clock = Clock()
    asm = assembler(clock)
    asm.add(wire(healthy_run(0x52)))
    clock.now += 1.5
    [(_, run)] = asm.finalize_due()
    assert (run.question, run.answer, run.error_type) == (None, None, None)
    assert run.ended_at is not None and run.ended_at > run.started_at


def test_a_rootless_run_is_filed_over_its_tool_spans() -> None:
    """A run whose root never came is filed from the first tool span's start to the last one's end, not the TTL."""
    clock = Clock()
    asm = assembler(clock)
    tools = failing_run(0x53)[:-1]
    asm.add(wire(tools))
    clock.now += 31
    [(summary, run)] = asm.finalize_due()
    assert summary.run_id == "run-1" and run.question is None
    assert run.started_at == min(s.start_ns for s in tools) / 1e9
    assert run.ended_at == max(s.end_ns for s in tools) / 1e9


def test_content_of_another_type_is_dropped_and_the_root_still_counts() -> None:
    """A question that is not a string is never stored and never refuses the root (it is no summary input)."""
    clock = Clock()
    asm = assembler(clock)
    added = asm.add(wire(with_root_attrs(healthy_run(0x54), **{names.RUN_QUESTION: 42,
                                                                 names.ANSWER_TEXT: ("a", "b")})))
    assert added.refused == 0
    clock.now += 1.5
    [(summary, run)] = asm.finalize_due()
    assert summary.citations == 1 and (run.question, run.answer) == (None, None)


def test_the_question_is_decoded_and_its_bytes_are_held_against_the_bound() -> None:
    """Only the receiver's DECODED_KEYS carry the question (SUMMARY_INPUTS, the Go connector's, do not), and a
    root's held bytes grow with its question and answer."""
    long_question = "q" * 50_000
    spans = with_root_attrs(healthy_run(0x55), **{names.RUN_QUESTION: long_question})
    body = encode_request(spans, service_name="svc").SerializeToString()
    assert names.RUN_QUESTION not in decode_body(body, "application/x-protobuf", SUMMARY_INPUTS).spans[-1].attributes
    held = []
    for question_spans in (healthy_run(0x55), spans):
        asm = assembler(Clock())
        asm.add(wire(question_spans))
        held.append(asm.held_bytes)
    assert held[1] - held[0] >= len(long_question)
