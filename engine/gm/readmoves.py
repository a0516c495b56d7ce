"""Which read move a player's sentence asks for (issue 33 §1: inventory, character sheet, journal
and "read a notice" as engine moves; seed 001 "Los encargos del tablón entran en el Diario al
leerlo"; decision 9: the words are data per language).

The words live in ``engine/gm/lexicon/reads.<lang>.json``. A sentence is cut into the phrases of
that vocabulary (longest first; without spaces in Chinese), each with a role: a read verb
("check", "mira", "看看"), an object naming what a read shows ("bag", "mochila", "背包"; its key
says which read and, for some, which part: ``journal:debts``), a cue that points to a read
without an object ("carrying", "llevo", "身上"), the player himself ("my", "mi", "我的"), someone
else ("her", "su", "她的"), a question word, a word that asks the world ("any", "hay", "有没有")
and glue. A misspelt word still lands on a verb, object or cue close enough in spelling (in
Chinese: one character an input method confuses with it).

A self read is a sentence made only of these words: every word unknown to the vocabulary sinks
it ("ask Greta what she carries"), except adjectives right between "my" and the object ("my old
bag"). Someone else's things never are ("the innkeeper's bag", "她的背包"); a physical object with
a determiner that is not the player's ("the bag", "那个包") is the world's; asking the world
("any quests?", "¿hay misiones?") needs the player in the sentence. A notice is read with a
notice verb, a notice noun and at most one run of other words naming it, right after "about"
or right before the noun ("read the notice about the dog", "读关于圣杯的告示"); with none it is the
whole board.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from engine.gm.phrasebook import Phrasebook, load_book

FUZZY = 0.84  # SequenceMatcher ratio from which a misspelt word is the vocabulary's
FUZZY_MIN = 4  # shorter words are never guessed at
LONGEST = 24  # words (characters in Chinese) beyond which a sentence is no read
SELF_ROLES = ("object", "cue", "verb", "others", "self", "question", "subject", "glue")
NOTICE_ROLES = ("notice", "board", "nverb", "about", "self", "subject", "glue")
_NOT_WORD = re.compile(r"[^\w'/-]+")
_NOT_CJK = re.compile(r"[\s\W_]+")


@dataclass(frozen=True)
class ReadAsk:
    """What the sentence asks to read: ``kind`` is inventory, sheet, journal, notice or board;
    ``target`` the part asked for (money, quests, clues, debts) or the notice named."""

    kind: str
    target: str = ""


@dataclass(frozen=True)
class Token:
    text: str
    role: str  # one of the roles above, or "unknown"
    key: str = ""  # an object's or a cue's key ("journal:debts")


@dataclass(frozen=True)
class Vocab:
    spaced: bool
    phrases: Mapping[str, tuple[str, str]]  # phrase → (role, key)
    longest: int  # in words, or in characters without spaces
    guesses: tuple[str, ...]  # the words a misspelling may land on
    sounds: Mapping[str, frozenset[str]]  # a character → those that sound the same


def readbook(language: str | None) -> Phrasebook:
    """The read moves' phrasebook of a language tag (English when unknown)."""
    return load_book("reads", language)


def read_ask(text: str, language: str | None) -> ReadAsk | None:
    """The read move ``text`` asks for in ``language``, or None."""
    book = readbook(language)
    said = tidy(text, book.language != "zh")
    if not said or len(said.split() if book.language != "zh" else said) > LONGEST:
        return None  # a read is a short request; a long sentence is something else
    command = book.table("commands").get(said)
    if command is not None:
        return ReadAsk(str(command))
    return _notice(book, said) or _self_read(book, said)


def tidy(text: str, spaced: bool) -> str:
    """Lowercase, accents and punctuation dropped (in Chinese, spaces too)."""
    folded = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch))
    plain = unicodedata.normalize("NFKC", plain)
    if not spaced:
        return _NOT_CJK.sub("", plain)
    return " ".join(_NOT_WORD.sub(" ", plain).split()).strip("'-")


# --- the vocabulary -------------------------------------------------------------------------


