"""Replay on the demo's runs: the same tool results and the same summary figures twice, with every socket
connect refused while replaying."""

from __future__ import annotations

from typing import Any

from citetrace import replay
from citetrace.bench import load_questions, run_bench
from citetrace.demo.bench_agent import answer_with_faults
from citetrace.testing import capture_spans, no_network

from .test_bench_cli import SET


def _calls(store: Any, run_id: str) -> list[tuple[str, str, str, int | None, tuple[str, ...]]]:
    return [(c.tool, c.kind, c.status, c.http_status, tuple(c.urls_returned)) for c in store.calls(run_id)]


def test_demo_runs_replay_twice_without_network() -> None:
    """Every demo question with every fault (429s, 404s, a timeout, a cookie wall) recorded once, then
    replayed twice: each replayed run's calls (tool, status, HTTP status, URLs) equal the recorded run's,
    the reports are the same, and no socket was connected."""
    questions = load_questions(SET)
    with capture_spans(record_responses=True) as cap:
        recorded = run_bench(questions, answer_with_faults, store=cap.store)
        first = {q["id"]: q["repeats"][0]["run_id"] for q in recorded["questions"]}
        for _ in range(2):
            with no_network() as attempts:
                again = {}
                for q in questions:
                    with replay(first[q.id], store=cap.store) as rp:
                        out = run_bench([q], answer_with_faults, store=cap.store)
                    assert rp.missed == 0 and rp.replayed == rp.recorded > 0
                    again[q.id] = out["questions"][0]["repeats"][0]["run_id"]
            assert attempts == []
            for qid, run_id in again.items():
                assert _calls(cap.store, run_id) == _calls(cap.store, first[qid]), qid
                assert cap.store.get_run(run_id).answer == cap.store.get_run(first[qid]).answer  # type: ignore[union-attr]
