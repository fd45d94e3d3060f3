"""The CI gate: hard rules that need no baseline, and a band learned from repeated runs of the same agent.

Hard rules (``HARD_RULES``; all on by default, ``--hard-rules`` picks a subset, ``--allow-uncited`` drops
``uncited_url``): a cited URL the run never fetched; a cited URL no search returned, as the run's own
summary reported it (``uncited_url``; computed from the pairs when no summary was stored); a report whose
claims need citations but that carries none.

A baseline records how it was made (offline or online, the judge, its version and model); gating a run
evaluated differently is an error that names both, because such rates are not comparable.

An agent is not deterministic (search results, model sampling), so a fixed threshold on support rate either
flaps or hides regressions. ``citetrace baseline`` runs the unchanged agent N times; each rate's band is
[mean - k*sd - tol, mean + k*sd + tol] widened to cover every observed value, clipped to [0, 1]. A gate fails
only in the bad direction of a rate (coverage and support may rise freely; contradictions may fall freely).
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from citetrace import names
from citetrace._jsonfile import read_json
from citetrace._redact import redact_report, redact_url
from citetrace.capture import cited_urls
from citetrace.eval._evaluate import RunEvaluation
from citetrace.eval._rates import RATE_NAMES

__all__ = ["build_baseline", "load_baseline", "gate", "GateResult", "DIRECTIONS", "HARD_RULES", "parse_rules"]

HARD_RULES = {
    names.GATE_UNFETCHED: "a cited URL the run never read successfully: never fetched, its read failed, or no "
                          "text of it was stored (or an unresolved marker); the message says which",
    names.GATE_UNCITED_URL: "the run's summary failed on uncited_url: a cited URL no search returned "
                            "(--allow-uncited skips it)",
    names.GATE_NO_CITATIONS: "the report has claims that need citations but carries no citation",
    names.GATE_UNCITED_CLAIM: "(opt-in) any sentence that needs a citation and has none, each named",
}
"""Every hard rule with what it checks (shown by ``citetrace gate --help``)."""


def parse_rules(spec: str | None, *, allow_uncited: bool = False) -> tuple[str, ...]:
    """The hard rules to apply from a comma-separated list (None: all); ValueError names an unknown rule."""
    rules = list(names.GATE_DEFAULT_RULES) if spec is None else [r.strip() for r in spec.split(",") if r.strip()]
    unknown = [r for r in rules if r not in HARD_RULES]
    if unknown:
        raise ValueError(f"unknown gate rule {unknown[0]!r}; expected some of {', '.join(HARD_RULES)}")
    return tuple(r for r in rules if not (allow_uncited and r == names.GATE_UNCITED_URL))


def _made_with(ev: RunEvaluation) -> dict[str, Any]:
    return {"offline": ev.offline, "judge": ev.judge, "judge_version": ev.judge_version, "judge_model": ev.judge_model}

DIRECTIONS = {
    "citation_coverage": "higher_is_better",
    "support_rate": "higher_is_better",
    "partial_rate": "two_sided",
    "contradicted_rate": "lower_is_better",
    "dead_or_unfetched_rate": "lower_is_better",
    "judge_error_rate": "lower_is_better",
}
BASELINE_VERSION = 2


def build_baseline(evals: Sequence[RunEvaluation], *, k: float = 3.0, tolerance: float = 0.02) -> dict[str, Any]:
    """The spread of every rate over ``evals`` (runs of the unchanged agent) and the band derived from it."""
    if len(evals) < 2:
        raise ValueError(f"a baseline needs at least 2 runs to measure a spread, got {len(evals)}")
    metrics: dict[str, Any] = {}
    for name in RATE_NAMES:
        values = [v for v in (ev.rates[name].value for ev in evals) if v is not None]
        if not values:
            continue
        mean = statistics.fmean(values)
        sd = statistics.stdev(values) if len(values) > 1 else 0.0  # the sample standard deviation
        low = max(0.0, min(mean - k * sd - tolerance, min(values)))
        high = min(1.0, max(mean + k * sd + tolerance, max(values)))
        metrics[name] = {"values": values, "mean": mean, "sd": sd, "min": min(values), "max": max(values),
                         "low": low, "high": high, "direction": DIRECTIONS[name]}
    made = [_made_with(ev) for ev in evals]
    if any(m != made[0] for m in made):
        raise ValueError("the runs of a baseline must be evaluated the same way (offline, judge, version, model); "
                         f"got {made[0]} and {next(m for m in made if m != made[0])}")
    return {"version": BASELINE_VERSION, "created_at": time.time(), "k": k, "tolerance": tolerance,
            "judge": evals[0].judge, "made_with": made[0], "runs": [ev.run_id for ev in evals], "metrics": metrics}


def _finite_band(band: dict[str, Any]) -> bool:
    """low and high are finite numbers, low <= high: a NaN band passes every run, an inverted one fails all."""
    low, high = band.get("low"), band.get("high")
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (low, high))
    return numbers and low <= high  # type: ignore[operator]


def load_baseline(path: str) -> dict[str, Any]:
    """Read a baseline file; ValueError names the problem."""
    data = read_json(path, "baseline")
    if isinstance(data, dict) and data.get("version") == 1:
        raise ValueError(f"baseline {path!r} (version 1) does not record how it was made (offline or online, "
                         "judge, version); rebuild it with 'citetrace baseline'")
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or not isinstance(data.get("metrics"), dict) \
            or not isinstance(data.get("made_with"), dict):
        raise ValueError(f"baseline {path!r} is not a citetrace baseline (version {BASELINE_VERSION})")
    for name, band in data["metrics"].items():
        if name not in DIRECTIONS or not isinstance(band, dict) or not _finite_band(band):
            raise ValueError(f"baseline {path!r}: bad entry for {name!r}")
    return data


@dataclass
class GateResult:
    """Whether the run passes, and every failure as (reason, message)."""

    failures: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the gate could not check and why (printed as ``note:`` lines; never a failure)."""

    @property
    def passed(self) -> bool:
        return not self.failures


