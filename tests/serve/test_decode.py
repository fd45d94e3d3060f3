"""OTLP request bodies: protobuf and OTLP/JSON decode to the same spans; every bad body is a BodyError."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citetrace import names
from citetrace.serve import BodyError, decode_body, encode_request, request_json
from citetrace.serve._decode import decompress

from ._spans import failing_run, healthy_run

PB = "application/x-protobuf"


def test_protobuf_round_trip_keeps_ids_times_attributes_and_status() -> None:
    """A protobuf request decodes to the span ids, times, typed attributes, error status and service name sent."""
    spans = failing_run(0xABC) + healthy_run(0xDEF)
    decoded = decode_body(encode_request(spans, service_name="svc").SerializeToString(), PB)
    assert decoded.rejected == 0
    got = [(w.trace_id, w.span_id, w.parent_span_id or None, w.name, w.start_ns, w.end_ns, w.status_error)
           for w in decoded.spans]
    assert got == [(s.trace_id, s.span_id, s.parent_span_id, s.name, s.start_ns, s.end_ns, s.status_error)
                   for s in spans]
    assert [w.attributes for w in decoded.spans] == [dict(s.attributes) for s in spans]
    assert {w.service_name for w in decoded.spans} == {"svc"}


def test_json_with_hex_ids_decodes_like_protobuf() -> None:
    """OTLP/JSON (hex trace/span ids, camelCase, integer enums) decodes to exactly the protobuf result."""
    request = encode_request(failing_run(0x1F2E3D4C5B6A79881726354453627180), service_name="svc")
    body = request_json(request)
    assert "1f2e3d4c5b6a79881726354453627180" in body.decode()
    assert decode_body(body, "application/json; charset=utf-8") == decode_body(request.SerializeToString(), PB)


def test_json_accepts_proto_field_names_and_string_int64() -> None:
    """The JSON mapping's alternatives (snake_case keys, int64 as strings) are accepted."""
    body = {"resource_spans": [{"scope_spans": [{"spans": [{
        "trace_id": "0102030405060708090a0b0c0d0e0f10", "span_id": "0102030405060708", "name": "s",
        "start_time_unix_nano": "1700000000000000000", "end_time_unix_nano": "1700000000000000005",
        "attributes": [{"key": names.RESULT_COUNT, "value": {"intValue": "7"}}], "status": {"code": 2}}]}]}]}
    [span] = decode_body(json.dumps(body).encode(), "application/json").spans
    assert span.trace_id == 0x0102030405060708090A0B0C0D0E0F10
    assert span.end_ns - span.start_ns == 5
    assert span.attributes == {names.RESULT_COUNT: 7}
    assert span.status_error


@pytest.mark.parametrize(
    ("body", "media", "status", "reason"),
    [
        (b"\xff\xff\xff\xff", PB, 400, names.REJECT_MALFORMED),
        (b"{not json", "application/json", 400, names.REJECT_MALFORMED),
        (b"[1, 2]", "application/json", 400, names.REJECT_MALFORMED),
        (b'{"resourceSpans": 5}', "application/json", 400, names.REJECT_MALFORMED),
        (b"", "text/plain", 415, names.REJECT_CONTENT_TYPE),
    ],
)
def test_bad_bodies_raise_body_error(body: bytes, media: str, status: int, reason: str) -> None:
    """Malformed protobuf or JSON is a 400 naming the problem; a foreign media type is a 415."""
    with pytest.raises(BodyError) as info:
        decode_body(body, media)
    assert (info.value.status, info.value.reason) == (status, reason)
    assert str(info.value)


def test_spans_with_bad_ids_are_rejected_not_the_request() -> None:
    """Spans whose ids have the wrong length (or are zero) are counted as rejected; the others decode."""
    request = encode_request(healthy_run(0x77))
    spans = request.resource_spans[0].scope_spans[0].spans
    spans[0].trace_id = b"\x01" * 5
    spans[1].span_id = b"\x00" * 8
    decoded = decode_body(request.SerializeToString(), PB)
    assert (len(decoded.spans), decoded.rejected) == (1, 2)
    assert "trace_id must be 16 bytes" in decoded.problem


def test_json_with_bad_hex_id_is_a_rejected_span() -> None:
    """A JSON span whose traceId is not hex is refused as a span (partial success), not as a request."""
    data = json.loads(request_json(encode_request(healthy_run(0x78))))
    data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] = "zz-not-hex"
    decoded = decode_body(json.dumps(data).encode(), "application/json")
    assert (len(decoded.spans), decoded.rejected) == (2, 1)


def test_gzip_is_undone_within_the_limit() -> None:
    """gzip bodies decompress; identity passes through; the limit applies to the decompressed size."""
    raw = b"x" * 1000
    assert decompress(gzip.compress(raw), "gzip", 1000) == raw
    assert decompress(raw, "", 10) == raw
    with pytest.raises(BodyError) as info:
        decompress(gzip.compress(b"\0" * 5_000_000), "gzip", 1_000_000)
    assert info.value.status == 413


@pytest.mark.parametrize(("body", "encoding", "status"), [
    (b"not gzip at all", "gzip", 400),
    (gzip.compress(b"abc")[:-6], "gzip", 400),
    (b"abc", "br", 415),
])
def test_bad_encodings(body: bytes, encoding: str, status: int) -> None:
    """Corrupt or truncated gzip is a 400; an encoding other than gzip/identity is a 415."""
    with pytest.raises(BodyError) as info:
        decompress(body, encoding, 1 << 20)
    assert info.value.status == status

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["resourceSpans", "scopeSpans", "spans", "traceId", "spanId", "attributes", "key",
                         "value", "stringValue", "arrayValue", "values", "name", "x"]), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=400))
def test_arbitrary_bytes_never_escape_as_anything_but_body_error(body: bytes) -> None:
    """Any protobuf body either decodes or raises BodyError (400), never another exception."""
    try:
        decode_body(body, PB)
    except BodyError as exc:
        assert exc.status == 400


@settings(max_examples=300, deadline=None)
@given(value=_json_values)
def test_arbitrary_json_never_escapes_as_anything_but_body_error(value: object) -> None:
    """Any JSON document either decodes (bad spans rejected) or raises BodyError (400), never another exception."""
    try:
        decode_body(json.dumps(value).encode(), "application/json")
    except BodyError as exc:
        assert exc.status == 400


def test_every_gzip_member_is_decoded() -> None:
    """A body of two concatenated gzip members decodes to both members (RFC 1952), not just the first."""
    assert decompress(gzip.compress(b"first ") + gzip.compress(b"second"), "gzip", 1000) == b"first second"


def test_every_member_counts_against_the_limit() -> None:
    """The decompression limit applies to the sum of all members, so many small members cannot bypass it."""
    member = gzip.compress(b"\0" * 600)
    with pytest.raises(BodyError) as info:
        decompress(member + member, "gzip", 1000)
    assert info.value.status == 413


@pytest.mark.parametrize("tail", [b"garbage", b"\0\0\0\0", b"\x1f\x8b"])
def test_trailing_bytes_after_gzip_are_refused(tail: bytes) -> None:
    """Anything after the last complete gzip member (garbage, padding, a cut member) is a 400, not ignored."""
    with pytest.raises(BodyError) as info:
        decompress(gzip.compress(b"payload") + tail, "gzip", 1000)
    assert info.value.status == 400
