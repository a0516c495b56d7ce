"""The words of trade and hand-over moves (issue 33 §1; decision 9: templates are data per
language): ``engine/gm/lexicon/trade.<lang>.json`` as a phrasebook, money as the engine counts
it ("1 coin", "3 monedas", "3枚钱币"), an item as narration names it, and the small matching
helpers ``engine.gm.trade_read`` reads a sentence with.

World nouns come from the world: an item keeps its name, with the narration's article only when
the world is written in that language ("the coil of rope" in an English world; a Spanish
player of that world reads "coil of rope", never a guessed gender).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.gm import market
from engine.gm.mentions import folded_spans
from engine.gm.nouns import definite
from engine.gm.phrasebook import Phrasebook, load_book
from engine.gm.scene import Scene
from engine.gm.world import Item

ARTICLES = ("a", "an", "the", "some")
WORD = re.compile(r"[\w']+")


def tradebook(language: str | None) -> Phrasebook:
    """The trade phrasebook of a language tag ("es-ES" → es; English when unknown)."""
    return load_book("trade", language)


def coins(book: Phrasebook, amount: int) -> str:
    return book.t("coins_one" if amount == 1 else "coins_other", n=amount)


def item_text(scene: Scene, book: Phrasebook, item: Item, *, count: bool = False) -> str:
    """The item as ``book``'s narration names it; with ``count``, its stack's units too."""
    name = item.name
    first = name.split()[0].casefold() if name.split() else ""
    if book.language == scene.noun_language(name) and name[:1].islower() and first not in ARTICLES:
        # "el cáliz de plata", "la llave": the article by the noun's ending (engine.gm.nouns)
        name = definite(name, book.language, book.language) if book.language == "es" else name
        name = book.t("the", item=name)
    units = market.units(scene.state, item.id)
    return book.t("counted", item=name, count=units) if count and units > 1 else name


# --- matching -----------------------------------------------------------------------------------


def spans_of(text: str, phrase: str, spaced: bool) -> list[tuple[int, int]]:
    """Where ``phrase`` is in the folded ``text``; "a * b" is "a", some words, then "b" (the
    span is the head's, so that the words between stay the verb's object)."""
    if "*" not in phrase:
        return folded_spans(text, phrase, spaced)
    head, _, tail = (part.strip() for part in phrase.partition("*"))
    out = []
    for start, end in folded_spans(text, head, spaced):
        if any(0 < s < 40 for s, _ in folded_spans(text[end : end + 60], tail, spaced)):
            out.append((start, end))
    return out


def first_word(text: str, spaced: bool) -> str:
    words = WORD.findall(text)
    return (words[0] if words else "") if spaced else text.strip()


def starts_with(first: str, after: str, words: Sequence[str]) -> bool:
    """The word after the verb is one of ``words`` (Chinese: the text starts with one)."""
    return first in words or any(after.startswith(w) for w in words if not w.isascii())


def strip_cjk(text: str, fillers: Sequence[str]) -> str:
    for filler in sorted(fillers, key=len, reverse=True):
        text = text.replace(filler, "")
    return text.strip(" ，,。")