@lru_cache(maxsize=8)
def vocab(language: str, notice: bool) -> Vocab:
    """The phrases of the self reads (``notice`` False) or of reading a notice, with roles."""
    book = readbook(language)
    spaced = book.language != "zh"
    lists: dict[str, Iterable[tuple[str, str]]] = {
        "object": _keyed(book.table("objects")),
        "cue": _keyed(book.table("cues")),
        "verb": _plain(book.list("verbs")),
        "others": _plain(book.list("others")),
        "notice": _plain(book.list("notice_nouns")),
        "board": _plain(book.list("board_nouns")),
        "nverb": _plain(book.list("notice_verbs")),
        "about": _plain(book.list("about")),
        "self": _plain(book.list("self")),
        "question": _plain([*book.list("questions"), *book.list("seeking")]),
        "subject": _plain(book.list("subjects")),
        "glue": _plain(book.list("glue")),
    }
    phrases: dict[str, tuple[str, str]] = {}
    for role in NOTICE_ROLES if notice else SELF_ROLES:
        for phrase, key in lists[role]:
            phrases.setdefault(tidy(phrase, spaced), (role, key))
    phrases.pop("", None)
    guessed = ("notice", "board", "nverb") if notice else ("object", "cue", "verb")
    guesses = tuple(
        p for p, (role, _) in phrases.items() if role in guessed and (" " not in p or not spaced)
    )
    longest = max((_length(p, spaced) for p in phrases), default=1)
    return Vocab(spaced, phrases, longest, guesses, _sounds(book.table("homophones")))


