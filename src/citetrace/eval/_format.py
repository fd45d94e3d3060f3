"""Human-readable output for the eval commands: a progress bar and plain-text tables."""

from __future__ import annotations

import sys
from typing import Any, Sequence, TextIO

from citetrace._urls import redact_url
from citetrace.eval._evaluate import RunEvaluation, offline_notes
from citetrace.eval._judge_eval import JudgeReport, wilson

__all__ = ["ProgressBar", "format_evaluation", "format_judge_report", "table"]


class ProgressBar:
    """``[#####.....] 5/10 label`` redrawn in place on a terminal; silent elsewhere unless forced."""

    def __init__(self, label: str, stream: TextIO | None = None, *, force: bool = False, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.enabled = force or bool(getattr(self.stream, "isatty", lambda: False)())
        self.label, self.width = label, width

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        filled = int(self.width * done / total)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {self.label}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned columns separated by two spaces."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def format_evaluation(ev: RunEvaluation) -> str:
    """The rates table, the label counts and one row per citation."""
    head = (f"run {ev.run_id}  agent {ev.agent}  judge {ev.judge} ({ev.judge_version})"
            f"{'  offline: liveness not checked' if ev.offline else ''}")
    rates = table(("rate", "value", "n/d", "counts"), [
        (name, _pct(r.value), f"{r.numerator}/{r.denominator}", f"{r.counts[0]} / {r.counts[1]}")
        for name, r in ev.rates.items()
    ])
    labels = "  ".join(f"{k} {v}" for k, v in sorted(ev.label_counts().items())) or "none"
    rows = []
    for p in ev.pairs:
        url = redact_url(p.pair.url) if p.pair.url else (p.pair.marker or "-")
        shown = url if len(url) <= 50 else "…" + url[-49:]
        rows.append((p.pair.sentence.index, p.label or "uncited", ",".join(p.flags()) or "-", shown,
                     _short(p.pair.claim, 60)))
    pairs = table(("#", "label", "flags", "cited", "claim"), rows)
    note = "".join(f"\nnote: {text}" for text in offline_notes(ev.judge).values())
    return f"{head}\n\n{rates}\n\ncitations by label: {labels}\n\n{pairs}{note}\n"


def format_judge_report(report: JudgeReport) -> str:
    """Confusion matrix, agreement and error rates with Wilson intervals."""
    matrix = table(("gold \\ judge", *report.labels),
                   [(label, *row) for label, row in zip(report.labels, report.matrix) if sum(row) or label in
                    report.labels[:4]])

    def rate(name: str, pair: tuple[int, int]) -> str:
        interval = wilson(*pair)
        if interval is None:
            return f"{name}: n/a (0 items)"
        return (f"{name}: {pair[0]}/{pair[1]} = {100 * pair[0] / pair[1]:.1f} % "
                f"(Wilson 95 % {100 * interval[0]:.1f}-{100 * interval[1]:.1f} %)")

    kappa = "n/a" if report.kappa is None else f"{report.kappa:.3f}"
    human = ("not measured (no label2)" if report.human_kappa is None
             else f"{report.human_kappa:.3f} on {report.human_n} double-labelled pairs")
    per = table(("label", "precision", "recall", "f1", "n"), [
        (k, _pct(v["precision"]), _pct(v["recall"]), f"{v['f1'] or 0:.3f}", int(v["support"] or 0))
        for k, v in report.per_label.items()
    ])
    from citetrace.eval._judge_eval import TARGETS

    described = {"false_contradiction_sp": "false-contradiction on SUPPORTED/PARTIAL gold",
                 "contradicted_recall": "CONTRADICTED recall", "absent_precision": "ABSENT precision",
                 "false_support": "false-support (SUPPORTED | gold ABSENT or CONTRADICTED)"}
    targets = "\n".join(
        f"  {rate(described[name], pair)}  target {TARGETS[name][0]} {100 * TARGETS[name][1]:.0f} %: "
        f"{ {True: 'met', False: 'NOT met', None: 'n/a'}[report.target_met(name)] }"
        for name, pair in report.flagger.items())
    support = ""
    if report.judge == "deterministic":
        fs = report.flagger.get("false_support", (0, 0))
        support = ("offline SUPPORTED comes only from the extractive rule; its false-support rate on this set is "
                   f"{fs[0]}/{fs[1]}; the rule is kept only while it stays at or below 2 % on every shipped set "
                   "(docs/eval.md)\n")
    return (f"judge {report.judge} on {report.n} labelled pairs\n\n{matrix}\n\n{per}\n\n"
            f"flagger targets:\n{targets}\n{support}"
            f"accuracy {100 * report.accuracy:.1f} %  kappa {kappa}  macro-F1 {report.macro_f1:.3f}  "
            f"judge errors {report.judge_errors}\n"
            f"{rate('false-support rate (judge SUPPORTED | gold ABSENT or CONTRADICTED)', report.false_support)}\n"
            f"{rate('false-contradiction rate (judge CONTRADICTED | gold not CONTRADICTED)', report.false_contradiction)}\n"
            f"human-human kappa: {human}\n")
