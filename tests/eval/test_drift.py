"""Drift checks: the judge-eval history and its canary alert, and the label-distribution band."""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Callable

import pytest

from citetrace import names
from citetrace.cli import main
from citetrace.eval._drift import distribution_alerts, label_shares
from citetrace.store import SQLiteStore

from .conftest import make_run, reply

LABELS = [("Unemployment rose to 4.2% in March 2024.", "The unemployment rate rose to 4.2% in March 2024.", "SUPPORTED"),
          ("Wages fell 3 percent.", "Wages rose 3.1 percent over the year.", "CONTRADICTED"),
          ("The bank raised rates.", "Wages rose 3.1 percent over the year.", "ABSENT"),
          ("Prices rose 2.4 percent, the most in years.", "Consumer prices rose 2.4 percent.", "PARTIAL")]


def _labels(tmp_path: Path) -> str:
    path = tmp_path / "canary.jsonl"
    path.write_text("".join(json.dumps({"id": f"k{i}", "claim": c, "passage": p, "label": lab}) + "\n"
                            for i, (c, p, lab) in enumerate(LABELS)))
    return str(path)


def _judge_server(http_server: Callable[..., str], wrong: bool) -> str:
    """A chat server answering the gold label (or, when ``wrong``, ABSENT for everything)."""
    gold = {c: lab for c, _, lab in LABELS}

    def handle(h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        user = body["messages"][1]["content"]
        claim = re.search(r"CLAIM:\n(.*?)\n\n", user, re.S).group(1)  # type: ignore[union-attr]
        passage = re.search(r"PASSAGE 1:\n(.*)", user).group(1)  # type: ignore[union-attr]
        label = "ABSENT" if wrong else next(v for k, v in gold.items() if k.startswith(claim.rstrip(".")))
        answer = {"label": label, "quote": "" if label == "ABSENT" else passage[:20], "explanation": "x"}
        reply(h, 200, {"choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": json.dumps(answer)}}]})

    return http_server(handle) + "/v1"


def test_canary_history_alerts_when_agreement_drops(tmp_path: Path, http_server: Callable[..., str],
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Same judge, model and labels: a run that agrees less than the last one by more than --max-drop alerts."""
    labels, history, prom = _labels(tmp_path), str(tmp_path / "history.jsonl"), str(tmp_path / "judge.prom")
    monkeypatch.setenv(names.ENV_OPENAI_BASE_URL, _judge_server(http_server, wrong=False))
    args = ["judge-eval", labels, "--judge", "llm", "--judge-model", "m", "--history", history, "--json"]
    assert main([*args, "--metrics-file", prom]) == 0
    assert main(args) == 0  # same agreement: no alert
    assert f'{names.METRIC_JUDGE_AGREEMENT}{{judge="llm",set="canary.jsonl"}}' in Path(prom).read_text()
    monkeypatch.setenv(names.ENV_OPENAI_BASE_URL, _judge_server(http_server, wrong=True))
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "ALERT judge llm/m agreement on canary.jsonl fell from" in err and "> 0.050" in err
    rows = [json.loads(line) for line in open(history, encoding="utf-8")]
    assert [r["judge_model"] for r in rows] == ["m", "m", "m"] and rows[0]["labels_sha256"] == rows[2]["labels_sha256"]
    assert rows[2]["accuracy"] < rows[0]["accuracy"]
    # another model has its own history: no alert against the first model's figures
    assert main(["judge-eval", labels, "--judge", "llm", "--judge-model", "other", "--history", history,
                 "--json"]) == 0


def test_label_shares_and_band() -> None:
    """Shares leave UNFETCHED out; a share that moved more than the band is reported, others not."""
    assert label_shares({"PARTIAL": 3, "CONTRADICTED": 1, "UNFETCHED": 5})["PARTIAL"] == 0.75
    ref = {"SUPPORTED": 0.0, "PARTIAL": 0.75, "CONTRADICTED": 0.25, "ABSENT": 0.0, "JUDGE_ERROR": 0.0}
    assert distribution_alerts(ref, {"PARTIAL": 7, "CONTRADICTED": 3}, 0.10) == []
    alerts = distribution_alerts(ref, {"PARTIAL": 2, "CONTRADICTED": 2}, 0.10)
    assert [a.split()[0] for a in alerts] == ["PARTIAL", "CONTRADICTED"]
    with pytest.raises(ValueError, match="--band"):
        distribution_alerts(ref, {}, 1.5)


def test_review_drift_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A reference from one run; a run with other labels drifts (exit 1), the same run does not."""
    db = tmp_path / "s.db"
    store = SQLiteStore(db)
    make_run(store, "Unemployment rose to 4.2% in March 2024 [1].\n\n[1] https://stats.example/unemployment\n")  # type: ignore[arg-type]
    make_run(store, "Unemployment rose to 9.9% in March 2024 [1].\n\n[1] https://stats.example/unemployment\n",  # type: ignore[arg-type]
             run_id="run-2")
    store.close()
    ref = str(tmp_path / "ref.json")
    common = ["--store", f"sqlite:///{db}", "--judge", "deterministic"]
    assert main(["review", "drift", "run-1", *common, "--save-reference", ref]) == 0
    assert main(["review", "drift", "run-1", *common, "--reference", ref]) == 0
    capsys.readouterr()
    assert main(["review", "drift", "run-2", *common, "--reference", ref]) == 1
    out = capsys.readouterr().out
    assert "DRIFT SUPPORTED share 0.000 is outside the band [0.900, 1.000]" in out
    assert main(["review", "drift", "run-2", *common]) == 2  # neither --reference nor --save-reference