def _keyed(table: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    return [(phrase, key) for key, phrases in table.items() for phrase in phrases]


def _plain(words: Iterable[str]) -> list[tuple[str, str]]:
    return [(word, "") for word in words]


def _length(phrase: str, spaced: bool) -> int:
    return len(phrase.split()) if spaced else len(phrase)


def _sounds(groups: object) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for group in groups if isinstance(groups, list) else []:
        for char in str(group):
            out[char] = out.get(char, frozenset()) | frozenset(str(group))
    return out


def segment(said: str, words: Vocab) -> list[Token]:
    """``said`` cut into the vocabulary's phrases, longest first; the rest one word (or, without
    spaces, one character) at a time, guessed at when misspelt."""
    units = said.split() if words.spaced else list(said)
    joiner = " " if words.spaced else ""
    out: list[Token] = []
    i = 0
    while i < len(units):
        for size in range(min(words.longest, len(units) - i), 0, -1):
            phrase = joiner.join(units[i : i + size])
            found = words.phrases.get(phrase) or _guess(phrase, words)
            if found is not None:
                out.append(Token(phrase, *found))
                i += size
                break
        else:
            out.append(Token(units[i], "unknown"))
            i += 1
    return out


def _guess(phrase: str, words: Vocab) -> tuple[str, str] | None:
    """The verb, object or cue ``phrase`` misspells, if only one is close enough: two letters
    swapped, or close in spelling from the same first letter (in Chinese, one character that
    sounds the same)."""
    if words.spaced:
        if len(phrase) < FUZZY_MIN or " " in phrase:
            return None
        close = [g for g in words.guesses if _misspells(phrase, g)]
    else:
        if len(phrase) < 2 or not any(char in words.sounds for char in phrase):
            return None
        close = [g for g in words.guesses if len(g) == len(phrase) and _sounds_as(phrase, g, words)]
    found = {words.phrases[g] for g in close}
    return found.pop() if len(found) == 1 else None


def _misspells(typed: str, word: str) -> bool:
    if typed[0] != word[0] or abs(len(typed) - len(word)) > 2:
        return False
    swaps = [i for i, (a, b) in enumerate(zip(typed, word, strict=False)) if a != b]
    if len(typed) == len(word) and len(swaps) == 2 and swaps[1] == swaps[0] + 1:
        return typed[swaps[0]] == word[swaps[1]] and typed[swaps[1]] == word[swaps[0]]
    return SequenceMatcher(None, typed, word).ratio() >= FUZZY


def _sounds_as(typed: str, word: str, words: Vocab) -> bool:
    """One character of ``typed`` is a homophone of ``word``'s, the others the same."""
    differ = [(a, b) for a, b in zip(typed, word, strict=True) if a != b]
    return len(differ) == 1 and differ[0][0] in words.sounds.get(differ[0][1], frozenset())


# --- self reads ------------------------------------------------------------------------------


def _self_read(book: Phrasebook, said: str) -> ReadAsk | None:
    tokens = segment(said, vocab(book.language, False))
    if any(t.role == "others" or _someones(book, t) for t in tokens):
        return None
    if not _adjectives_only(book, tokens):
        return None
    objects = [t for t in tokens if t.role == "object"]
    cues = [t for t in tokens if t.role == "cue"]
    if not objects and not cues:
        return None
    if _asks_the_world(book, tokens):
        return None
    if objects:
        if any(_the_worlds(book, tokens, t) for t in objects):
            return None
        order = list(book.table("objects"))
        key = min((t.key for t in objects), key=order.index)
    else:
        key = cues[0].key
    kind, _, part = key.partition(":")
    return ReadAsk(kind, part)


def _someones(book: Phrasebook, token: Token) -> bool:
    """An unknown word with a possessive ending: "greta's", "the guard's"."""
    endings = book.table("settings").get("possessive_suffixes", [])
    return token.role == "unknown" and any(token.text.endswith(e) for e in endings)


def _adjectives_only(book: Phrasebook, tokens: list[Token]) -> bool:
    """Every unknown word stands between the player's "my" and an object ("my old bag")."""
    most = int(book.table("settings").get("adjectives", 0))
    i = 0
    while i < len(tokens):
        if tokens[i].role != "unknown":
            i += 1
            continue
        end = i
        while end < len(tokens) and tokens[end].role == "unknown":
            end += 1
        mine = i > 0 and tokens[i - 1].role == "self"
        named = end < len(tokens) and tokens[end].role == "object"
        if not (mine and named and end - i <= most):
            return False
        i = end
    return True


def _asks_the_world(book: Phrasebook, tokens: list[Token]) -> bool:
    """ "Any quests?", "¿qué misiones hay?", "有什么任务": asking what there is, without the
    player in the sentence, is asking the world."""
    seeking = set(book.list("seeking"))
    if not any(t.text in seeking for t in tokens):
        return False
    # what is in a bag of his ("背包里有什么") is his; what there is to do is the world's
    inside = any(t.role == "object" and t.text in book.list("physical") for t in tokens)
    return not inside and not _me(book, tokens)


def _me(book: Phrasebook, tokens: list[Token]) -> bool:
    """The player is in the sentence: "my", "I" (also inside "do I"), a verb in the first
    person ("llevo", "debo")."""
    if any(t.role in ("self", "subject") for t in tokens):
        return True
    selves = [*book.list("subjects"), *book.list("self"), *book.list("first_person")]
    if book.language == "zh":
        return any(s in t.text for s in selves for t in tokens)
    words = {s for s in selves if " " not in s}
    return any(word in words for t in tokens for word in t.text.split())


def _the_worlds(book: Phrasebook, tokens: list[Token], thing: Token) -> bool:
    """A physical object after a determiner that is not the player's: "the bag", "那个包"."""
    if thing.text not in book.list("physical"):
        return False
    at = tokens.index(thing) - 1
    while at >= 0 and tokens[at].role == "unknown":
        at -= 1
    return at >= 0 and tokens[at].text in book.list("strangers")


# --- a notice --------------------------------------------------------------------------------


def _notice(book: Phrasebook, said: str) -> ReadAsk | None:
    tokens = segment(said, vocab(book.language, True))
    roles = {t.role for t in tokens}
    if "nverb" not in roles or not roles & {"notice", "board"}:
        return None
    runs = _runs(tokens)
    if len(runs) > 1:
        return None
    kind = "notice" if "notice" in roles else "board"
    if not runs:
        return ReadAsk("board")
    start, end = runs[0]
    before = _skip_glue(tokens, start - 1, -1)
    after = _skip_glue(tokens, end, 1)
    about = before is not None and tokens[before].role == "about"
    named = after is not None and tokens[after].role in ("notice", "board")
    if not (about or named):
        return None
    if kind == "board":
        return ReadAsk("board")
    joiner = " " if book.language != "zh" else ""
    return ReadAsk("notice", joiner.join(t.text for t in tokens[start:end]))


def _runs(tokens: list[Token]) -> list[tuple[int, int]]:
    """The (start, end) of each run of unknown words; runs with only glue or "about" between
    them are one ("the notice called escort for the carts")."""
    out: list[tuple[int, int]] = []
    for i, token in enumerate(tokens):
        if token.role != "unknown":
            continue
        between = tokens[out[-1][1] : i] if out else []
        if out and all(t.role in ("glue", "about") for t in between):
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


def _skip_glue(tokens: list[Token], at: int, step: int) -> int | None:
    while 0 <= at < len(tokens) and tokens[at].role in ("glue", "self"):
        at += step
    return at if 0 <= at < len(tokens) else None
