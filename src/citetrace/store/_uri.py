"""Store URIs: the one parser that ``open_store``, the settings and every CLI command use, so a URI that one of
them refuses is refused by all of them with the same one-line message.

Kept free of heavy imports (``config`` reads it to check ``CITETRACE_STORE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["StoreURI", "parse_store_uri"]

_HINT = "use sqlite:///relative/path.db, sqlite:////absolute/path.db, a plain file path, or memory://"


@dataclass(frozen=True)
class StoreURI:
    """A parsed store URI: ``kind`` is ``sqlite`` (with ``path``) or ``memory``."""

    uri: str
    kind: str
    path: Path | None = None


def parse_store_uri(uri: str) -> StoreURI:
    """Parse a store URI; raise ValueError naming the problem (unknown scheme, no path).

    ``sqlite:///x.db`` is relative to the working directory and ``sqlite:////x.db`` absolute, as in SQLAlchemy;
    a bare path is an SQLite file.
    """
    if not isinstance(uri, str):
        raise TypeError(f"a store URI must be a str, got {type(uri).__name__}")
    text = uri.strip()
    if not text:
        raise ValueError(f"empty store URI: {_HINT}")
    if text.startswith("memory:"):
        return StoreURI(text, "memory")
    if text.startswith("sqlite:"):
        if not text.startswith("sqlite:///"):
            raise ValueError(f"store URI {uri!r} has no path after sqlite:// : {_HINT}")
        path = text[len("sqlite:///"):]
        if not path or path.endswith("/"):
            raise ValueError(f"store URI {uri!r} names no file: {_HINT}")
        return StoreURI(text, "sqlite", Path(path))
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise ValueError(f"unsupported store URI {uri!r} (scheme {scheme!r}): {_HINT}")
    return StoreURI(f"sqlite:///{text}", "sqlite", Path(text))
