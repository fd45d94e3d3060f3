"""Build citetrace's wheel (and sdist) from this checkout exactly as ``pip install .`` does, for the tests that
check what an installed package holds (tests/test_extras.py, tests/test_packaging.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "build_wheel", "build_sdist"]

ROOT = Path(__file__).resolve().parents[1]


def build_wheel(out: Path, source: Path = ROOT) -> Path:
    """The wheel pip builds from ``source`` (a checkout or an unpacked sdist), written under ``out``."""
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(source)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (built,) = out.glob("citetrace-*.whl")
    return built


def build_sdist(out: Path) -> Path:
    """The sdist hatchling builds from this checkout, written under ``out``."""
    proc = subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (built,) = out.glob("citetrace-*.tar.gz")
    return built
