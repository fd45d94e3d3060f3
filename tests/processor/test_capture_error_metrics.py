"""Failures capture swallows (store writes, classify hooks) show up in the summary's self-metrics."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry

from citetrace import names, traced_tool
from citetrace.config import load_settings
from citetrace.store import MemoryStore
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import capture_spans


class _FullDisk(MemoryStore):
    def put_document(self, *args: Any, **kwargs: Any) -> str:
        raise OSError("disk full")


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    return "x" * 300


@traced_tool(kind="search", classify=lambda r: "nonsense")
def confused_search(query: str) -> list[str]:
    return []


def test_swallowed_failures_are_counted_in_metrics() -> None:
    """Each failed store write and each broken classify hook increments its counter; the tool still returns."""
    registry = CollectorRegistry()
    processor = TraceSummaryProcessor(settings=load_settings(environ={}), registry=registry)
    store_metric = names.METRIC_STORE_WRITE_ERRORS_TOTAL
    capture_metric = names.METRIC_CAPTURE_ERRORS_TOTAL
    with capture_spans(store=_FullDisk(), processors=(processor,)):
        for _ in range(3):
            assert fetch("https://a.example/x") == "x" * 300
        assert confused_search("q") == []
    assert registry.get_sample_value(store_metric) == 3.0
    assert registry.get_sample_value(capture_metric) == 1.0
    processor.shutdown()
    with capture_spans(store=_FullDisk()):
        fetch("https://a.example/y")
    assert registry.get_sample_value(store_metric) == 3.0  # unregistered at shutdown
