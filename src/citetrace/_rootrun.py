"""The run record a summary writer files beside a summary: the run as its root span saw it.

A summary writer (``citetrace serve``, the in-process processor) may be the first to tell a store about a run:
``serve`` over a fleet store the agents never write, or an agent whose own run-row write failed. The store then
files this record, never a bare one stamped with the write time (which is the grace period and batching after
the run, and would say the run took no time). The record carries the root's own start and end, and what the
root carries: the question (``citetrace.run.question``, on the root only when the agent's content capture is
on), the answer (``citetrace.answer.text``, likewise) and ``error.type``. Text is redacted as the embedded
path redacts it (``redact_report``), whoever sent it. A run the store already has keeps its row
(``Store.put_summary`` files this one only when there is none), so the agent's own record always wins.

Kept out of ``TraceSummary`` on purpose: the summary's fields are shared with the Go connector through the
test vectors, and the times are the root's, not the summary's.
"""

from __future__ import annotations

import time
from typing import Any, Mapping

from citetrace import names
from citetrace._redact import redact_report
from citetrace.store import RunRecord
from citetrace.summary import TraceSummary

__all__ = ["root_run"]


def _text(attrs: Mapping[str, Any], key: str) -> str | None:
    value = attrs.get(key)
    return value if isinstance(value, str) and value.strip() else None


def root_run(summary: TraceSummary, start_ns: int, end_ns: int, attrs: Mapping[str, Any], *,
             question: str | None = None) -> RunRecord:
    """The run record of ``summary``'s run from its root: the root's times (seconds since the epoch; an end of
    0, a root still open, is no end), and the question, answer and error the root carries. ``question``: one
    found elsewhere on the root (a foreign root's input, read by the caller when content capture is on)."""
    asked = question or _text(attrs, names.RUN_QUESTION)
    answer = _text(attrs, names.ANSWER_TEXT)
    return RunRecord(
        summary.run_id or summary.trace_id, summary.trace_id, summary.agent or "unknown",
        redact_report(asked) if asked else None,
        (start_ns or time.time_ns()) / 1e9,
        ended_at=end_ns / 1e9 if end_ns else None,
        answer=redact_report(answer) if answer else None,
        error_type=_text(attrs, names.ERROR_TYPE),
    )
