"""citetrace's exit work, run at exit in every process, multiprocessing children included.

A ``multiprocessing`` child (a ``ProcessPoolExecutor`` worker, a ``Pool`` worker, a ``Process``) started by
``fork`` or ``forkserver`` leaves by ``os._exit``: ``atexit`` handlers never run there. Its summaries,
queued in the processor's worker thread, and its spans, queued in the batch exporter, were lost (an agent
run through a process pool stored its runs, calls and pages, but no run had a summary). So every exit
handler of citetrace is registered here: with ``atexit`` as before, and, in a multiprocessing child, with
multiprocessing's own exit finalizers too (``multiprocessing.util.Finalize``, which the child runs before
``os._exit``). ``spawn`` children are fresh interpreters that exit normally, through ``atexit``.

In the child the handlers run in ``atexit``'s order (last registered first), then the telemetry that the
application's own ``configure()`` set up is shut down (at the parent's exit the SDK provider's own
``atexit`` hook does that), then the ``last`` handlers (the stores' flush, which must follow the summaries).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import Callable

__all__ = ["at_exit"]

Handler = Callable[[], object]

_lock = threading.Lock()
_handlers: list[Handler] = []
_last: list[Handler] = []
_ran = False


def at_exit(handler: Handler, *, last: bool = False) -> None:
    """Run ``handler`` at exit (``atexit``), and at the exit of a multiprocessing child.
    ``last``: after the other handlers and the telemetry's shutdown in such a child (a store flush)."""
    atexit.register(_unless_ran, handler)
    with _lock:
        (_last if last else _handlers).append(handler)


class _Token:
    """What ``register_after_fork`` holds (weakly) while this module lives."""


_TOKEN = _Token()


def _unless_ran(handler: Handler) -> None:
    """The ``atexit`` entry: skipped where the child's exit already ran it (a ``spawn`` child runs both)."""
    if not _ran:
        handler()


def _child_exit() -> None:
    global _ran
    if _ran:
        return
    _ran = True
    with _lock:
        first, last = list(reversed(_handlers)), list(reversed(_last))
    for handler in first:
        _call(handler)
    from citetrace import _telemetry

    telemetry = _telemetry.current()
    if telemetry.configured:
        _call(telemetry.shutdown)
    for handler in last:
        _call(handler)


def _call(handler: Handler) -> None:
    try:
        handler()
    except Exception:  # noqa: BLE001 - exit must go on
        pass


def _arm(_token: _Token) -> None:
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util.Finalize(None, _child_exit, exitpriority=0)


def _after_fork_in_child() -> None:
    """A multiprocessing child clears the finalizers it inherited, then runs its after-fork hooks: arm there."""
    global _ran
    _ran = False
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util.register_after_fork(_TOKEN, _arm)


def _arm_if_child() -> None:
    """Imported in a multiprocessing child: a worker importing citetrace late (arm now), or a ``spawn`` /
    ``forkserver`` child loading its main module (``_inheriting``), before ``_bootstrap`` clears the
    finalizers and runs the after-fork hooks (arm then)."""
    util = sys.modules.get("multiprocessing.util")
    process = sys.modules.get("multiprocessing.process")
    if util is None or process is None:
        return
    if process.parent_process() is not None:
        _arm(_TOKEN)
    elif getattr(process.current_process(), "_inheriting", False):
        util.register_after_fork(_TOKEN, _arm)


os.register_at_fork(after_in_child=_after_fork_in_child)
_arm_if_child()
