"""The interpreter-start hook behind ``CITETRACE_AUTO_INSTRUMENT=true``.

The package installs ``citetrace_autoinstrument.pth`` into site-packages. Python runs its one line at every
start-up: it reads one environment variable and, only when that is set to something other than a false
value, imports this module and calls ``start()``. ``start()`` configures citetrace from the standard
``OTEL_*``/``CITETRACE_*`` variables, instruments, and flushes spans when the process exits. It never sets
the global TracerProvider (the application's to set, even after start-up). It never raises: a failure is
logged once and the agent runs untraced.
"""

from __future__ import annotations

import logging
import os
import threading

from citetrace import names
from citetrace._atexit import at_exit
from citetrace.config import env_flag

__all__ = ["start", "post_instrument", "PTH_LINE"]

_log = logging.getLogger("citetrace")
_lock = threading.Lock()
_started = False

PTH_LINE = (
    "import os; os.environ.get('CITETRACE_AUTO_INSTRUMENT', '').strip().lower() not in "
    "('', '0', 'false', 'no', 'off') and exec("
    "'try:\\n from citetrace.instrumentation._autostart import start\\n start()\\n"
    "except Exception as exc:\\n import sys\\n print(\\'citetrace: CITETRACE_AUTO_INSTRUMENT is set but citetrace "
    "could not be imported at start-up (%s: %s); running without tracing\\' % (type(exc).__name__, exc), "
    "file=sys.stderr)\\n')"
)
"""The exact content of the ``.pth`` file (a test keeps the file and this constant equal)."""


def _disabled_by_otel() -> bool:
    raw = os.environ.get("OTEL_PYTHON_DISABLED_INSTRUMENTATIONS", "")
    entries = {part.strip() for part in raw.split(",")}
    return "citetrace" in entries or "*" in entries


def _configure_once() -> None:
    """Set citetrace up from the environment unless the application already did; flush at exit.

    The global TracerProvider is never taken here: it belongs to the application, which may set its own
    after start-up (then citetrace joins it, see ``citetrace._join``)."""
    from citetrace import configure
    from citetrace._telemetry import current

    if not current().configured:
        telemetry = configure(set_global=False)
        telemetry.implicit = True  # the application's own configure() may replace it, quietly
        at_exit(telemetry.shutdown)


def post_instrument() -> None:
    """``opentelemetry_post_instrument`` entry point, run by ``opentelemetry-instrument`` after it loaded the
    instrumentors: when citetrace's was loaded (not disabled), configure citetrace too, so spans, store
    writes and summaries happen without the application calling ``configure()``. It adds to the SDK
    provider a distro/configurator set up, or creates one from the ``OTEL_*`` variables."""
    try:
        from citetrace.instrumentation import CiteTraceInstrumentor

        if CiteTraceInstrumentor().is_instrumented_by_opentelemetry:
            _configure_once()
    except Exception as exc:  # noqa: BLE001 - start-up must never stop the agent
        _log.warning("citetrace: configuring under opentelemetry-instrument failed (%s: %s); no citetrace "
                     "summaries or store writes", type(exc).__name__, exc)


def start() -> bool:
    """Configure and instrument once per process; True when this call did it."""
    global _started
    with _lock:
        if _started or not env_flag(names.ENV_AUTO_INSTRUMENT):
            return False
        _started = True
    if _disabled_by_otel():
        return False
    try:
        from citetrace.instrumentation import CiteTraceInstrumentor

        _configure_once()
        instrumentor = CiteTraceInstrumentor()
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument()
    except Exception as exc:  # noqa: BLE001 - start-up must never stop the agent
        _log.warning("citetrace: %s=true but start-up failed (%s: %s); running without tracing",
                     names.ENV_AUTO_INSTRUMENT, type(exc).__name__, exc)
        return False
    return True
