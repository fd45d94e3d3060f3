"""`citetrace runs` and `citetrace show RUN_ID`: read a run back from the store, readable in a terminal."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from typing import Any

from citetrace._redact import redact_report, redact_text, redact_url
from citetrace.cli import CommandError, open_store_for_reading, positive_int
from citetrace.store import RunRecord, Store, ToolCallRecord

__all__ = ["register", "format_runs", "format_run"]

_STATUS_MARK = {"ok": "ok", "empty": "EMPTY", "error": "ERROR", "rate_limited": "RATE-LIMITED"}


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) if ts else "-"


def _summary_figures(run: RunRecord) -> tuple[str, str, str, str, str]:
    s = run.summary or {}
    if not s:
        return "-", "-", "-", "-", ("error: " + run.error_type) if run.error_type else ("running" if not run.ended_at else "-")
    reasons = s.get("failure_reasons") or []
    outcome = "FAILED " + ",".join(reasons) if reasons else "ok"
    return (str(s.get("searches", "-")), str(s.get("reads", "-")), str(s.get("citations", "-")),
            f"{float(s.get('total_ms', 0)) / 1000:.2f}s", outcome)


def format_runs(runs: list[RunRecord]) -> str:
    """The `citetrace runs` table, newest first."""
    if not runs:
        return "no runs in this store yet (run `citetrace demo`, or an agent with citetrace configured)"
    header = ("RUN", "STARTED", "AGENT", "SEARCHES", "READS", "CITED", "TIME", "OUTCOME")
    rows = [header]
    for run in runs:
        rows.append((run.run_id, _when(run.started_at), run.agent, *_summary_figures(run)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1] for row in rows
    )


def _bar(offset_ms: float, duration_ms: float, total_ms: float, width: int = 24) -> str:
    if total_ms <= 0:
        return ""
    start = min(width - 1, int(offset_ms / total_ms * width))
    length = max(1, round(duration_ms / total_ms * width))
    return ("." * start + "#" * length).ljust(width, ".")[:width]


def _detail(call: ToolCallRecord) -> str:
    if call.kind == "fetch":
        size = f"{call.result_size} chars" if call.result_size is not None else ""
        moved = f" -> {redact_url(call.url_final)}" if call.url_final else ""  # a redirected read
        return f"{redact_url(call.url) if call.url else '?'}{moved}  {size}".strip()
    query = (redact_text(call.query_text) if call.query_text else None) or (f"query#{call.query_hash}" if call.query_hash else "")
    n = call.result_count
    count = "" if n is None else f"{n} result" + ("" if n == 1 else "s")
    return f"{query}  {count}".strip()


def format_run(run: RunRecord, calls: list[ToolCallRecord], store: Store) -> str:
    """The `citetrace show` view: header, a timeline of tool calls, stored documents, answer, summary."""
    lines = [
        f"run      {run.run_id}",
        f"agent    {run.agent}",
        f"question {redact_report(run.question) if run.question else '-'}",
        f"trace    {run.trace_id}",
        f"started  {_when(run.started_at)}"
        + (f"   took {run.ended_at - run.started_at:.2f}s" if run.ended_at else "   (not finished)"),
    ]
    if run.error_type:
        lines.append(f"error    {run.error_type}")
    lines.append("")
    lines.append(f"tool calls ({len(calls)})")
    end = max([c.started_at * 1000 + c.duration_ms for c in calls] + [(run.ended_at or run.started_at) * 1000])
    total = end - run.started_at * 1000
    tool_width = max([16] + [len(c.tool) for c in calls])  # smolagents.visit_webpage would push its status out
    for c in calls:
        offset = c.started_at * 1000 - run.started_at * 1000
        status = _STATUS_MARK.get(c.status, c.status)
        http = f" {c.http_status}" if c.http_status else ""
        err = f" {c.error_type}" if c.error_type else ""
        lines.append(
            f"  {c.seq:>3} +{offset:8.1f}ms |{_bar(offset, c.duration_ms, total)}| {c.duration_ms:7.1f}ms "
            f"{c.kind:<6} {c.tool:<{tool_width}} {status + http + err:<22} {_detail(c)}"
        )
    docs = store.documents(run.run_id)
    lines.append("")
    lines.append(f"stored documents ({len(docs)})")
    for d in docs:
        http = f" {d.http_status}" if d.http_status else ""
        lines.append(f"  {d.status + http:<16} {d.size:>7} chars  sha256:{d.sha256[:12]}  {redact_url(d.url)}")
    lines.append("")
    lines.append("answer")
    lines.append("  " + (redact_report(run.answer) if run.answer else "(no answer recorded)").replace("\n", "\n  "))
    cites = store.model_citations(run.run_id)
    if cites:
        lines.append("")
        lines.append(f"model citations ({len(cites)}: the provider's, outside the answer's text)")
        for mc in cites:
            cited = " ".join(redact_report(mc.text).split())
            shown = cited if len(cited) <= 60 else cited[:59] + "…"
            lines.append(f"  {mc.kind or '-':<26} {redact_url(mc.url)}  \"{shown}\"")
    if run.summary:
        lines.append("")
        lines.append("summary")
        for key, value in run.summary.items():
            lines.append(f"  {key:<24} {value}")
    return "\n".join(lines)


def _cmd_runs(args: argparse.Namespace) -> int:
    store = open_store_for_reading(args.store)
    runs = store.runs(limit=args.limit)
    if args.json:
        print(json.dumps([asdict(r) for r in runs], indent=2, default=str))
    else:
        print(format_runs(runs))
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    store = open_store_for_reading(args.store)
    run = store.get_run(args.run_id)
    if run is None:
        raise CommandError(f"no run {args.run_id!r} in {store.uri} (see `citetrace runs`)")
    calls = store.calls(run.run_id)
    if args.json:
        data: dict[str, Any] = asdict(run)
        data["answer"] = redact_report(run.answer) if run.answer else run.answer  # stores written before 0 leaks
        data["question"] = redact_report(run.question) if run.question else run.question
        data["calls"] = [asdict(c) for c in calls]
        data["documents"] = [
            {k: v for k, v in asdict(d).items() if k != "text"} for d in store.documents(run.run_id)
        ]
        data["model_citations"] = [
            dict(asdict(c), url=redact_url(c.url), text=redact_report(c.text)) for c in store.model_citations(run.run_id)
        ]
        print(json.dumps(data, indent=2, default=str))
    else:
        print(format_run(run, calls, store))
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add `runs` and `show`."""
    store_help = "run store URI (default: $CITETRACE_STORE or sqlite:///.citetrace/store.db)"
    p = sub.add_parser("runs", help="list runs, newest first, with their key figures")
    p.add_argument("--store", default=None, help=store_help)
    p.add_argument("--limit", type=positive_int, default=20, help="how many runs, at least 1 (default 20)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_runs)
    p = sub.add_parser("show", help="show one run: tool calls in order, stored documents, the answer")
    p.add_argument("run_id", metavar="RUN_ID", help="run id, unique prefix, or trace id")
    p.add_argument("--store", default=None, help=store_help)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_show)
