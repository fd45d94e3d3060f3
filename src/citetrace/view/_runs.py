"""From a store and a run id to a page, and from a store and filters to the run list's rows.

Shared by ``citetrace view`` (writes a file) and ``citetrace ui`` (serves the same pages), so the two can
never show a run differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urlencode

from citetrace._redact import redact_report
from citetrace.store import AmbiguousRunId, RunRecord, Store
from citetrace.view._model import build_run_view, failure_reasons, run_outcome
from citetrace.view._page import render_run_page

__all__ = ["ViewError", "BadQuery", "ListPage", "find_run", "list_rows", "list_page", "page_for_run",
           "offline_evaluation", "FILTERS", "LIST_LIMIT", "LIST_PAGE"]

FILTERS = ("q", "outcome", "agent", "reason")
"""The run list's filter parameters."""
LIST_LIMIT = 5000
"""Most runs the browser reads for its list (newest first); older ones are reached by id."""
LIST_PAGE = 200
"""Rows on one page of the run list (5,000 rows were 1.9 MB of HTML and seconds of layout in Chromium)."""


class ViewError(ValueError):
    """A run that cannot be shown; the message names the run and the problem."""


class BadQuery(ValueError):
    """A query parameter the run list cannot use (a 400); the message names it."""


@dataclass(frozen=True)
class ListPage:
    """One page of the run list: its rows, the filter menus, and where the neighbouring pages are."""

    rows: list[dict[str, Any]]
    choices: dict[str, list[str]]
    read: int
    """Runs read from the store (at most ``LIST_LIMIT``, newest first)."""
    matched: int
    first: int
    """1-based position of the page's first row among the matching runs (0 when none match)."""
    newer: str | None
    older: str | None
    note: str | None = None
    """Why a search found nothing, when the store can say (an id prefix that matches several older runs)."""


def find_run(store: Store, ref: str) -> RunRecord:
    """A run by id, unique id prefix or trace id; ``ViewError`` naming ``ref`` otherwise."""
    if not ref.strip() or any(ord(c) < 32 or ord(c) == 127 for c in ref):
        # no run id holds a control character, and PostgreSQL refuses NUL in a query: not found, not a store error
        raise _no_run(store, ref)
    try:
        run = store.get_run(ref)
        if run is None and ref != ref.lower():  # a trace id pasted in capitals (PostgreSQL's LIKE is case-sensitive)
            run = store.get_run(ref.lower())
    except AmbiguousRunId as exc:
        raise ViewError(f"run id prefix {redact_report(ref)!r} matches {exc.matches} runs in {store.uri}; give more "
                        "of it (see `citetrace runs`)") from None
    if run is None:
        raise _no_run(store, ref)
    return run


def _no_run(store: Store, ref: str) -> ViewError:
    # the reference is echoed back: one pasted with credentials or a key must not be (a page, a terminal)
    return ViewError(f"no run {redact_report(ref)!r} in {store.uri} (see `citetrace runs`)")


def offline_evaluation(store: Store, run: RunRecord) -> dict[str, Any] | None:
    """The deterministic, offline evaluation of the run's recorded answer (None when it has no answer)."""
    if not run.answer:
        return None
    from citetrace.eval import evaluate_run

    return evaluate_run(store, run.run_id, offline=True).as_dict()


def page_for_run(store: Store, ref: str, *, evaluation: Mapping[str, Any] | None = None, evaluate: bool = False,
                 back: str | None = None) -> str:
    """The run page of ``ref``; ``evaluate`` runs the offline evaluation when no ``evaluation`` is given."""
    run = find_run(store, ref)
    if evaluation is not None and evaluation.get("run_id") not in (None, run.run_id):
        raise ViewError(f"the evaluation is of run {evaluation.get('run_id')!r}, not {run.run_id!r}")
    if evaluation is None and evaluate:
        evaluation = offline_evaluation(store, run)
    return render_run_page(build_run_view(store, run, evaluation=evaluation, ledger=_ledger(store, run)), back=back)


