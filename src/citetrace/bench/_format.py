"""Markdown for a bench result and for a comparison."""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["bench_markdown", "compare_markdown"]


def _cell(s: Mapping[str, Any] | None, pct: bool = False) -> str:
    if not s or s.get("mean") is None:
        return "-"
    mean, std = float(s["mean"]), float(s["std"] or 0)
    if pct:
        return f"{mean * 100:.0f}% ± {std * 100:.0f}"
    return f"{mean:.3g} ± {std:.2g}"


def bench_markdown(bench: Mapping[str, Any]) -> str:
    """One row per question: the known answer, and the spread of the main figures over the repeats."""
    lines = [f"# citetrace bench: {bench.get('agent')}, {bench.get('repeat')} repeat(s) per question", "",
             "| question | known answer | passed | coverage | support | dead/unfetched | searches | reads | "
             "failed reads | uncited | unfetched |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for q in bench["questions"]:
        s = q["spread"]
        passed = "**ERROR**" if any(r.get("error") for r in q["repeats"]) else \
            {True: "yes", False: "**NO**", None: "-"}[q["passed"]]
        lines.append(f"| {q['id']} | {q.get('answer') or '-'} | {passed} | {_cell(s['citation_coverage'], True)} | "
                     f"{_cell(s['support_rate'], True)} | {_cell(s['dead_or_unfetched_rate'], True)} | "
                     f"{_cell(s['searches'])} | {_cell(s['reads'])} | {_cell(s['failed_reads'])} | "
                     f"{_cell(s['uncited_from_retrieval'])} | {_cell(s['cited_not_fetched'])} |")
    verdict = {True: "every known answer found", False: "known answers missed: " + ", ".join(
        bench.get("failed_questions") or ()), None: "no question has a known answer"}[bench.get("passed")]
    lines += ["", f"Result: {verdict}. Citation rates are the offline checker's (docs/eval.md says what it "
              "measures); the spread is the sample standard deviation over the repeats."]
    for e in bench.get("errors") or ():
        lines.append(f"- agent error in {e['question']}, repeat {e['repeat']} (run {e['run_id']}): {e['error']}")
    return "\n".join(lines) + "\n"


def compare_markdown(result: Mapping[str, Any]) -> str:
    """The rows that moved outside A's band, then the changed failure profiles."""
    moved = [r for r in result["rows"] if r["outside"]]
    lines = [f"# citetrace compare: {len(moved)} of {len(result['rows'])} figures clearly moved", "",
             "| question | metric | A | B | delta | A's band |", "|---|---|---:|---:|---:|---|"]
    for r in moved:
        lines.append(f"| {r['question']} | {r['metric']} | {r['a']:.3g} | {r['b']:.3g} | {r['delta']:+.3g} | "
                     f"[{r['band'][0]:.3g}, {r['band'][1]:.3g}] |")
    for p in result["different_profile"]:
        lines.append(f"\n**Different failure profile** in {p['question']}: up {', '.join(p['up'])}; "
                     f"down {', '.join(p['down'])}.")
    return "\n".join(lines) + "\n"
