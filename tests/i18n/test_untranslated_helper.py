"""The English-word finder the Hungarian scans use (tests/helpers/untranslated.py) finds English."""

from __future__ import annotations

from tests.helpers.untranslated import english_words


def test_english_is_found_and_hungarian_is_not() -> None:
    assert english_words("Új játszma, a kulcsod") == []
    assert english_words("build in Napoli, then pass") == ["build", "then", "pass"]
    assert "your" in english_words("A kulcsod: your key")
    assert english_words("your key", allow=["your", "key"]) == []
