"""OTLP/HTTP trace request bodies in, flat span tuples out: protobuf or JSON, identity or gzip.

Kept apart from the HTTP server so it can be tested and benchmarked on bytes alone. Every problem with the
body raises ``BodyError`` carrying the HTTP status and rejection reason; a span with a malformed id, or with a
summary attribute of the wrong type (``_schema``), is not an error of the whole request but is counted as
rejected (OTLP partial success). So every span that leaves here has well-typed summary attributes.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any, NamedTuple

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from citetrace import names
from citetrace.serve._schema import ARRAY_KEYS, NOT_STRING_KEYS, value_problem

__all__ = ["BodyError", "Decoded", "WireSpan", "decode_body", "decompress", "PROTOBUF", "JSON"]

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
_STATUS_CODE_ERROR = 2  # opentelemetry.proto.trace.v1.Status.STATUS_CODE_ERROR
_SERVICE_NAME = "service.name"
_RESOURCE_KEYS = frozenset({_SERVICE_NAME})


class BodyError(Exception):
    """A request body that cannot be accepted: ``status`` is the HTTP answer, ``reason`` the metric label."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason


class WireSpan(NamedTuple):
    """One span as received: ids as ints (parent 0 = none), times in unix ns, attributes decoded."""

    trace_id: int
    span_id: int
    parent_span_id: int
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    status_error: bool
    service_name: str | None


class Decoded(NamedTuple):
    """The spans of one request, and how many were refused (with the first problem)."""

    spans: list[WireSpan]
    rejected: int
    """Spans refused: bad ids plus ``mistyped``."""
    problem: str
    mistyped: int = 0
    """Of ``rejected``, the spans refused for a summary attribute of the wrong type."""


def decompress(body: bytes, encoding: str, limit: int) -> bytes:
    """Undo ``Content-Encoding`` (identity or gzip) without ever holding more than ``limit`` bytes.

    gzip bodies may hold several members (RFC 1952 section 2.2; ``cat a.gz b.gz``): every member is decoded
    and the limit applies to their sum. Bytes after the last complete member are refused rather than ignored,
    since silently dropping part of a body loses spans uncounted.
    """
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "gzip":
        raise BodyError(415, names.REJECT_CONTENT_TYPE, f"unsupported Content-Encoding {encoding!r}; use gzip")
    parts: list[bytes] = []
    size = 0
    rest = body
    while True:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = inflater.decompress(rest, limit - size + 1)
        except zlib.error as exc:
            what = "trailing bytes after the gzip data" if parts else "invalid gzip body"
            raise BodyError(400, names.REJECT_MALFORMED, f"{what}: {exc}") from None
        size += len(out)
        if size > limit or inflater.unconsumed_tail:
            raise BodyError(413, names.REJECT_TOO_LARGE, f"decompressed body exceeds {limit} bytes")
        if not inflater.eof:
            what = "trailing bytes after the gzip data: a truncated member" if parts else "invalid gzip body"
            raise BodyError(400, names.REJECT_MALFORMED, f"{what}: truncated")
        parts.append(out)
        rest = inflater.unused_data
        if not rest:
            return parts[0] if len(parts) == 1 else b"".join(parts)


def _any(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "int_value":
        return value.int_value
    if kind == "double_value":
        return value.double_value
    if kind == "array_value":
        return tuple(_any(v) for v in value.array_value.values)
    if kind == "kvlist_value":
        return {kv.key: _any(kv.value) for kv in value.kvlist_value.values}
    if kind == "bytes_value":
        return value.bytes_value
    return None


def _strings(values: Any) -> tuple[str, ...] | None:
    """The elements of an OTLP array when every one is a ``stringValue`` (what capture writes); else None."""
    out: list[str] = []
    for item in values:
        if item.WhichOneof("value") != "string_value":
            return None
        out.append(item.string_value)
    return tuple(out)


def _attributes(kvs: Any, keys: frozenset[str] | None) -> tuple[dict[str, Any], str | None]:
    """The attributes (only ``keys`` when given) and the first schema problem, if any.

    Strings, nearly every value, only need a set lookup (is an array or integer expected?); anything else is checked against the schema here, so
    the check costs nothing on well-formed traffic.
    """
    out: dict[str, Any] = {}
    problem: str | None = None
    for kv in kvs:
        key = kv.key
        if keys is not None and key not in keys:
            continue
        value = kv.value
        kind = value.WhichOneof("value")
        if kind == "string_value":
            out[key] = value.string_value
            if problem is None and key in NOT_STRING_KEYS:
                problem = value_problem(key, out[key])
            continue
        if kind == "array_value":  # URL lists: strings read in one loop, already known to be an array of strings
            strings = _strings(value.array_value.values)
            if strings is not None:
                out[key] = strings
                if problem is None and key not in ARRAY_KEYS:
                    problem = value_problem(key, strings)
                continue
        decoded = out[key] = _any(value)
        if problem is None:
            problem = value_problem(key, decoded)
    return out, problem


_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)


