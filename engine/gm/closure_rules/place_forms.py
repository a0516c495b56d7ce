"""A place word in a diminutive or a scornful form (seed 001 "inventa un lugar"): "una
cortina oculta un cuartito", "una salita al fondo", "un cuartucho". The lexicon lists the
plain noun ("cuarto", "sala"); the suffix ("-ito", "-illa", "-ucho", "-ecito") does not make
it another kind of word, so the form is read as its noun. A room word so formed is a room
of its own when it is introduced ("un cuartito"), as "the room" is not.
"""

from __future__ import annotations

from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit

_SUFFIXES = (
    "ecito",
    "ecita",
    "cito",
    "cita",
    "ito",
    "ita",
    "illo",
    "illa",
    "ucho",
    "ucha",
)
_NEW = frozenset(["un", "una", "otro", "otra", "unos", "unas"])


def small_places(reading: Reading) -> list[Hit]:
    """The diminutives of the lexicon's place nouns (Spanish only)."""
    doc = reading.doc
    if doc.language != "es":
        return []
    places, rooms = doc.words.stems("place_nouns"), doc.words.stems("room_heads")
    out: list[Hit] = []
    for n, token in enumerate(doc.tokens):
        word = token.fold.removesuffix("s")
        if any(h.first <= n < h.last for h in doc.of("place_nouns")):
            continue
        bases = _bases(word)
        new = n > 0 and doc.tokens[n - 1].fold in _NEW  # "un cuartito": a room not this one
        if any(b in places or (new and b in rooms) for b in bases):
            out.append(Hit("place_nouns", token.start, token.end, n, n + 1))
    return out


def _bases(word: str) -> list[str]:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            root = word[: -len(suffix)]
            return [root + "o", root + "a", root, root + "e"]
    return []
