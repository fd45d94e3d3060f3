"""A real SDK pipeline for summary tests: TracerProvider -> TraceSummaryProcessor -> in-memory exporters."""

from __future__ import annotations

import random
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Tracer
from prometheus_client import CollectorRegistry

from citetrace import names
from citetrace import _telemetry
from citetrace.config import load_settings
from citetrace.store import MemoryStore, Store
from citetrace.summary import TraceSummaryProcessor


class ChosenIds(IdGenerator):
    """Trace ids from a queue the test fills (random once it is empty)."""

    def __init__(self) -> None:
        self.next_trace_ids: list[int] = []
        self._rng = random.Random(7)

    def generate_span_id(self) -> int:
        return self._rng.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        if self.next_trace_ids:
            return self.next_trace_ids.pop(0)
        return self._rng.getrandbits(128) or 1


@dataclass
class Rig:
    """One wired pipeline: ``kept`` is what the sampler exported, ``everything`` every finished span."""

    provider: TracerProvider
    processor: TraceSummaryProcessor
    kept: InMemorySpanExporter
    everything: InMemorySpanExporter
    store: Store
    registry: CollectorRegistry
    ids: ChosenIds
    tracer: Tracer = field(init=False)

    def __post_init__(self) -> None:
        self.tracer = self.provider.get_tracer("tests")

    def flush(self) -> None:
        assert self.processor.force_flush(5_000)

    def kept_spans(self) -> list[ReadableSpan]:
        self.flush()
        return list(self.kept.get_finished_spans())

    def value(self, metric: str, **labels: str) -> float:
        got = self.registry.get_sample_value(metric, labels)
        return 0.0 if got is None else got

    def roots(self) -> list[ReadableSpan]:
        return [s for s in self.everything.get_finished_spans()
                if (s.attributes or {}).get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT]


@pytest.fixture
def make_rig() -> Iterator[Callable[..., Rig]]:
    """Build a rig with settings overrides; the capture layer is pointed at it and restored afterwards."""
    stack = ExitStack()
    previous = _telemetry.current()

    def build(*, store: Store | None = None, exporter: bool = True, metrics: bool = True,
              max_buffered_spans: int = 20_000, clock: Callable[[], float] = time.monotonic,
              **settings: Any) -> Rig:
        settings.setdefault("sample_percent", 0.0)
        resolved = load_settings(**settings)
        ids = ChosenIds()
        provider = TracerProvider(id_generator=ids)
        kept, everything = InMemorySpanExporter(), InMemorySpanExporter()
        registry = CollectorRegistry(auto_describe=True)
        run_store = store if store is not None else MemoryStore()
        processor = TraceSummaryProcessor(settings=resolved, store=run_store,
                                          registry=registry if metrics else None,
                                          exporter=kept if exporter else None,
                                          max_buffered_spans=max_buffered_spans, clock=clock)
        provider.add_span_processor(processor)
        provider.add_span_processor(SimpleSpanProcessor(everything))
        _telemetry.reset(resolved, tracer_provider=provider, store=run_store)
        stack.callback(provider.shutdown)
        return Rig(provider, processor, kept, everything, run_store, registry, ids)

    try:
        yield build
    finally:
        stack.close()
        _telemetry.install(previous)
