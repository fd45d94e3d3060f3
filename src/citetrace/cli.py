"""`citetrace ...`: a thin dispatcher. Each area registers its own subcommands from a private ``_cli`` module.

Logic lives in the library; a command only parses arguments, calls it, and prints. Bad input exits with
status 2 and one line naming the problem, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Sequence

__all__ = ["main", "build_parser", "CommandError"]

# Modules that define ``register(subparsers) -> None``; each adds parsers whose ``func(args) -> int`` runs.
_COMMAND_MODULES = (
    "citetrace.store._cli",
    "citetrace.summary._cli",
    "citetrace.demo._cli",
    "citetrace.serve._cli",
    "citetrace.eval._cli",
    "citetrace.ledger._cli",
    "citetrace.view._cli",
)


class CommandError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citetrace", description="Trace, summarize and check the citations of research-agent runs."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except CommandError as exc:
        print(f"citetrace {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover - `python -m citetrace.cli`: use the importable module's classes
    from citetrace.cli import main as _main

    sys.exit(_main())
