"""The inverse of ``_decode``: span records to an OTLP ``ExportTraceServiceRequest`` (protobuf or OTLP/JSON).

``citetrace serve`` never sends spans; this exists so tests, the load benchmark and anyone replaying stored
spans can produce exactly what an SDK exporter or a collector would send, without an SDK in the loop.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Iterable, Mapping

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from citetrace.summary import SpanRecord

__all__ = ["encode_request", "request_json"]


def _set_any(target: AnyValue, value: Any) -> None:
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int):
        target.int_value = value
    elif isinstance(value, float):
        target.double_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, bytes):
        target.bytes_value = value
    elif isinstance(value, Mapping):
        target.kvlist_value.SetInParent()
        for key, item in value.items():
            kv = target.kvlist_value.values.add()
            kv.key = str(key)
            _set_any(kv.value, item)
    elif isinstance(value, (list, tuple)):
        array = target.array_value
        array.SetInParent()  # an empty array is still an array
        for item in value:
            _set_any(array.values.add(), item)
    else:
        target.string_value = str(value)


def encode_request(
    spans: Iterable[SpanRecord], *, service_name: str | None = None, scope: str = "citetrace"
) -> ExportTraceServiceRequest:
    """One resource (with ``service.name`` when given) and one scope holding every span, in order."""
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    if service_name is not None:
        kv = resource_spans.resource.attributes.add()
        kv.key = "service.name"
        kv.value.string_value = service_name
    scope_spans = resource_spans.scope_spans.add()
    scope_spans.scope.name = scope
    for record in spans:
        span = scope_spans.spans.add()
        span.trace_id = record.trace_id.to_bytes(16, "big")
        span.span_id = record.span_id.to_bytes(8, "big")
        if record.parent_span_id:
            span.parent_span_id = record.parent_span_id.to_bytes(8, "big")
        span.name = record.name
        span.kind = Span.SPAN_KIND_INTERNAL
        span.start_time_unix_nano = record.start_ns
        span.end_time_unix_nano = record.end_ns
        for key, value in record.attributes.items():
            kv = span.attributes.add()
            kv.key = key
            _set_any(kv.value, value)
        if record.status_error:
            span.status.code = Status.STATUS_CODE_ERROR
    return request


def _base64_ids_to_hex(obj: Any) -> None:
    if isinstance(obj, dict):
        for key in ("traceId", "spanId", "parentSpanId"):
            raw = obj.get(key)
            if isinstance(raw, str):
                obj[key] = base64.b64decode(raw).hex()
        for value in obj.values():
            _base64_ids_to_hex(value)
    elif isinstance(obj, list):
        for item in obj:
            _base64_ids_to_hex(item)


def request_json(request: ExportTraceServiceRequest) -> bytes:
    """The request in the OTLP/JSON mapping: lowerCamelCase keys, hex trace and span ids, integer enums."""
    data = json_format.MessageToDict(request, use_integers_for_enums=True)
    _base64_ids_to_hex(data)
    return json.dumps(data, separators=(",", ":")).encode("utf-8")
