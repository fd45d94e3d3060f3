"""Fixtures for the viewer: the demo's runs in a real SQLite store, and a real headless Chromium (Debian's)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from citetrace import names

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citetrace", *args], capture_output=True, text=True, timeout=120,
                          env=env, check=False)


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Every demo question (every fault on) recorded into one fresh SQLite store, by the real CLI."""
    uri = f"sqlite:///{tmp_path_factory.mktemp('viewstore') / 'store.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    done = _cli("demo", "--store", uri, "--no-metrics", "--questions", "all", "--check", env=env)
    assert done.returncode == 0, done.stderr
    return uri


@pytest.fixture(scope="session")
def demo_runs(demo_store: str) -> list[dict[str, Any]]:
    """The demo store's runs as `citetrace runs --json` lists them."""
    done = _cli("runs", "--store", demo_store, "--json", "--limit", "100")
    assert done.returncode == 0, done.stderr
    runs: list[dict[str, Any]] = json.loads(done.stdout)
    return runs


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $CITETRACE_TEST_ARTIFACTS when set (CI keeps them), else a temp folder."""
    folder = Path(os.environ.get(names.ENV_TEST_ARTIFACTS) or tmp_path_factory.mktemp("artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """One headless Debian Chromium for tests/view, driven by Playwright.

    Package scope, not session: Playwright's sync API keeps an asyncio loop running in this thread while it is
    open, so a session-long browser made any later test that calls ``asyncio.run`` fail with "cannot be called
    from a running event loop" (tests/view before tests/capture, e.g. with ``-p randomly`` or an explicit order).
    """
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), f"Debian's chromium is missing at {CHROMIUM}: scripts/setup installs it"
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class LoadedPage:
    """A page opened in Chromium, with every console message and network request it made."""

    def __init__(self, browser: Any, url: str, *, width: int = 1200) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900}, timezone_id="Asia/Tokyo")
        self.page = self.context.new_page()
        self.console: list[tuple[str, str]] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.console.append(("pageerror", str(e))))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(url)

    def close(self) -> None:
        self.context.close()


@pytest.fixture()
def open_page(browser: Any) -> Iterator[Any]:
    """``open_page(url)`` loads a page in a fresh browser context and closes it after the test."""
    pages: list[LoadedPage] = []

    def _open(url: str, **kw: Any) -> LoadedPage:
        pages.append(LoadedPage(browser, url, **kw))
        return pages[-1]

    yield _open
    for p in pages:
        p.close()
