"""Question sets: ``QUESTIONS.yaml`` (or .json) with an id, the question and, optionally, a known answer.

    questions:
      - id: storage
        question: How much grid battery storage did Marrow Valley add in 2024?
        answer: {number: 860, tolerance: 5}        # or {exact: "860 MW"} or {regex: "8[56]0 ?MW"}

A known answer is checked against the final report: ``exact`` is a case-insensitive substring, ``regex`` a
search, ``number`` any number in the report within ``tolerance`` (default 0; thousands separators allowed).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citetrace._extras import MissingExtra, require

__all__ = ["BenchQuestion", "KnownAnswer", "QuestionSetError", "load_questions", "check_answer"]


class QuestionSetError(ValueError):
    """A question set that cannot be used; the message names the file, the entry and the problem."""


@dataclass(frozen=True)
class KnownAnswer:
    """What the report must contain: one of ``exact``, ``regex``, ``number`` (with ``tolerance``)."""

    exact: str | None = None
    regex: str | None = None
    number: float | None = None
    tolerance: float = 0.0

    def describe(self) -> str:
        if self.exact is not None:
            return f"contains {self.exact!r}"
        if self.regex is not None:
            return f"matches /{self.regex}/"
        return f"a number within {self.tolerance:g} of {self.number:g}"


@dataclass(frozen=True)
class BenchQuestion:
    """One question of a set."""

    id: str
    question: str
    answer: KnownAnswer | None = None


_NUMBER = re.compile(r"(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])[-+]?\d+(?:\.\d+)?")


def check_answer(known: KnownAnswer, report: str) -> bool:
    """Whether ``report`` satisfies the known answer."""
    if known.exact is not None:
        return known.exact.lower() in report.lower()
    if known.regex is not None:
        return re.search(known.regex, report) is not None
    assert known.number is not None
    for match in _NUMBER.finditer(report):
        try:
            value = float(match.group().replace(",", ""))
        except ValueError:
            continue
        if abs(value - known.number) <= known.tolerance:
            return True
    return False


def _answer(raw: Any, where: str) -> KnownAnswer | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise QuestionSetError(f"{where}: answer must be a mapping with exact, regex or number")
    kinds = [k for k in ("exact", "regex", "number") if k in raw]
    if len(kinds) != 1:
        raise QuestionSetError(f"{where}: answer needs exactly one of exact, regex, number (got {sorted(raw)})")
    unknown = set(raw) - {"exact", "regex", "number", "tolerance"}
    if unknown:
        raise QuestionSetError(f"{where}: unknown answer field(s) {sorted(unknown)}")
    # an answer every report meets (an empty text) or none can (NaN, a negative tolerance) would pass or fail
    # every repeat without a word: refused like any other bad entry
    if "regex" in raw:
        if not str(raw["regex"]):
            raise QuestionSetError(f"{where}: the regex answer is empty (every report would match it)")
        try:
            re.compile(str(raw["regex"]))
        except re.error as exc:
            raise QuestionSetError(f"{where}: answer regex does not compile: {exc}") from None
        return KnownAnswer(regex=str(raw["regex"]))
    if "number" in raw:
        values = (raw["number"], raw.get("tolerance", 0))
        if any(isinstance(v, bool) or not isinstance(v, (int, float, str)) for v in values):
            raise QuestionSetError(f"{where}: answer number and tolerance must be numbers")
        try:
            number, tolerance = float(values[0]), float(values[1])
        except ValueError:
            raise QuestionSetError(f"{where}: answer number and tolerance must be numbers") from None
        if not math.isfinite(number):
            raise QuestionSetError(f"{where}: the answer number must be finite, got {raw['number']!r}")
        if not (math.isfinite(tolerance) and tolerance >= 0):
            raise QuestionSetError(f"{where}: the answer tolerance must be a finite number >= 0, got {values[1]!r}")
        return KnownAnswer(number=number, tolerance=tolerance)
    if not str(raw["exact"]).strip():
        raise QuestionSetError(f"{where}: the exact answer is empty (every report would contain it)")
    return KnownAnswer(exact=str(raw["exact"]))


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise QuestionSetError(f"{path}: not JSON: {exc}") from None
    try:
        require("bench")
    except MissingExtra as exc:
        raise QuestionSetError(f"{path}: reading YAML: {exc} (or write the set as .json)") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise QuestionSetError(f"{path}: not YAML: {str(exc).splitlines()[0]}") from None


def load_questions(path: str | Path) -> list[BenchQuestion]:
    """Read and check a question set; ``QuestionSetError`` names any problem."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise QuestionSetError(f"cannot read the question set {str(p)!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise QuestionSetError(f"{p}: not UTF-8 text (byte {exc.start}); save the set as UTF-8") from None
    data = _parse(p, text)
    items = data.get("questions") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise QuestionSetError(f"{p}: expected a non-empty list under 'questions'")
    out: list[BenchQuestion] = []
    seen: set[str] = set()
    for n, item in enumerate(items, 1):
        where = f"{p}: question {n}"
        if not isinstance(item, dict) or not isinstance(item.get("question"), str) or not item["question"].strip():
            raise QuestionSetError(f"{where}: needs a 'question' text")
        qid = str(item.get("id") or f"q{n}")
        if qid in seen:
            raise QuestionSetError(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        out.append(BenchQuestion(qid, item["question"].strip(), _answer(item.get("answer"), f"{where} ({qid})")))
    return out
