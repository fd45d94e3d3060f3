"""The deterministic research agent: real HTTP calls through ``@traced_tool``, a scripted plan, a cited report.

No LLM and no randomness: each question's plan says what to search and read, and the report keeps only the
claims whose sources were read successfully (except where a fault makes it cite a page it never read). The
search client and the page reader are ordinary ``requests`` code wrapped with ``@traced_tool``, so every
call becomes an ``execute_tool`` span and every page read lands in the run store.
"""

from __future__ import annotations

import html.parser
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import requests

from citetrace import names, research_run, traced_tool
from citetrace.demo import _faults as F
from citetrace.demo._plan import Claim, Expected, Question, Read, Search
from citetrace.store import ToolCallRecord

__all__ = ["DemoAgent", "PageText", "RunResult", "CallResult", "html_to_text", "write_report", "expected_for"]

AGENT_NAME = "demo-researcher"
MIN_READABLE_CHARS = 200
"""The agent cites no page with less text than this (citetrace's default empty-fetch threshold)."""


@dataclass(frozen=True)
class PageText:
    """What the page reader returns: the readable text of a page and the HTTP status it came with."""

    url: str
    text: str
    status_code: int


@dataclass(frozen=True)
class CallResult:
    """One tool call of a run: what the agent asked for and what citetrace recorded for it."""

    kind: str
    target: str
    """The query (search) or the URL (fetch)."""
    record: ToolCallRecord | None
    """citetrace's record of the call (status, HTTP status, timing, counts), None if capture is disabled."""

    @property
    def status(self) -> str | None:
        return self.record.status if self.record is not None else None


@dataclass
class RunResult:
    """One finished demo run."""

    question: Question
    faults: frozenset[str]
    run_id: str
    trace_id: str
    report: str
    cited_urls: tuple[str, ...]
    calls: tuple[CallResult, ...]
    duration_s: float
    span_summary: dict[str, Any] | None = None
    """The ``citetrace.summary.*`` attributes the summarizer wrote on the root span (field -> value)."""
    summary: dict[str, Any] | None = None
    """The run's summary as saved in the store, when the summary processor is configured."""

    @property
    def expected(self) -> Expected | None:
        """The hand-computed signals for this run's fault selection (None for a partial selection)."""
        return expected_for(self.question, self.faults)


def expected_for(question: Question, faults: Iterable[str]) -> Expected | None:
    """``expected`` when all of the question's faults are enabled, ``expected_clean`` when none is."""
    enabled = set(faults) & set(question.faults)
    if enabled == set(question.faults):
        return question.expected
    if not enabled:
        return question.expected_clean
    return None


