"""docs/demo.md states the catalogue's hand-computed signals; it must not drift from the data tests import."""

from __future__ import annotations

from pathlib import Path

import pytest

from citetrace.demo import QUESTIONS, Expected, Question

DOC = Path(__file__).resolve().parents[2] / "docs" / "demo.md"

_HEAD = ("| run | searches | reads | repeat_queries | empty_searches | failed_reads | rate_limited | "
         "distinct_urls_seen | citations | uncited_from_retrieval | cited_not_fetched | failure reasons |")


def _row(label: str, e: Expected) -> str:
    values = " | ".join(str(v) for v in e.signals().values())
    return f"| {label} | {values} | {', '.join(e.failure_reasons) or '-'} |"


def _calls(e: Expected) -> str:
    parts = []
    for c in e.calls:
        http = f" {c.http_status}" if c.http_status else ""
        target = f"`{c.target!r}`" if c.kind == "search" else f"`{c.target}`"
        parts.append(f"{c.kind} {c.status}{http} {target}")
    return "; ".join(parts)


def question_section(q: Question) -> str:
    """The block docs/demo.md shows for one question (what this test looks for, verbatim)."""
    lines = [_HEAD, "|" + "---|" * 12, _row("faults on", q.expected), _row("clean", q.expected_clean), "",
             f"- calls, faults on: {_calls(q.expected)}", f"- calls, clean: {_calls(q.expected_clean)}",
             f"- cited, faults on: {', '.join(f'`{s}`' for s in q.expected.cited) or '-'}"]
    return "\n".join(lines)


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: q.id)
def test_doc_states_each_questions_signals(q: Question) -> None:
    """Every question's hand-computed table and call list appear verbatim in docs/demo.md."""
    text = DOC.read_text(encoding="utf-8")
    assert f"### `{q.id}`" in text
    assert question_section(q) in text, f"docs/demo.md is out of date for {q.id}; regenerate its section"
