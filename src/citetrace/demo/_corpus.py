"""The demo corpus: 35 short, fictional news pages shipped as package data.

The pages give citation checks and a number/date checker real material: each has a title, a publication
date, concrete numbers, percentages, currency amounts and named entities. A few pages disagree on a figure,
a few are old enough to be stale, and three carry a ``fault`` that the demo site can switch on (a cookie
wall, a page that is gone, a page that is too slow). Everything is invented; no real entity is described.
"""

from __future__ import annotations

import datetime as _dt
import functools
import html
from dataclasses import dataclass
from importlib import resources

__all__ = ["Page", "load_corpus", "page", "PAGE_FAULTS"]

PAGE_FAULTS = ("cookie_wall", "not_found", "timeout")
"""Faults a page can carry in its front matter (the site applies them only when they are enabled)."""

_REQUIRED = ("slug", "title", "date", "publisher", "topic")


@dataclass(frozen=True)
class Page:
    """One corpus page: front matter plus its paragraphs."""

    slug: str
    title: str
    date: _dt.date
    publisher: str
    topic: str
    paragraphs: tuple[str, ...]
    fault: str | None = None

    @property
    def path(self) -> str:
        """The page's path on the demo site."""
        return f"/pages/{self.slug}"

    @property
    def byline(self) -> str:
        return f"{self.publisher}, published {self.date.isoformat()}"

    @property
    def body(self) -> str:
        return "\n\n".join(self.paragraphs)

    @property
    def text(self) -> str:
        """The readable text of the page, exactly as the demo agent's reader extracts it from the HTML."""
        return "\n\n".join((self.title, self.byline, *self.paragraphs))

    def html(self) -> str:
        """The page as the demo site serves it."""
        esc = html.escape
        paras = "\n".join(f"<p>{esc(p)}</p>" for p in self.paragraphs)
        return (
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(self.title)}</title>"
            f"<meta name=\"date\" content=\"{self.date.isoformat()}\">"
            "<style>body{font-family:sans-serif;max-width:40em}</style>"
            "<script>window.analytics=[];</script></head>\n"
            f"<body><nav><a href=\"/\">Demo news</a></nav>\n<article>\n<h1>{esc(self.title)}</h1>\n"
            f"<p class=\"byline\">{esc(self.byline)}</p>\n{paras}\n</article></body></html>\n"
        )


def _parse(name: str, raw: str) -> Page:
    if not raw.startswith("---\n"):
        raise ValueError(f"corpus page {name}: missing front matter")
    head, _, body = raw[4:].partition("\n---\n")
    meta: dict[str, str] = {}
    for line in head.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            raise ValueError(f"corpus page {name}: bad front-matter line {line!r}")
        meta[key.strip()] = value.strip()
    missing = [k for k in _REQUIRED if not meta.get(k)]
    if missing:
        raise ValueError(f"corpus page {name}: missing {', '.join(missing)}")
    if name != f"{meta['slug']}.md":
        raise ValueError(f"corpus page {name}: slug {meta['slug']!r} does not match the file name")
    fault = meta.get("fault") or None
    if fault is not None and fault not in PAGE_FAULTS:
        raise ValueError(f"corpus page {name}: unknown fault {fault!r}; expected one of {PAGE_FAULTS}")
    paragraphs = tuple(" ".join(p.split()) for p in body.strip().split("\n\n") if p.strip())
    return Page(
        slug=meta["slug"],
        title=meta["title"],
        date=_dt.date.fromisoformat(meta["date"]),
        publisher=meta["publisher"],
        topic=meta["topic"],
        paragraphs=paragraphs,
        fault=fault,
    )


@functools.lru_cache(maxsize=1)
def load_corpus() -> tuple[Page, ...]:
    """Every page, sorted by slug (read once from the package data)."""
    root = resources.files("citetrace.demo").joinpath("corpus")
    pages = [
        _parse(entry.name, entry.read_text(encoding="utf-8"))
        for entry in root.iterdir()
        if entry.name.endswith(".md")
    ]
    return tuple(sorted(pages, key=lambda p: p.slug))


def page(slug: str) -> Page:
    """One page by slug; KeyError naming the slug if there is none."""
    for p in load_corpus():
        if p.slug == slug:
            return p
    raise KeyError(f"no demo corpus page {slug!r}")