def _ledger(store: Store, run: RunRecord) -> Mapping[str, Any] | None:
    """The run's ledger as the page shows it, or None when the run kept none."""
    if not store.ledger_entries(run.run_id):
        return None
    from citetrace.ledger import Ledger

    data = Ledger.open(run.run_id, store=store).as_dict()
    for claim in data.get("claims") or ():
        claim["history"] = [_history_line(h) for h in claim.get("history") or ()]
    return data


def _history_line(entry: Mapping[str, Any]) -> str:
    evidence = ", ".join(entry.get("evidence") or ())
    return (f"pass {entry.get('pass_no')}: {entry.get('from_status')} -> {entry.get('to_status')}"
            + (f" [{evidence}]" if evidence else "") + (f" {entry.get('reason')}" if entry.get("reason") else ""))


def _row(run: RunRecord) -> dict[str, Any]:
    s = run.summary or {}
    return {"run_id": run.run_id, "trace_id": run.trace_id, "agent": run.agent, "question": redact_report(run.question) if run.question else run.question,
            "started_at": run.started_at, "searches": s.get("searches", "-"), "reads": s.get("reads", "-"),
            "citations": s.get("citations", "-"), "outcome": run_outcome(run), "reasons": failure_reasons(run)}


def list_rows(store: Store, filters: Mapping[str, str]) -> tuple[list[dict[str, Any]], dict[str, list[str]], int]:
    """(matching rows, the values each menu offers, how many runs were read) for the run list."""
    rows, choices, read, _ = _list_rows(store, filters)
    return rows, choices, read


def _list_rows(store: Store, filters: Mapping[str, str]) -> tuple[list[dict[str, Any]], dict[str, list[str]], int,
                                                                  str | None]:
    """``list_rows``, and why a search found nothing when the store can say (an id prefix matching many runs)."""
    rows = [_row(r) for r in store.runs(limit=LIST_LIMIT)]
    choices = {"outcome": sorted({r["outcome"] for r in rows}), "agent": sorted({r["agent"] for r in rows}),
               "reason": sorted({x for r in rows for x in r["reasons"]})}
    q = filters.get("q", "").strip().lower()

    def kept(r: Mapping[str, Any]) -> bool:
        return (filters.get("outcome", "") in ("", r["outcome"]) and filters.get("agent", "") in ("", r["agent"])
                and (not filters.get("reason") or filters["reason"] in r["reasons"]))

    out = [r for r in rows
           if (not q or r["run_id"].lower().startswith(q) or r["trace_id"].lower().startswith(q)) and kept(r)]
    note = None
    if q and not out:  # older than the newest LIST_LIMIT: found the way /runs/<q> finds it (id, unique prefix, trace id)
        try:
            older = _row(find_run(store, q))
            out = [older] if kept(older) else []
        except ViewError as exc:
            note = None if str(exc).startswith("no run ") else str(exc)
    return out, choices, len(rows), note


def list_page(store: Store, query: Mapping[str, str]) -> ListPage:
    """The run list's page ``query["page"]`` (1-based, default 1; past the last is the last) under the query's
    filters; ``BadQuery`` when the page is not a whole number from 1."""
    raw = query.get("page", "1").strip() or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise BadQuery(f"page must be a whole number from 1, not {raw[:40]!r}")
    filters = {k: query[k] for k in FILTERS if k in query}
    rows, choices, read, note = _list_rows(store, filters)
    pages = max(1, -(-len(rows) // LIST_PAGE))
    page = min(int(raw), pages)
    start = (page - 1) * LIST_PAGE

    def href(n: int) -> str:
        return "/?" + urlencode({**{k: v for k, v in filters.items() if v}, "page": n})

    return ListPage(rows[start:start + LIST_PAGE], choices, read, len(rows), start + 1 if rows else 0,
                    href(page - 1) if page > 1 else None, href(page + 1) if page < pages else None, note)
