"""engine.gm.language: the shared language layer (issue 34): words, Snowball stems, Chinese
segmentation with the world's names kept whole, and each language's closed word classes."""

from __future__ import annotations

import pytest

from engine.gm.language import (
    code,
    content,
    grammar,
    is_word_zh,
    segment_zh,
    stem,
    stems,
    tag_zh,
    tokens,
)


def test_tokens_are_lowercase_words_with_accents_and_apostrophes_kept():
    assert tokens("Mañana IRÉ al templo, ¿vale?", "es") == ["mañana", "iré", "al", "templo", "vale"]
    assert tokens("I’ll ask Hilda’s brother.", "en") == ["i'll", "ask", "hilda's", "brother"]


def test_chinese_is_segmented_into_words_without_punctuation():
    assert tokens("明天我去神殿忏悔。", "zh") == ["明天", "我", "去", "神殿", "忏悔"]
    assert segment_zh("去找那条流浪狗") == ["去", "找", "那条", "流浪狗"]


def test_a_kept_name_stays_whole_where_jieba_would_split_it():
    assert "米莎" not in segment_zh("去找米莎")
    assert segment_zh("去找米莎", keep=["米莎"]) == ["去", "找", "米莎"]
    assert ("米莎", "nr") in tag_zh("去找米莎", keep=["米莎"])


@pytest.mark.parametrize(
    ("language", "words", "one"),
    [
        ("en", ["dog", "dogs", "Dog's"], "dog"),
        ("en", ["ask", "asked", "asking"], "ask"),
        ("es", ["perro", "perra", "perros"], "perr"),
        ("es", ["tabernera", "Taberneras"], "taberner"),
        ("es", ["sótano", "sotano"], "sotan"),
        ("zh", ["流浪狗"], "流浪狗"),
    ],
)
def test_inflections_share_one_folded_stem(language, words, one):
    assert {stem(w, language) for w in words} == {one}


def test_content_leaves_out_function_words_in_each_language():
    assert content("Ask about the missing chalice", "en") == ["ask", "miss", "chalic"]
    assert content("Preguntar por el cáliz desaparecido", "es") == ["pregunt", "caliz", "desaparec"]
    assert content("撬起那块松动的木板", "zh") == ["撬起", "块", "松动", "木板"]


def test_stems_keep_every_word():
    assert stems("the dogs bark", "en") == ["the", "dog", "bark"]


def test_an_unknown_language_reads_as_english():
    assert code("es-ES") == "es" and code("fr") == "en" and code(None) == "en"
    assert grammar("fr").language == "en"


def test_the_grammar_holds_closed_classes_only():
    assert "will" in grammar("en").words("future_aux")
    assert "明天" in grammar("zh").words("time_future")
    assert grammar("es").table("future_endings")
    assert grammar("en").words("no such class") == frozenset()


def test_jieba_dictionary_lookup():
    assert is_word_zh("木板") and not is_word_zh("米莎")
