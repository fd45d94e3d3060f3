"""`citetrace eval | gate | baseline | judge-eval`: argument parsing and printing over ``citetrace.eval``."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from typing import Any, Sequence

from citetrace import names
from citetrace._reflist import url_map_of
from citetrace.cli import (
    CommandError, fraction, non_negative_int, non_negative_number, open_store_for_reading, positive_int, positive_number,
    store_uri,
)
from citetrace.eval._data import LABEL_SETS
from citetrace.eval._evaluate import EvalError, RunEvaluation, evaluate_run
from citetrace.eval._format import ProgressBar, format_evaluation, format_judge_report
from citetrace.eval._gate import HARD_RULES, build_baseline, gate, load_baseline, parse_rules
from citetrace.eval._judges import JUDGE_KINDS, Judge, judge_atomic, make_judge
from citetrace.eval._types import ReportParseError
from citetrace.store import Store, StoreError

__all__ = ["register"]


def _judge_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", choices=JUDGE_KINDS, default="auto",
                   help=f"auto (default): llm when {names.ENV_OPENAI_BASE_URL} and a model are set, else deterministic")
    p.add_argument("--judge-model", help=f"model name for the LLM judge (or {names.ENV_JUDGE_MODEL})")
    p.add_argument("--nli-model", help="NLI checkpoint directory or package.module:factory (with --judge nli)")
    p.add_argument("--judge-workers", type=positive_int, default=4,
                   help="claims judged at once by an LLM judge (one claim per call; default 4)")
    p.add_argument("--judge-timeout", type=positive_number, default=None, metavar="SECONDS",
                   help="seconds one LLM judge request may take (default 30)")
    p.add_argument("--judge-retries", type=non_negative_int, default=None, metavar="N",
                   help="retries after 429/5xx/timeouts, waiting what Retry-After asks (at most 60 s; default 2)")


def _eval_options(p: argparse.ArgumentParser) -> None:
    _judge_options(p)
    p.add_argument("--store", help=f"run store URI (default: {names.ENV_STORE} or {names.STORE_DEFAULT_URI})")
    p.add_argument("--offline", action="store_true", help="skip the liveness check (the only network access)")
    p.add_argument("--stale-days", type=non_negative_int, default=365, metavar="DAYS",
                   help="a claim phrased as current ('now', 'latest') citing a page older than this is stale")
    p.add_argument("--metrics-file", help="write the eval metrics in Prometheus text format to this file")


def register(subparsers: Any) -> None:
    """Add the eval commands to the ``citetrace`` parser."""
    p = subparsers.add_parser(
        "eval", help="check a run's report citations against what the run fetched",
        description="Split the run's report (its recorded answer, or --report FILE) into atomic claims, pair each "
                    "with its citations, and check every pair against the text the agent actually fetched: cited "
                    "but never fetched, not returned by any search, dead (unless --offline), stale, and a narrow "
                    "support judge over BM25 passages of the stored page. Prints citation_coverage, support_rate "
                    "and dead_or_unfetched_rate with their denominators. Exit status: 0 done, 2 error.")
    p.add_argument("run_id", metavar="RUN_ID", help="run id, unique prefix, or trace id")
    p.add_argument("--report", metavar="FILE", help="evaluate this report instead of the recorded answer")
    p.add_argument("--url-map", metavar="FILE", help="JSON map for bare [n] markers: knowledge-storm's "
                   "url_to_info.json, {url: n} or {n: url} (the report's own reference list wins)")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    _eval_options(p)
    p.set_defaults(func=_cmd_eval)

    rules = "\n".join(f"  {name:20s} {what}" for name, what in HARD_RULES.items())
    g = subparsers.add_parser(
        "gate", help="CI gate: fail on the hard rules and on rates outside the baseline",
        description="Evaluate a run as 'citetrace eval' does, then fail (exit 1) on any hard rule it breaks, naming\n"
                    "each claim and URL, and on any rate outside the bands of --baseline. With --bench, gate a\n"
                    "question-set result instead.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"hard rules (no baseline needed; default: {','.join(names.GATE_DEFAULT_RULES)}):\n{rules}\n\n"
               "a baseline records how it was made (offline or online, judge, version, model); gating a run "
               "evaluated\nanother way is an error that names the difference. Exit status: 0 pass, 1 fail, 2 error.")
    g.add_argument("run_id", metavar="RUN_ID", nargs="?", help="the run to gate (not with --bench)")
    g.add_argument("--bench", metavar="BENCH.json",
                   help="gate a `citetrace bench --json` result instead: known answers, and every figure against "
                        "the bands of --baseline (made with `citetrace baseline --from-bench`)")
    g.add_argument("--report", metavar="FILE", help="gate this report instead of the recorded answer")
    g.add_argument("--url-map", metavar="FILE", help="JSON map for bare [n] markers (as for eval)")
    g.add_argument("--baseline", metavar="FILE", help="band file written by 'citetrace baseline'")
    g.add_argument("--hard-rules", metavar="RULE,...", default=None,
                   help=f"the hard rules to apply, from {','.join(HARD_RULES)} (default: "
                        f"{','.join(names.GATE_DEFAULT_RULES)}; '' for none)")
    g.add_argument("--allow-uncited", action="store_true",
                   help="do not fail on cited URLs that no search returned (the uncited_url rule)")
    g.add_argument("--json", action="store_true", help="print the evaluation and the gate's verdict as JSON")
    _eval_options(g)
    g.set_defaults(func=_cmd_gate)

    b = subparsers.add_parser(
        "baseline", help="evaluate N runs of the unchanged agent and record the spread",
        description="Learn the bands 'citetrace gate --baseline' checks: evaluate existing runs (or run the agent "
                    "--runs times with --command first, or read a bench's repeats with --from-bench), and write "
                    "each rate's mean and a band of mean +/- k standard deviations plus --tolerance to --out. The "
                    "file records how the runs were evaluated, so a gate made another way is refused.")
    b.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="existing runs to use")
    b.add_argument("--runs", type=non_negative_int, default=0, help="run the agent this many times first (needs --command)")
    b.add_argument("--command", dest="agent_command", help="command that runs the agent once, recording into the same store")
    b.add_argument("--from-bench", metavar="BENCH.json",
                   help="learn the bands from a bench's repeats (per question and figure) instead of runs")
    b.add_argument("--out", required=True, metavar="FILE", help="where to write the baseline JSON")
    b.add_argument("--k", type=non_negative_number, default=3.0, help="band half-width in standard deviations (default 3)")
    b.add_argument("--tolerance", type=non_negative_number, default=0.02,
                   help="extra absolute margin on each side of a band, as a rate (default 0.02)")
    _eval_options(b)
    b.set_defaults(func=_cmd_baseline)

    j = subparsers.add_parser("judge-eval", help="measure a judge against hand-labelled (claim, passage) pairs")
    j.add_argument("labels", nargs="?", metavar="LABELS.jsonl", help="labels file (default: --set shipped)")
    j.add_argument("--set", dest="label_set", choices=sorted(LABEL_SETS), default="shipped",
                   help="a labelled set that ships with citetrace: shipped (demo corpus), hard (page prose), "
                        "heldout (whole pages, tuned on since det-4), heldout2 (whole pages, held out from det-4, "
                        "tuned on since det-5), heldout3 (whole pages, written blind, measured once with det-5, "
                        "tuned on since det-6), heldout4 (whole pages, written blind, measured once with det-6, "
                        "tuned on since det-7) or heldout5 (whole pages, written blind, measured once)")
    j.add_argument("--json", action="store_true", help="print the agreement report as JSON")
    j.add_argument("--history", metavar="FILE",
                   help="append this run to a judge-eval history (per judge, version and model) and compare")
    j.add_argument("--max-drop", type=fraction, default=0.05,
                   help="with --history: alert (exit 1) when agreement fell more than this since the last "
                        "comparable run (the canary rule; default 0.05)")
    j.add_argument("--metrics-file", help="write citetrace_judge_agreement_ratio in Prometheus text format")
    _judge_options(j)
    j.set_defaults(func=_cmd_judge_eval)

    from citetrace.eval._review_cli import register as register_review

    register_review(subparsers)


def _store(args: argparse.Namespace) -> Store:
    return open_store_for_reading(args.store)


def _judge(args: argparse.Namespace) -> Judge:
    try:
        return make_judge(args.judge, model=args.judge_model, nli_model=args.nli_model,
                          timeout=args.judge_timeout, retries=args.judge_retries)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


def _read(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise CommandError(f"cannot read {what} {path!r}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise CommandError(f"{what} {path!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def _url_map(path: str | None) -> dict[str, str] | None:
    """The ``--url-map`` file read into marker number -> URL, or a one-line error naming the problem."""
    if not path:
        return None
    try:
        return url_map_of(json.loads(_read(path, "URL map")))
    except json.JSONDecodeError as exc:
        raise CommandError(f"URL map {path!r} is not JSON: {exc.msg} at line {exc.lineno}") from exc
    except ValueError as exc:
        raise CommandError(f"URL map {path!r}: {exc}") from exc


def _evaluate(args: argparse.Namespace, store: Store, judge: Judge, run_id: str, report: str | None) -> RunEvaluation:
    url_map = _url_map(getattr(args, "url_map", None))
    try:
        return evaluate_run(store, run_id, report=report, judge=judge, offline=args.offline, url_map=url_map,
                            stale_days=args.stale_days, progress=ProgressBar(f"claims judged for {run_id[:12]}"),
                            workers=max(1, args.judge_workers) if judge.name == "llm" else 1)
    except (EvalError, ReportParseError) as exc:
        raise CommandError(str(exc)) from exc


def _publish(args: argparse.Namespace, evs: list[RunEvaluation], gate_failures: Sequence[tuple[str, str]] = ()) -> None:
    from prometheus_client import CollectorRegistry, write_to_textfile

    from citetrace.eval._emit import EvalMetrics, emit_events

    provider = _tracer_provider()
    for ev in evs:
        emit_events(ev, provider.get_tracer("citetrace.eval") if provider is not None else None)
    if provider is not None:
        provider.shutdown()
    if args.metrics_file:
        metrics = EvalMetrics(CollectorRegistry())
        for ev in evs:
            metrics.record(ev)
        for reason, _ in gate_failures:
            metrics.record_gate_failure(evs[0].agent, reason)
        try:
            write_to_textfile(args.metrics_file, metrics.registry)
        except OSError as exc:
            raise CommandError(f"cannot write metrics to {args.metrics_file!r}: {exc.strerror}") from exc


def _tracer_provider() -> Any:
    """An exporting provider when OTEL_* variables ask for one, else None (events go to the global provider)."""
    if not (os.environ.get(names.ENV_OTEL_EXPORTER_OTLP_ENDPOINT) or os.environ.get(names.ENV_OTEL_TRACES_EXPORTER)):
        return None
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from citetrace._exitbound import BoundedBatchSpanProcessor
    from citetrace._exporters import exporters_from_env

    try:
        exporters = exporters_from_env()  # the comma list and protocol as the SDK reads them
    except ValueError as exc:  # an OTLP protocol the SDK cannot export
        raise CommandError(str(exc)) from None
    if not exporters:
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": "citetrace-eval"}))
    for exporter in exporters:
        provider.add_span_processor(BoundedBatchSpanProcessor(exporter))
    return provider


def _cmd_eval(args: argparse.Namespace) -> int:
    report = _read(args.report, "report") if args.report else None
    ev = _evaluate(args, _store(args), _judge(args), args.run_id, report)
    _publish(args, [ev])
    print(json.dumps(ev.as_dict(), indent=2) if args.json else format_evaluation(ev), end="\n" if args.json else "")
    return 0


def _cmd_gate(args: argparse.Namespace) -> int:
    if args.bench:
        from citetrace.bench._internal import gate_bench_command

        return gate_bench_command(args.bench, args.baseline, as_json=args.json)
    if not args.run_id:
        raise CommandError("give the RUN_ID to gate, or --bench BENCH.json")
    try:
        baseline = load_baseline(args.baseline) if args.baseline else None
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    report = _read(args.report, "report") if args.report else None
    ev = _evaluate(args, _store(args), _judge(args), args.run_id, report)
    try:
        result = gate(ev, baseline, parse_rules(args.hard_rules, allow_uncited=args.allow_uncited))
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    _publish(args, [ev], result.failures)
    if args.json:
        print(json.dumps({"passed": result.passed, "failures": [{"reason": r, "message": m} for r, m in
                                                                 result.failures], "notes": result.notes,
                          "evaluation": ev.as_dict()}, indent=2))
    else:
        for _, message in result.failures:
            print(f"FAIL {message}")
        for note in result.notes:
            print(f"note: {note}")
        print(f"gate {'passed' if result.passed else 'failed'} for run {ev.run_id}"
              f"{'' if baseline else ' (no baseline: hard rules only)'}")
    return 0 if result.passed else 1


def _run_agent(command: str, store_arg: str | None, times: int) -> tuple[Store, list[str]]:
    """Run the agent ``times`` times; the store it records into may not exist before the first run."""
    argv = shlex.split(command)
    if not argv:
        raise CommandError("--command is empty")
    uri = store_uri(store_arg)
    try:
        before = {r.run_id for r in open_store_for_reading(store_arg).runs(limit=100_000)}
    except StoreError:
        before = set()
    for n in range(times):
        try:
            done = subprocess.run(argv, check=False)
        except OSError as exc:
            raise CommandError(f"cannot run {argv[0]!r}: {exc.strerror}") from exc
        if done.returncode != 0:
            raise CommandError(f"agent run {n + 1}/{times} exited with status {done.returncode}")
    try:
        store = open_store_for_reading(store_arg)
    except StoreError as exc:
        raise CommandError(f"the command ran {times} times but recorded nothing in {uri} ({exc}); "
                           f"does it record into the same store ({names.ENV_STORE})?") from None
    new = [r.run_id for r in store.runs(limit=100_000) if r.run_id not in before]
    if len(new) < times:
        raise CommandError(f"the command ran {times} times but only {len(new)} new runs appeared in {store.uri}; "
                           f"does it record into the same store ({names.ENV_STORE})?")
    return store, new


def _cmd_baseline(args: argparse.Namespace) -> int:
    if args.from_bench:
        from citetrace.bench._internal import baseline_bench_command

        return baseline_bench_command(args.from_bench, args.out, k=args.k, tolerance=args.tolerance)
    judge = _judge(args)
    run_ids = list(args.run_ids)
    if args.runs:
        if not args.agent_command:
            raise CommandError("--runs needs --command (the command that runs the agent once)")
        store, new = _run_agent(args.agent_command, args.store, args.runs)
        run_ids += new
    else:
        store = _store(args)
    if len(run_ids) < 2:
        raise CommandError("a baseline needs at least 2 runs: give RUN_IDs or --runs N --command CMD")
    evs = [_evaluate(args, store, judge, rid, None) for rid in run_ids]
    data = build_baseline(evs, k=args.k, tolerance=args.tolerance)
    try:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
    except OSError as exc:
        raise CommandError(f"cannot write baseline {args.out!r}: {exc.strerror}") from exc
    for name, band in data["metrics"].items():
        print(f"{name:24s} mean {band['mean']:.3f}  sd {band['sd']:.3f}  band [{band['low']:.3f}, {band['high']:.3f}]")
    print(f"baseline of {len(evs)} runs written to {args.out}")
    return 0


def _cmd_judge_eval(args: argparse.Namespace) -> int:
    from citetrace.eval._judge_eval import evaluate_judge, load_labels

    path = args.labels or LABEL_SETS[args.label_set]()
    try:
        pairs = load_labels(path)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    judge = _judge(args)
    if args.history:  # a damaged history fails now, not after judging every pair
        from citetrace.eval._jsonl import read_jsonl

        try:
            for _ in read_jsonl(args.history, "judge-eval history", missing_ok=True):
                pass
        except (ValueError, OSError) as exc:
            raise CommandError(f"judge-eval history {args.history!r}: {exc}") from exc
    report = evaluate_judge(pairs, lambda c, ps: judge_atomic(judge, c, ps)[0].label, judge.name,
                            progress=ProgressBar("labelled pairs"))
    print(json.dumps(report.as_dict(), indent=2) if args.json else format_judge_report(report), end="")
    if args.json:
        print()
    sys.stdout.flush()
    if args.metrics_file:
        _write_agreement(args.metrics_file, judge.name, path, report.accuracy)
    if not args.history:
        return 0
    from citetrace.eval._drift import agreement_alert, append_history, history_entry, last_comparable

    entry = history_entry(report, path, judge_version=judge.version, judge_model=getattr(judge, "model", None))
    try:
        previous = last_comparable(args.history, entry)
        append_history(args.history, entry)
    except (ValueError, OSError) as exc:
        raise CommandError(f"judge-eval history {args.history!r}: {exc}") from exc
    alert = agreement_alert(previous, entry, args.max_drop)
    if alert:
        print(f"ALERT {alert}", file=sys.stderr)
        return 1
    return 0


def _write_agreement(path: str, judge: str, labels: str, accuracy: float) -> None:
    """The canary metric, for a textfile collector: agreement of a judge with a labels file (0..1)."""
    from prometheus_client import CollectorRegistry, Gauge, write_to_textfile

    registry = CollectorRegistry()
    gauge = Gauge(names.METRIC_JUDGE_AGREEMENT, "Agreement (accuracy) of a judge with a labelled set.",
                  [names.LABEL_JUDGE, names.LABEL_LABEL_SET], registry=registry)
    gauge.labels(judge, os.path.basename(labels)).set(accuracy)
    try:
        write_to_textfile(path, registry)
    except OSError as exc:
        raise CommandError(f"cannot write metrics to {path!r}: {exc.strerror}") from exc
