"""`citetrace review sample | label | merge`: the labelling queue's commands (logic in ``_review``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from citetrace.cli import CommandError, open_store_for_reading
from citetrace.eval._evaluate import EvalError, evaluate_run
from citetrace.eval._judges import JUDGE_KINDS, make_judge
from citetrace.eval._review import append_queue, candidates, ledger_high_impact, merge_labels, read_queue, sample
from citetrace.eval._types import ReportParseError

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``citetrace review`` and its subcommands."""
    r = subparsers.add_parser("review", help="a labelling queue of claim/citation pairs from recent runs")
    sub = r.add_subparsers(dest="review_command", metavar="ACTION", required=True)
    s = sub.add_parser("sample", help="sample judged pairs from recent runs into the queue (stratified by label)")
    s.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="runs to sample from (default: --recent)")
    s.add_argument("--recent", type=int, default=20, metavar="N",
                   help="sample the N most recent runs with an answer (default 20)")
    s.add_argument("--queue", required=True, metavar="FILE", help="the standing queue (JSON Lines; appended)")
    s.add_argument("--n", type=int, default=50, help="pairs to add (default 50)")
    s.add_argument("--seed", type=int, default=0, help="random seed of the stratified sample (default 0)")
    s.add_argument("--store", help="run store URI")
    s.add_argument("--judge", choices=JUDGE_KINDS, default="auto", help="the judge whose labels are sampled (default auto)")
    s.add_argument("--judge-model", help="model name for the LLM judge")
    s.add_argument("--second-judge", choices=JUDGE_KINDS[1:], default=None,
                   help="a second judge whose disagreements are favoured (the checker already is for an LLM judge)")
    s.set_defaults(func=_cmd_sample)
    lab = sub.add_parser("label", help="label the queue with the keyboard (s/p/c/a, n skip, u undo, q quit)")
    lab.add_argument("--queue", required=True, metavar="FILE", help="the queue written by 'review sample'")
    lab.add_argument("--labeller", required=True, help="your name, recorded with every label")
    lab.add_argument("--out", required=True, metavar="LABELS.jsonl", help="labels in the judge-eval format")
    lab.set_defaults(func=_cmd_label)
    m = sub.add_parser("merge", help="merge two labellers' files into label1/label2 and print Cohen's kappa")
    m.add_argument("first", metavar="A.jsonl", help="the first labeller's file")
    m.add_argument("second", metavar="B.jsonl", help="the second labeller's file")
    m.add_argument("--out", required=True, metavar="LABELS.jsonl", help="where to write the merged labels")
    m.set_defaults(func=_cmd_merge)
    d = sub.add_parser("drift", help="check that the label distribution of recent runs stays within a band")
    d.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="runs to check (default: --recent)")
    d.add_argument("--recent", type=int, default=20, metavar="N", help="check the N most recent runs (default 20)")
    d.add_argument("--store", help="run store URI")
    d.add_argument("--judge", choices=JUDGE_KINDS, default="auto", help="the judge that labels the pairs (default auto)")
    d.add_argument("--judge-model", help="model name for the LLM judge")
    d.add_argument("--save-reference", metavar="FILE", help="write these runs' label shares as the reference")
    d.add_argument("--reference", metavar="FILE", help="compare with a reference written by --save-reference")
    d.add_argument("--band", type=float, default=0.10, help="allowed absolute change of a share (default 0.10)")
    d.set_defaults(func=_cmd_drift)


def _recent(store: Any, args: argparse.Namespace) -> list[str]:
    runs = list(args.run_ids) or [r.run_id for r in store.runs(limit=max(1, args.recent) * 5)
                                  if r.answer][: max(1, args.recent)]
    if not runs:
        raise CommandError(f"no runs with a recorded answer in {store.uri}")
    return runs


