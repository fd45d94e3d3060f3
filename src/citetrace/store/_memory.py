"""In-memory run store for tests and for ``citetrace.testing``: same interface, nothing on disk."""

from __future__ import annotations

import copy
import json
import threading
import time
from dataclasses import replace
from typing import Any, Sequence

from citetrace._urls import url_key
from citetrace.store._model import (
    ModelCitation, ToolResponse,
    AmbiguousRunId, Document, LedgerEntry, LedgerRow, RunRecord, ToolCallRecord, check_after_seq, content_hash, make_ref, parse_ref,
    summary_run,
)

__all__ = ["MemoryStore"]


class MemoryStore:
    """Run store held in dictionaries, guarded by one lock."""

    def __init__(self, uri: str = "memory://") -> None:
        self.uri = uri
        self._lock = threading.Lock()
        self._content: dict[str, str] = {}
        self._docs: list[Document] = []
        self._runs: dict[str, RunRecord] = {}
        self._calls: dict[str, dict[int, ToolCallRecord]] = {}
        self._summaries: dict[str, dict[str, Any]] = {}
        self._journal: dict[str, list[tuple[int, str, dict[str, Any]]]] = {}
        self._rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._responses: dict[str, dict[int, ToolResponse]] = {}
        self._model_citations: dict[str, dict[int, ModelCitation]] = {}

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
        sha = content_hash(text)
        with self._lock:
            self._content.setdefault(sha, text)
            self._docs.append(
                Document(run_id, url, self._content[sha], sha, time.time() if fetched_at is None else fetched_at,
                         status, http_status, content_type, len(text))
            )
        return make_ref(run_id, sha)

    def documents(self, run_id: str) -> list[Document]:
        with self._lock:
            return [d for d in self._docs if d.run_id == run_id]

    def get(self, run_id: str, url: str) -> Document | None:
        docs = self.documents(run_id)
        for d in reversed(docs):
            if d.url == url:
                return d
        key = url_key(url)
        for d in reversed(docs):
            if url_key(d.url) == key:
                return d
        return None

    def get_ref(self, ref: str) -> str | None:
        _, sha = parse_ref(ref)
        with self._lock:
            return self._content.get(sha)

    def put_run(self, run: RunRecord) -> None:
        with self._lock:
            self._runs[run.run_id] = run

    def finish_run(self, run_id: str, *, ended_at: float, answer: str | None, error_type: str | None) -> None:
        with self._lock:
            run = self._runs.get(run_id)
            if run is not None:
                self._runs[run_id] = replace(
                    run, ended_at=ended_at, answer=answer if answer is not None else run.answer, error_type=error_type
                )

    def put_calls(self, calls: Sequence[ToolCallRecord]) -> None:
        with self._lock:
            for c in calls:
                self._calls.setdefault(c.run_id, {})[c.seq] = c

    def calls(self, run_id: str) -> list[ToolCallRecord]:
        with self._lock:
            return [c for _, c in sorted(self._calls.get(run_id, {}).items())]

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: RunRecord | None = None) -> None:
        rec = summary_run(run_id, trace_id, agent, run, time.time())
        with self._lock:
            self._summaries[run_id] = dict(summary)
            self._runs.setdefault(run_id, rec)

    def _with_summary(self, run: RunRecord) -> RunRecord:
        summary = self._summaries.get(run.run_id)
        return replace(run, summary=dict(summary)) if summary is not None else run

    def runs(self, limit: int = 50) -> list[RunRecord]:
        with self._lock:
            ordered = sorted(self._runs.values(), key=lambda r: r.started_at, reverse=True)[:limit]
            return [self._with_summary(r) for r in ordered]

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._lock:
            run = self._runs.get(run_id) or next((r for r in self._runs.values() if r.trace_id == run_id), None)
            if run is None:
                matches = [r for k, r in self._runs.items() if k.startswith(run_id) or r.trace_id.startswith(run_id)]
                if len(matches) > 1:
                    raise AmbiguousRunId(run_id, len(matches), self.uri)
                run = matches[0] if matches else None
            return self._with_summary(run) if run is not None else None

    def ledger_write(
        self, run_id: str, *, entries: Sequence[LedgerEntry] = (), rows: Sequence[LedgerRow] = (),
        after_seq: int | None = None,
    ) -> list[int]:
        # JSON round trip: the same values (tuples become lists) and no aliasing of the caller's dicts,
        # so the memory backend behaves like the ones that serialise
        frozen_entries = [(kind, json.loads(json.dumps(data))) for kind, data in entries]
        frozen_rows = [(table, key, json.loads(json.dumps(data))) for table, key, data in rows]
        with self._lock:
            journal = self._journal.setdefault(run_id, [])
            check_after_seq(run_id, len(journal), after_seq)
            seqs: list[int] = []
            for kind, data in frozen_entries:
                journal.append((len(journal) + 1, kind, data))
                seqs.append(len(journal))
            for table, key, data in frozen_rows:
                self._rows.setdefault((run_id, table), {})[key] = data
            return seqs

    def ledger_entries(self, run_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        with self._lock:
            return copy.deepcopy(self._journal.get(run_id, []))

    def ledger_rows(self, run_id: str, table: str) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return copy.deepcopy(list(self._rows.get((run_id, table), {}).items()))

    def put_responses(self, responses: Sequence[ToolResponse]) -> None:
        with self._lock:
            for r in responses:
                self._responses.setdefault(r.run_id, {})[r.seq] = copy.deepcopy(r)

    def responses(self, run_id: str) -> list[ToolResponse]:
        with self._lock:
            return [copy.deepcopy(r) for _, r in sorted(self._responses.get(run_id, {}).items())]

    def put_model_citations(self, citations: Sequence[ModelCitation]) -> None:
        with self._lock:
            for c in citations:
                self._model_citations.setdefault(c.run_id, {})[c.seq] = c

    def model_citations(self, run_id: str) -> list[ModelCitation]:
        with self._lock:
            return [c for _, c in sorted(self._model_citations.get(run_id, {}).items())]

    def close(self) -> None:
        """Nothing to release."""
