"""``run_demo``: start the servers, run the chosen questions through the agent, read back what was stored.

This is the demo as a library call, so tests, benchmarks and the other areas' end-to-end checks drive the
same code as ``citetrace demo``. It does not configure telemetry: the caller decides where spans go
(``configure()``, ``citetrace.testing.capture_spans()``, or the application's own TracerProvider).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable

from citetrace.demo import _faults as F
from citetrace.demo._agent import AGENT_NAME, DemoAgent, RunResult
from citetrace.demo._catalogue import question as _question
from citetrace.demo._catalogue import select_questions
from citetrace.demo._plan import Question
from citetrace.demo._servers import DemoServers
from citetrace.store import Store

__all__ = ["run_demo", "resolve_questions", "stored_summary"]


def resolve_questions(questions: Iterable[Question | str] | str | None) -> tuple[Question, ...]:
    """Questions from None (the default set), ``"all"``/``"default"``/``"a,b"``, or ids and Question objects."""
    if questions is None or isinstance(questions, str):
        return select_questions(questions)
    out: list[Question] = []
    for q in questions:
        try:
            out.append(q if isinstance(q, Question) else _question(str(q)))
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
    if not out:
        raise ValueError("no questions given")
    return tuple(out)


def _capture_store() -> Store:
    # The store citetrace's capture writes to (configure()'s, capture_spans()'s, or the lazy default).
    from citetrace import _telemetry

    return _telemetry.current().run_store()


def stored_summary(store: Store, run_id: str, *, wait_seconds: float = 2.0) -> dict[str, Any] | None:
    """The run's summary from the store, waiting briefly for the summarizer's background write."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            record = store.get_run(run_id)
        except Exception:  # noqa: BLE001 - a store problem must not stop the demo
            return None
        if record is not None and record.summary:
            return dict(record.summary)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.02)


def run_demo(
    questions: Iterable[Question | str] | str | None = None,
    faults: Iterable[str] | str | None = None,
    *,
    store: Store | None = None,
    servers: DemoServers | None = None,
    timeout: float = 0.75,
    slow_seconds: float = 1.5,
    agent_name: str = AGENT_NAME,
    on_run: Callable[[RunResult], None] | None = None,
    summary_wait: float = 2.0,
    flush: Callable[[], object] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[RunResult]:
    """Run demo questions (default set, every fault on) and return one ``RunResult`` per run.

    ``store`` is where the summaries are read back from (default: the store capture writes to). Pass
    running ``servers`` to reuse them (``--loop``); otherwise the demo starts and stops its own. The reader
    gives up after ``timeout`` seconds and the slow page answers after ``slow_seconds``. ``flush`` (e.g.
    ``telemetry.force_flush``) is called after each run so the summarizer's store write lands at once;
    without it the summary is polled for up to ``summary_wait`` seconds. ``should_stop`` is asked before
    each run: True ends the round there (``--loop`` stopped by a signal finishes the run in progress only).
    """
    chosen = resolve_questions(questions)
    enabled = F.parse_faults(faults)
    if timeout <= 0 or slow_seconds <= timeout:
        raise ValueError(f"need 0 < timeout < slow_seconds, got timeout={timeout} slow_seconds={slow_seconds}")
    own = servers is None
    srv = servers if servers is not None else DemoServers(faults=enabled, slow_seconds=slow_seconds)
    if own:
        srv.start()
    try:
        agent = DemoAgent(srv.search_url, srv.site_url, faults=enabled, timeout=timeout, agent_name=agent_name)
        results: list[RunResult] = []
        try:
            for q in chosen:
                if should_stop is not None and should_stop():
                    break
                result = agent.run(q)
                if result.span_summary is not None:  # a summarizer is active: its store write follows shortly
                    if flush is not None:
                        flush()
                    result.summary = stored_summary(store or _capture_store(), result.run_id,
                                                    wait_seconds=summary_wait)
                results.append(result)
                if on_run is not None:
                    on_run(result)
        finally:
            agent.session.close()
        return results
    finally:
        if own:
            srv.stop()
