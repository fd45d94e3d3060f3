"""citetrace's version, read once from the installed package's metadata (one source: pyproject.toml)."""

from __future__ import annotations

from functools import lru_cache

__all__ = ["version"]


@lru_cache(maxsize=1)
def version() -> str:
    """The installed distribution's version, or ``0+unknown`` when running from a bare source tree."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _dist_version

    try:
        return _dist_version("citetrace")
    except PackageNotFoundError:
        return "0+unknown"
