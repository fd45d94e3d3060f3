"""The records the run store keeps, and the interface every backend implements.

The interface is small and synchronous on purpose: SQLite (embedded default), memory (tests) and
PostgreSQL (one store for a fleet, ``_postgres``) all fit it, and the capture path only ever calls ``put_document``
and ``put_run``/``finish_run``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Protocol, Sequence, runtime_checkable

from citetrace import names
from citetrace._urls import url_key

__all__ = [
    "AmbiguousRunId", "Document", "LedgerEntry", "LedgerRow", "RunRecord", "StoreBusy", "StoreConflict", "StoreError",
    "ToolCallRecord", "check_after_seq",
    "ToolResponse", "ModelCitation",
    "Store", "content_hash", "make_ref", "parse_ref", "searched_keys", "summary_run",
]


class StoreError(Exception):
    """A store that cannot be used as asked: missing, not a store, corrupted, read-only. The message names the
    store and the problem in one line, so a command can print it as it is."""


class StoreConflict(StoreError):
    """A ledger write refused because the run's journal gained entries this writer had not read (another
    ``Ledger`` on the same run, in this process or another, wrote first). Nothing was written; the ledger
    re-reads the run and applies the call again."""


def check_after_seq(run_id: str, last: int, after_seq: int | None) -> None:
    """``StoreConflict`` when a writer that read the journal up to ``after_seq`` would write after ``last``."""
    if after_seq is not None and last != after_seq:
        raise StoreConflict(f"the ledger of run {run_id} has {last} journal entries, this writer had read "
                            f"{after_seq}: another writer wrote first")


class StoreBusy(StoreError):
    """The store stayed locked (by another process or connection) for longer than this store's lock wait.

    Writers that must not stall (the agent's) queue the write and retry it later (``BufferedStore``)."""


class AmbiguousRunId(StoreError, LookupError):
    """A run-id prefix that matches more than one run; ``matches`` says how many."""

    def __init__(self, prefix: str, matches: int, where: str) -> None:
        super().__init__(f"run id prefix {prefix!r} matches {matches} runs in {where}; give more of it "
                         "(see `citetrace runs`)")
        self.prefix = prefix
        self.matches = matches


def content_hash(text: str) -> str:
    """sha256 of the UTF-8 text: the key that stores identical text once."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def make_ref(run_id: str, sha256: str) -> str:
    """The ``citetrace.store.ref`` value for a stored document."""
    return f"citetrace-store:{run_id}/{sha256}"


def parse_ref(ref: str) -> tuple[str, str]:
    """Split a store ref into (run_id, sha256); raise ValueError naming the problem."""
    prefix = "citetrace-store:"
    if not ref.startswith(prefix) or "/" not in ref[len(prefix):]:
        raise ValueError(f"not a citetrace store ref: {ref!r}")
    run_id, sha = ref[len(prefix):].rsplit("/", 1)
    return run_id, sha


@dataclass(frozen=True)
class Document:
    """One fetch's text as the agent saw it."""

    run_id: str
    url: str
    text: str
    sha256: str
    fetched_at: float
    status: str
    http_status: int | None
    content_type: str | None
    size: int

    @property
    def ref(self) -> str:
        return make_ref(self.run_id, self.sha256)


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call as ``citetrace show`` prints it."""

    run_id: str
    seq: int
    tool: str
    kind: str
    status: str
    started_at: float
    duration_ms: float
    http_status: int | None = None
    url: str | None = None
    result_count: int | None = None
    result_size: int | None = None
    query_hash: str | None = None
    error_type: str | None = None
    urls_returned: Sequence[str] = ()
    query_text: str | None = None
    url_final: str | None = None
    """A fetch the server redirected: the final URL (redacted), as the span's ``citetrace.url.final``."""


def searched_keys(calls: Iterable[ToolCallRecord]) -> set[str]:
    """URL keys a search of these calls returned, plus the final URL of each fetch redirected from one.

    The same rule as the summary's ``uncited_from_retrieval`` (a redirect target stands for the search result
    it came from; the redirect of a URL no search returned stands for nothing), so eval, the gate and the run
    page agree with it.
    """
    calls = list(calls)
    keys = {url_key(u) for c in calls if c.kind == names.TOOL_KIND_SEARCH for u in c.urls_returned}
    keys.update(url_key(c.url_final) for c in calls
                if c.kind == names.TOOL_KIND_FETCH and c.url and c.url_final and url_key(c.url) in keys)
    return keys


@dataclass(frozen=True)
class ToolResponse:
    """What one tool call returned or raised, encoded for replay (``citetrace.capture._responses``).

    ``args_key`` is the hash of the call's redacted, normalised arguments: replay matches on it, in order.
    """

    run_id: str
    seq: int
    tool: str
    args_key: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class ModelCitation:
    """One citation the model attached outside its text: a provider's record tying a span of its answer to a
    URL (OpenAI ``url_citation``, an Anthropic text block's ``citations``, a Gemini grounding support).

    ``text`` is the answer's own span the provider annotated (redacted as the answer is), so evaluation can
    find it in the recorded report whatever the offsets were relative to; ``start``/``end`` are the
    provider's offsets into the text part they came with (-1 when it gave none).
    """

    run_id: str
    seq: int
    url: str
    text: str
    start: int = -1
    end: int = -1
    kind: str = ""
    """The provider's name for the record (``url_citation``, ``web_search_result_location``, ``grounding``)."""


@dataclass(frozen=True)
class RunRecord:
    """One research run: what was asked, what was answered, and its summary once known."""

    run_id: str
    trace_id: str
    agent: str
    question: str | None
    started_at: float
    ended_at: float | None = None
    answer: str | None = None
    error_type: str | None = None
    summary: dict[str, Any] | None = field(default=None)


def summary_run(run_id: str, trace_id: str, agent: str, run: RunRecord | None, now: float) -> RunRecord:
    """The record ``put_summary`` files for a run the store has no record of: ``run`` (the root's times and
    what it carries, ``citetrace._rootrun``) under ``run_id``, else a bare one stamped ``now``."""
    if run is None:
        return RunRecord(run_id, trace_id, agent or "unknown", None, now, now)
    return replace(run, run_id=run_id, trace_id=run.trace_id or trace_id, agent=run.agent or agent or "unknown",
                   summary=None)


LedgerEntry = tuple[str, dict[str, Any]]
"""One record for a run's append-only ledger journal: (kind, JSON-able data)."""
LedgerRow = tuple[str, str, dict[str, Any]]
"""One row of a run's ledger tables (questions, claims): (table, key, JSON-able data), replaced whole."""


@runtime_checkable
class Store(Protocol):
    """What every run-store backend offers. Writes may raise; callers on the hot path catch."""

    uri: str

    def put_document(
        self,
        run_id: str,
        url: str,
        text: str,
        *,
        status: str,
        http_status: int | None = None,
        content_type: str | None = None,
        fetched_at: float | None = None,
    ) -> str:
        """Store a fetch's text; return its ``citetrace.store.ref``. Identical text is stored once."""
        ...

    def documents(self, run_id: str) -> list[Document]:
        """Every document of a run, in fetch order."""
        ...

    def get(self, run_id: str, url: str) -> Document | None:
        """The latest document of a run for a URL (exact, then canonical match), or None."""
        ...

    def get_ref(self, ref: str) -> str | None:
        """The text a ``citetrace.store.ref`` points at, or None."""
        ...

    def put_run(self, run: RunRecord) -> None:
        """Create or replace a run's record."""
        ...

    def finish_run(
        self, run_id: str, *, ended_at: float, answer: str | None, error_type: str | None
    ) -> None:
        """Record the end of a run."""
        ...

    def put_calls(self, calls: Sequence[ToolCallRecord]) -> None:
        """Record tool calls (written in one batch at run end)."""
        ...

    def calls(self, run_id: str) -> list[ToolCallRecord]:
        """A run's tool calls in order."""
        ...

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: RunRecord | None = None) -> None:
        """Save a run's summary next to it; a run with no record yet gets one (``summary_run``): ``run``, the
        record its root describes (real start and end, question), else a bare one at the write time. A run
        that has a record keeps it as it is."""
        ...

    def runs(self, limit: int = 50) -> list[RunRecord]:
        """Runs, newest first."""
        ...

    def get_run(self, run_id: str) -> RunRecord | None:
        """One run, by id, trace id or unique id prefix; None when nothing matches.

        Raises ``AmbiguousRunId`` when a prefix matches several runs, so callers can say how many. A prefix
        matches run ids and trace ids (a run under a root another instrumentation made has its trace id as
        its id)."""
        ...

    def ledger_write(
        self, run_id: str, *, entries: Sequence[LedgerEntry] = (), rows: Sequence[LedgerRow] = (),
        after_seq: int | None = None,
    ) -> list[int]:
        """In one transaction: append journal entries (never edited) and upsert rows; return the entries' seqs.

        With ``after_seq`` (the last seq the writer has read) the write is refused with ``StoreConflict``,
        writing nothing, when the journal's last seq is another: a second writer on the run got there first,
        and ids or rows computed from the older state would collide with or overwrite its write.

        The claim ledger (``citetrace.ledger``) keeps everything through this pair of methods, so a new
        backend only has to store two small tables.
        """
        ...

    def ledger_entries(self, run_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        """A run's ledger journal as (seq, kind, data), in append order."""
        ...

    def ledger_rows(self, run_id: str, table: str) -> list[tuple[str, dict[str, Any]]]:
        """A run's rows of one ledger table as (key, data), in creation order."""
        ...

    def put_responses(self, responses: Sequence[ToolResponse]) -> None:
        """Record tool responses for replay (written in one batch at run end)."""
        ...

    def responses(self, run_id: str) -> list[ToolResponse]:
        """A run's recorded tool responses, in call order."""
        ...

    def put_model_citations(self, citations: Sequence[ModelCitation]) -> None:
        """Record the citations the model attached outside its text (written in one batch at run end)."""
        ...

    def model_citations(self, run_id: str) -> list[ModelCitation]:
        """A run's model citations, in the order the provider gave them."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
