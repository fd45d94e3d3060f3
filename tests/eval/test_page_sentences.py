"""Page text is cut into sentences by pysbd, the segmenter reports use, with paragraph breaks always splitting."""

from __future__ import annotations

import pytest

from citetrace.eval._passages import simple_sentences


def _texts(text: str, offset: int = 0) -> list[str]:
    return [text[s - offset:e - offset] for s, e in simple_sentences(text, offset)]


def test_abbreviations_decimals_and_initials_stay_whole() -> None:
    """"Dr.", "U.S.", "e.g." and "3.5" do not end a sentence; a full stop before a capital does."""
    text = "Dr. Ana Ruiz of the U.S. office said output rose 3.5 % in 2024, e.g. in Ohio. Prices fell. Jobs grew."
    assert _texts(text) == ["Dr. Ana Ruiz of the U.S. office said output rose 3.5 % in 2024, e.g. in Ohio.",
                            "Prices fell.", "Jobs grew."]


def test_paragraph_breaks_split_and_offsets_are_kept() -> None:
    """A blank line ends a sentence even without a full stop; spans carry the offset and no whitespace."""
    text = "Heading without stop\n\n  First sentence here.  Second one?\nStill the second paragraph."
    assert _texts(text, offset=100) == ["Heading without stop", "First sentence here.", "Second one?",
                                        "Still the second paragraph."]
    assert simple_sentences("") == [] and simple_sentences(" \n\n ") == []


def test_pysbd_never_sees_more_than_a_bounded_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 5 MB paragraph with no full stop (a page of words, a 1 MB answer line) reaches pysbd in pieces of at most
    PYSBD_CHARS: pysbd compiles every sentence it finds as a regex and searches the whole text for it, so one
    megabyte sentence took over a minute (the run page's ?evaluate=1 never came back). Spans still cover the text."""
    import citetrace.eval._split as split

    seen: list[int] = []
    real = split._segmenter()

    class Spy:
        def segment(self, text: str) -> list[str]:
            seen.append(len(text))
            return list(real.segment(text))

    monkeypatch.setattr(split, "_segmenter", lambda: Spy())
    text = "word " * 1_000_000
    spans = split.sentence_spans(text, 0, len(text))
    assert seen and max(seen) <= split.PYSBD_CHARS
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # contiguous: nothing lost at the cuts


def test_a_long_paragraph_is_cut_at_sentence_ends() -> None:
    """A paragraph of ordinary sentences longer than PYSBD_CHARS splits exactly as it would whole: the pieces end
    at a full stop, never inside a sentence."""
    from citetrace.eval import _split as split

    sentence = "Dr. Ana Ruiz said output rose 3.5 % in 2024, e.g. in Ohio. "
    text = sentence * (3 * split.PYSBD_CHARS // len(sentence))
    got = _texts(text)
    assert len(text) > 2 * split.PYSBD_CHARS
    assert set(got) == {sentence.strip()} and len(got) == text.count("Ohio.")
