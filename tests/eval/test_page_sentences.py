"""Page text is cut into sentences by pysbd, the segmenter reports use, with paragraph breaks always splitting."""

from __future__ import annotations

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