def _uncited_urls(ev: RunEvaluation) -> list[str]:
    """The run summary's uncited URLs (redacted, like every URL the gate prints) when it failed on
    uncited_url; without a summary, from the pairs."""
    summary = ev.run_summary
    if summary is not None:
        if names.REASON_UNCITED_URL not in (summary.get("failure_reasons") or ()):
            return []
        return [redact_url(str(u)) for u in summary.get("uncited_urls") or ()] or ["(the summary lists no URL)"]
    out: list[str] = []
    for p in ev.pairs:
        if p.returned_by_search is False and p.pair.url and redact_url(p.pair.url) not in out:
            out.append(redact_url(p.pair.url))
    return out


def _citations_outside_text(ev: RunEvaluation) -> int:
    """How many of the run's citations (its summary's count, which includes the model's own citations the
    provider rows add) the report's text does not carry; 0 without a stored summary."""
    counted = (ev.run_summary or {}).get("citations")
    if not isinstance(counted, int) or isinstance(counted, bool):
        return 0
    return max(0, counted - len(cited_urls(ev.report.text)))  # the summary's own reading of the text


def _read_outcomes(ev: RunEvaluation) -> dict[str, str]:
    """Cited URL (redacted, as ``unfetched_urls`` shows it) -> how its read ended, for reads with no usable text."""
    return {redact_url(p.pair.url): p.read_outcome for p in ev.pairs
            if p.pair.url and p.fetch_failed and p.read_outcome}


def _searched(ev: RunEvaluation) -> set[str]:
    """Cited URLs (redacted) some search of the run returned."""
    return {redact_url(p.pair.url) for p in ev.pairs if p.pair.url and p.returned_by_search}


def _unreported_searches(ev: RunEvaluation) -> int:
    """How many of the run's provider-side searches did not report their sources (the summary's count; 0
    without a summary or from a summary written before the field existed)."""
    count = (ev.run_summary or {}).get("unreported_searches")
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0


def _unread_message(run_id: str, url: str, outcome: str | None, searched: bool = False, unreported: int = 0) -> str:
    """What happened to a cited URL the run has no usable text of: never fetched, a failed read, or a read
    with nothing stored (a PDF the model fetched server-side). The run summary counts the last two as fetched,
    so "never fetched" would contradict it. A search result cited unread is said so: a provider's server-side
    search may have read it, but it gave citetrace no text to check the claim against. So is a URL cited
    in a run whose provider-side search did not say what it returned: "never fetched" would overstate, as the
    model may have read it there; what is sure is that no text of it was stored."""
    if outcome is None and not searched and unreported:
        searches = "search" if unreported == 1 else f"searches ({unreported})"
        return (f"cited in run {run_id}, whose provider-side {searches} did not report its sources, so whether "
                f"the model read it server-side is unknown and no text of it was stored to check (OpenAI: "
                f"include=[\"web_search_call.action.sources\"] reports them): {url}")
    if outcome is None and searched:
        return (f"cited and returned by a search in run {run_id}, but never fetched, so no text of it was stored "
                f"to check (a provider's server-side search gives none): {url}")
    if outcome is None:
        return f"cited but never fetched in run {run_id}: {url}"
    if outcome.startswith(names.STATUS_OK):
        return f"cited and read in run {run_id}, but no text of it was stored ({outcome}), so it cannot be checked: {url}"
    return f"cited, but its read failed in run {run_id} ({outcome}): {url}"


