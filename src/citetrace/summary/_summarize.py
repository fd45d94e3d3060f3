"""The pure summary: a trace's tool spans (and its root) in, one ``TraceSummary`` out.

It reads only what capture writes on tool spans (``citetrace.tool.*``, ``citetrace.urls_returned``,
``citetrace.query.hash``, ``url.full``) and on the root (``citetrace.citations``, ``error.type``, status),
never ``citetrace.summary.*``, so ``citetrace serve`` can call it on spans decoded from OTLP. The work is
split into an accumulator fed one span at a time (what the in-process processor uses, so it holds counters
and URL sets, not spans) and a ``finish`` step; ``summarize`` is both steps over an iterable.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from citetrace import names
from citetrace.summary._fnv import keep_by_hash
from citetrace.summary._model import SpanRecord, Thresholds, TraceSummary
from citetrace._urls import url_key, url_keys

__all__ = ["summarize", "tool_status", "fold_query", "RunAccumulator"]

_STATUSES = frozenset(names.TOOL_STATUSES)
_KINDS = frozenset(names.TOOL_KINDS)
_FAILED = frozenset((names.STATUS_ERROR, names.STATUS_RATE_LIMITED))  # a search attempt that got no answer


def tool_status(attributes: Mapping[str, Any], status_error: bool) -> str:
    """The span's ``citetrace.tool.status``; missing or unknown: ``error`` if the span errored, else ``ok``."""
    status = attributes.get(names.TOOL_STATUS)
    if status in _STATUSES:
        return str(status)
    return names.STATUS_ERROR if status_error else names.STATUS_OK


def fold_query(text: str) -> str:
    """A query folded for repeat detection: case-folded, whitespace collapsed."""
    return " ".join(text.casefold().split())


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (tuple, list)):
        return tuple(v for v in value if isinstance(v, str))
    return ()