def _spans(request: ExportTraceServiceRequest, keys: frozenset[str] | None) -> Decoded:
    spans: list[WireSpan] = []
    append = spans.append
    rejected = 0
    mistyped = 0
    problem = ""
    from_bytes = int.from_bytes
    for resource_spans in request.resource_spans:
        service = _attributes(resource_spans.resource.attributes, _RESOURCE_KEYS)[0].get(_SERVICE_NAME)
        service = service if isinstance(service, str) and service else None
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                tid, sid, pid = span.trace_id, span.span_id, span.parent_span_id
                if (len(tid) != 16 or len(sid) != 8 or len(pid) not in (0, 8) or tid == _ZERO_TRACE
                        or sid == _ZERO_SPAN):
                    rejected += 1
                    problem = problem or (
                        f"span {span.name!r}: trace_id must be 16 bytes and span_id 8 bytes, not all zero"
                    )
                    continue
                attributes, bad = _attributes(span.attributes, keys)
                if bad is not None:
                    rejected += 1
                    mistyped += 1
                    problem = problem or f"span {span.name!r}: {bad}"
                    continue
                append(WireSpan(
                    from_bytes(tid, "big"),
                    from_bytes(sid, "big"),
                    from_bytes(pid, "big") if pid else 0,
                    span.name,
                    span.start_time_unix_nano,
                    span.end_time_unix_nano,
                    attributes,
                    span.status.code == _STATUS_CODE_ERROR,
                    service,
                ))
    return Decoded(spans, rejected, problem, mistyped)


_ID_FIELDS = (("traceId", "trace_id"), ("spanId", "span_id"), ("parentSpanId", "parent_span_id"))


def _hex_ids_to_base64(obj: Any) -> None:
    """OTLP/JSON carries ids as hex; protobuf's JSON mapping wants base64 bytes. Bad hex becomes empty."""
    if isinstance(obj, dict):
        for camel, snake in _ID_FIELDS:
            for key in (camel, snake):
                raw = obj.get(key)
                if isinstance(raw, str):
                    try:
                        obj[key] = base64.b64encode(bytes.fromhex(raw)).decode("ascii")
                    except ValueError:
                        obj[key] = ""
        for value in obj.values():
            if isinstance(value, (dict, list)):
                _hex_ids_to_base64(value)
    elif isinstance(obj, list):
        for item in obj:
            _hex_ids_to_base64(item)


def decode_body(body: bytes, content_type: str, keys: frozenset[str] | None = None) -> Decoded:
    """Parse an uncompressed ``ExportTraceServiceRequest`` in the given media type.

    ``keys`` limits the span attributes decoded to those named (the service passes what the summary reads;
    decoding the rest is most of the cost). None decodes every attribute.
    """
    media = content_type.split(";", 1)[0].strip().lower()
    request = ExportTraceServiceRequest()
    if media == PROTOBUF:
        try:
            request.ParseFromString(body)
        except DecodeError as exc:
            raise BodyError(400, names.REJECT_MALFORMED, f"malformed protobuf ExportTraceServiceRequest: {exc}") from None
    elif media == JSON:
        try:
            data = json.loads(body)
            if not isinstance(data, dict):
                raise ValueError("the top level must be a JSON object")
            _hex_ids_to_base64(data)
            json_format.ParseDict(data, request, ignore_unknown_fields=True)
        except (ValueError, json_format.ParseError, RecursionError) as exc:
            raise BodyError(400, names.REJECT_MALFORMED, f"malformed OTLP/JSON ExportTraceServiceRequest: {exc}") from None
    else:
        raise BodyError(
            415, names.REJECT_CONTENT_TYPE,
            f"unsupported Content-Type {content_type!r}; use {PROTOBUF} or {JSON}",
        )
    return _spans(request, keys)