def gate(ev: RunEvaluation, baseline: dict[str, Any] | None = None,
         rules: Sequence[str] | None = None) -> GateResult:
    """Apply the hard ``rules`` (default: ``names.GATE_DEFAULT_RULES``), then, with a baseline, every band.

    A baseline made another way (offline or online, another judge, version or model) is a ValueError that
    names both ways."""
    result = GateResult()
    active = names.GATE_DEFAULT_RULES if rules is None else tuple(rules)
    if names.GATE_UNFETCHED in active:
        outcomes, searched, unreported = _read_outcomes(ev), _searched(ev), _unreported_searches(ev)
        for url in ev.unfetched_urls:
            result.failures.append((names.GATE_UNFETCHED, _unread_message(ev.run_id, url, outcomes.get(url),
                                                                          url in searched, unreported)))
    if names.GATE_UNCITED_URL in active:
        named = set(ev.unfetched_urls) if names.GATE_UNFETCHED in active else set()
        for url in (u for u in _uncited_urls(ev) if u not in named):  # one failure per URL
            result.failures.append((names.GATE_UNCITED_URL, f"cited but returned by no search in run {ev.run_id} "
                                    f"(uncited_url; --allow-uncited to accept): {url}"))
    if names.GATE_NO_CITATIONS in active:
        coverage = ev.rates["citation_coverage"]
        outside = _citations_outside_text(ev)
        if coverage.denominator and coverage.numerator == 0 and outside:
            result.notes.append(f"run {ev.run_id} cites {outside} source(s) outside its text (citations the model "
                                "attached, such as a provider's annotations) that eval could not place in the report "
                                "(none recorded, or the text they cite is not in it), so no_citations does not apply "
                                "and citation_coverage counts only the citations it could pair")
        elif coverage.denominator and coverage.numerator == 0:
            result.failures.append((names.GATE_NO_CITATIONS, f"the report of run {ev.run_id} has "
                                    f"{coverage.denominator} claims that need citations and carries none"))
    if names.GATE_UNCITED_CLAIM in active:
        for s in ev.report.sentences:
            if s.needs_citation and not s.citations:
                text = redact_report(s.text)
                shown = text if len(text) <= 80 else text[:79] + "…"
                result.failures.append((names.GATE_UNCITED_CLAIM, f"sentence {s.index} of run {ev.run_id} needs a "
                                        f"citation and has none: {shown}"))
    if baseline is None:
        return result
    made = baseline.get("made_with") or {"judge": baseline.get("judge")}
    mine = _made_with(ev)
    differs = [k for k in ("offline", "judge", "judge_version", "judge_model") if k in made and made[k] != mine[k]]
    if differs:
        raise ValueError("baseline mismatch: it was made with " + ", ".join(f"{k}={made[k]}" for k in differs)
                         + "; this run was evaluated with " + ", ".join(f"{k}={mine[k]}" for k in differs)
                         + "; rates measured differently are not comparable (rebuild the baseline or match them)")
    for name, band in baseline["metrics"].items():
        value = ev.rates[name].value
        if value is None:
            continue
        direction = band.get("direction", DIRECTIONS[name])
        low, high = float(band["low"]), float(band["high"])
        too_low = value < low and direction in ("higher_is_better", "two_sided")
        too_high = value > high and direction in ("lower_is_better", "two_sided")
        if too_low or too_high:
            r = ev.rates[name]
            result.failures.append((names.GATE_OUT_OF_BAND,
                                    f"{name} = {value:.3f} ({r.numerator}/{r.denominator}) is outside the baseline "
                                    f"band [{low:.3f}, {high:.3f}] ({direction.replace('_', ' ')})"))
    return result
