"""The vocabulary of a scripted research plan and of the failure signals it is expected to produce.

A question's plan is a list of steps (``Search``, ``Read``) and the claims its report makes. A step or
claim tagged with a fault exists only when that fault is enabled, so the same plan yields the faulty run
(every fault on, the default) and the clean run (``--no-faults``). ``Expected`` holds the signals of each,
written by hand in the catalogue so that the summary and eval code can be checked against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from citetrace import names

__all__ = ["Search", "Read", "Claim", "Step", "Call", "Expected", "Question", "LABELS"]

LABELS = ("SUPPORTED", "PARTIAL", "CONTRADICTED", "ABSENT")
"""What each claim's cited page, as stored, is meant to say about it (the known answers for eval)."""


@dataclass(frozen=True)
class Search:
    """Run one search. ``results`` pins the slugs the search returns, in order (tests check it)."""

    query: str
    results: tuple[str, ...]
    fault: str | None = None
    """Only run when this fault is enabled; ``rate_limit`` also asks the server for a 429."""


@dataclass(frozen=True)
class Read:
    """Read one corpus page; its URL must come from an earlier search unless ``from_memory``."""

    slug: str
    fault: str | None = None
    """Only run when this fault is enabled (page faults are also applied by the site)."""
    from_memory: bool = False
    """The agent reads a URL no search returned (the ``uncited_citation`` fault)."""


@dataclass(frozen=True)
class Claim:
    """One report sentence and the pages it cites.

    The agent writes it only if every cited page was read with status ok, unless ``fault`` is
    ``unfetched_citation`` (then it cites without reading). ``label`` is the intended verdict of the cited
    page(s) on the sentence.
    """

    text: str
    cites: tuple[str, ...]
    label: str = "SUPPORTED"
    fault: str | None = None

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"claim label {self.label!r} is not one of {LABELS}")


Step = Union[Search, Read]


@dataclass(frozen=True)
class Call:
    """One expected tool call: kind, status, HTTP status (None when there was no response) and target.

    ``target`` is the query for a search and the page slug for a fetch.
    """

    kind: str
    status: str
    http_status: int | None
    target: str


@dataclass(frozen=True)
class Expected:
    """The exact failure signals of one run, computed by hand from its plan."""

    searches: int
    reads: int
    repeat_queries: int
    empty_searches: int
    failed_reads: int
    rate_limited: int
    distinct_urls_seen: int
    citations: int
    uncited_from_retrieval: int
    cited_not_fetched: int
    failure_reasons: tuple[str, ...]
    """In the order of ``names.FAILURE_REASONS``, default thresholds (10 searches, 1 failed read)."""
    calls: tuple[Call, ...]
    cited: tuple[str, ...]
    """Slugs of the cited pages, in reference-list order."""

    def __post_init__(self) -> None:
        unknown = set(self.failure_reasons) - set(names.FAILURE_REASONS)
        if unknown:
            raise ValueError(f"unknown failure reasons {sorted(unknown)}")
        if self.failed:
            ordered = tuple(r for r in names.FAILURE_REASONS if r in self.failure_reasons)
            if ordered != self.failure_reasons:
                raise ValueError(f"failure reasons must follow names.FAILURE_REASONS order: {ordered}")

    @property
    def failed(self) -> bool:
        return bool(self.failure_reasons)

    def signals(self) -> dict[str, int]:
        """The numeric summary fields this run must produce (all but the timings)."""
        return {
            "searches": self.searches,
            "reads": self.reads,
            "repeat_queries": self.repeat_queries,
            "empty_searches": self.empty_searches,
            "failed_reads": self.failed_reads,
            "rate_limited": self.rate_limited,
            "distinct_urls_seen": self.distinct_urls_seen,
            "citations": self.citations,
            "uncited_from_retrieval": self.uncited_from_retrieval,
            "cited_not_fetched": self.cited_not_fetched,
        }


@dataclass(frozen=True)
class Question:
    """One demo question: its plan, its claims and the signals it must produce with and without faults."""

    id: str
    question: str
    topic: str
    steps: tuple[Step, ...]
    claims: tuple[Claim, ...]
    expected: Expected
    """Every fault enabled (the default)."""
    expected_clean: Expected
    """No fault enabled (``--no-faults``)."""
    default: bool = True
    """Part of the default ``citetrace demo`` set."""
    faults: tuple[str, ...] = field(default=())
    """The faults this question shows (for ``--list``)."""
