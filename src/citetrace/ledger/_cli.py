"""``citetrace ledger show|audit|report RUN``: read a run's claim ledger back from the store."""

from __future__ import annotations

import argparse
import json
import sys
import time
from citetrace.cli import CommandError, open_store_for_reading
from citetrace.ledger._audit import audit
from citetrace.ledger._ledger import Ledger
from citetrace.ledger._model import LedgerError
from citetrace.store import Store

__all__ = ["register", "format_ledger"]


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts)) + "Z" if ts else "-"


def format_ledger(ledger: Ledger) -> str:
    """The text form of ``ledger show``: questions, evidence, claims with history, iterations."""
    if not (ledger.questions() or ledger.evidence_records() or ledger.rejected() or ledger.claims()
            or ledger.iterations()):  # a run that never used run.ledger: say so rather than print empty tables
        return f"run {ledger.run_id} has no claim ledger (it recorded no question, evidence, claim or iteration)"
    out = [f"ledger of run {ledger.run_id}", "", "SUB-QUESTIONS"]
    for q in ledger.questions():
        deps = f" (depends on {', '.join(q.depends_on)})" if q.depends_on else ""
        reason = f": {q.reason}" if q.reason else ""
        out.append(f"  {q.id} [{q.status}{reason}] {q.text}{deps}")
        out += [f"      query: {x}" for x in q.queries]
    out += ["", "EVIDENCE"]
    for e in ledger.evidence_records():
        marks = [e.source_class] + (["STALE"] if e.stale else []) + (
            [f"syndicated copy of {e.syndicated_of}"] if e.syndicated_of else [])
        call = f" call #{e.fetch_call}" if e.fetch_call is not None else ""
        out.append(f"  {e.id} {e.url} ({', '.join(marks)}) retrieved {_when(e.retrieved_at)}{call}")
        out.append(f"      \"{e.span}\"")
    for r in ledger.rejected():
        out.append(f"  REJECTED {r['url']}: {r['reason']}")
    out += ["", "CLAIMS"]
    for c in ledger.claims():
        out.append(f"  {c.id} [{c.status}, pass {c.pass_no}] {c.text}")
        out.append(f"      supports: {', '.join(c.supports) or '-'}  contradicts: {', '.join(c.contradicts) or '-'}")
        for h in c.history:
            ev = f" on {', '.join(h.evidence)}" if h.evidence else ""
            out.append(f"      pass {h.pass_no}: {h.from_status} -> {h.to_status}{ev} ({h.reason})")
    out += ["", "ITERATIONS"]
    header = ("#", "TRIGGER", "CLAIM", "OPEN_Q", "UNRESOLVED", "DELTA", "TOOL_CALLS", "NEW_EVIDENCE")
    rows = [header] + [
        (str(i["iteration"]), i["trigger"], i.get("claim") or "-", str(i["open_questions"]), str(i["unresolved"]),
         f"{i['unresolved_delta']:+d}", str(i["tool_calls"]), str(i["new_evidence"]))
        for i in ledger.iterations()
    ]
    widths = [max(len(r[k]) for r in rows) for k in range(len(header))]
    out += ["  " + "  ".join(cell.ljust(widths[k]) for k, cell in enumerate(r)).rstrip() for r in rows]
    out.append(f"  stop: {ledger.stop_reason() or '-'}")
    return "\n".join(out)


def _open(args: argparse.Namespace) -> tuple[Store, Ledger]:
    store = open_store_for_reading(args.store)  # read-only: never creates a store; errors are one line
    try:
        return store, Ledger.open(args.run_id, store=store)
    except LedgerError as exc:
        raise CommandError(str(exc)) from exc


def _show(args: argparse.Namespace) -> int:
    _store, ledger = _open(args)
    if args.json:
        print(json.dumps(ledger.as_dict(), indent=2, sort_keys=True, default=str))
    else:
        print(format_ledger(ledger))
    return 0


def _audit(args: argparse.Namespace) -> int:
    store, ledger = _open(args)
    result = audit(store, ledger.run_id)
    for line in result.breaks:
        print(f"BREAK {line}", file=sys.stderr)
    verdict = "ok" if result.ok else f"FAILED ({len(result.breaks)} break(s))"
    print(f"audit of run {ledger.run_id}: {verdict}; {result.entries} journal entries, {result.evidence} evidence"
          f" records, {result.claims} claims re-derived")
    return 0 if result.ok else 1


def _report(args: argparse.Namespace) -> int:
    _store, ledger = _open(args)
    sys.stdout.write(ledger.render())
    return 0


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``citetrace ledger {show,audit,report}``."""
    store_help = "store URI or path (default: CITETRACE_STORE, else ./.citetrace/store.db)"
    parser = sub.add_parser("ledger", help="a run's claim ledger: show it, audit it, print its report")
    inner = parser.add_subparsers(dest="ledger_command", metavar="ACTION")

    def _usage(_args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=_usage)
    for name, func, text in (
        ("show", _show, "the question graph, evidence, claims with history and the per-iteration series"),
        ("audit", _audit, "re-derive every claim from the stored evidence; exit 1 naming any break"),
        ("report", _report, "print the report rendered from the ledger"),
    ):
        p = inner.add_parser(name, help=text, description=text)
        p.add_argument("run_id", metavar="RUN", help="run id or unique prefix")
        p.add_argument("--store", default=None, help=store_help)
        if name == "show":
            p.add_argument("--json", action="store_true", help="print JSON")
        p.set_defaults(func=func)
