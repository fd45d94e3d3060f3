"""The light install: the built wheel's metadata (base requirements, extras, classifiers, URLs, no dashboards
generator), the base closure without grpcio or numpy, and the one-line error each missing extra gives."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from email.message import Message
from email.parser import Parser
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest
from _wheel import build_wheel
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import citetrace
from citetrace._extras import EXTRAS, MissingExtra, require
from citetrace.store import RunRecord, SQLiteStore

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"grpcio", "numpy", "opentelemetry-exporter-otlp", "opentelemetry-exporter-otlp-proto-grpc", "rank-bm25"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, as `pip install .` builds it."""
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def metadata(wheel: Path) -> Message:
    """The wheel's METADATA file, parsed."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(zf.read(name).decode())


def _requirements(metadata: Message, extra: str | None) -> list[Requirement]:
    """Requires-Dist entries that apply with ``extra`` (None: the base install)."""
    env = {"extra": extra or ""}
    reqs = [Requirement(r) for r in metadata.get_all("Requires-Dist") or []]
    return [r for r in reqs if (r.marker is None and extra is None) or (r.marker is not None and extra is not None
                                                                        and r.marker.evaluate(env))]


def _closure(names: list[str]) -> set[str]:
    """Every distribution ``names`` pull in, walked through the installed packages' own metadata."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        req = Requirement(todo.pop())
        name = canonicalize_name(req.name)
        if name in seen or name == "citetrace" or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue  # citetrace's own extras are read from the wheel by the caller, not from what is installed
        seen.add(name)
        try:
            todo.extend(r for r in requires(name) or [] if "extra ==" not in r)
        except PackageNotFoundError:
            continue
        for wanted in req.extras:
            todo.extend(r.split(";")[0] for r in requires(name) or [] if re.search(rf"extra == ['\"]{wanted}['\"]", r))
    return seen


def test_base_requirements_are_light(metadata: Message) -> None:
    """The base Requires-Dist, and everything they pull in, hold no grpcio, numpy or meta exporter package."""
    base = [str(r) for r in _requirements(metadata, None)]
    assert {canonicalize_name(Requirement(r).name) for r in base} & HEAVY == set(), base
    assert any(r.startswith("opentelemetry-exporter-otlp-proto-http") for r in base)
    assert any(r.startswith("packaging") for r in base)  # instrumentation._patcher imports it
    closure = _closure(base)
    assert "opentelemetry-sdk" in closure and "protobuf" in closure  # the HTTP exporter encodes protobuf
    assert closure & HEAVY == set(), sorted(closure & HEAVY)


def test_every_extra_brings_the_modules_it_is_required_for(metadata: Message) -> None:
    """Each extra `require()` knows is in the wheel, and its requirements bring every module listed for it."""
    provided = set(metadata.get_all("Provides-Extra") or [])
    dists_of = packages_distributions()
    for extra, (_, modules) in EXTRAS.items():
        assert extra in provided, extra
        closure = _closure([r.name + (f"[{','.join(r.extras)}]" if r.extras else "")
                            for r in _requirements(metadata, extra)])
        for extra_req in (r for r in _requirements(metadata, extra) if canonicalize_name(r.name) == "citetrace"):
            for inner in extra_req.extras:
                closure |= _closure([r.name for r in _requirements(metadata, inner)])
        for module in modules:
            dists = {canonicalize_name(d) for d in dists_of.get(module.split(".")[0], [])}
            assert dists & closure, (extra, module, dists)
    assert {"test", "libraries", "frameworks", "providers", "crewai", "docs"} <= provided  # old names kept


def test_wheel_has_classifiers_urls_and_no_dashboards_generator(wheel: Path, metadata: Message) -> None:
    """Classifiers and project URLs are declared; the generator (grafana SDK, matplotlib) stays out of the wheel."""
    assert "Typing :: Typed" in (metadata.get_all("Classifier") or [])
    assert {u.split(",")[0] for u in metadata.get_all("Project-URL") or []} >= {"Homepage", "Source", "Issues"}
    assert metadata["Version"] == citetrace.__version__
    with zipfile.ZipFile(wheel) as zf:
        files = zf.namelist()
    assert not [f for f in files if f.startswith("citetrace/_dashboards/")]
    assert "citetrace/_extras.py" in files and "citetrace/py.typed" in files


