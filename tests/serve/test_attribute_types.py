"""A wrongly typed summary attribute rejects that span alone (OTLP partial success), counted, at decode."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from citetrace import names
from citetrace.serve import decode_body, encode_request, request_json
from citetrace.serve._schema import SUMMARY_INPUTS, attribute_problem
from citetrace.summary import SpanRecord

from ._spans import healthy_run, tool

PB = "application/x-protobuf"

BAD_VALUES: list[tuple[str, Any]] = [
    (names.TOOL_KIND, {"k": "search"}),
    (names.TOOL_STATUS, {"k": "ok"}),
    (names.URLS_RETURNED, ("https://a.org/x", {"k": "v"})),
    (names.URLS_RETURNED, "https://a.org/x"),
    (names.RUN_ID, 7),
    (names.QUERY_HASH, ("h",)),
    (names.CITATIONS, (1, 2)),
    (names.GEN_AI_OPERATION_NAME, True),
    (names.SEARCH_SOURCES_REPORTED, "false"),
    (names.PAGES_RETURNED, ("https://a.org/x", 3)),
    (names.SEARCH_CONTENT_RETURNED, 1),
]


def _retyped(record: SpanRecord, key: str, value: Any) -> SpanRecord:
    attrs = dict(record.attributes)
    attrs[key] = value
    return SpanRecord(record.trace_id, record.span_id, record.parent_span_id, record.name, record.start_ns,
                      record.end_ns, attrs, record.status_error)


@pytest.mark.parametrize(("key", "value"), BAD_VALUES)
@pytest.mark.parametrize("media", [PB, "application/json"])
def test_a_wrongly_typed_attribute_rejects_only_its_span(key: str, value: Any, media: str) -> None:
    """One span with a kvlist/array/int where a string (or string array) belongs is refused; the rest decode."""
    spans = healthy_run(0xA1) + healthy_run(0xA2)
    spans[0] = _retyped(spans[0], key, value)
    request = encode_request(spans)
    body = request.SerializeToString() if media == PB else request_json(request)
    decoded = decode_body(body, media, SUMMARY_INPUTS)
    assert decoded.rejected == 1 and decoded.mistyped == 1
    assert len(decoded.spans) == len(spans) - 1
    assert key in decoded.problem
    assert all(s.span_id != spans[0].span_id or s.trace_id != spans[0].trace_id for s in decoded.spans)


def test_well_typed_values_pass_and_unknown_keys_are_not_checked() -> None:
    """The schema accepts what capture writes (strings, string arrays, empty arrays) and ignores other keys."""
    record = tool(0xB1, 2, names.TOOL_KIND_SEARCH, names.STATUS_EMPTY, urls=())
    assert attribute_problem(record.attributes) is None
    assert attribute_problem({"other.key": {"a": 1}, names.URLS_RETURNED: ("a", "b")}) is None
    assert attribute_problem({names.TOOL_KIND: {"a": "b"}}) is not None


def test_decoded_values_are_plain_python_types() -> None:
    """Accepted span attributes hold only str and tuple-of-str values for the summary's keys."""
    request = ExportTraceServiceRequest.FromString(encode_request(healthy_run(0xC1)).SerializeToString())
    decoded = decode_body(request.SerializeToString(), PB, SUMMARY_INPUTS)
    for span in decoded.spans:
        for key, value in span.attributes.items():
            assert isinstance(value, str) or (isinstance(value, tuple) and all(isinstance(v, str) for v in value)), key


def test_json_kvlist_value_for_status_is_rejected_not_raised() -> None:
    """The exact shape from the attack (kvlistValue for citetrace.tool.status in OTLP/JSON) is a refused span."""
    data = json.loads(request_json(encode_request(healthy_run(0xD1))))
    span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    for kv in span["attributes"]:
        if kv["key"] == names.TOOL_STATUS:
            kv["value"] = {"kvlistValue": {"values": [{"key": "x", "value": {"stringValue": "ok"}}]}}
    decoded = decode_body(json.dumps(data).encode(), "application/json", SUMMARY_INPUTS)
    assert (decoded.rejected, decoded.mistyped, len(decoded.spans)) == (1, 1, 2)


def test_service_answers_partial_success_counts_it_and_takes_a_clean_resend(make_service: Any, store: Any) -> None:
    """Over HTTP: 200 with rejected_spans, counted by reason; the other run is whole; the clean resend counts."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    from .test_service import post, sample, scrape

    service = make_service(grace_seconds=30.0)
    run_a = healthy_run(0xE1, run_id="run-a")
    run_b = healthy_run(0xE2, run_id="run-b")
    bad = _retyped(run_a[1], names.TOOL_KIND, {"k": "fetch"})
    status, body, _ = post(service, encode_request([run_a[0], bad, run_a[2]] + run_b).SerializeToString(),
                           {"Content-Type": PB})
    assert status == 200
    answer = ExportTraceServiceResponse.FromString(body)
    assert answer.partial_success.rejected_spans == 1
    assert names.TOOL_KIND in answer.partial_success.error_message
    status, body, _ = post(service, encode_request([run_a[1]]).SerializeToString(), {"Content-Type": PB})
    assert status == 200 and not ExportTraceServiceResponse.FromString(body).HasField("partial_success")
    samples = scrape(service)
    assert sample(samples, names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_ATTRIBUTE_TYPE) == 1
    service.stop(drain_seconds=0)
    for run_id in ("run-a", "run-b"):
        record = store.get_run(run_id)
        assert record is not None and record.summary is not None
        assert (record.summary["searches"], record.summary["reads"]) == (1, 1), run_id


def test_string_arrays_decode_to_the_same_tuples_in_order() -> None:
    """The array fast path gives back exactly the URLs sent, in order, and an empty array as an empty tuple."""
    urls = ("https://a.org/1", "https://b.org/2?q=x", "", "https://a.org/1")
    spans = [tool(0xE1, 2, names.TOOL_KIND_SEARCH, names.STATUS_OK, urls=urls),
             tool(0xE1, 3, names.TOOL_KIND_SEARCH, names.STATUS_EMPTY, urls=())]
    decoded = decode_body(encode_request(spans).SerializeToString(), PB, SUMMARY_INPUTS)
    assert decoded.rejected == 0
    assert [s.attributes[names.URLS_RETURNED] for s in decoded.spans] == [urls, ()]
