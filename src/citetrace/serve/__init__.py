"""``citetrace serve``: the summary as a service behind an OpenTelemetry Collector.

Agents export spans over OTLP to a collector; the collector forwards every span here (OTLP/HTTP, protobuf or
JSON, optionally gzip); this service assembles traces, runs the same summary as in-process mode and is the one
place the fleet's Prometheus metrics come from. See docs/collector.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from citetrace._extras import require

if TYPE_CHECKING:
    from citetrace.serve._decode import BodyError, WireSpan, decode_body
    from citetrace.serve._encode import encode_request, request_json
    from citetrace.serve._service import ServeOptions, Service

__all__ = ["Service", "ServeOptions", "BodyError", "WireSpan", "decode_body", "encode_request", "request_json"]

# Imported on first use, after checking the [serve] extra: the CLI registers `citetrace serve` (its help works
# on a base install) without importing h11 and the OTLP protobufs.
_LAZY = {"BodyError": "_decode", "WireSpan": "_decode", "decode_body": "_decode", "encode_request": "_encode",
         "request_json": "_encode", "ServeOptions": "_service", "Service": "_service"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'citetrace.serve' has no attribute {name!r}")
    require("serve")
    value = getattr(importlib.import_module(f"citetrace.serve.{module}"), name)
    globals()[name] = value
    return value
