"""Exception text on spans is redacted, while the agent gets back the very exception the tool raised."""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
import responses

from citetrace import names, research_run, traced_tool
from citetrace.testing import capture_spans

SECRET_URL = "https://bob:Pw-77x@intranet.example/q3?api_key=k-91a2&page=2"


@traced_tool(kind="fetch")
def read(url: str) -> str:
    """Read a page that answers 401."""
    response = requests.get(url, timeout=2)
    response.raise_for_status()
    return response.text


@responses.activate
def test_exception_message_and_stacktrace_are_redacted_and_the_exception_is_the_same() -> None:
    """Status description, exception.message and exception.stacktrace hold no secret; the raised object is
    requests' own HTTPError, unchanged."""
    responses.add(responses.GET, re.compile(".*"), status=401)
    with capture_spans() as cap:
        with pytest.raises(requests.HTTPError) as raised:
            read(SECRET_URL)
    assert SECRET_URL in str(raised.value)  # the agent's exception is untouched
    assert raised.value.response is not None and raised.value.response.status_code == 401
    (span,) = cap.spans
    (event,) = span.events
    shown = [span.status.description or "", str(event.attributes[names.EXCEPTION_MESSAGE]),  # type: ignore[index]
             str(event.attributes[names.EXCEPTION_STACKTRACE])]  # type: ignore[index]
    for text in shown:
        assert "Pw-77x" not in text and "k-91a2" not in text
        assert "intranet.example/q3" in text
    assert span.status.description.startswith("HTTPError: 401 Client Error")  # type: ignore[union-attr]
    assert event.attributes["exception.type"] == "requests.exceptions.HTTPError"  # type: ignore[index]


def test_run_exception_is_redacted_on_the_root_span() -> None:
    """An exception leaving research_run is re-raised as the same object and recorded redacted on the root."""
    error = RuntimeError("login failed: Authorization: Bearer tok-5566aa for https://h.example/?token=t-8")
    with capture_spans() as cap:
        with pytest.raises(RuntimeError) as raised:
            with research_run("q"):
                raise error
    assert raised.value is error
    (root,) = cap.run_spans()
    texts = [root.status.description or ""] + [str(dict(e.attributes or {})) for e in root.events]
    assert all("tok-5566aa" not in t and "t-8" not in t for t in texts)


def test_the_logged_warning_of_a_swallowed_failure_is_redacted(caplog: pytest.LogCaptureFixture) -> None:
    """A store that fails with a secret URL in its message is counted and logged without the secret."""
    from citetrace import _telemetry
    from citetrace.store import MemoryStore

    class LeakyStore(MemoryStore):
        def put_document(self, run_id: str, url: str, text: str, **kwargs: Any) -> str:
            raise OSError(f"disk full while writing https://h.example/x?token=tok-3141 ({url})")

    @traced_tool(kind="fetch")
    def read_ok(url: str) -> str:
        return "text " * 100

    _telemetry.current().hooks.logged.discard("store_write")
    with capture_spans(store=LeakyStore()), caplog.at_level("WARNING", logger="citetrace"):
        assert read_ok("https://h.example/p?api_key=k-2718") == "text " * 100
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("store_write failed" in w for w in warnings)
    assert all("tok-3141" not in w and "k-2718" not in w for w in warnings)


@traced_tool(kind="fetch")
def read_huge_error(url: str, message: str) -> str:
    """A read whose library put a whole response body in its exception message."""
    raise RuntimeError(message)


@pytest.mark.timeout(60)  # before the bound, redacting this message took hours (the agent's thread stalled)
def test_a_huge_exception_message_is_bounded_on_the_span_and_does_not_stall_the_agent() -> None:
    """A 20 MB exception message (a base64 body, one long token) costs the agent no stall and the export no
    413: the exception event's message and stack trace are cut (after redaction, with a secret in the kept part
    masked), and the agent gets the very same exception."""
    message = "upload failed api_key=k-77x " + "QUJD" * 5_000_000
    with capture_spans() as cap:
        with pytest.raises(RuntimeError) as raised:
            read_huge_error("https://a.example/x", message)
    assert str(raised.value) == message
    (span,) = cap.spans
    (event,) = span.events
    shown = str(event.attributes[names.EXCEPTION_MESSAGE])  # type: ignore[index]
    trace = str(event.attributes[names.EXCEPTION_STACKTRACE])  # type: ignore[index]
    assert shown.startswith("upload failed api_key=REDACTED QUJD") and "k-77x" not in shown + trace
    assert len(shown) <= 8192 and len(trace) <= 32768