def _cmd_drift(args: argparse.Namespace) -> int:
    from citetrace.eval._drift import distribution_alerts, label_shares

    if bool(args.save_reference) == bool(args.reference):
        raise CommandError("give exactly one of --save-reference FILE or --reference FILE")
    store = open_store_for_reading(args.store)
    try:
        judge = make_judge(args.judge, model=args.judge_model)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    counts: dict[str, int] = {}
    runs = _recent(store, args)
    for run_id in runs:
        try:
            ev = evaluate_run(store, run_id, judge=judge)
        except (EvalError, ReportParseError) as exc:
            raise CommandError(str(exc)) from exc
        for label, n in ev.label_counts().items():
            counts[label] = counts.get(label, 0) + n
    shares = label_shares(counts)
    if args.save_reference:
        with open(args.save_reference, "w", encoding="utf-8") as fh:
            json.dump({"judge": judge.name, "judge_version": judge.version, "runs": runs, "shares": shares}, fh,
                      indent=2)
        print(f"reference label shares of {len(runs)} runs written to {args.save_reference}: "
              + ", ".join(f"{k} {v:.3f}" for k, v in shares.items()))
        return 0
    try:
        with open(args.reference, encoding="utf-8") as fh:
            reference = json.load(fh)
        ref_shares = reference["shares"]
        alerts = distribution_alerts(ref_shares, counts, args.band)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CommandError(f"bad reference {args.reference!r}: {exc}") from exc
    if reference.get("judge") != judge.name or reference.get("judge_version") != judge.version:
        raise CommandError(f"the reference was made with {reference.get('judge')} {reference.get('judge_version')}, "
                           f"these runs were judged with {judge.name} {judge.version}: not comparable")
    for message in alerts:
        print(f"DRIFT {message}")
    print(f"label distribution of {len(runs)} runs {'drifted' if alerts else 'within'} the band +-{args.band:.2f}")
    return 1 if alerts else 0


def _cmd_sample(args: argparse.Namespace) -> int:
    store = open_store_for_reading(args.store)
    try:
        judge = make_judge(args.judge, model=args.judge_model)
        second = make_judge(args.second_judge) if args.second_judge else None
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    runs = _recent(store, args)
    pool = []
    for run_id in runs:
        try:
            ev = evaluate_run(store, run_id, judge=judge)
            other = None
            if second is not None:
                ev2 = evaluate_run(store, run_id, judge=second)
                other = {(p.pair.claim, p.pair.url or ""): str(p.label) for p in ev2.pairs if p.label}
            record = store.get_run(run_id)
        except (EvalError, ReportParseError) as exc:
            raise CommandError(str(exc)) from exc
        pool.extend(candidates(ev, record.question if record else None, other, ledger_high_impact(store, run_id)))
    try:
        queued = read_queue(args.queue)
        chosen = sample(pool, args.n, seed=args.seed, exclude=(it.id for it in queued))
        added = append_queue(args.queue, chosen)
    except (ValueError, OSError) as exc:
        raise CommandError(str(exc)) from exc
    by_label: dict[str, int] = {}
    for it in chosen:
        by_label[it.judge_label] = by_label.get(it.judge_label, 0) + 1
    print(f"{added} pairs added to {args.queue} from {len(runs)} runs ({len(pool)} candidates): "
          + ", ".join(f"{k} {v}" for k, v in sorted(by_label.items())))
    return 0


def _cmd_label(args: argparse.Namespace) -> int:
    from citetrace.eval._review_ui import label_session, tty_keys

    try:
        items = read_queue(args.queue)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    if not items:
        raise CommandError(f"the queue {args.queue!r} is empty: run 'citetrace review sample' first")
    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    try:
        with tty_keys() as read_key:
            label_session(items, read_key, write, labeller=args.labeller, out_path=args.out)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    try:
        rows, kappa, n = merge_labels(args.first, args.second)
    except (OSError, ValueError, KeyError) as exc:
        raise CommandError(f"cannot merge labels: {exc}") from exc
    with open(args.out, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    disagree = sum(1 for r in rows if r.get("needs_adjudication"))
    print(f"{len(rows)} labelled pairs, {n} labelled by both; Cohen's kappa {'n/a' if kappa is None else f'{kappa:.3f}'}; "
          f"{disagree} need adjudication; written to {args.out}")
    return 0
