"""Reset an object's locks and threads in a forked child.

A lock held by another thread at fork time is never released in the child, and the child has none of the
parent's threads; every stateful piece of citetrace that is shared across threads resets itself there. The
object is held weakly, so registering never keeps it alive.
"""

from __future__ import annotations

import os
import weakref
from typing import Callable, TypeVar

__all__ = ["reset_after_fork"]

T = TypeVar("T")


def reset_after_fork(obj: T, reset: Callable[[T], None]) -> None:
    """Call ``reset(obj)`` in every forked child while ``obj`` is alive."""
    ref = weakref.ref(obj)

    def _after_fork() -> None:
        alive = ref()
        if alive is not None:
            reset(alive)

    os.register_at_fork(after_in_child=_after_fork)
