"""The run viewer: a self-contained HTML page per run (``citetrace view``) and a local run browser
(``citetrace ui``). It only reads the run store; it never writes and never makes a network request.
"""

from __future__ import annotations

from citetrace.view._model import RunView, build_run_view, run_outcome
from citetrace.view._page import render_run_list, render_run_page
from citetrace.view._runs import list_page, list_rows, page_for_run
from citetrace.view._server import RunBrowser

__all__ = [
    "RunBrowser",
    "RunView",
    "build_run_view",
    "list_page",
    "list_rows",
    "page_for_run",
    "render_run_list",
    "render_run_page",
    "run_outcome",
]