class RunAccumulator:
    """Counters and URL sets of one run, fed one tool span at a time. Not thread-safe: callers lock."""

    __slots__ = (
        "searches", "reads", "repeat_queries", "empty_searches", "failed_reads", "rate_limited",
        "slowest_ns", "first_start", "last_end", "agent", "run_id", "_queries", "_results", "_fetched",
        "unreported", "_pages", "_failed_queries", "_redirects", "_attempts", "_unordered",
    )

    def __init__(self) -> None:
        self.searches = 0
        self.reads = 0
        self.repeat_queries = 0
        self.empty_searches = 0
        self.failed_reads = 0
        self.rate_limited = 0
        self.slowest_ns = 0
        self.first_start = 0
        self.last_end = 0
        self.agent: str | None = None
        self.run_id: str | None = None
        self._queries: set[str] = set()
        self._failed_queries: set[str] = set()  # query keys whose latest attempt failed: the next one is a retry
        # every search attempt as (end, start, failed, query key): spans reach serve and the connector in any order
        # (a retried or re-routed export), so when one arrives before an attempt that ended earlier, finish
        # replays the attempts in the order they ended, the order the in-process processor sees them in
        self._attempts: list[tuple[int, int, bool, str]] = []
        self._unordered = False
        self._redirects: list[tuple[str, str]] = []  # (url.full, final URL) of each redirected fetch
        self._results: set[str] = set()  # raw strings; keyed once, at finish
        self._fetched: set[str] = set()
        self._pages: set[str] = set()  # the page texts that came with search results (also in _fetched)
        self.unreported = 0  # provider-side searches whose results nobody reported: citations uncheckable

    def extent(self, start_ns: int, end_ns: int) -> None:
        """Widen the run's time extent (used for ``total_ms`` when there is no root)."""
        if start_ns and (not self.first_start or start_ns < self.first_start):
            self.first_start = start_ns
        if end_ns > self.last_end:
            self.last_end = end_ns

    def add(self, attributes: Mapping[str, Any], start_ns: int, end_ns: int, status_error: bool) -> bool:
        """Count one span if it is a tool span; return whether it was."""
        kind = attributes.get(names.TOOL_KIND)
        if kind not in _KINDS:
            return False
        if start_ns and (not self.first_start or start_ns < self.first_start):
            self.first_start = start_ns
        if end_ns > self.last_end:
            self.last_end = end_ns
        status = attributes.get(names.TOOL_STATUS)
        if status not in _STATUSES:
            status = names.STATUS_ERROR if status_error else names.STATUS_OK
        duration = end_ns - start_ns
        if duration > self.slowest_ns:
            self.slowest_ns = duration
        if self.agent is None:
            agent = attributes.get(names.GEN_AI_AGENT_NAME)
            self.agent = agent if isinstance(agent, str) and agent else None
        if self.run_id is None:
            run_id = attributes.get(names.RUN_ID)
            self.run_id = run_id if isinstance(run_id, str) and run_id else None
        if status == names.STATUS_RATE_LIMITED:
            self.rate_limited += 1
        if kind == names.TOOL_KIND_SEARCH:
            self.searches += 1
            if status == names.STATUS_EMPTY:
                self.empty_searches += 1
            qkey = attributes.get(names.QUERY_HASH)
            if not isinstance(qkey, str) or not qkey:
                text = attributes.get(names.QUERY_TEXT)
                qkey = "text:" + fold_query(text) if isinstance(text, str) else None
            if qkey is not None:
                attempt = (end_ns, start_ns, status in _FAILED, qkey)
                if self._attempts and attempt < self._attempts[-1]:
                    self._unordered = True
                self._attempts.append(attempt)
                if qkey in self._queries:
                    if qkey not in self._failed_queries:  # right after a failed attempt it is a retry
                        self.repeat_queries += 1
                else:
                    self._queries.add(qkey)
                if attempt[2]:
                    self._failed_queries.add(qkey)
                else:
                    self._failed_queries.discard(qkey)
            urls = attributes.get(names.URLS_RETURNED)
            if isinstance(urls, tuple) and urls and isinstance(urls[0], str):
                self._results.update(urls)  # SDK and OTLP attribute arrays are homogeneous: one check suffices
            elif urls is not None:
                self._results.update(_strings(urls))
            pages = attributes.get(names.PAGES_RETURNED)
            if pages is not None:  # page text came with these results: they were read
                arrived = _strings(pages)
                self._fetched.update(arrived)
                self._pages.update(arrived)
            if names.SEARCH_SOURCES_REPORTED in attributes or names.SEARCH_CONTENT_RETURNED in attributes:
                self._provider_search(attributes, urls)
        else:
            self.reads += 1
            if status != names.STATUS_OK:
                self.failed_reads += 1
            url = attributes.get(names.URL_FULL)
            if isinstance(url, str) and url:
                self._fetched.add(url)
                final = attributes.get(names.URL_FINAL)
                if isinstance(final, str) and final:  # a redirect: the final URL was read
                    self._fetched.add(final)
                    self._redirects.append((url, final))
            pages = attributes.get(names.PAGES_RETURNED)
            if pages is not None:  # a fetch of several URLs in one call: each URL fetched, as url.full is
                self._fetched.update(_strings(pages))
        return True

    def _repeats_in_end_order(self) -> int:
        """Repeated queries with the attempts taken in the order they ended (ties: start, then failed last, then
        key), as ``add`` counts them when spans come in that order; the collector's accumulator does the same."""
        seen: set[str] = set()
        failing: set[str] = set()
        repeats = 0
        for _end, _start, failed, qkey in sorted(self._attempts):
            if qkey in seen:
                if qkey not in failing:
                    repeats += 1
            else:
                seen.add(qkey)
            if failed:
                failing.add(qkey)
            else:
                failing.discard(qkey)
        return repeats

    def _provider_search(self, attributes: Mapping[str, Any], urls: Any) -> None:
        """A provider-side search: results that carried page content count as read; unreported ones as unknown."""
        if attributes.get(names.SEARCH_SOURCES_REPORTED) is False:
            self.unreported += 1
        if attributes.get(names.SEARCH_CONTENT_RETURNED) is True and urls is not None:
            self._fetched.update(_strings(urls))

    def finish(
        self,
        trace_id: int,
        *,
        root: SpanRecord | None,
        citations: Sequence[str] | None,
        thresholds: Thresholds,
        default_agent: str | None = None,
    ) -> TraceSummary:
        """The summary of everything added so far."""
        root_attrs: Mapping[str, Any] = root.attributes if root is not None else {}
        if citations is None:
            citations = _strings(root_attrs.get(names.CITATIONS))
        cited: dict[str, str] = {}  # key -> URL as first cited
        for url in citations:
            cited.setdefault(url_key(url), url)
        result_keys = url_keys(self._results)
        fetched_keys = url_keys(self._fetched)
        # a redirect target of a URL a search returned stands for that result (not one more URL seen)
        retrieved = result_keys | {url_key(final) for url, final in self._redirects if url_key(url) in result_keys}
        if self.unreported:  # the provider never said what its search returned: nothing to check against
            uncited: tuple[str, ...] = ()
            unfetched: tuple[str, ...] = ()
        else:
            uncited = tuple(url for key, url in cited.items() if key not in retrieved)
            unfetched = tuple(url for key, url in cited.items() if key not in fetched_keys)

        agent_error = root is not None and (root.status_error or names.ERROR_TYPE in root_attrs)
        reasons: list[str] = []
        if uncited:
            reasons.append(names.REASON_UNCITED_URL)
        if unfetched:
            reasons.append(names.REASON_CITED_NOT_FETCHED)
        if self.empty_searches:
            reasons.append(names.REASON_EMPTY_SEARCH)
        if self.failed_reads > thresholds.max_failed_reads:
            reasons.append(names.REASON_FAILED_READS)
        if self.searches > thresholds.max_searches:
            reasons.append(names.REASON_TOO_MANY_SEARCHES)
        if self.rate_limited:
            reasons.append(names.REASON_RATE_LIMITED)
        if agent_error:
            reasons.append(names.REASON_AGENT_ERROR)
        failed = bool(reasons)
        keep = failed or keep_by_hash(trace_id, salt=thresholds.sample_salt, percent=thresholds.sample_percent)

        if root is not None:
            total_ns = root.duration_ns
        else:
            total_ns = max(0, self.last_end - self.first_start) if self.first_start else 0
        agent = _root_str(root_attrs, names.GEN_AI_AGENT_NAME) or self.agent or default_agent
        run_id = _root_str(root_attrs, names.RUN_ID) or self.run_id or ""
        return TraceSummary(
            agent=agent or names.AGENT_UNKNOWN,
            run_id=run_id,
            trace_id=f"{trace_id:032x}",
            searches=self.searches,
            reads=self.reads,
            repeat_queries=self._repeats_in_end_order() if self._unordered else self.repeat_queries,
            empty_searches=self.empty_searches,
            failed_reads=self.failed_reads,
            rate_limited=self.rate_limited,
            distinct_urls_seen=len(result_keys),
            citations=len(cited),
            uncited_from_retrieval=len(uncited),
            cited_not_fetched=len(unfetched),
            pages_from_search=len(url_keys(self._pages)),
            unreported_searches=self.unreported,
            slowest_ms=self.slowest_ns / 1e6,
            total_ms=total_ns / 1e6,
            failure_reasons=tuple(reasons),
            failed=failed,
            keep=keep,
            uncited_urls=uncited,
            unfetched_urls=unfetched,
        )


