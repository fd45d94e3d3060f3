"""How deep a recursive tool can go, bare and wrapped by ``@traced_tool``, under the interpreter's own limit.

A tool that calls itself (a crawler following links, a search that refines its query) hits ``RecursionError``
sooner when every level carries a wrapper frame. Each configuration recurses until ``RecursionError`` in a
fresh child process (the default recursion limit, tracing on with an SDK provider), and the table gives the
deepest level reached and its ratio to the bare function's in the same run. The outer call is traced; the
nested ones pass through in the wrapper's one frame, so the floor for a wrapper written in Python is half.

    python benchmarks/bench_depth.py            # sync, async and generator tools
    python benchmarks/bench_depth.py --quick    # the same (it takes a second); kept for the smoke test
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness as h  # noqa: E402


def _sync(traced: bool) -> Callable[[], int]:
    reached = [0]

    def dig(n: int) -> int:
        reached[0] = n
        return dig(n + 1)

    if traced:
        from citetrace import traced_tool

        dig = traced_tool(kind="search", name="dig")(dig)  # the recursive call goes through the wrapper

    def run() -> int:
        try:
            dig(1)
        except RecursionError:
            pass
        return reached[0]

    return run


def _async(traced: bool) -> Callable[[], int]:
    reached = [0]

    async def dig(n: int) -> int:
        reached[0] = n
        return await dig(n + 1)

    if traced:
        from citetrace import traced_tool

        dig = traced_tool(kind="search", name="adig")(dig)

    def run() -> int:
        async def main() -> None:
            try:
                await dig(1)
            except RecursionError:
                pass

        asyncio.run(main())
        return reached[0]

    return run


def _generator(traced: bool) -> Callable[[], int]:
    reached = [0]

    def dig(n: int) -> Any:
        reached[0] = n
        yield n
        yield from dig(n + 1)

    if traced:
        from citetrace import traced_tool

        dig = traced_tool(kind="search", name="gdig")(dig)

    def run() -> int:
        try:
            for _ in dig(1):
                pass
        except RecursionError:
            pass
        return reached[0]

    return run


CONFIGS: dict[str, tuple[str, Callable[[bool], Callable[[], int]], bool]] = {
    "sync_bare": ("plain function, bare", _sync, False),
    "sync_traced": ("plain function, @traced_tool", _sync, True),
    "async_bare": ("coroutine function, bare", _async, False),
    "async_traced": ("coroutine function, @traced_tool", _async, True),
    "gen_bare": ("generator function, bare", _generator, False),
    "gen_traced": ("generator function, @traced_tool", _generator, True),
}


def child(key: str) -> dict[str, Any]:
    """Recurse once in this process; the depth reached and the spans exported (the outer call's one)."""
    _label, make, traced = CONFIGS[key]
    out: dict[str, Any] = {"limit": sys.getrecursionlimit()}
    if traced:
        from citetrace import _telemetry
        from citetrace.config import load_settings
        from citetrace.store import MemoryStore

        provider, counting = h.sdk_provider()
        _telemetry.reset(load_settings(), tracer_provider=provider, store=MemoryStore())
        out["depth"] = make(True)()
        provider.force_flush()
        out["spans"] = counting.exported
    else:
        out["depth"] = make(False)()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the same run (it is already quick)")
    parser.add_argument("--child", choices=sorted(CONFIGS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    results = {key: h.run_child(__file__, ["--child", key], h.child_env()) for key in CONFIGS}
    print(f"machine: {h.machine()}")
    print(f"recursion limit: {results['sync_bare']['limit']} (the interpreter's default, unchanged)\n")
    rows = []
    for key, (label, _make, traced) in CONFIGS.items():
        bare = results[key.replace("_traced", "_bare")]["depth"]
        depth = results[key]["depth"]
        rows.append([label, depth, f"{depth / bare:.3f}", results[key].get("spans", "-")])
    print(h.format_table(["recursive tool", "depth reached", "x bare", "spans exported"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