class _TextExtractor(html.parser.HTMLParser):
    _SKIP = frozenset({"script", "style", "head", "nav", "title", "noscript"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and not self._skip:
            self.blocks.append(text)


def html_to_text(markup: str) -> str:
    """The readable text of an HTML page: text blocks outside head/nav/script/style, one per paragraph."""
    parser = _TextExtractor()
    parser.feed(markup)
    parser.close()
    return "\n\n".join(parser.blocks)


class DemoAgent:
    """A scripted researcher over the demo servers. ``run(question)`` performs one traced research run."""

    def __init__(
        self,
        search_url: str,
        site_url: str,
        *,
        faults: Iterable[str] | str | None = None,
        timeout: float = 0.75,
        agent_name: str = AGENT_NAME,
        session: requests.Session | None = None,
    ) -> None:
        self.search_url = search_url
        self.site_url = site_url.rstrip("/")
        self.faults = F.parse_faults(faults)
        self.timeout = timeout
        self.agent_name = agent_name
        self.session = session or requests.Session()

    # -- the two tools --------------------------------------------------------------------------------
    @traced_tool(kind="search", name="web_search")
    def search(self, query: str, *, fault: str | None = None) -> list[dict[str, str]]:
        """Search the demo corpus; returns results with url, title and snippet."""
        params = {"q": query, "n": "5"}
        if fault:
            params["fault"] = fault
        response = self.session.get(self.search_url, params=params, timeout=self.timeout)
        response.raise_for_status()
        results: list[dict[str, str]] = response.json()["results"]
        return results

    @traced_tool(kind="fetch", name="read_page")
    def read(self, url: str) -> PageText:
        """Fetch a page and return its readable text."""
        response = self.session.get(url, timeout=self.timeout)
        response.raise_for_status()
        return PageText(url=url, text=html_to_text(response.text), status_code=response.status_code)

    # -- one run --------------------------------------------------------------------------------------
    def page_url(self, slug: str) -> str:
        return f"{self.site_url}/pages/{slug}"

    def _on(self, fault: str | None) -> bool:
        return fault is None or fault in self.faults

    def run(self, question: Question) -> RunResult:
        """Run a question's plan inside ``research_run`` and record the report."""
        t0 = time.perf_counter()
        with research_run(question=question.question, agent=self.agent_name) as run:
            report, cited, targets = self.research(question)
            run.record_answer(report)
        records = run.calls
        calls = tuple(
            CallResult(kind, target, records[i] if i < len(records) else None)
            for i, (kind, target) in enumerate(targets)
        )
        return RunResult(question, self.faults, run.id, run.trace_id, report, cited, calls,
                         time.perf_counter() - t0, span_summary=_span_summary(run.span))

    def research(self, question: Question) -> tuple[str, tuple[str, ...], list[tuple[str, str]]]:
        """Follow the plan in whatever run is current; return the report, its cited URLs and the call targets."""
        seen: set[str] = set()
        read_ok: set[str] = set()
        read_urls: dict[str, str] = {}
        targets: list[tuple[str, str]] = []
        for step in question.steps:
            if not self._on(step.fault):
                continue
            if isinstance(step, Search):
                targets.append((names.TOOL_KIND_SEARCH, step.query))
                server_fault = step.fault if step.fault in F.SERVER_FAULTS else None
                try:
                    results = self.search(step.query, fault=server_fault)
                except requests.RequestException:
                    continue  # a real agent would back off; this one moves on to its next query
                seen.update(r["url"] for r in results)
            else:
                url = read_urls[step.slug] = self._read_url(step, seen)
                targets.append((names.TOOL_KIND_FETCH, url))
                try:
                    page = self.read(url)
                except requests.RequestException:
                    continue
                if len(page.text) >= MIN_READABLE_CHARS:
                    read_ok.add(step.slug)
        report, cited = write_report(question, lambda slug: read_urls.get(slug) or self.page_url(slug), read_ok,
                                     self.faults)
        return report, cited, targets

    def _read_url(self, step: Read, seen: set[str]) -> str:
        """The URL a search returned for the page (as a real agent reads it), or, for a page read from
        memory, the agent's own idea of it."""
        url = self.page_url(step.slug)
        if url in seen or step.from_memory:
            return url
        suffix = f"/pages/{step.slug}"
        returned = sorted(u for u in seen if u.endswith(suffix))  # e.g. a replayed search from another port
        if not returned:
            raise RuntimeError(f"demo plan error: {step.slug!r} is read but no earlier search returned it")
        return returned[0]


def _span_summary(span: Any) -> dict[str, Any] | None:
    """The summary fields on a finished SDK root span, or None when no summarizer wrote them."""
    attrs = getattr(span, "attributes", None) or {}
    out = {k[len(names.SUMMARY_PREFIX):]: v for k, v in attrs.items() if k.startswith(names.SUMMARY_PREFIX)}
    if not out:
        return None
    for key, value in out.items():
        if isinstance(value, tuple):
            out[key] = list(value)
    return out


def _claim_usable(claim: Claim, read_ok: set[str], faults: frozenset[str]) -> bool:
    if claim.fault is not None and claim.fault not in faults:
        return False
    if claim.fault == F.UNFETCHED_CITATION:
        return True
    return all(slug in read_ok for slug in claim.cites)


def write_report(question: Question, page_url: Callable[[str], str], read_ok: set[str],
                 faults: frozenset[str]) -> tuple[str, tuple[str, ...]]:
    """The cited report: one sentence per usable claim with ``[n]`` markers, then the reference list.

    Returns the report text and the cited URLs in reference order.
    """
    numbers: dict[str, int] = {}
    sentences: list[str] = []
    for claim in question.claims:
        if not _claim_usable(claim, read_ok, faults):
            continue
        markers = "".join(f"[{numbers.setdefault(slug, len(numbers) + 1)}]" for slug in claim.cites)
        sentences.append(f"{claim.text} {markers}.")
    lines = [f"# {question.question}", ""]
    if sentences:
        lines.append(" ".join(sentences))
    else:
        lines.append("No source could be read, so there is nothing to report.")
    urls = tuple(page_url(slug) for slug in numbers)
    if urls:
        lines += ["", "## References", ""]
        lines += [f"[{i}] {url}" for i, url in enumerate(urls, 1)]
    return "\n".join(lines) + "\n", urls
