"""The model-free token estimate used for prompt budgets and the studio's block counts."""

from __future__ import annotations

from engine.tokens import estimate_tokens


def test_empty_text_is_zero_tokens() -> None:
    assert estimate_tokens("") == 0


def test_ascii_is_four_bytes_per_token_rounded_up() -> None:
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 400) == 100


def test_cjk_characters_count_one_token_each() -> None:
    assert estimate_tokens("酒馆") == 2
    assert estimate_tokens("いつもの酒場で") == 7
    assert estimate_tokens("안녕하세요") == 5


def test_mixed_text_adds_both_parts() -> None:
    # "Kai " is 4 bytes = 1 token, plus 3 CJK characters
    assert estimate_tokens("Kai 去酒馆") == 4


def test_other_non_ascii_counts_utf8_bytes() -> None:
    # "café" is 5 bytes in UTF-8, "—" 3 bytes
    assert estimate_tokens("café") == 2
    assert estimate_tokens("a—b") == 2
