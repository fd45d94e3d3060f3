"""The pluggable NLI judge: thresholds over a model's entailment/contradiction scores, loaded by spec."""

from __future__ import annotations

from typing import Mapping

import pytest

from citetrace.eval import ABSENT, CONTRADICTED, JUDGE_ERROR, PARTIAL, SUPPORTED, NLIJudge, Passage, load_nli_model


class WordOverlapNLI:
    """A tiny stand-in model: entailment = share of hypothesis words in the premise; 'not' flips it."""

    def predict(self, premise: str, hypothesis: str) -> Mapping[str, float]:
        words = set(hypothesis.lower().split())
        share = len(words & set(premise.lower().split())) / max(1, len(words))
        if "not" in premise.lower().split():
            return {"entailment": 0.0, "neutral": 1 - share, "contradiction": share}
        return {"entailment": share, "neutral": 1 - share, "contradiction": 0.0}


def factory() -> WordOverlapNLI:
    return WordOverlapNLI()


class Broken:
    def predict(self, premise: str, hypothesis: str) -> Mapping[str, float]:
        raise RuntimeError("boom")


@pytest.mark.parametrize("premise, label", [
    ("the rate rose to four percent", SUPPORTED),
    ("the rate did not rise to four percent", CONTRADICTED),
    ("the rate rose sharply", PARTIAL),
    ("museums opened late", ABSENT),
])
def test_nli_thresholds(premise: str, label: str) -> None:
    """Strong entailment supports, strong contradiction contradicts, weak entailment is partial."""
    assert NLIJudge(WordOverlapNLI()).judge("the rate rose to four percent", [Passage(premise, 0, 1)]).label == label


def test_model_failure_is_a_judge_error() -> None:
    """An exception inside the model becomes JUDGE_ERROR, never a crash."""
    v = NLIJudge(Broken()).judge("claim", [Passage("text", 0, 4)])
    assert v.label == JUDGE_ERROR and v.flags == ("model_error",)


def test_load_by_module_factory_spec() -> None:
    """``package.module:factory`` loads a model object with predict()."""
    model = load_nli_model(f"{__name__}:factory")
    assert model.predict("a b", "a b")["entailment"] == 1.0


def test_checkpoint_directory_without_config_is_rejected(tmp_path: object) -> None:
    """A directory that is not a checkpoint is named in the error."""
    with pytest.raises(ValueError, match="without config.json"):
        load_nli_model(str(tmp_path))
