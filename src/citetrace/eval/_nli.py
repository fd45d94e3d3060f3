"""A pluggable local NLI judge: any model that scores (premise, hypothesis) as entailment/neutral/contradiction.

No NLI weights ship with citetrace (none are installable offline). A model is given by path: a directory of a
Hugging Face sequence-classification checkpoint (needs ``transformers`` and ``torch``, imported only here),
or ``package.module:factory`` naming a Python callable that returns an object with ``predict``.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from citetrace.eval._types import ABSENT, CONTRADICTED, JUDGE_ERROR, PARTIAL, SUPPORTED, Passage, Verdict

__all__ = ["NLIModel", "NLIJudge", "load_nli_model"]


@runtime_checkable
class NLIModel(Protocol):
    """Scores how a premise relates to a hypothesis."""

    def predict(self, premise: str, hypothesis: str) -> Mapping[str, float]:
        """Probabilities keyed ``entailment``, ``neutral``, ``contradiction``."""
        ...


class NLIJudge:
    """SUPPORTED on strong entailment by some passage, CONTRADICTED on strong contradiction, PARTIAL on weak."""

    name = "nli"
    version = "nli-1"

    def __init__(self, model: NLIModel, *, entail: float = 0.7, weak: float = 0.35, contradict: float = 0.7) -> None:
        self.model = model
        self.entail, self.weak, self.contradict = entail, weak, contradict

    def judge(self, claim: str, passages: Sequence[Passage]) -> Verdict:
        """Best passage wins; a model failure is JUDGE_ERROR, never an exception."""
        best_e, best_c, best_e_text, best_c_text = 0.0, 0.0, "", ""
        try:
            for p in passages:
                scores = self.model.predict(p.text, claim)
                e, c = float(scores.get("entailment", 0.0)), float(scores.get("contradiction", 0.0))
                if e > best_e:
                    best_e, best_e_text = e, p.text
                if c > best_c:
                    best_c, best_c_text = c, p.text
        except Exception as exc:  # a third-party model may raise anything
            return Verdict(JUDGE_ERROR, self.name, explanation=f"NLI model failed: {type(exc).__name__}",
                           flags=("model_error",))
        detail = f"entailment={best_e:.2f} contradiction={best_c:.2f}"
        if best_e >= self.entail and best_e >= best_c:
            return Verdict(SUPPORTED, self.name, best_e_text, detail)
        if best_c >= self.contradict:
            return Verdict(CONTRADICTED, self.name, best_c_text, detail)
        if best_e >= self.weak:
            return Verdict(PARTIAL, self.name, best_e_text, detail)
        return Verdict(ABSENT, self.name, None, detail)


class _HFModel:
    """A transformers sequence-classification checkpoint on the CPU."""

    def __init__(self, path: str) -> None:
        try:
            torch = importlib.import_module("torch")
            transformers = importlib.import_module("transformers")
        except ImportError as exc:
            raise ValueError(f"the NLI model at {path!r} needs transformers and torch installed ({exc})") from exc
        self._torch: Any = torch
        self._tok: Any = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
        self._model: Any = transformers.AutoModelForSequenceClassification.from_pretrained(
            path, local_files_only=True).eval()
        labels = {int(k): str(v).lower() for k, v in self._model.config.id2label.items()}
        self._labels = {i: next((n for n in ("entailment", "neutral", "contradiction") if name.startswith(n[:6])),
                                name) for i, name in labels.items()}

    def predict(self, premise: str, hypothesis: str) -> Mapping[str, float]:
        inputs = self._tok(premise, hypothesis, return_tensors="pt", truncation=True, max_length=512)
        with self._torch.no_grad():
            probs = self._model(**inputs).logits.softmax(-1)[0].tolist()
        return {self._labels[i]: float(p) for i, p in enumerate(probs)}


def load_nli_model(spec: str) -> NLIModel:
    """Load an NLI model from a checkpoint directory or a ``module:factory`` spec; ValueError names the problem."""
    if os.path.isdir(spec):
        if not os.path.exists(os.path.join(spec, "config.json")):
            raise ValueError(f"{spec!r} is a directory without config.json: not a model checkpoint")
        return _HFModel(spec)
    if ":" in spec and not os.path.exists(spec):
        module_name, _, attr = spec.partition(":")
        try:
            factory: Callable[[], Any] = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load NLI factory {spec!r}: {exc}") from exc
        model = factory()
        if not isinstance(model, NLIModel):
            raise ValueError(f"{spec!r} returned {type(model).__name__}, which has no predict(premise, hypothesis)")
        return model
    raise ValueError(f"NLI model {spec!r} not found: give a checkpoint directory or package.module:factory")
