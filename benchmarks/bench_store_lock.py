"""A locked store and a dead telemetry endpoint: the bounds an agent sees, measured with real processes.

1. **Lock wait.** A second process holds the SQLite write lock (``BEGIN IMMEDIATE``) while an agent process
   (``configure()``, ``research_run``, ``@traced_tool``) makes runs of 1 search + 5 fetches. Reported: the
   slowest and the median tool call and run start/end under the lock, and the same with the store free.
2. **Loss window.** Queued writes live in memory until the lock goes. The lock is released at a known
   moment; reported: the time until every queued write is committed (what a ``kill -9`` at that moment
   could still lose), over several releases.
3. **Exit with telemetry down.** An OTLP endpoint on 127.0.0.1 that accepts connections and never answers;
   the agent makes N failing runs (every trace exported) and exits. Reported: the exit delay, and how many
   of the N summaries reached the store.

    python benchmarks/bench_store_lock.py            # 10,000 runs for the exit, 10 releases
    python benchmarks/bench_store_lock.py --quick    # a few (the smoke test)
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

_HOLDER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
while sys.stdin.readline().strip() == "lock":
    conn.execute("BEGIN IMMEDIATE")
    print("locked", flush=True)
    sys.stdin.readline()
    conn.execute("COMMIT")
    print("released", flush=True)
"""

_AGENT = textwrap.dedent(
    r"""
    import json, sys, time
    import citetrace
    from citetrace import research_run, traced_tool

    tel = citetrace.configure()

    @traced_tool(kind="search")
    def search(query):
        return [{"url": f"https://a.example/{i}"} for i in range(5)]

    @traced_tool(kind="fetch")
    def fetch(url):
        return f"the text of {url} " * 1000

    def runs(n):
        times = []
        for _ in range(n):
            t = time.perf_counter()
            with research_run("q", agent="lock-bench") as run:
                times.append(time.perf_counter() - t)
                t = time.perf_counter(); search("x"); times.append(time.perf_counter() - t)
                for i in range(5):
                    t = time.perf_counter(); fetch(f"https://a.example/{i}"); times.append(time.perf_counter() - t)
                t = time.perf_counter()
            times.append(time.perf_counter() - t)
        return times

    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        if cmd == "runs":
            print(json.dumps(runs(int(arg))), flush=True)
        elif cmd == "drain":
            t = time.perf_counter()
            ok = tel.store.flush(30.0)
            print(json.dumps({"ok": ok, "s": time.perf_counter() - t, "stats": vars(tel.store.stats())}), flush=True)
        elif cmd == "wait_release_drain":   # poll the queue from the moment the release is announced
            t0 = float(arg)
            tel.store.flush(30.0)
            print(json.dumps({"s": time.time() - t0}), flush=True)
        else:
            break
    """
)

_EXIT_AGENT = textwrap.dedent(
    """
    import sys, time
    import citetrace
    from citetrace import research_run, traced_tool

    citetrace.configure()

    @traced_tool(kind="search")
    def search(query):
        return []

    for i in range(int(sys.argv[1])):
        with research_run("q", agent="blackholed") as run:
            search("nothing %d" % i)
    print("done", flush=True)
    """
)


class _Proc:
    def __init__(self, argv: list[str], cwd: str, env: dict[str, str] | None = None) -> None:
        self.p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line: str) -> str:
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def close(self) -> None:
        if self.p.poll() is None:
            try:
                assert self.p.stdin is not None
                self.p.stdin.close()
            except OSError:
                pass
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.p.kill()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env.update(extra)
    return env


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.2f} / {max(values) * 1000:.1f}"


def lock_figures(tmp: str, runs: int, releases: int) -> list[tuple[str, str]]:
    path = Path(tmp) / "store.db"
    env = _env(CITETRACE_STORE=f"sqlite:///{path}", OTEL_TRACES_EXPORTER="none")
    agent = _Proc([sys.executable, "-c", _AGENT], tmp, env)
    holder = _Proc([sys.executable, "-c", _HOLDER, str(path)], tmp)
    rows: list[tuple[str, str]] = []
    try:
        free = json.loads(agent.ask(f"runs {runs}"))
        rows.append((f"store free: tool call / run start / run end, {len(free)} calls, median / max ms", _ms(free)))
        locked: list[float] = []
        windows: list[float] = []
        queued = 0
        for _ in range(releases):
            assert holder.ask("lock") == "locked"
            locked += json.loads(agent.ask(f"runs {runs}"))
            released_at = time.time()
            assert holder.ask("release") == "released"
            windows.append(json.loads(agent.ask(f"wait_release_drain {released_at}"))["s"])
            queued = json.loads(agent.ask("drain"))["stats"]["queued"]
        rows.append((f"store locked by another process: the same, {len(locked)} calls, median / max ms", _ms(locked)))
        rows.append((f"loss window: lock released -> every queued write committed, {releases} releases of "
                     f"{runs * 8} writes, median / max ms", _ms(windows)))
        rows.append(("writes queued in all (none lost)", f"{queued}"))
    finally:
        agent.close()
        holder.close()
    return rows


def exit_figures(tmp: str, runs: int, timeout_s: float) -> list[tuple[str, str]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()
    server.settimeout(0.2)

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    rows: list[tuple[str, str]] = []
    try:
        for sampling in ("embedded", "collector"):
            store = Path(tmp) / f"exit-{sampling}.db"
            env = _env(OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{server.getsockname()[1]}",
                       OTEL_EXPORTER_OTLP_TIMEOUT=str(timeout_s), CITETRACE_SAMPLING=sampling,
                       CITETRACE_STORE=f"sqlite:///{store}")
            proc = subprocess.Popen([sys.executable, "-c", _EXIT_AGENT, str(runs)], cwd=tmp, env=env,
                                    stdout=subprocess.PIPE, text=True)
            assert proc.stdout is not None
            assert proc.stdout.readline().startswith("done")
            t0 = time.monotonic()
            proc.wait(300)
            delay = time.monotonic() - t0
            conn = sqlite3.connect(store)
            stored = conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
            conn.close()
            rows.append((f"exit delay, blackholed endpoint, OTLP timeout {timeout_s:g} s, sampling={sampling}",
                         f"{delay:.2f} s"))
            rows.append((f"summaries in the store after exit, sampling={sampling}", f"{stored:,} of {runs:,}"))
    finally:
        stop.set()
        for conn_ in held:
            conn_.close()
        server.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few runs and releases (checks the script works)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="citetrace-lock-bench-") as tmp:
        rows = lock_figures(tmp, runs=3 if args.quick else 20, releases=2 if args.quick else 10)
        rows += exit_figures(tmp, runs=200 if args.quick else 10_000, timeout_s=1.0 if args.quick else 10.0)
    print("| what | figure |")
    print("|---|---:|")
    for what, figure in rows:
        print(f"| {what} | {figure} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
