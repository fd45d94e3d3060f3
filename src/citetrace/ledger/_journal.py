"""The ledger's persistence: a hash-chained journal plus current rows, both behind the store interface.

Every journal entry carries ``chain`` = sha256(previous chain, kind, canonical JSON of the entry), so the
audit notices an entry that was edited, removed or inserted afterwards. Rows (questions, claims) are the
current state the renderer reads; the audit re-derives them from the journal.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Callable, Sequence

from citetrace.store import LedgerRow, Store, StoreBusy

__all__ = ["Journal", "chain_hash"]


def chain_hash(previous: str, kind: str, data: dict[str, Any]) -> str:
    """The chain value of an entry (``data`` without its own ``chain`` key)."""
    body = json.dumps({k: v for k, v in data.items() if k != "chain"}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{previous}\n{kind}\n{body}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


class Journal:
    """Appends chained entries and upserts rows for one run, in one store transaction per call."""

    def __init__(self, store: Store, run_id: str, last_chain: str = "", *, busy_wait_s: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep, last_seq: int | None = None) -> None:
        self.store = store
        self.run_id = run_id
        self.last_chain = last_chain
        self.last_seq = last_seq
        """The last seq this writer has read; each write must extend exactly that journal (None: no check)."""
        self.busy_wait_s = busy_wait_s
        self._sleep = sleep

    def write(self, entries: Sequence[tuple[str, dict[str, Any]]] = (), rows: Sequence[LedgerRow] = ()
              ) -> list[dict[str, Any]]:
        """Write entries (chained) and rows; return the entries as stored (with ``chain`` and ``seq``)."""
        chained: list[tuple[str, dict[str, Any]]] = []
        prev = self.last_chain
        for kind, data in entries:
            # a JSON round trip first, so the chain is computed over exactly what every backend stores
            item = json.loads(json.dumps(data))
            item["chain"] = prev = chain_hash(prev, kind, item)
            chained.append((kind, item))
        seqs = self._write(chained, rows)
        self.last_chain = prev
        if self.last_seq is not None and seqs:
            self.last_seq = seqs[-1]
        out = []
        for seq, (_kind, item) in zip(seqs, chained):
            item["seq"] = seq
            out.append(item)
        return out

    def _write(self, entries: list[tuple[str, dict[str, Any]]], rows: Sequence[LedgerRow]) -> list[int]:
        """One transaction; a busy store (the agent's store waits only briefly for a lock) is retried.

        The agent's store gives up on a locked database after a short wait so that tool calls never hang;
        a ledger write is a deliberate call whose loss would void the audit, so it keeps trying for up to
        ``busy_wait_s`` (the transaction was rolled back, so a retry cannot write twice). A ``StoreConflict``
        (another writer extended the journal) is not retried here: the caller's ids and rows came from the
        older state, so the ledger re-reads and recomputes them.
        """
        deadline = time.monotonic() + self.busy_wait_s
        delay = 0.01
        while True:
            try:
                return self.store.ledger_write(self.run_id, entries=entries, rows=rows, after_seq=self.last_seq)
            except StoreBusy:
                if time.monotonic() >= deadline:
                    raise
                self._sleep(delay)
                delay = min(delay * 2, 0.5)
