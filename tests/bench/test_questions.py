"""Question sets and known answers: what passes, what fails, and one-line errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from citetrace.bench import KnownAnswer, QuestionSetError, check_answer, load_questions


@pytest.mark.parametrize(("known", "report", "ok"), [
    (KnownAnswer(exact="860 MW"), "capacity rose to 860 mw by October", True),
    (KnownAnswer(exact="860 MW"), "capacity rose to 861 MW", False),
    (KnownAnswer(regex=r"4\.2 million"), "4.2 million trips", True),
    (KnownAnswer(number=18400), "harvested 18,400 tonnes", True),
    (KnownAnswer(number=139, tolerance=1), "cost $138.5 per kWh", True),
    (KnownAnswer(number=139, tolerance=1), "cost $141 per kWh in 2023", False),
    (KnownAnswer(number=2023), "item2023x", False),
])
def test_known_answers(known: KnownAnswer, report: str, ok: bool) -> None:
    """exact is a case-insensitive substring, regex a search, number any number within the tolerance."""
    assert check_answer(known, report) is ok


def test_yaml_and_json_sets_load(tmp_path: Path) -> None:
    """A YAML set and the same set as JSON give the same questions; ids default to their position."""
    (tmp_path / "q.yaml").write_text("questions:\n  - question: How much?\n    answer: {number: 3, tolerance: 0.5}\n"
                                     "  - id: b\n    question: Who?\n", encoding="utf-8")
    (tmp_path / "q.json").write_text('{"questions": [{"question": "How much?", "answer": {"number": 3, '
                                     '"tolerance": 0.5}}, {"id": "b", "question": "Who?"}]}', encoding="utf-8")
    assert load_questions(tmp_path / "q.yaml") == load_questions(tmp_path / "q.json")
    assert [q.id for q in load_questions(tmp_path / "q.yaml")] == ["q1", "b"]


@pytest.mark.parametrize(("text", "message"), [
    ("questions: []", "non-empty list"),
    ("questions:\n  - id: a\n", "needs a 'question'"),
    ("questions:\n  - {id: a, question: x}\n  - {id: a, question: y}\n", "duplicate id 'a'"),
    ("questions:\n  - {question: x, answer: {exact: a, regex: b}}\n", "exactly one of"),
    ("questions:\n  - {question: x, answer: {regex: '('}}\n", "does not compile"),
    ("questions:\n  - {question: x, answer: {number: many}}\n", "must be numbers"),
    ("questions: [\n", "not YAML"),
    # answers no report can miss or none can meet: each passed or failed every repeat without a word
    ("questions:\n  - {question: x, answer: {exact: ''}}\n", "exact answer is empty"),
    ("questions:\n  - {question: x, answer: {regex: ''}}\n", "regex answer is empty"),
    ("questions:\n  - {question: x, answer: {number: 5, tolerance: -1}}\n", "tolerance must be a finite number >= 0"),
    ("questions:\n  - {question: x, answer: {number: .nan}}\n", "number must be finite"),
    ("questions:\n  - {question: x, answer: {number: .inf}}\n", "number must be finite"),
    ("questions:\n  - {question: x, answer: {number: true}}\n", "must be numbers"),
])
def test_bad_sets_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    """Each problem is one message naming the file and the entry."""
    path = tmp_path / "q.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(QuestionSetError, match=message) as raised:
        load_questions(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


def test_a_set_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    """A question set saved in another encoding (UTF-16 with its BOM) was a UnicodeDecodeError traceback."""
    path = tmp_path / "q.yaml"
    path.write_bytes("questions:\n  - {question: x}\n".encode("utf-16"))
    with pytest.raises(QuestionSetError, match="not UTF-8 text") as raised:
        load_questions(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


def test_each_kind_of_answer_loads(tmp_path: Path) -> None:
    """exact, regex and number each load as themselves (the regex kind fell through to the exact check once)."""
    path = tmp_path / "q.yaml"
    path.write_text("questions:\n  - {id: e, question: x, answer: {exact: '860 MW'}}\n"
                    "  - {id: r, question: x, answer: {regex: '4\\.2 million'}}\n"
                    "  - {id: n, question: x, answer: {number: 139, tolerance: 1}}\n", encoding="utf-8")
    assert [q.answer for q in load_questions(path)] == [
        KnownAnswer(exact="860 MW"), KnownAnswer(regex=r"4\.2 million"), KnownAnswer(number=139.0, tolerance=1.0)]
