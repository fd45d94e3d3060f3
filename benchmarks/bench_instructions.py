"""Instructions per call of ``@traced_tool`` against the hand-written span, counted by callgrind (valgrind).

Why: on a machine shared with other jobs the timed ratios of ``bench_capture.py`` move by 0.05 or more from
one round to the next. The count of instructions a fixed number of calls executes moves by a few tenths of
a percent, so a change to the wrapper can be judged under load. It is not time: an instruction ratio is lower
than the timed one (the wrapper's own Python code runs at fewer instructions per cycle than the SDK's
average), so compare counts before and after a change, and keep ``bench_capture.py``'s timed rows as the
contract.

Each configuration of ``bench_capture.py`` runs in a child under ``valgrind --tool=callgrind`` twice, with a
warm-up and then ``N`` and ``N + calls`` calls; the difference over ``calls`` is the instructions per call of
the main thread (the exporter's thread is left out, as with ``BENCH_CLOCK=thread``). As in the timed
benchmark, a run's end, the flush and the exit are not counted: the child leaves with ``os._exit``.

    python benchmarks/bench_instructions.py                 # the four search rows' pairs, 1,000 calls
    python benchmarks/bench_instructions.py --only same run --calls 200
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness as h  # noqa: E402

ROWS = {
    "same": ("handwritten", "traced", "the same 10 results each call"),
    "new": ("handwritten_new", "traced_new", "never-seen URLs"),
    "newq": ("handwritten_newq", "traced_newq", "never-seen URLs, all with a query"),
    "run": ("handwritten_run", "traced_run", "inside a run"),
}
WARM_UP = 200


def child(key: str, calls: int) -> None:
    """Make ``calls`` calls of one configuration after the warm-up, then leave at once (nothing else counted)."""
    import bench_capture

    setup = bench_capture.BY_KEY[key].setup()
    for _ in range(WARM_UP):
        setup.call()
    around = setup.around() if setup.around else contextlib.nullcontext()
    around.__enter__()
    for _ in range(calls):
        setup.call()
    sys.stdout.flush()
    os._exit(0)


def _main_thread_instructions(valgrind: str, key: str, calls: int, workdir: str) -> int:
    out = os.path.join(workdir, f"{key}.{calls}")
    cmd = [valgrind, "--tool=callgrind", "--separate-threads=yes", f"--callgrind-out-file={out}",
           sys.executable, os.path.abspath(__file__), "--child", key, str(calls)]
    proc = subprocess.run(cmd, env=h.child_env(), capture_output=True, text=True, timeout=1800, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"callgrind child {key} {calls} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    with open(f"{out}-01", encoding="utf-8") as fh:  # thread 1: the main thread
        for line in fh:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError(f"no summary line in {out}-01")


def per_call(valgrind: str, key: str, calls: int) -> float:
    """Main-thread instructions per call of one configuration (two runs, their difference over ``calls``)."""
    with tempfile.TemporaryDirectory(prefix="citetrace-callgrind-") as workdir:
        base = _main_thread_instructions(valgrind, key, WARM_UP, workdir)
        more = _main_thread_instructions(valgrind, key, WARM_UP + calls, workdir)
    return (more - base) / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(ROWS), help="these rows only")
    parser.add_argument("--calls", type=int, default=1000, help="calls counted per configuration")
    parser.add_argument("--child", nargs=2, metavar=("KEY", "CALLS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], int(args.child[1]))
        return 0
    if args.calls < 1:
        print(f"error: --calls must be at least 1, got {args.calls}", file=sys.stderr)
        return 2
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("error: valgrind is not installed (Debian: apt-get install valgrind; scripts/setup does)",
              file=sys.stderr)
        return 2
    rows = []
    for row in args.only or list(ROWS):
        hand_key, traced_key, label = ROWS[row]
        hand, traced = per_call(valgrind, hand_key, args.calls), per_call(valgrind, traced_key, args.calls)
        rows.append([label, round(hand), round(traced), f"{traced / hand:.3f}"])
    print(f"machine: {h.machine()}")
    print(f"callgrind, main thread, {args.calls} calls counted per configuration after {WARM_UP} warm-up calls\n")
    print(h.format_table(["search tool, 10 results", "hand-written instr/call", "@traced_tool instr/call",
                          "x hand-written"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
