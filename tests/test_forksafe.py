"""reset_after_fork: a forked child gets fresh locks, and registering never keeps an object alive."""

from __future__ import annotations

import gc
import os
import threading
import weakref

from citetrace._forksafe import reset_after_fork


class _Guarded:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        reset_after_fork(self, _Guarded.fresh_lock)

    def fresh_lock(self) -> None:
        self.lock = threading.Lock()


def test_child_gets_a_fresh_lock_while_another_thread_holds_the_parents() -> None:
    """A lock held by another thread at fork time would block the child forever; after reset it is free."""
    guarded = _Guarded()
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with guarded.lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # the child: exit 0 only if the lock can be taken at once
            os._exit(0 if guarded.lock.acquire(timeout=2) else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        holder.join()
    assert os.waitstatus_to_exitcode(status) == 0


def test_registering_holds_the_object_weakly() -> None:
    guarded = _Guarded()
    ref = weakref.ref(guarded)
    del guarded
    gc.collect()
    assert ref() is None
