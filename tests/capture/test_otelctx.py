"""The traced call's three context operations (``capture._otelctx``) against OpenTelemetry's public API."""

from __future__ import annotations

import contextvars
import logging

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from citetrace.capture import _otelctx


@pytest.fixture(params=["direct", "public"])
def ops(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways the module can run: the default runtime context's variable called directly, and the public
    functions (what it falls back to when ``OTEL_PYTHON_CONTEXT`` names another runtime context)."""
    if request.param == "public":
        monkeypatch.setattr(_otelctx, "_VARIABLE", None)
        monkeypatch.setattr(_otelctx, "current_context", otel_context.get_current)
    return str(request.param)


def test_the_default_runtime_context_is_called_directly() -> None:
    """With the API's default runtime context the module holds its ContextVar, and reads the same context."""
    assert isinstance(_otelctx._VARIABLE, contextvars.ContextVar)
    assert _otelctx.current_context() is otel_context.get_current()


def test_attach_span_makes_the_span_current_over_the_given_context_and_detach_restores(ops: str) -> None:
    """attach_span is context.attach(trace.set_span_in_context(span, ctx)): the span is current, every other
    value of ``ctx`` is kept, and detach brings back exactly the context that was current before."""
    span = TracerProvider().get_tracer("t").start_span("s")
    key = otel_context.create_key("k")
    before = otel_context.get_current()
    ctx = otel_context.set_value(key, "v")
    token = _otelctx.attach_span(span, ctx)
    try:
        assert trace.get_current_span() is span
        assert otel_context.get_value(key) == "v"
        assert dict(otel_context.get_current()) == dict(trace.set_span_in_context(span, ctx))
        assert type(otel_context.get_current()) is otel_context.Context
        assert _otelctx.current_context() is otel_context.get_current()
    finally:
        _otelctx.detach(token)
    assert otel_context.get_current() is before


def test_a_token_from_another_context_is_logged_as_the_api_does_and_never_raises(
    ops: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A token that cannot be reset here (made in another contextvars.Context, as by a coroutine driven from
    two contexts) is left to context.detach: it logs "Failed to detach context" and carries on."""
    span = TracerProvider().get_tracer("t").start_span("s")
    token = contextvars.copy_context().run(_otelctx.attach_span, span, otel_context.get_current())
    before = otel_context.get_current()
    with caplog.at_level(logging.ERROR, logger="opentelemetry.context"):
        _otelctx.detach(token)
    assert [r.getMessage() for r in caplog.records] == ["Failed to detach context"]
    assert otel_context.get_current() is before
