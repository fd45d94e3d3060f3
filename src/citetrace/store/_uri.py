"""Store URIs: the one parser that ``open_store``, the settings and every CLI command use, so a URI that one of
them refuses is refused by all of them with the same one-line message.

Kept free of heavy imports (``config`` reads it to check ``CITETRACE_STORE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["StoreURI", "parse_store_uri", "redact_uri"]

_HINT = ("use sqlite:///relative/path.db, sqlite:////absolute/path.db, a plain file path, memory://, "
         "or postgresql://user@host:port/database")
_PG_SCHEMES = ("postgresql", "postgres")


@dataclass(frozen=True)
class StoreURI:
    """A parsed store URI: ``kind`` is ``sqlite`` (with ``path``), ``memory`` or ``postgresql``.

    ``uri`` is what opens the store (a PostgreSQL password in it stays there); ``display`` is what messages and
    logs show, with any password replaced by ``***``.
    """

    uri: str
    kind: str
    path: Path | None = None

    @property
    def display(self) -> str:
        return redact_uri(self.uri)


def redact_uri(uri: str) -> str:
    """``uri`` with a password (``user:secret@`` or ``?password=``) replaced by ``***``: for every message."""
    if "://" not in uri:
        return uri
    try:
        parts = urlsplit(uri)
    except ValueError:
        return uri.split("://", 1)[0] + "://***"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            netloc = userinfo.split(":", 1)[0] + ":***@" + host
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k.lower() == "password" for k, _ in pairs):
            query = urlencode([(k, "***" if k.lower() == "password" else v) for k, v in pairs], safe="*")
    if (netloc, query) == (parts.netloc, parts.query):
        return uri  # nothing to hide: urlunsplit would turn sqlite:///rel/path (empty host) into sqlite:/rel/path
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _parse_postgres(uri: str, text: str) -> StoreURI:
    """Check a ``postgresql://`` URI's shape here (port, database); libpq reads the rest when connecting."""
    shown = redact_uri(text)
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"store URI {shown!r}: {exc}: {_HINT}") from None
    if not parts.path.strip("/"):
        raise ValueError(f"store URI {shown!r} names no database (postgresql://user@host:port/DATABASE)")
    return StoreURI(text, "postgresql")


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
    if text.split("://", 1)[0].lower() in _PG_SCHEMES and "://" in text:
        return _parse_postgres(uri, text)
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise ValueError(f"unsupported store URI {redact_uri(uri)!r} (scheme {scheme!r}): {_HINT}")
    return StoreURI(f"sqlite:///{text}", "sqlite", Path(text))
