"""``citetrace view RUN_ID [-o FILE]`` and ``citetrace ui [--port N]``: thin layers over ``citetrace.view``."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from citetrace import names
from citetrace._jsonfile import read_json
from citetrace.cli import CommandError, open_store_for_reading, tcp_port
from citetrace.store import Store

__all__ = ["register"]

_STORE_HELP = f"run store URI (default: ${names.ENV_STORE} or {names.STORE_DEFAULT_URI})"


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``view`` and ``ui``."""
    p = sub.add_parser("view", help="write one run as a self-contained HTML page (works offline, from a file)",
                       description="Write a run's page: header and figures, a waterfall of its tool calls, the "
                       "retrieval-to-citation map, the answer, the stored documents and the ledger. The file "
                       "makes no network request of any kind.")
    p.add_argument("run_id", metavar="RUN_ID", help="run id, unique prefix, or trace id")
    p.add_argument("-o", "--output", metavar="FILE", help="where to write the page ('-' for stdout; "
                   "default: citetrace-run-RUN_ID.html in the current folder)")
    p.add_argument("--store", default=None, help=_STORE_HELP)
    ev = p.add_mutually_exclusive_group()
    ev.add_argument("--eval", dest="eval_file", metavar="FILE",
                    help="show this evaluation (the output of `citetrace eval RUN_ID --json`)")
    ev.add_argument("--evaluate", action="store_true",
                    help="evaluate the recorded answer now with the offline checker (no network)")
    p.set_defaults(func=_cmd_view)
    u = sub.add_parser("ui", help="browse runs in a local, read-only web page",
                       description="Serve the run list (filter by outcome, agent, failure reason; search by run "
                       "or trace id) and each run's page, read-only. Binds 127.0.0.1 unless --host says otherwise.")
    u.add_argument("--port", type=tcp_port, default=8377, help="TCP port (default 8377; 0 picks a free one)")
    u.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    u.add_argument("--store", default=None, help=_STORE_HELP)
    u.add_argument("--review-queue", metavar="FILE", help="also serve this review queue (from `citetrace review "
                   "sample`) for labelling at /review, one key per label; needs --labeller and --labels-out")
    u.add_argument("--labeller", help="your name, recorded with every label given on the review page")
    u.add_argument("--labels-out", metavar="LABELS.jsonl", help="where the review page appends labels "
                   "(the judge-eval format)")
    u.set_defaults(func=_cmd_ui)


def _store(uri: str | None) -> Store:
    return open_store_for_reading(uri)  # read-only: never creates a store; errors are one line


def _load_eval(path: str) -> dict[str, Any]:
    try:
        data = read_json(path, "the evaluation")
    except ValueError as exc:
        raise CommandError(f"{exc} (expected `citetrace eval RUN --json` output)") from None
    if not isinstance(data, dict) or not isinstance(data.get("pairs"), list):
        raise CommandError(f"the evaluation {path!r} has no 'pairs' list: expected `citetrace eval RUN --json` output")
    return data


def _cmd_view(args: argparse.Namespace) -> int:
    from citetrace.view._runs import ViewError, find_run, page_for_run

    store = _store(args.store)
    evaluation = _load_eval(args.eval_file) if args.eval_file else None
    try:
        run = find_run(store, args.run_id)
        page = page_for_run(store, run.run_id, evaluation=evaluation, evaluate=args.evaluate)
    except ViewError as exc:
        raise CommandError(str(exc)) from exc
    if args.output == "-":
        print(page)
        return 0
    path = args.output or f"citetrace-run-{run.run_id}.html"
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as exc:
        raise CommandError(f"cannot write {path!r}: {exc.strerror}") from exc
    print(f"wrote {path} ({len(page.encode('utf-8')) // 1024} KiB): open it in a browser, it works offline")
    return 0


def _review_desk(args: argparse.Namespace) -> Any:
    """The review page's queue, or None; a missing companion option or a bad queue is a one-line error."""
    given = [args.review_queue, args.labeller, args.labels_out]
    if not any(given):
        return None
    if not all(given):
        raise CommandError("--review-queue, --labeller and --labels-out go together")
    from citetrace.view._review import ReviewDesk

    try:
        return ReviewDesk(args.review_queue, labeller=args.labeller, out_path=args.labels_out)
    except (ValueError, OSError) as exc:
        raise CommandError(str(exc)) from exc


def _cmd_ui(args: argparse.Namespace) -> int:
    from citetrace._stopsignals import STOP_GRACE_S, StopSignals
    from citetrace.view._server import RunBrowser

    review = _review_desk(args)
    store = _store(args.store)
    try:
        browser = RunBrowser(store, host=args.host, port=args.port, review=review)
    except OSError as exc:
        store.close()
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from exc
    if not _loopback(args.host):
        print(f"citetrace ui: warning: --host {args.host} is reachable from other machines: anyone who can reach "
              "it reads every run (questions, pages, answers) with no login", file=sys.stderr, flush=True)
    mode = f"review queue at {browser.url}review, labels to {args.labels_out}" if review else "read-only"
    with StopSignals("citetrace ui") as stop:
        browser.start()
        print(f"citetrace ui: serving {store.uri} at {browser.url} ({mode}; Ctrl-C stops)", flush=True)
        stop.wait()
        left = browser.stop(STOP_GRACE_S)
        _close_quietly(store)
        cut = f"; {left} request(s) unfinished after {STOP_GRACE_S:g} s were dropped" if left else ""
        print(f"citetrace ui: stopped ({stop.name}){cut}", file=sys.stderr, flush=True)
    return 0


def _loopback(host: str) -> bool:
    """Whether ``host`` binds only this machine (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any interface


def _close_quietly(store: Store) -> None:
    """Close the store at stop; a failure there is one log line, never a traceback or a stuck exit."""
    try:
        store.close()
    except Exception as exc:  # noqa: BLE001 - the stop must finish
        logging.getLogger("citetrace.view").warning("citetrace ui: closing %s failed: %s", store.uri, exc)
