"""``CITETRACE_TOOLS``: wrap the user's own search/fetch functions by configuration, no code change.

Format: ``module:function=kind`` or ``module:Class.method=kind``, comma-separated, kind ``search`` or
``fetch``. A ``Class.method`` entry reads the query or URL from the arguments, else from the instance
(``self.query``, ``self.url``). Each entry is applied when its module is imported, before or after
instrumentation starts. A bad entry is reported once, with the reason, and ignored; the good ones still apply.
"""

from __future__ import annotations

import os
import re
import sys

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _instance, _shapes
from citetrace.instrumentation._patcher import warn_once
from citetrace.instrumentation._table_types import Patch

__all__ = ["parse_tools"]

_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_TARGET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")


def _problem(entry: str) -> str | Patch:
    """The row for one entry, or why it is bad."""
    if "=" not in entry:
        return "missing '=kind' (search or fetch)"
    path, _, kind = entry.rpartition("=")
    kind = kind.strip().lower()
    if kind not in names.TOOL_KINDS:
        return f"kind must be 'search' or 'fetch', got {kind!r}"
    if ":" not in path:
        return "missing ':' between module and function (module:function=kind)"
    module, _, target = path.strip().partition(":")
    if not _MODULE.match(module):
        return f"{module!r} is not a module path"
    if not _TARGET.match(target):
        return f"{target!r} is not 'function' or 'Class.method'"
    kept = _shapes.kept_search_failure if kind == names.TOOL_KIND_SEARCH else _shapes.kept_failure
    if "." in target:  # a method: the query or URL may live on the instance (``self.query``, see _instance)
        spec = ToolSpec(target, kind, query_from=_instance.QUERY_FROM_INSTANCE, url_from=_instance.URL_FROM_INSTANCE,
                        skip_self=True, classify=kept)
        return Patch("", module, target, spec, is_async=None, pass_instance=True)
    return Patch("", module, target, ToolSpec(target, kind, classify=kept), is_async=None)


def parse_tools(raw: str | None) -> list[Patch]:
    """Rows for the good entries of a ``CITETRACE_TOOLS`` value; each bad one is logged once and skipped."""
    rows: list[Patch] = []
    seen: set[str] = set()
    for entry in (raw or "").split(","):
        entry = entry.strip()
        if not entry:
            continue
        result = _problem(entry)
        if isinstance(result, str):
            warn_once(f"tools:{entry}", "citetrace: ignoring %s entry %r: %s", names.ENV_TOOLS, entry, result)
            continue
        if result.key in seen:
            continue
        seen.add(result.key)
        if result.module == _script_module():
            warn_once(f"tools-main:{entry}", "citetrace: %s entry %r names the script being run: it runs as "
                      "__main__ and module %r is never imported, so nothing can be wrapped; move the tool into a "
                      "module the script imports (or decorate it with @traced_tool)", names.ENV_TOOLS, entry,
                      result.module)
        rows.append(result)
    return rows


def _script_module() -> str | None:
    """The module name of what runs as ``__main__`` (``python agent.py`` -> ``agent``, ``python -m pkg.agent``
    -> ``pkg.agent``), or None (``-c``, the REPL, an embedded interpreter). ``sys.argv`` is already set when
    the start-up hook runs."""
    script = sys.argv[0] if sys.argv else ""
    orig = list(getattr(sys, "orig_argv", ()) or ())
    if script == "-m" and "-m" in orig[1:-1]:  # before runpy replaces it, argv[0] is "-m" in -m mode
        return str(orig[orig.index("-m", 1) + 1])
    if script.endswith(".py"):
        return os.path.splitext(os.path.basename(script))[0]
    return None
