"""A lone surrogate (\\ud800) in a result URL, a fetched URL, page text, the question or the answer never costs a
run its summary attributes, an exported attribute or a store write."""

from __future__ import annotations

from pathlib import Path

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

from citetrace import names, research_run, traced_tool
from citetrace.store import SQLiteStore
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import capture_spans

BAD_URL = "https://a.example/x\ud800y"


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    """Search."""
    return [{"url": BAD_URL}, {"url": "https://b.example/ok"}]


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    """Fetch."""
    return "page text \ud800 with a lone surrogate " * 10


def test_lone_surrogates_cost_no_summary_attribute_or_write(tmp_path: Path) -> None:
    """The run keeps its summary, every span encodes to OTLP with all its attributes, and the page is stored."""
    store = SQLiteStore(tmp_path / "store.db")
    with capture_spans(store=store, capture_content=True, processors=(TraceSummaryProcessor(),)) as cap:
        with research_run("question \ud800?") as run:
            search("query \ud800")
            fetch(BAD_URL)
            run.record_answer(f"Found it [1].\n\n[1] {BAD_URL}\n")
    (root,) = cap.run_spans()
    assert root.attributes[names.summary_attr("reads")] == 1  # type: ignore[index]
    assert root.attributes[names.summary_attr("cited_not_fetched")] == 0  # type: ignore[index]
    encoded = encode_spans(cap.spans).resource_spans[0].scope_spans[0].spans
    for ours, proto in zip(cap.spans, encoded):
        assert len(proto.attributes) == len(ours.attributes or {}), ours.name  # none dropped by the encoder
    (doc,) = store.documents(run.id)
    assert doc.status == names.STATUS_OK and "\ufffd" in doc.text and doc.url == "https://a.example/x\ufffdy"
    stored = store.get_run(run.id)
    assert stored is not None and stored.answer and "\ufffd" in stored.answer and stored.ended_at is not None
    assert store.get(run.id, BAD_URL) is not None  # the raw URL still finds the stored page
