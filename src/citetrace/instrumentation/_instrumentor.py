"""``CiteTraceInstrumentor``: the OpenTelemetry instrumentor behind ``opentelemetry-instrument`` and
``CITETRACE_AUTO_INSTRUMENT``. It applies the library wrap table and the ``CITETRACE_TOOLS`` entries.
"""

from __future__ import annotations

import os
from typing import Any, Collection

from opentelemetry.instrumentation.instrumentor import BaseInstrumentor  # type: ignore[attr-defined]

from citetrace import names
from citetrace import _telemetry
from citetrace.instrumentation._patcher import Patcher, Row
from citetrace.instrumentation._table import ROWS
from citetrace.instrumentation._user_tools import parse_tools
from citetrace.instrumentation.package import SUPPORTED, _instruments

__all__ = ["CiteTraceInstrumentor"]

_PATCHER = Patcher(SUPPORTED)
_UNSET = object()


class CiteTraceInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Wrap the supported search/fetch libraries and the ``CITETRACE_TOOLS`` functions.

    ``instrument(tools=..., libraries=True, tracer_provider=None)``: ``tools`` overrides ``CITETRACE_TOOLS``;
    ``libraries=False`` wraps only the user's functions; ``tracer_provider`` is where citetrace's spans go
    (default: the one ``configure()`` set up, else the global one; citetrace has one tracer, so this applies
    to ``@traced_tool`` spans too, until ``uninstrument()``). Both ``instrument()`` and ``uninstrument()``
    are idempotent; the latter restores every original object exactly.
    """

    _previous_provider: Any = _UNSET

    def instrumentation_dependencies(self) -> Collection[str]:
        """None required: every library is optional and ``CITETRACE_TOOLS`` needs none (see ``package``)."""
        return _instruments

    def _instrument(self, **kwargs: Any) -> None:
        tools = kwargs.get("tools")
        raw = tools if isinstance(tools, str) else os.environ.get(names.ENV_TOOLS)
        rows: list[Row] = list(ROWS) if kwargs.get("libraries", True) else []
        rows.extend(parse_tools(raw))
        provider = kwargs.get("tracer_provider")
        if provider is not None:
            type(self)._previous_provider = _telemetry.current().use_tracer_provider(provider)
        _PATCHER.start(rows)

    def _uninstrument(self, **kwargs: Any) -> None:
        _PATCHER.stop()
        previous = type(self)._previous_provider
        if previous is not _UNSET:
            type(self)._previous_provider = _UNSET
            _telemetry.current().use_tracer_provider(previous)

    @staticmethod
    def wrapped() -> list[str]:
        """``module:target`` of every row applied right now (libraries not yet imported are not listed)."""
        return _PATCHER.applied()
