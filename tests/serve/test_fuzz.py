"""Hypothesis over the whole ingest path: decompress, decode and assemble, with hostile attribute types."""

from __future__ import annotations

import gzip
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from citetrace import names
from citetrace.serve import BodyError, decode_body, encode_request, request_json
from citetrace.serve._assembler import Assembler
from citetrace.serve._decode import decompress
from citetrace.serve._schema import SUMMARY_INPUTS, attribute_problem
from citetrace.summary import SpanRecord, SummaryMetrics, Thresholds

_scalars = st.text(max_size=12) | st.integers(-(2**63), 2**63 - 1) | st.booleans() | st.floats(allow_nan=False) \
    | st.binary(max_size=8)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3).map(tuple) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_keys = st.sampled_from(sorted(SUMMARY_INPUTS) + ["other.key"])
_good = {
    names.TOOL_KIND: st.sampled_from(names.TOOL_KINDS), names.TOOL_STATUS: st.sampled_from(names.TOOL_STATUSES),
    names.GEN_AI_OPERATION_NAME: st.sampled_from([names.OP_INVOKE_AGENT, names.OP_EXECUTE_TOOL]),
    names.URLS_RETURNED: st.lists(st.sampled_from(["https://a.org/1", "https://b.org/?q=1"]), max_size=3).map(tuple),
}


@st.composite
def _span(draw: Any) -> SpanRecord:
    attrs: dict[str, Any] = {key: draw(strategy) for key, strategy in _good.items() if draw(st.booleans())}
    attrs.update(draw(st.dictionaries(_keys, _values, max_size=3)))
    start = draw(st.integers(0, 2**40))
    return SpanRecord(draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.sampled_from([None, 1])), "s", start,
                      start + draw(st.integers(0, 10**9)), attrs, draw(st.booleans()))


@settings(max_examples=200, deadline=None)
@given(spans=st.lists(_span(), min_size=1, max_size=8), as_json=st.booleans(), members=st.integers(0, 3),
       tail=st.sampled_from([b"", b"", b"x", b"\x1f\x8b"]))
def test_ingest_path_never_raises_and_accounts_for_every_span(spans: list[SpanRecord], as_json: bool, members: int,
                                                            tail: bytes) -> None:
    """Every span is either decoded well typed or counted as rejected; the assembler never raises on them."""
    request = encode_request(spans, service_name="svc")
    body = request_json(request) if as_json else request.SerializeToString()
    media = "application/json" if as_json else "application/x-protobuf"
    encoding = "gzip" if members else ""
    if members:
        cut = [len(body) * i // members for i in range(members + 1)]
        body = b"".join(gzip.compress(body[a:b]) for a, b in zip(cut, cut[1:])) + tail
    try:
        plain = decompress(body, encoding, 1 << 20)
    except BodyError as exc:
        assert tail and exc.status == 400
        return
    assert not (members and tail)
    decoded = decode_body(plain, media, SUMMARY_INPUTS)
    assert len(decoded.spans) + decoded.rejected == len(spans)
    assert decoded.mistyped == sum(attribute_problem(s.attributes) is not None for s in spans)  # ids are all valid
    for span in decoded.spans:
        assert attribute_problem(span.attributes) is None
    metrics = SummaryMetrics(CollectorRegistry())
    assembler = Assembler(metrics=metrics, thresholds=Thresholds(), max_traces=2, max_roots_per_trace=2,
                          max_urls_per_trace=4, grace_seconds=0.0)
    added = assembler.add(decoded.spans)
    assert metrics.registry.get_sample_value(names.METRIC_SPAN_PROCESSING_ERRORS_TOTAL) == 0
    assembler.finalize_due()
    summaries, _ = assembler.drain()
    assert all(s.searches >= 0 for s, _ in added.finished + summaries)
    assert assembler.held_bytes == 0

