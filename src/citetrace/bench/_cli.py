"""``citetrace bench`` and ``citetrace compare``: thin layers over ``citetrace.bench``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from citetrace import _jsonfile, names
from citetrace.cli import CommandError, non_negative_number, positive_int

__all__ = ["register", "read_json", "gate_bench_command", "baseline_bench_command"]


def read_json(path: str, what: str) -> Any:
    """A JSON file, or a one-line CommandError naming it."""
    try:
        return _jsonfile.read_json(path, what)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``bench`` and ``compare``."""
    p = sub.add_parser("bench", help="run a question set against an agent, N times, and report the spread",
                       description="Run every question of QUESTIONS (YAML or JSON) --repeat times, each inside a "
                       "run; check known answers, the offline citation rates and the run summary; print the "
                       "spread. Exit 1 when a known answer is missed.")
    p.add_argument("questions", metavar="QUESTIONS.yaml", help="the question set (YAML or JSON; see docs/bench.md)")
    p.add_argument("--agent", required=True, metavar="pkg.module:callable",
                   help="called as agent(question) -> report text (or None: the run's recorded answer)")
    p.add_argument("--repeat", type=positive_int, default=1, help="runs per question (default 1)")
    p.add_argument("--replay", metavar="RUN_OR_BENCH",
                   help="answer every tool from a recorded run (a run id) or from a bench's own runs (its JSON)")
    p.add_argument("--store", help=f"run store URI (default: {names.ENV_STORE} or {names.STORE_DEFAULT_URI})")
    p.add_argument("--json", action="store_true", help="print the full result as JSON instead of markdown")
    p.add_argument("--out", metavar="FILE", help="also write the JSON result here (for baseline/gate/compare)")
    p.set_defaults(func=_cmd_bench)
    c = sub.add_parser("compare", help="per-metric deltas of two bench results against A's band",
                       description="Compare two `citetrace bench --json` results question by question: each "
                       "figure's delta against A's band, and questions whose failure profile changed.")
    c.add_argument("a", metavar="A.json", help="the reference result (its spread makes the bands)")
    c.add_argument("b", metavar="B.json", help="the result compared with it")
    c.add_argument("--k", type=non_negative_number, default=3.0, help="band half-width in standard deviations (default 3)")
    c.add_argument("--tolerance", type=non_negative_number, default=0.02, help="extra absolute margin (default 0.02)")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=_cmd_compare)


def _cmd_bench(args: argparse.Namespace) -> int:
    from citetrace._extras import require
    from citetrace.bench import BenchError, QuestionSetError, load_agent, load_questions, replay_plan, run_bench
    from citetrace.bench._format import bench_markdown
    from citetrace.eval._internal import ProgressBar

    require("eval")  # every repeat's citation rates: say so before the agent runs, not after its first answer
    try:
        questions = load_questions(args.questions)
        agent = load_agent(args.agent)
    except (QuestionSetError, BenchError) as exc:
        raise CommandError(str(exc)) from None
    source: Any = None
    if args.replay:
        source = read_json(args.replay, "the bench to replay") if args.replay.endswith(".json") else args.replay
    try:
        telemetry = _telemetry(args.store)
    except (ValueError, OSError) as exc:
        raise CommandError(str(exc)) from None
    if telemetry.store is None:
        raise CommandError("citetrace is disabled (OTEL_SDK_DISABLED): a bench needs its runs recorded")
    try:
        result = run_bench(questions, agent, store=telemetry.store, repeat=args.repeat,
                           agent_name=args.agent.rpartition(":")[2], replay=replay_plan(source, questions, args.repeat),
                           progress=ProgressBar("question runs"))
    except (BenchError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    finally:
        telemetry.force_flush()
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2) if args.json else bench_markdown(result), end="" if not args.json else "\n")
    return 1 if result["passed"] is False else 0


def _telemetry(store: str | None) -> Any:
    """The set-up the bench records into. An agent module may configure citetrace itself on import (the README's
    quick start calls ``configure()``); configuring again printed "configure() called again" and shut the
    agent's set-up (its exporters) down, so without ``--store`` the bench uses that configuration as it is."""
    from citetrace import configure
    from citetrace._telemetry import current

    previous = current()
    if store is None and previous.configured and not previous.implicit and previous.store is not None:
        return previous
    return configure(store=store, metrics="off")


def _cmd_compare(args: argparse.Namespace) -> int:
    from citetrace.bench import BandError, compare_benches
    from citetrace.bench._format import compare_markdown

    try:
        result = compare_benches(read_json(args.a, "bench A"), read_json(args.b, "bench B"), k=args.k,
                                 tolerance=args.tolerance)
    except BandError as exc:
        raise CommandError(str(exc)) from None
    print(json.dumps(result, indent=2) if args.json else compare_markdown(result), end="" if not args.json else "\n")
    return 0


def baseline_bench_command(bench_path: str, out: str, *, k: float, tolerance: float) -> int:
    """``citetrace baseline --from-bench``: write the bands learnt from a bench's repeats."""
    from citetrace.bench import BandError, baseline_from_bench

    try:
        baseline = baseline_from_bench(read_json(bench_path, "the bench"), k=k, tolerance=tolerance)
    except BandError as exc:
        raise CommandError(str(exc)) from None
    try:
        Path(out).write_text(json.dumps(baseline, indent=2), encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {out!r}: {exc.strerror}") from None
    print(f"wrote {out}: bands for {len(baseline['questions'])} question(s), k={k:g}, tolerance={tolerance:g}")
    return 0


def gate_bench_command(bench_path: str, baseline_path: str | None, *, as_json: bool) -> int:
    """``citetrace gate --bench``: exit 1 on a missed known answer or a figure clearly outside its band."""
    from citetrace.bench import BandError, gate_bench

    if not baseline_path:
        raise CommandError("--bench needs --baseline (made with `citetrace baseline --from-bench`)")
    try:
        failures = gate_bench(read_json(bench_path, "the bench"), read_json(baseline_path, "the baseline"))
    except BandError as exc:
        raise CommandError(str(exc)) from None
    if as_json:
        print(json.dumps({"passed": not failures, "failures": [{"rule": r, "message": m} for r, m in failures]}))
    else:
        print("PASS: every figure inside its band" if not failures else
              "FAIL\n" + "\n".join(f"  {rule}: {message}" for rule, message in failures))
    return 1 if failures else 0