def test_version_from_one_source() -> None:
    """`citetrace --version` and `citetrace.__version__` both say the installed distribution's version."""
    out = subprocess.run([sys.executable, "-m", "citetrace", "--version"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == f"citetrace {citetrace.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", citetrace.__version__)


def test_require_names_the_extra_and_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blocked module makes require() raise an ImportError naming the extra, the module and the pip line."""
    require("eval")  # installed here: no error
    monkeypatch.setitem(sys.modules, "rank_bm25", None)
    with pytest.raises(MissingExtra) as info:
        require("eval")
    assert isinstance(info.value, ImportError) and info.value.name == "rank_bm25"
    assert str(info.value) == ("citation evaluation needs the [eval] extra (rank_bm25 not installed): "
                               "pip install 'citetrace[eval]'")


def test_grpc_protocol_without_the_grpc_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """OTEL_EXPORTER_OTLP_PROTOCOL=grpc on a base install: MissingExtra naming citetrace[grpc]."""
    from citetrace._exporters import exporters_from_env

    monkeypatch.setitem(sys.modules, "grpc", None)
    with pytest.raises(MissingExtra, match=re.escape("pip install 'citetrace[grpc]'")):
        exporters_from_env({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})


_BLOCKED_CLI = """import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
from citetrace.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(("blocked", "extra", "command"), [
    ("h11", "serve", ["serve", "--port", "0"]),
    ("snowballstemmer", "eval", ["eval", "r1", "--offline"]),
    ("rank_bm25", "eval", ["judge-eval", "--judge", "deterministic"]),
    ("jinja2", "view", ["view", "r1"]),
    ("yaml", "bench", ["bench", "questions.yaml", "--agent", "x:y"]),
    ("rank_bm25", "demo", ["demo", "--no-metrics", "--questions", "storage"]),
], ids=lambda v: v if isinstance(v, str) else v[0])
def test_missing_extra_is_one_line_in_the_cli(tmp_path: Path, blocked: str, extra: str, command: list[str]) -> None:
    """Through the real entry point, with the extra's module unimportable: one line naming the extra, no
    traceback, exit status 2."""
    store = SQLiteStore(tmp_path / "store.db")
    store.put_run(RunRecord("r1", "0" * 32, "scout", "q", 1.0, 2.0, "Solar grew [1].\n\n[1] https://example.org/a"))
    store.close()
    (tmp_path / "questions.yaml").write_text("questions: []\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env["CITETRACE_STORE"] = f"sqlite:///{tmp_path / 'store.db'}"
    out = subprocess.run([sys.executable, "-c", _BLOCKED_CLI, blocked, *command], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert f"pip install 'citetrace[{extra}]'" in lines[0] and blocked in lines[0], lines[0]
    assert out.stdout == ""  # said before anything starts (the demo printed its header and ran a metrics server)


def test_bench_without_eval_says_so_before_the_agent_runs(tmp_path: Path) -> None:
    """`citetrace bench` needs [eval] for every repeat's rates: one line naming it, and the agent never called."""
    (tmp_path / "questions.json").write_text('{"questions": [{"id": "q1", "question": "what?"}]}')
    (tmp_path / "my_agent.py").write_text("from pathlib import Path\n"
                                          "def answer(q):\n    Path('called').touch()\n    return 'x'\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env.update(PYTHONPATH=str(tmp_path) + os.pathsep + env.get("PYTHONPATH", ""), OTEL_TRACES_EXPORTER="none",
               CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}")
    out = subprocess.run([sys.executable, "-c", _BLOCKED_CLI, "rank_bm25", "bench", "questions.json", "--agent",
                          "my_agent:answer"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.strip().splitlines() == [
        "citetrace bench: error: citation evaluation needs the [eval] extra (rank_bm25 not installed): "
        "pip install 'citetrace[eval]'"], out.stderr
    assert not (tmp_path / "called").exists()


def test_the_bench_extra_brings_eval(metadata: Message) -> None:
    """`pip install 'citetrace[bench]'` is enough for `citetrace bench`: every requirement of [eval] is in it
    (hatchling writes a self-referencing extra out as its requirements)."""
    bench = {str(r).split(";")[0] for r in _requirements(metadata, "bench")}
    assert {str(r).split(";")[0] for r in _requirements(metadata, "eval")} <= bench, bench


def test_every_command_registers_on_a_base_install() -> None:
    """With every extra's modules unimportable, `citetrace --help` still lists every command (their help
    works; only running one needs its extra)."""
    blocked = ",".join(sorted({m for _, modules in EXTRAS.values() for m in modules}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    out = subprocess.run([sys.executable, "-c", _BLOCKED_CLI, blocked, "--help"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for command in ("eval", "gate", "baseline", "judge-eval", "serve", "view", "ui", "bench", "demo", "runs"):
        assert re.search(rf"^\s+{re.escape(command)}\b", out.stdout, re.M), command


def test_script_variables_are_read_and_documented() -> None:
    """Every variable of names.SCRIPT_ENV is read by a script and explained in docs/install.md, and every
    CITETRACE_ variable a script reads is one of them (or a package setting)."""
    from citetrace import names

    scripts = "".join(p.read_text() for p in (ROOT / "scripts").iterdir() if p.is_file())
    install = (ROOT / "docs" / "install.md").read_text()
    for variable in names.SCRIPT_ENV:
        assert "${" + variable in scripts, variable
        assert f"`{variable}" in install, variable
    package = {v for k, v in vars(names).items() if k.startswith("ENV_")}
    read = set(re.findall(r"\$\{(CITETRACE_[A-Z0-9_]+)", scripts))
    assert read - set(names.SCRIPT_ENV) - package == set()  # a variable a script reads and nobody documents
