"""``python -m citetrace._dashboards [--check] [--root DIR]``: regenerate (or verify) the operations files.

``--picture OUT.png --prometheus URL`` instead draws the overview dashboard from that Prometheus' data
(needs matplotlib, the ``docs`` extra).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from citetrace._dashboards._generate import check, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m citetrace._dashboards", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root (default: cwd)")
    parser.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")
    parser.add_argument("--picture", type=Path, metavar="PNG", help="draw the overview from real data into PNG")
    parser.add_argument("--prometheus", default="http://127.0.0.1:9090", help="Prometheus for --picture")
    parser.add_argument("--minutes", type=int, default=5, help="time range of --picture (default 5)")
    args = parser.parse_args(argv)
    if args.picture:
        from citetrace._dashboards._picture import render

        board = args.root / "grafana" / "dashboards" / "research-agent-overview.json"
        try:
            drawn = render(board, args.prometheus.rstrip("/"), args.picture, minutes=args.minutes)
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"{args.picture}: {drawn} panels")
        return 0
    try:
        if args.check:
            stale = check(args.root)
            for path in stale:
                print(f"stale: {path}", file=sys.stderr)
            return 1 if stale else 0
        for path in write(args.root):
            print(path)
    except ValueError as exc:  # a bad setting (CITETRACE_RUNBOOK_URL): one line, nothing written
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
