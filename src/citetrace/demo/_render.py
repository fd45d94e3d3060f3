"""Terminal output of ``citetrace demo``: each run's calls with their statuses, what was stored, the summary.

Statuses, HTTP codes and timings come from what citetrace recorded (the run's tool-call records and the
store), not from the agent's own bookkeeping, so the output shows what a user of the library would see.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.demo._agent import RunResult
from citetrace.demo._faults import FAULT_HELP
from citetrace.demo._catalogue import QUESTIONS
from citetrace.store import Store

__all__ = ["format_result", "format_catalogue", "compare_expected", "SUMMARY_COLUMNS"]

SUMMARY_COLUMNS = (
    ("searches", "search"),
    ("reads", "read"),
    ("repeat_queries", "repeat"),
    ("empty_searches", "empty"),
    ("failed_reads", "failed"),
    ("rate_limited", "429"),
    ("distinct_urls_seen", "urls"),
    ("citations", "cited"),
    ("uncited_from_retrieval", "uncited"),
    ("cited_not_fetched", "unfetched"),
)
"""Summary fields shown in the per-run table, with their column headings."""

_MARK = {names.STATUS_OK: "ok", names.STATUS_EMPTY: "EMPTY", names.STATUS_ERROR: "ERROR",
         names.STATUS_RATE_LIMITED: "RATE-LIMITED"}


def _short_target(result: RunResult, kind: str, target: str) -> str:
    if kind == names.TOOL_KIND_SEARCH:
        return repr(target)
    marker = "/pages/"
    return target[target.index(marker):] if marker in target else target


def compare_expected(result: RunResult, summary: dict[str, Any] | None) -> list[str]:
    """Differences between a run's summary and its hand-computed expectation (empty when they agree)."""
    expected = result.expected
    if expected is None:
        return []
    if summary is None:
        return ["no summary was recorded (is the summary processor configured?)"]
    diffs = [f"{k}: got {summary.get(k)!r}, expected {v!r}" for k, v in expected.signals().items()
             if summary.get(k) != v]
    got_reasons = tuple(summary.get("failure_reasons") or ())
    if got_reasons != expected.failure_reasons:
        diffs.append(f"failure_reasons: got {list(got_reasons)}, expected {list(expected.failure_reasons)}")
    return diffs


def _summary_table(summary: dict[str, Any]) -> list[str]:
    heads = [h for _, h in SUMMARY_COLUMNS] + ["slowest", "total"]
    cells = [str(summary.get(k, "-")) for k, _ in SUMMARY_COLUMNS]
    cells += [f"{float(summary.get('slowest_ms', 0)):.0f}ms", f"{float(summary.get('total_ms', 0)):.0f}ms"]
    widths = [max(len(h), len(c)) for h, c in zip(heads, cells)]
    reasons = summary.get("failure_reasons") or []
    return [
        "  summary  " + " | ".join(h.rjust(w) for h, w in zip(heads, widths)),
        "           " + " | ".join(c.rjust(w) for c, w in zip(cells, widths)),
        "  outcome  " + (("FAILED: " + ", ".join(reasons)) if reasons else "ok")
        + ("   (full trace kept)" if summary.get("keep") else ""),
    ]


def format_result(result: RunResult, store: Store | None = None, *, index: int = 0, total: int = 0) -> str:
    """One run: header, its tool calls, the documents stored, the report's citations, the summary table."""
    q = result.question
    count = f"[{index}/{total}] " if total else ""
    faults = ", ".join(f for f in q.faults if f in result.faults) or "none"
    lines = [
        f"{count}{q.id}: {q.question}",
        f"  run {result.run_id}  trace {result.trace_id}  faults shown: {faults}  ({result.duration_s:.2f}s)",
    ]
    for i, call in enumerate(result.calls, 1):
        rec = call.record
        target = _short_target(result, call.kind, call.target)
        if rec is None:
            lines.append(f"  {i:>2}. {call.kind:<6} (not traced)  {target}")
            continue
        status = _MARK.get(rec.status, rec.status)
        http = str(rec.http_status) if rec.http_status else "-"
        if call.kind == names.TOOL_KIND_SEARCH:
            detail = f"{rec.result_count if rec.result_count is not None else 0} results"
        else:
            detail = f"{rec.result_size or 0} chars"
        if rec.error_type:
            detail += f", {rec.error_type}"
        lines.append(f"  {i:>2}. {call.kind:<6} {rec.tool:<10} {status:<12} {http:>3} {rec.duration_ms:7.1f}ms"
                     f"  {target}  ({detail})")
    if store is not None:
        try:
            docs = store.documents(result.run_id)
        except Exception as exc:  # noqa: BLE001 - the demo keeps going if the store cannot be read
            lines.append(f"  stored: (store unreadable: {type(exc).__name__})")
        else:
            lines.append(f"  stored {len(docs)} document(s) in {store.uri}:")
            for d in docs:
                lines.append(f"      {d.status:<6} {d.size:>5} chars  sha256:{d.sha256[:12]}  "
                             f"{_short_target(result, 'fetch', d.url)}")
    cited = ", ".join(_short_target(result, "fetch", u) for u in result.cited_urls) or "nothing"
    lines.append(f"  report cites {len(result.cited_urls)}: {cited}")
    summary = result.summary or result.span_summary
    if summary:
        lines += _summary_table(summary)
    if result.expected is not None:
        diffs = compare_expected(result, summary)
        lines.append("  expected " + ("matches the hand-computed signals" if not diffs
                                      else "MISMATCH: " + "; ".join(diffs)))
    return "\n".join(lines)


def format_catalogue() -> str:
    """``citetrace demo --list``: the questions and the faults."""
    lines = ["questions (* = in the default set):"]
    for q in QUESTIONS:
        shows = ", ".join(q.faults) or "clean run"
        lines.append(f"  {'*' if q.default else ' '} {q.id:<10} {q.question}  [{shows}]")
    lines.append("")
    lines.append("faults (--faults a,b / all / none):")
    for name, help_text in FAULT_HELP.items():
        lines.append(f"    {name:<19} {help_text}")
    return "\n".join(lines)
