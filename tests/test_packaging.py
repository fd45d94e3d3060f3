"""The installed wheel, not the source tree: every data file the code reads at run time is in the wheel (and
in the wheel built from the sdist), and the commands that read them work from an install outside the
repository, so a data file left out of the wheel fails here rather than for the first user."""

from __future__ import annotations

import ast
import configparser
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from _wheel import ROOT, build_sdist, build_wheel

SRC = ROOT / "src" / "citetrace"
NOT_SHIPPED = ("_dashboards/",)  # the dashboards generator is a repository tool (pyproject.toml excludes it)
FILE_READERS = {"instrumentation/_coverage.py"}  # reads docs/coverage.md under --root (a repository tool)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, as `pip install .` builds it."""
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def names(wheel: Path) -> set[str]:
    """Every file name in the wheel."""
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed (its files only, no dependencies) into a directory of its own, outside the repo."""
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile", "-q",
                           "--target", str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def _data_files() -> set[str]:
    """Every non-Python file of the package in this checkout, as a wheel path (git-tracked ones, when in git)."""
    listed = subprocess.run(["git", "ls-files", "src/citetrace"], cwd=ROOT, capture_output=True, text=True)
    paths = ([ROOT / p for p in listed.stdout.splitlines()] if listed.returncode == 0 and listed.stdout
             else [p for p in SRC.rglob("*") if p.is_file() and "__pycache__" not in p.parts])
    rel = {p.relative_to(SRC).as_posix() for p in paths if p.is_file()}
    return {f"citetrace/{r}" for r in rel if not r.endswith(".py") and not r.startswith(NOT_SHIPPED)}


def _resource_dirs() -> set[str]:
    """The package folders the code opens with ``importlib.resources.files(PKG).joinpath("a")...`` or ``/ "a"``,
    as wheel paths: the literal parts of each chain (a name held in a variable ends it)."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix().startswith(NOT_SHIPPED):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "files" and node.args \
                    and isinstance(node.args[0], ast.Constant):
                found.add("/".join([node.args[0].value.replace(".", "/"), *_chain(node, path)]))
    return found


def _chain(call: ast.Call, path: Path) -> list[str]:
    """The literal ``joinpath``/``/`` parts applied to ``call`` in its module (ast has no parent links)."""
    parts: list[str] = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        inner, arg = None, None
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "joinpath" and node.args:
            inner, arg = node.func.value, node.args[0]  # type: ignore[attr-defined]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            inner, arg = node.left, node.right
        if inner is not None and ast.dump(inner) == ast.dump(call) and isinstance(arg, ast.Constant):
            return [arg.value, *_chain(node, path)]  # type: ignore[arg-type]
    return parts


def test_every_data_file_of_the_package_is_in_the_wheel(names: set[str]) -> None:
    """Each non-Python file under src/citetrace (labelled sets, templates, the demo corpus, py.typed, the .pth
    source) is in the wheel, and the start-up hook sits at the wheel's root."""
    sys.path.insert(0, str(ROOT))
    try:
        from hatch_build import PTH_SOURCE, PTH_TARGET  # the build hook moves the .pth to the wheel's root
    finally:
        sys.path.remove(str(ROOT))
    moved = {PTH_SOURCE.removeprefix("src/"): PTH_TARGET}
    data = {moved.get(f, f) for f in _data_files()}
    assert {"citetrace/py.typed", "citetrace/eval/data/labels.jsonl", "citetrace/view/templates/view.css",
            "citetrace_autoinstrument.pth"} <= data
    assert data - names == set()
    assert not [n for n in names if n.startswith("citetrace/" + NOT_SHIPPED[0])]


def test_every_folder_the_code_opens_as_a_resource_is_in_the_wheel(names: set[str]) -> None:
    """Each ``importlib.resources.files(...)`` chain in the code names a folder or file that the wheel holds."""
    opened = _resource_dirs()
    assert {"citetrace/eval/data", "citetrace/view/templates", "citetrace/demo/corpus"} <= opened, opened
    for resource in opened:
        assert resource in names or any(n.startswith(resource + "/") for n in names), resource


