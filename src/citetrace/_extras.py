"""Optional parts of citetrace: which extra brings which modules, and the one error when one is missing.

The base install is light (the OpenTelemetry API, SDK and OTLP/HTTP exporter, wrapt, prometheus-client);
``citetrace eval``, ``citetrace serve``, the gRPC exporter and the rest come with extras. Code that needs an
extra calls ``require(extra)`` before importing it, so a missing one is a single line naming what to
install (``MissingExtra``, an ``ImportError``, printed by the CLI as one line), never a bare
``ModuleNotFoundError`` from deep inside. ``EXTRAS`` is checked against the wheel's metadata by
``tests/test_extras.py``: each module listed is brought by a requirement of that extra.
"""

from __future__ import annotations

import importlib.util
from typing import Final

__all__ = ["EXTRAS", "MissingExtra", "installed", "require"]

EXTRAS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "grpc": ("the OTLP/gRPC span exporter", ("opentelemetry.exporter.otlp.proto.grpc", "grpc")),
    "serve": ("citetrace serve", ("h11", "opentelemetry.proto", "google.rpc")),
    "eval": ("citation evaluation", ("rank_bm25", "snowballstemmer", "htmldate")),
    "demo": ("citetrace demo", ("rank_bm25",)),
    "view": ("the run page", ("jinja2", "markupsafe")),
    "bench": ("question sets", ("yaml",)),
    "postgres": ("a PostgreSQL run store", ("psycopg", "psycopg_pool")),
    "pdf": ("PDF text extraction", ("pypdf",)),
}
"""extra -> (what it is for, the modules it brings that citetrace imports)."""


class MissingExtra(ImportError):
    """An optional part of citetrace is not installed; the message names the extra that brings it."""


def installed(module: str) -> bool:
    """The module can be imported (found, and not blocked with ``sys.modules[name] = None``)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package is missing, or a module was blocked (None) in sys.modules
        return False


def require(extra: str) -> None:
    """Raise ``MissingExtra`` naming ``pip install 'citetrace[extra]'`` unless every module of ``extra`` is there.

    A ``find_spec`` per module (nothing is imported), so callers can check once before their lazy imports.
    """
    purpose, modules = EXTRAS[extra]
    missing = [m for m in modules if not installed(m)]
    if missing:
        raise MissingExtra(f"{purpose} needs the [{extra}] extra ({', '.join(missing)} not installed): "
                           f"pip install 'citetrace[{extra}]'", name=missing[0])
