"""A CITETRACE_TOOLS entry naming the script being run (``python agent.py`` with ``agent:fetch=fetch``): the
script runs as ``__main__``, module ``agent`` is never imported, and nothing can be wrapped. Before, that was
silent (no span, no word); now one warning line names the entry and the fix. Real interpreters, started with
environment variables only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

AGENT = '''
def fetch(url):
    return "page " * 100

print("fetched", len(fetch("https://x.example/a")))
'''
HINT = "names the script being run"


def _run(argv: list[str], cwd: Path, tools: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(CITETRACE_AUTO_INSTRUMENT="true", OTEL_TRACES_EXPORTER="none", CITETRACE_TOOLS=tools,
               CITETRACE_STORE="memory://", CITETRACE_METRICS="off")
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_entry_naming_the_script_warns_once_with_the_fix(tmp_path: Path) -> None:
    """``python agent.py`` and ``python -m agent`` both warn once that ``agent:fetch`` cannot be wrapped, and
    the script runs unchanged."""
    (tmp_path / "agent.py").write_text(AGENT)
    for argv in ([sys.executable, "agent.py"], [sys.executable, "-m", "agent"]):
        proc = _run(argv, tmp_path, "agent:fetch=fetch")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "fetched 500"
        warnings = [line for line in proc.stderr.splitlines() if HINT in line]
        assert len(warnings) == 1, proc.stderr
        assert "'agent:fetch=fetch'" in warnings[0] and "__main__" in warnings[0]
        assert "module the script imports" in warnings[0]


def test_entry_naming_an_imported_module_does_not_warn(tmp_path: Path) -> None:
    """Tools in a module the script imports are wrapped as documented, with no such warning."""
    (tmp_path / "tools.py").write_text(AGENT.split("print(")[0])
    (tmp_path / "agent.py").write_text("import tools\nprint('fetched', len(tools.fetch('https://x.example/a')))\n"
                                       "from citetrace import names\nprint('wrapped', hasattr(tools.fetch, '__wrapped__'))\n")
    proc = _run([sys.executable, "agent.py"], tmp_path, "tools:fetch=fetch")
    assert proc.returncode == 0, proc.stderr
    assert HINT not in proc.stderr
    assert "wrapped True" in proc.stdout
