"""The cases of the libraries that cannot share this venv, run by pytest in the pinned venv.

crawl4ai 0.9 pins snowballstemmer~=2.2 (3.x changed English stems that ``citetrace eval`` aligns claims with)
and llama-index-tools-duckduckgo 0.6 pins duckduckgo-search<7 (the ``libraries`` extra has 8.1), so both live
in ``.venv-pinned``, which ``scripts/setup`` builds (``PINNED_PYTHON`` points elsewhere; ``_sidevenv``). Their cases are
ordinary pytest modules (``tests/instrumentation/pinned/case_*.py``, with this directory's fixtures) that this
test runs there, on this checkout's sources. A missing venv fails the test: it is a missing set-up step, not a
reason to skip; so does any skipped or failed case.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from instrumentation._sidevenv import side_python

ROOT = Path(__file__).parents[2]
HERE = Path(__file__).parent
PYTHON = side_python("pinned")
CASES = sorted(p.name for p in (HERE / "pinned").glob("case_*.py"))


@pytest.mark.parametrize("case", CASES)
def test_pinned_cases_pass(case: str, tmp_path: Path) -> None:
    """Every test of ``pinned/<case>`` passes in the pinned venv, none skipped, at least one collected."""
    assert Path(PYTHON).exists(), f"no pinned venv at {PYTHON}: run scripts/setup"
    report = tmp_path / "report.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
           "CRAWL4_AI_BASE_DIRECTORY": str(tmp_path), "CRAWL4AI_NO_CLOUD_NOTICE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "python_files=case_*.py",
         f"--confcutdir={HERE}", f"--junitxml={report}", str(HERE / "pinned" / case)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=280, stdin=subprocess.DEVNULL)
    sys.stdout.write(proc.stdout[-6000:])
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    suite = ET.parse(report).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    counts = {k: int(suite.get(k, "0")) for k in ("tests", "failures", "errors", "skipped")}
    assert counts["tests"] > 0 and counts["failures"] == counts["errors"] == counts["skipped"] == 0, counts
