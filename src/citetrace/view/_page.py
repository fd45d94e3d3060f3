"""HTML for the run page and the run list: one self-contained file each, with no request of any kind.

Everything from a run is untrusted (page text, queries, URLs, answers can carry markup), so:
- Jinja2 autoescapes every value; no template marks run data ``safe``;
- links are emitted only for http(s) URLs, never ``javascript:`` or ``data:``;
- a Content-Security-Policy allows only this page's own inline style and script (by hash), no connections,
  no images except ``data:``, no frames and no form posts (the run list may submit its filter to itself).
  Even markup that escaped escaping could neither run nor load anything.
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import html
import re
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from citetrace._extras import require
from citetrace import names
from citetrace.view._model import DOC_CHARS, RunView

if TYPE_CHECKING:
    from citetrace.view._runs import ListPage

__all__ = ["render_run_page", "render_run_list", "render_review_page", "render_message", "vital_signs_chart",
           "content_security_policy", "DOC_CHARS", "QUESTION_CHARS"]

QUESTION_CHARS = 300
"""Characters of a question in the run list and the run page's heading (the page also has it whole, folded)."""

_FIGURES = (
    ("searches", "searches", False),
    ("reads", "reads", False),
    ("empty_searches", "empty searches", True),
    ("failed_reads", "failed reads", True),
    ("rate_limited", "rate limited", True),
    ("repeat_queries", "repeated queries", True),
    ("distinct_urls_seen", "distinct URLs seen", False),
    ("citations", "citations", False),
    ("uncited_from_retrieval", "cited, not from a search", True),
    ("cited_not_fetched", "cited, never fetched", True),
    ("pages_from_search", "pages read from search results", False),
    ("unreported_searches", "searches whose sources the provider did not report", True),
)
_CSS_CLASS = re.compile(r"[^a-z_]")
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Embeddings, overrides and isolates: from a run they could reorder what the page shows (``\u202e`` makes
``txt.exe`` read ``exe.txt``), so they are shown as their code points instead."""
_SERIES = ("open_questions", "unresolved", "tool_calls", "new_evidence")
"""The ledger's per-iteration vital signs the chart draws (keys of ``Ledger.iterations()``)."""


def _iso(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _utc(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _ms(value: Any) -> str:
    ms = float(value or 0)
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.1f} ms"


def _secs(value: Any) -> str:
    return _ms(float(value or 0) * 1000)


def _href(url: Any) -> str | None:
    """A link target only for http(s) URLs: anything else is shown as text."""
    if isinstance(url, str) and re.match(r"(?i)https?://[^\s]+$", url):
        return url
    return None


def _shown(value: Any) -> Any:
    """Every ``{{ value }}`` before escaping: bidi controls become visible ``[U+202E]``; the package's own markup
    (``Markup``: the style, the script, the chart) passes untouched."""
    from markupsafe import Markup

    if isinstance(value, str) and not isinstance(value, Markup):
        return _BIDI_CONTROLS.sub(lambda m: f"[U+{ord(m.group()):04X}]", value)
    return value


def _css(value: Any) -> str:
    return _CSS_CLASS.sub("", str(value).lower())


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


@lru_cache(maxsize=1)
def _assets() -> tuple[str, str]:
    folder = resources.files("citetrace.view") / "templates"
    return (folder / "view.css").read_text(encoding="utf-8"), (folder / "view.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _env() -> Any:
    require("view")
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("citetrace.view", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, finalize=_shown)
    env.filters.update(iso=_iso, utc=_utc, ms=_ms, secs=_secs, href=_href, css=_css)
    return env


def _common(form_self: bool) -> dict[str, Any]:
    css, js = _assets()
    form = "form-action 'self'" if form_self else "form-action 'none'"
    csp = (f"default-src 'none'; style-src {_digest(css)}; script-src {_digest(js)}; img-src data:; "
           f"base-uri 'none'; {form}")
    from markupsafe import Markup

    from citetrace._version import version

    # the two assets are the package's own files, never run data: only they are marked safe
    return {"css": Markup(css), "js": Markup(js), "csp": csp, "version": version()}


def content_security_policy(page: str) -> str:
    """The policy a page carries in its meta tag, for a server to send as a header too."""
    m = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    return (html.unescape(m.group(1)) + "; frame-ancestors 'none'") if m else "default-src 'none'"


def vital_signs_chart(iterations: Sequence[Mapping[str, Any]]) -> str:
    """A small inline SVG line chart of the ledger's per-iteration vital signs (empty for < 1 iteration)."""
    if not iterations:
        return ""
    width, height, pad = 600, 160, 28
    peak = max([1.0] + [float(it.get(k) or 0) for it in iterations for k in _SERIES])
    n = len(iterations)

    def x(i: int) -> float:
        return pad + (width - 2 * pad) * (i / max(1, n - 1))

    def y(v: float) -> float:
        return height - pad - (height - 2 * pad) * (v / peak)

    parts = [f'<svg class="chart" id="vital-signs" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="vital signs over {n} iterations">',
             f'<line class="axis" x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}"></line>',
             f'<line class="axis" x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}"></line>',
             f'<text x="4" y="{pad + 4}">{peak:g}</text><text x="4" y="{height - pad}">0</text>']
    for s, key in enumerate(_SERIES):
        points = " ".join(f"{x(i):.1f},{y(float(it.get(key) or 0)):.1f}" for i, it in enumerate(iterations))
        parts.append(f'<polyline class="s{s}" data-series="{key}" points="{points}"></polyline>')
        parts.append(f'<text x="{pad + 8 + s * 140}" y="14" class="s{s}">{key.replace("_", " ")}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_run_page(view: RunView, *, back: str | None = None) -> str:
    """The whole run page as one HTML document (``back`` links to the run list when served by ``ui``)."""
    iterations = list((view.ledger or {}).get("iterations") or ())
    rate_names: Sequence[str] = ()
    if view.evaluation:
        from citetrace.eval import RATE_NAMES as rate_names
    return str(_env().get_template("run.html.j2").render(
        v=view, figures=_FIGURES, rate_names=rate_names, statuses=names.TOOL_STATUSES,
        question_chars=QUESTION_CHARS,
        chart=vital_signs_chart(iterations), back=back, **_common(form_self=False)))


def render_run_list(listing: "ListPage", *, filters: Mapping[str, str]) -> str:
    """The run browser's list page: one page of the filtered rows, the filter menus, links to the next pages."""
    return str(_env().get_template("list.html.j2").render(
        listing=listing, rows=listing.rows, filters=filters, choices=listing.choices, question_chars=QUESTION_CHARS,
        **_common(form_self=True)))


def render_message(message: str) -> str:
    """The browser's error and notice page: one escaped line (bidi controls shown) and a link to the run list."""
    return (f"<!doctype html><title>citetrace</title><p>{html.escape(_shown(message))}</p>"
            '<p><a href="/">all runs</a></p>')


def render_review_page(**context: Any) -> str:
    """The review queue's labelling page (``citetrace ui --review-queue``): one pair, one key per label; its
    form posts to the page itself only (``form-action 'self'``)."""
    return str(_env().get_template("review.html.j2").render(**context, **_common(form_self=True)))
