"""What ``citetrace serve`` answers: OTLP responses and ``google.rpc.Status`` error bodies, as plain values.

Kept apart from the connection handling so every answer is built (and tested) the same way, whether it goes
out through h11 or, after a protocol error or a deadline, as raw bytes.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import NamedTuple

from google.protobuf import json_format
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from citetrace.serve._decode import JSON

__all__ = ["Answer", "status_answer", "otlp_answer", "health_answer"]

_GRPC_CODE = {400: code_pb2.INVALID_ARGUMENT, 401: code_pb2.UNAUTHENTICATED, 404: code_pb2.NOT_FOUND,
              405: code_pb2.UNIMPLEMENTED, 408: code_pb2.DEADLINE_EXCEEDED, 413: code_pb2.RESOURCE_EXHAUSTED,
              415: code_pb2.INVALID_ARGUMENT, 500: code_pb2.INTERNAL, 503: code_pb2.UNAVAILABLE}


class Answer(NamedTuple):
    """One HTTP answer: status, body, media type, extra headers, whether to close, whether to drain first."""

    status: int
    body: bytes
    media: str
    headers: tuple[tuple[bytes, bytes], ...] = ()
    close: bool = False
    linger: bool = True
    """When closing with part of the request unread, read and drop a bounded amount first (no broken pipe)."""

    def raw(self) -> bytes:
        """The whole answer as HTTP/1.1 bytes (always ``Connection: close``), for use outside h11."""
        reason = HTTPStatus(self.status).phrase.encode()
        lines = [b"HTTP/1.1 %d %s" % (self.status, reason), b"Content-Type: " + self.media.encode(),
                 b"Content-Length: %d" % len(self.body), b"Connection: close"]
        lines += [k + b": " + v for k, v in self.headers]
        return b"\r\n".join(lines) + b"\r\n\r\n" + self.body


def status_answer(status: int, message: str, media: str, *, close: bool = False, retry: bool = False,
                  headers: list[tuple[bytes, bytes]] | None = None) -> Answer:
    """An error answer: a ``google.rpc.Status`` in the request's encoding; ``retry`` adds ``Retry-After: 1``."""
    rpc = status_pb2.Status(code=_GRPC_CODE.get(status, code_pb2.UNKNOWN), message=message)
    body = json_format.MessageToJson(rpc, indent=None).encode() if media == JSON else rpc.SerializeToString()
    extra = list(headers or [])
    if retry:
        extra.append((b"Retry-After", b"1"))
    return Answer(status, body, media, tuple(extra), close)


def otlp_answer(rejected: int, problem: str, media: str) -> Answer:
    """The 200 ``ExportTraceServiceResponse``, with ``partial_success`` when spans were refused."""
    response = ExportTraceServiceResponse()
    if rejected:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = problem
    body = (json_format.MessageToJson(response, indent=None).encode() if media == JSON
            else response.SerializeToString())
    return Answer(200, body, media)


def health_answer(health: dict[str, object], draining: bool) -> Answer:
    """``GET /healthz``: 200 with the service's figures, or 503 while draining."""
    body = dict(health)
    body["status"] = "draining" if draining else "ok"
    return Answer(503 if draining else 200, json.dumps(body).encode(), JSON)
