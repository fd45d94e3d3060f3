"""The spool: queued store writes, also appended to a per-process file, so a ``kill -9`` never loses them.

A write that meets a locked store is kept in memory (``BufferedStore`` retries it) and appended as one JSON
line to ``<store file>.spool/<pid>-<token>.jsonl``. The operating system keeps what ``write()`` was given
when the process dies, which is the same promise SQLite's WAL with ``synchronous=NORMAL`` makes for a
commit. Each committed write appends a ``done`` line, and the file is emptied once the queue is empty.

The owning process holds an exclusive ``flock`` on its file for as long as it lives; the kernel drops that
lock when the process dies, however it dies. The next agent to write to the same store takes over every
spool file it can lock, writes the operations that have no ``done`` line, in order, and deletes the file.
A document written by a process that died between its commit and its ``done`` line is not written twice.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no spool, queued writes live in memory only
    fcntl = None  # type: ignore[assignment]

from citetrace.store._model import (
    ModelCitation, RunRecord, Store, StoreBusy, ToolCallRecord, ToolResponse, content_hash,
)

__all__ = ["Spool", "recover_spools", "spool_dir_for"]

_log = logging.getLogger("citetrace")


def spool_dir_for(path: Path) -> Path:
    """Where a store file's spool files live: next to it, so they travel with the store."""
    return path.with_name(path.name + ".spool")


def _encode(seq: int, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    if name == "put_run":
        args = (asdict(args[0]),)
    elif name in ("put_calls", "put_responses", "put_model_citations"):
        args = ([asdict(c) for c in args[0]],)
    if isinstance(kwargs.get("run"), RunRecord):  # put_summary's record for a run the store has none of
        kwargs = {**kwargs, "run": asdict(kwargs["run"])}
    return (json.dumps({"seq": seq, "op": name, "args": list(args), "kwargs": kwargs}, default=str) + "\n").encode()


def _decode(data: dict[str, Any]) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    name, args, kwargs = str(data["op"]), list(data["args"]), dict(data["kwargs"])
    if name == "put_run":
        args = [RunRecord(**args[0])]
    elif name == "put_calls":
        args = [[ToolCallRecord(**{**c, "urls_returned": tuple(c.get("urls_returned") or ())}) for c in args[0]]]
    elif name == "put_responses":
        args = [[ToolResponse(**r) for r in args[0]]]
    elif name == "put_model_citations":
        args = [[ModelCitation(**c) for c in args[0]]]
    if isinstance(kwargs.get("run"), dict):
        kwargs["run"] = RunRecord(**kwargs["run"])
    return name, tuple(args), kwargs


class Spool:
    """This process's spool file, opened (and locked) on the first queued write."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._fd: int | None = None
        self._dirty = False
        self.path: Path | None = None

    def after_fork(self) -> None:
        """In a child: forget the parent's file (the parent keeps its lock and writes its own queue)."""
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd, self.path, self._dirty = None, None, False

    def _open(self) -> int:
        if self._fd is None:
            if fcntl is None:
                raise OSError("no flock on this platform")
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / f"{os.getpid()}-{secrets.token_hex(4)}.jsonl"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._fd, self.path = fd, path
        return self._fd

    def append(self, seq: int, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Record a queued write; raises OSError if it cannot (the write then lives in memory only)."""
        _write_all(self._open(), _encode(seq, name, args, kwargs))
        self._dirty = True

    def done(self, seq: int) -> None:
        if self._fd is not None and self._dirty:
            _write_all(self._fd, b'{"done": %d}\n' % seq)

    def clear(self) -> None:
        """Everything queued is committed: empty the file (kept open and locked for the next spill)."""
        if self._fd is not None and self._dirty:
            os.ftruncate(self._fd, 0)
            self._dirty = False

    def close(self, *, keep: bool) -> None:
        """At exit: delete an empty file; keep one with unwritten operations for the next process."""
        if self._fd is None:
            return
        if not keep and self.path is not None:
            try:
                self.path.unlink()
            except OSError:
                pass
        os.close(self._fd)
        self._fd = None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _operations(path: Path) -> Iterator[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    lines = path.read_bytes().splitlines()
    done: set[int] = set()
    ops: list[dict[str, Any]] = []
    for raw in lines:
        try:
            data = json.loads(raw)
        except ValueError:  # a line cut short by the death of its writer: it was never acknowledged
            continue
        if "done" in data:
            done.add(int(data["done"]))
        else:
            ops.append(data)
    for data in ops:
        if int(data["seq"]) not in done:
            yield _decode(data)


def _already_written(store: Store, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    doc = store.get(args[0], args[1])
    return doc is not None and doc.sha256 == content_hash(args[2]) and doc.fetched_at == kwargs.get("fetched_at")


def recover_spools(directory: Path, store: Store, *, own: Path | None, wait: Callable[[], bool]) -> int:
    """Write the operations left in the spool files of dead processes; returns how many were written.

    ``wait()`` is called while the store is locked; when it returns False (exit), recovery stops and the
    files stay for the next process.
    """
    if fcntl is None or not directory.is_dir():
        return 0
    written = 0
    for path in sorted(directory.glob("*.jsonl")):
        if path == own:
            continue
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # its process is alive
            for name, args, kwargs in _operations(path):
                if name == "put_document" and _already_written(store, args, kwargs):
                    continue
                while True:
                    try:
                        getattr(store, name)(*args, **kwargs)
                        break
                    except StoreBusy:
                        if not wait():
                            return written
                written += 1
            path.unlink()
        except Exception as exc:  # noqa: BLE001 - a broken spool file must not stop the agent
            _log.warning("citetrace: cannot recover the store spool %s (%s: %s); renamed to .broken", path,
                         type(exc).__name__, exc)
            try:
                path.rename(path.with_suffix(".broken"))
            except OSError:
                pass
        finally:
            os.close(fd)
    return written

