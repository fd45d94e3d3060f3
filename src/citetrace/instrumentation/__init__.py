"""Auto-instrumentation: existing agents get citetrace spans without changing a line.

``CiteTraceInstrumentor().instrument()`` (or ``opentelemetry-instrument``, or ``CITETRACE_AUTO_INSTRUMENT=true``)
wraps the supported search/fetch libraries and the functions named in ``CITETRACE_TOOLS``.
"""

from __future__ import annotations

from citetrace.instrumentation._instrumentor import CiteTraceInstrumentor

__all__ = ["CiteTraceInstrumentor"]
