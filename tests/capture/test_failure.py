"""Exception text on spans is redacted, while the agent gets back the very exception the tool raised."""

from __future__ import annotations

import re

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
