"""``citetrace serve``: the summary as a service behind an OpenTelemetry Collector.

Agents export spans over OTLP to a collector; the collector forwards every span here (OTLP/HTTP, protobuf or
JSON, optionally gzip); this service assembles traces, runs the same summary as in-process mode and is the one
place the fleet's Prometheus metrics come from. See docs/collector.md.
"""

from __future__ import annotations

from citetrace.serve._decode import BodyError, WireSpan, decode_body
from citetrace.serve._encode import encode_request, request_json
from citetrace.serve._service import ServeOptions, Service

__all__ = ["Service", "ServeOptions", "BodyError", "WireSpan", "decode_body", "encode_request", "request_json"]
