"""Which recorded run each repeat of a replayed bench answers from."""

from __future__ import annotations

import pytest

from citetrace.bench import BenchError, replay_plan
from citetrace.bench._questions import BenchQuestion

QS = [BenchQuestion("a", "Question A?"), BenchQuestion("b", "Question B?")]
RECORDED = {"questions": [{"id": "a", "repeats": [{"run_id": "ra1"}, {"run_id": "ra2"}]},
                          {"id": "b", "repeats": [{"run_id": "rb1"}, {"run_id": "rb2"}]}]}


def test_repeats_replay_one_for_one_and_fewer_take_the_first() -> None:
    plan = replay_plan(RECORDED, QS, 2)
    assert [plan("a", 0), plan("a", 1), plan("b", 0), plan("b", 1)] == ["ra1", "ra2", "rb1", "rb2"]
    assert replay_plan(RECORDED, QS, 1)("b", 0) == "rb1"


def test_more_repeats_than_were_recorded_is_refused() -> None:
    """--repeat 3 over a bench recorded with 2 repeats replayed the first run again as repeat 3 without a word:
    a duplicated sample narrows the spread the bands are made of. It is one line naming the counts."""
    with pytest.raises(BenchError, match=r"question 'a' has 2 recorded repeat\(s\); --repeat 3 asks for more"):
        replay_plan(RECORDED, QS, 3)
