"""The review queue's web page in the run browser: ``citetrace ui --review-queue Q --labeller NAME --labels-out F``.

The browser is otherwise read-only (GET only). With a review queue it accepts exactly one write: a POST to
``/review`` carrying one key (``s``/``p``/``c``/``a`` label, ``n`` skip, ``u`` undo), and only when
- the form's token is this server's (a random secret made at start-up, so another site's page cannot post a
  label through the labeller's browser),
- the request's ``Origin``, when the browser names one, is this server's own (the pages' no-referrer policy
  makes a browser send ``Origin: null`` for its own form, so the token is what proves it),
- the body is a small urlencoded form (at most ``MAX_FORM_BYTES``),
- and the item it names is the pair on screen (a second tab or a double click cannot label the wrong pair).
Labels go through the same ``LabelQueue`` as ``citetrace review label``, so both write the judge-eval format
with labeller and time, and both resume where the labeller stopped.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from http import HTTPStatus
from typing import Mapping

from citetrace.eval._internal import read_queue
from citetrace.eval._internal import KEYS, LabelQueue
from citetrace.view._page import render_review_page

__all__ = ["ReviewDesk", "MAX_FORM_BYTES"]

MAX_FORM_BYTES = 4096
_ACTIONS = frozenset(KEYS) | {"n", "u"}


class ReviewDesk:
    """One labeller's queue behind the review page; thread-safe (the server answers on several threads)."""

    def __init__(self, queue_path: str, *, labeller: str, out_path: str) -> None:
        if not labeller.strip():
            raise ValueError("--labeller must name the person labelling")
        if not os.path.exists(queue_path):
            raise ValueError(f"review queue {queue_path!r} does not exist: make one with `citetrace review sample`")
        self.queue = LabelQueue(read_queue(queue_path), labeller=labeller, out_path=out_path)
        self.token = secrets.token_urlsafe(24)
        self._lock = threading.Lock()

    def page(self, message: str = "") -> str:
        with self._lock:
            q = self.queue
            item = q.current()
            return render_review_page(
                item=item, position=q.position + 1, total=len(q.todo), done=len(q.written),
                left=len(q.todo) - q.position, labeller=q.labeller, out_path=q.out_path, token=self.token,
                keys=[(k, v) for k, v in KEYS.items()], can_undo=bool(q.written), message=message)

    def post(self, form: Mapping[str, str], origin: str | None, own_origin: str) -> tuple[int, str]:
        """(status, message) for one posted key; only HTTPStatus.SEE_OTHER means it was applied."""
        own = {own_origin.rstrip("/"), own_origin.rstrip("/").replace("//127.0.0.1:", "//localhost:")}
        if origin not in (None, "null") and origin.rstrip("/") not in own:  # "null": the page's no-referrer
            # policy makes the browser hide its own origin; the token still has to match
            return HTTPStatus.FORBIDDEN, f"refused: a post from {origin} is not from this page"
        if not hmac.compare_digest(form.get("token", ""), self.token):
            return HTTPStatus.FORBIDDEN, "refused: the form's token is not this server's (reload the page)"
        key = form.get("key", "")
        if key not in _ACTIONS:
            return HTTPStatus.BAD_REQUEST, f"unknown key {key!r}"
        with self._lock:
            item = self.queue.current()
            if key != "u" and (item is None or form.get("item") != item.id):
                return HTTPStatus.CONFLICT, "that pair is no longer the one on screen (reload the page)"
            self.queue.press(key)
        return HTTPStatus.SEE_OTHER, ""
