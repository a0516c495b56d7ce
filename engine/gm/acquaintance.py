"""Who knows another player character's name (issue 33 §5; seed 001 "Multijugador"; GAME_MASTER.md
decision 17: a name is known once it was delivered).

Player characters are strangers to each other until they meet: in the same place, one speaks
to the other (words said aloud to those present rather than to an NPC, a whisper to him,
joining a conversation he is in), or somebody who knows a name says it aloud (an introduction:
"Hello, I'm Ren"). The world may say who knows whom already (a character id in a sheet's
``knownNames``). ``CharacterState.met`` holds the names learnt in play.

Until then a character is described, never named: by the first clause of his public
appearance ("a lean young man in a patched green coat"), else a neutral "another traveller" in
the reader's language. That holds in the scene ("Here: …", ``Scene.pc_label``), in the lines
delivered to the others and recapped for them (``engine.gm.seen`` through ``unnamed``) and in
his master's scene context.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

from engine.gm.mentions import spans
from engine.gm.partybook import partybook
from engine.gm.state import CharacterState, GMState
from engine.gm.words import lexicon
from engine.gm.world import GameMaster

MAX_LOOK = 60  # a longer first clause reads as a sentence, not as a way to name someone
_CLAUSE = re.compile(r"[.,;:!?。，；：！？、]")
_HEAD = re.compile(r"\s(?:in|with|wearing|who|de|con|en|que|vestid[oa])\s", re.IGNORECASE)
_ARTICLES = {"a", "an", "the", "un", "una", "el", "la", "otro", "otra", "another"}
_SENTENCE_END = re.compile(r"(^|[.!?。！？…]\s*|\n\s*|[“\"«「]\s*)$")


def names_known(sheet: CharacterState) -> list[str]:
    """The ids whose names a character knows: NPCs and other player characters alike (what
    ``engine.gm.seen`` reads as ``known``)."""
    return [*sheet.known_names, *sheet.met]


def knows(state: GMState, viewer: str, other: str) -> bool:
    """Whether ``viewer`` knows the name of the player character ``other``."""
    sheet = state.characters.get(viewer)
    return viewer == other or (sheet is not None and other in names_known(sheet))


def stranger(gm: GameMaster, character_id: str, language: str | None) -> str:
    """How a character looks to someone who does not know his name (never his name)."""
    sheet = gm.characters_by_id.get(character_id)
    look = _first_clause(sheet.public.appearance) if sheet is not None else ""
    return look or partybook(language).t("stranger")


def stranger_names(gm: GameMaster, character_id: str, language: str | None) -> list[str]:
    """What someone who does not know his name may call him: how he looks, and the head of it
    ("a tall woman in a grey cloak" → "tall woman"; "穿灰斗篷的高个女人" → "高个女人")."""
    look = stranger(gm, character_id, language)
    head = _HEAD.split(look, maxsplit=1)[0].strip()
    head = head.rsplit("的", 1)[-1] if not lexicon(language or "en").spaced else head
    words = head.split()
    if len(words) > 1 and words[0].casefold() in _ARTICLES:
        head = " ".join(words[1:])
    return list(dict.fromkeys(n for n in (look, head) if n))


def label(gm: GameMaster, state: GMState, viewer: str, other: str, language: str | None) -> str:
    """``other`` as ``viewer`` may call him: his name once known, else how he looks."""
    if knows(state, viewer, other):
        return gm.characters_by_id[other].name
    return stranger(gm, other, language)


def unnamed(
    gm: GameMaster, text: str, viewer: str, known: Collection[str], language: str | None
) -> str:
    """``text`` with the name of every player character ``viewer`` does not know (``known``:
    the ids he does) replaced by how that character looks; a sentence still starts with a
    capital."""
    spaced = lexicon(language or "en").spaced
    for sheet in gm.characters:
        if sheet.id == viewer or sheet.id in known or sheet.name not in text:
            continue
        look = stranger(gm, sheet.id, language)
        for start, end in reversed(spans(text, sheet.name, spaced)):
            opening = bool(_SENTENCE_END.search(text[:start]))
            text = text[:start] + (look[:1].upper() + look[1:] if opening else look) + text[end:]
    return text


# --- meeting ------------------------------------------------------------------------------------


def learn(state: GMState, who: str, other: str) -> None:
    """``who`` learns the name of the player character ``other``."""
    sheet = state.characters.get(who)
    known = sheet is None or other == who or other in names_known(sheet)
    if not known and other in state.characters:
        assert sheet is not None
        sheet.met.append(other)


def meet(state: GMState, one: str, others: Iterable[str]) -> None:
    """``one`` and each of ``others`` learn each other's names."""
    for other in others:
        learn(state, one, other)
        learn(state, other, one)


def introduce(
    gm: GameMaster,
    state: GMState,
    speaker: str,
    words: str,
    hearers: Sequence[str],
    spoken_to: Sequence[str],
    language: str | None,
) -> None:
    """What words said aloud (or a whisper) do to who knows whom: speaking to someone here
    (``spoken_to``) is meeting him; a character's name said by someone who knows it becomes
    known to those who hear it."""
    meet(state, speaker, spoken_to)
    pcs = [h for h in hearers if h in state.characters and h != speaker]
    for other in said_names(gm, words, language):
        if knows(state, speaker, other):
            for hearer in pcs:
                learn(state, hearer, other)


def said_names(gm: GameMaster, words: str, language: str | None) -> list[str]:
    """The player characters whose name ``words`` say: the full name, or the first name as a
    proper name (capitalised, in a language with capitals)."""
    if not words.strip():
        return []
    spaced = lexicon(language or "en").spaced
    found = []
    for sheet in gm.characters:
        first = sheet.name.split()[0] if sheet.name.split() else sheet.name
        if spans(words, sheet.name, spaced) or any(
            words[start : start + 1].isupper() for start, _ in spans(words, first, spaced)
        ):
            found.append(sheet.id)
    return found


def _first_clause(text: str) -> str:
    """ "A lean young man in a patched green coat, with quick eyes." → "a lean young man in a
    patched green coat"; "" when it is too long to name someone by."""
    clause = _CLAUSE.split(text.strip(), maxsplit=1)[0].strip()
    if not clause or len(clause) > MAX_LOOK:
        return ""
    first = clause.split()[0]
    if first[:1].isupper() and (len(first) == 1 or first[1:].islower()):
        clause = clause[:1].lower() + clause[1:]
    return clause