def test_no_module_reads_files_next_to_itself() -> None:
    """Run-time files are read through importlib.resources (which works from any install), never relative to
    ``__file__``: such a read would work from a checkout and fail from a zip or a stripped install."""
    offenders = [p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py")
                 if "__file__" in p.read_text(encoding="utf-8")
                 and not p.relative_to(SRC).as_posix().startswith(NOT_SHIPPED)
                 and p.relative_to(SRC).as_posix() not in FILE_READERS]
    assert offenders == []


def test_the_wheel_built_from_the_sdist_is_the_same(names: set[str], tmp_path: Path) -> None:
    """`pip install citetrace-X.tar.gz` builds a wheel with exactly the files of the one built from the checkout."""
    sdist = build_sdist(tmp_path / "sdist")
    with tarfile.open(sdist) as tf:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4
            tf.extractall(tmp_path / "unpacked", filter="data")
        else:
            tf.extractall(tmp_path / "unpacked")  # our own sdist, just built
    (source,) = (tmp_path / "unpacked").iterdir()
    with zipfile.ZipFile(build_wheel(tmp_path / "wheel", source)) as zf:
        assert set(zf.namelist()) == names


_IN_SITE = """import sys
sys.path.insert(0, sys.argv[1])
import citetrace
assert citetrace.__file__.startswith(sys.argv[1]), citetrace.__file__
from citetrace.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _cli(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``citetrace ARGS`` run with the installed wheel first on sys.path, from a directory outside the repo."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_", "PYTHONPATH"))}
    env.update(OTEL_TRACES_EXPORTER="none", CITETRACE_STORE=f"sqlite:///{cwd / 'store.db'}")
    return subprocess.run([sys.executable, "-c", _IN_SITE, str(site), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_judge_eval_reads_every_shipped_set_from_the_install(site: Path, tmp_path: Path) -> None:
    """`citetrace judge-eval --set NAME` for every shipped set works from the installed wheel (the labelled
    sets are package data) and measures a non-empty set."""
    from citetrace.eval._data import LABEL_SETS

    for name in LABEL_SETS:
        done = _cli(site, tmp_path, "judge-eval", "--set", name, "--judge", "deterministic", "--json")
        assert done.returncode == 0, (name, done.stderr)
        assert json.loads(done.stdout)["n"] > 0, name


def test_demo_and_run_page_read_the_corpus_and_templates_from_the_install(site: Path, tmp_path: Path) -> None:
    """`citetrace demo --check` (the shipped corpus) and `citetrace view` (the templates and their CSS, inlined)
    work from the installed wheel."""
    done = _cli(site, tmp_path, "demo", "--no-metrics", "--check", "--questions", "prices", "--json")
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout.splitlines()[0])["run_id"]
    page = _cli(site, tmp_path, "view", run_id, "-o", "page.html")
    assert page.returncode == 0, page.stderr
    css = (site / "citetrace" / "view" / "templates" / "view.css").read_text(encoding="utf-8")
    assert css.strip().splitlines()[0] in (tmp_path / "page.html").read_text(encoding="utf-8")


def test_every_entry_point_of_the_wheel_loads_from_the_install(site: Path, wheel: Path, tmp_path: Path) -> None:
    """The console script, the OpenTelemetry instrumentor and post-instrument hooks and the pytest plugin named
    in the wheel's entry_points.txt import from the installed wheel; so does the start-up hook's module."""
    with zipfile.ZipFile(wheel) as zf:
        text = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt"))).decode()
    parser = configparser.ConfigParser()
    parser.read_string(text)
    targets = [value for section in parser.sections() for value in parser[section].values()]
    assert {s for s in parser.sections()} >= {"console_scripts", "opentelemetry_instrumentor", "pytest11",
                                              "opentelemetry_post_instrument"}
    pth = (site / "citetrace_autoinstrument.pth").read_text(encoding="utf-8")
    assert "citetrace.instrumentation._autostart import start" in pth
    targets.append("citetrace.instrumentation._autostart:start")
    code = ("import importlib, sys\nsys.path.insert(0, sys.argv[1])\nfor t in sys.argv[2:]:\n"
            "    mod, _, attr = t.partition(':')\n    obj = importlib.import_module(mod)\n"
            "    assert obj.__file__.startswith(sys.argv[1]), obj.__file__\n"
            "    for part in filter(None, attr.split('.')):\n        obj = getattr(obj, part)\n"
            "print(len(sys.argv) - 2)\n")
    done = subprocess.run([sys.executable, "-c", code, str(site), *targets], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == str(len(targets)), done.stderr
