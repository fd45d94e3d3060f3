"""`citetrace eval` on a stored run whose report cites in parenthesised/bracketed link groups: a claim copied
word for word from the page it cites is SUPPORTED (the group's "(source)" / "(1, Reuters)" left in the claim
text made the offline checker call it PARTIAL; outside check hout)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citetrace.cli import main
from citetrace.store import SQLiteStore

from .conftest import make_run

URL = "https://stats.example/unemployment"
REPORT = (
    f"The unemployment rate rose to 4.2% in March 2024 ([source]({URL})). "
    f"The labour force grew by 12,000 people to 2.1 million ([1]({URL}), [Statistics Office]({URL})). "
    f"Wages rose 3.1 percent over the year [[2]]({URL}). "
    f"Consumer prices rose 2.4 percent [[3]({URL})].\n"
)


def test_verbatim_claims_cited_in_link_groups_are_supported(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    store = SQLiteStore(tmp_path / "store.db")
    make_run(store, REPORT)  # type: ignore[arg-type]
    store.close()
    assert main(["eval", "run-1", "--store", f"sqlite:///{tmp_path}/store.db", "--offline", "--json"]) == 0
    pairs = json.loads(capsys.readouterr().out)["pairs"]
    assert [p["claim"] for p in pairs] == [
        "The unemployment rate rose to 4.2% in March 2024.",
        "The labour force grew by 12,000 people to 2.1 million.",
        "Wages rose 3.1 percent over the year.",
        "Consumer prices rose 2.4 percent.",
    ]
    assert {p["label"] for p in pairs} == {"SUPPORTED"}
