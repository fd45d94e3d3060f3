"""Serving a metrics registry: a small HTTP server of its own, or a WSGI/ASGI app for an existing server.

Bound to 127.0.0.1 by default: metrics describe what agents did and are not for the open network.
"""

from __future__ import annotations

from typing import Any, Callable
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, make_asgi_app, make_wsgi_app, start_http_server

__all__ = ["start_metrics_server", "metrics_wsgi_app", "metrics_asgi_app"]


def _resolve(registry: CollectorRegistry | None) -> CollectorRegistry:
    if registry is not None:
        return registry
    from citetrace import _telemetry

    found = _telemetry.current().registry
    if not isinstance(found, CollectorRegistry):
        raise RuntimeError(
            "no citetrace metrics registry: call citetrace.configure() with metrics enabled, or pass registry="
        )
    return found


def start_metrics_server(
    port: int, addr: str = "127.0.0.1", *, registry: CollectorRegistry | None = None
) -> WSGIServer:
    """Serve ``registry`` (default: the one ``configure()`` set up) at ``http://addr:port/metrics``.

    Runs in a daemon thread; port 0 picks a free port (read ``server.server_port``). Stop it with
    ``server.shutdown(); server.server_close()``. A port that cannot be bound raises ``OSError`` naming it.
    """
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ValueError(f"metrics port must be an integer 0..65535, got {port!r}")
    reg = _resolve(registry)
    try:
        server, _thread = start_http_server(port, addr=addr, registry=reg)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot serve metrics on {addr}:{port}: {exc.strerror or exc}") from exc
    return server


def metrics_wsgi_app(registry: CollectorRegistry | None = None) -> Callable[..., Any]:
    """A WSGI app answering with the registry's exposition (OpenMetrics when the scraper asks for it)."""
    return make_wsgi_app(_resolve(registry))


def metrics_asgi_app(registry: CollectorRegistry | None = None) -> Callable[..., Any]:
    """The ASGI equivalent of ``metrics_wsgi_app``."""
    return make_asgi_app(_resolve(registry))