def _root_str(attrs: Mapping[str, Any], key: str) -> str | None:
    value = attrs.get(key)
    return value if isinstance(value, str) and value else None


def summarize(
    spans: Iterable[SpanRecord],
    *,
    root: SpanRecord | None = None,
    citations: Sequence[str] | None = None,
    thresholds: Thresholds | None = None,
    default_agent: str | None = None,
) -> TraceSummary:
    """Summarize one run from its spans.

    ``root`` is the run's ``invoke_agent`` span; when omitted it is looked for among ``spans`` (the span
    whose ``gen_ai.operation.name`` is ``invoke_agent``, preferring one without a parent). ``citations``
    overrides the root's ``citetrace.citations``. Every tool span given is counted: callers with several
    runs in one trace pass each run's spans separately. ``default_agent`` (e.g. the service name) names the
    agent when no span does. The trace id is the root's, else the first span's.
    """
    acc = RunAccumulator()
    found_root: SpanRecord | None = None
    trace_id = root.trace_id if root is not None else 0
    for span in spans:
        if not trace_id:
            trace_id = span.trace_id
        if root is None and span.attributes.get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT:
            if found_root is None or (found_root.parent_span_id is not None and span.parent_span_id is None):
                found_root = span
        if root is not None and span.span_id == root.span_id:
            continue
        if not acc.add(span.attributes, span.start_ns, span.end_ns, span.status_error):
            acc.extent(span.start_ns, span.end_ns)
    if root is None:
        root = found_root
    return acc.finish(
        trace_id,
        root=root,
        citations=citations,
        thresholds=thresholds if thresholds is not None else Thresholds(),
        default_agent=default_agent,
    )
