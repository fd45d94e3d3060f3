"""One research run with the library rows instrumented, citetrace's spans captured and the summary processor
writing the run's summary to a given store: for tests that check what eval, the gate or the run page make of
a real run."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from citetrace import research_run
from citetrace.capture import Run
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.store import Store
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import capture_spans

__all__ = ["summarized_run"]


@contextmanager
def summarized_run(store: Store, question: str = "q", agent: str = "hunt") -> Iterator[Run]:
    """Inside: one ``research_run``; after: its spans ended, its summary in ``store``, everything undone."""
    inst = CiteTraceInstrumentor()
    inst.instrument(tools="")
    try:
        with capture_spans(store=store, processors=(TraceSummaryProcessor(store=store),)) as cap:
            with research_run(question=question, agent=agent) as run:
                yield run
            cap.tracer_provider.force_flush()
    finally:
        inst.uninstrument()
