"""An exception on a citetrace span, recorded with its text redacted.

An HTTP client's message quotes the URL it failed on (``401 Client Error: Unauthorized for url:
https://bob:pw@host/x?api_key=...``), and a traceback repeats it, so the SDK's ``record_exception`` is given a
redacted message and stack trace, and the span status gets the redacted message. The exception object itself is
never touched: the caller re-raises the same object with its traceback.
"""

from __future__ import annotations

import traceback

from opentelemetry.trace import Span, Status, StatusCode

from citetrace import names
from citetrace._redact import redact_text

__all__ = ["record_failure"]

_STATUS_CHARS = 200
MESSAGE_CHARS = 8192
"""``exception.message`` is cut here (after redaction): a library may quote a whole response body."""
STACKTRACE_CHARS = 32768
"""``exception.stacktrace`` is cut here (after redaction); chained causes and groups included."""


def record_failure(span: Span, exc: BaseException, error_type: str | None) -> None:
    """Add the ``exception`` event (redacted and bounded); with an ``error_type``, also set the ERROR status."""
    message = redact_text(str(exc), MESSAGE_CHARS)
    stacktrace = redact_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), STACKTRACE_CHARS)
    span.record_exception(exc, attributes={names.EXCEPTION_MESSAGE: message, names.EXCEPTION_STACKTRACE: stacktrace})
    if error_type is not None:
        span.set_status(Status(StatusCode.ERROR, f"{error_type}: {message}"[:_STATUS_CHARS]))
