"""What the others present perceive of a player's typed action (seed 001 "Multijugador"; issue
32 §10: a table delivers what was perceived, never what was typed).

What a player types is his alone: it stays the ``text`` of his ``action`` event, which only he
reads back (``engine.gm.seen``). ``others_see`` writes on the event the lines the others who
see it read instead (``data["seen"]``, in the world's language): his words, as a line
``Name: “words”``, when he says them aloud; else, when he talks with an NPC, that he does (the
NPC named as every one of them knows it); to the one he whispers to, at least that he does;
else nothing, and they see only what the engine or the master logs of the outcome. Names his
words say aloud become known to those who hear them (decision 17).

``words_aloud`` finds the words, in order:

- none when he keeps them to himself ("I whisper to myself", "I think", "pienso", "心想"), or
  whispers with nobody here to whisper to (a whisper to someone reaches that one alone:
  ``engine.gm.party`` keeps the others from seeing the event);
- the quoted words ("I tell her "it is fake"", «…», “…”, 「…」);
- what follows a colon after a verb of speech or a name ("I tell Hilda: it is fake");
- the whole input when it is plainly speech: it starts by calling someone present by name
  ("Hilda, …") or with a greeting ("Hello…", "Hola…", "你好…"). Anything else (a deed, a
  question to the master, "say hello to everyone") says no words the others could hear.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.gm.mentions import spans
from engine.gm.moves import languages_from
from engine.gm.party import HushedScene
from engine.gm.partybook import partybook
from engine.gm.phrasebook import phrasebook
from engine.gm.scene import Scene
from engine.gm.seen import SEEN
from engine.gm.state import GMEvent
from engine.gm.suggest import learn_names
from engine.gm.talkbook import talkbook
from engine.gm.tools.base import label
from engine.gm.tools.refs import npc_names
from engine.gm.world import Npc

People = Sequence[tuple[str, Sequence[str]]]

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|«([^»]+)»|「([^」]+)」|『([^』]+)』")
_COLON = re.compile(r"[:：]")
_VOCATIVE = re.compile(r"^([^,，!！:：]{1,40})[,，!！]")
_CJK = re.compile(r"[\u3400-\u9fff]")


def others_see(scene: Scene, text: str, event: GMEvent, npc: Npc | None) -> None:
    """Write on ``event`` (the typed action) what the others who see it read, and the names his
    words taught them; ``npc``: the one he talks with, if any."""
    others = [w for w in event.seen_by if w != scene.character_id]
    whispered = isinstance(scene, HushedScene)
    words = words_aloud(text, scene.lex.language, _people(scene), whispered=whispered)
    world = scene.world_lex.language
    lines: list[str] = []
    if words:
        lines.append(talkbook(world).t("reply_line", speaker=scene.name, text=words))
    elif npc is not None and not private(text, scene.lex.language):
        book, named = partybook(world), label(scene, npc, others, phrasebook(world))
        lines.append(book.tidy(book.t("ev_talk", actor=scene.name, npc=named)))
    elif whispered:  # to another character, without words we can tell: only that he did
        lines.append(partybook(world).t("ev_whisper_you", actor=scene.name))
    event.data[SEEN] = lines
    learn_names(scene, words, [w for w in others if w in scene.state.characters])


def words_aloud(text: str, language: str, people: People = (), *, whispered: bool = False) -> str:
    """The words ``text`` says aloud ("" when it says none): see the module docstring."""
    text = " ".join(text.split())
    head = _head(text)
    if _has(head, "private", language) or (_has(head, "whisper", language) and not whispered):
        return ""
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    if quoted:
        return " ".join(q.strip() for q in quoted if q.strip())
    parts = _COLON.split(text, maxsplit=1)
    if len(parts) == 2:
        speaking = _has(head, "speech", language, talk=True) or _has(head, "whisper", language)
        return parts[1].strip() if speaking or _is_name(head, people) else ""
    vocative = _VOCATIVE.match(text)
    if vocative and _is_name(vocative.group(1), people):
        return text
    return text if _has(text, "greeting", language, talk=True, start=True) else ""


def private(text: str, language: str) -> bool:
    """He keeps it to himself: a thought, words to himself."""
    return _has(_head(" ".join(text.split())), "private", language)


def _head(text: str) -> str:
    """What comes before the words: the text up to its first quote or colon."""
    return _COLON.split(_QUOTED.split(text, maxsplit=1)[0], maxsplit=1)[0]


def _has(text: str, words: str, language: str, *, talk: bool = False, start: bool = False) -> bool:
    """Whether ``text`` holds (or, with ``start``, begins with) a phrase of a word list of the
    multiplayer phrasebook (``talk``: of the talk phrasebook), in any language."""
    spaced = not _CJK.search(text)
    text = text.strip().lstrip("¿¡")
    for code in languages_from(language):
        book = talkbook(code) if talk else partybook(code)
        for phrase in book.list(words):
            found = spans(text, phrase, spaced)
            if found and (not start or found[0][0] == 0):
                return True
    return False


def _is_name(text: str, people: People) -> bool:
    """``text`` is nothing but the name of someone present ("Hilda", "innkeeper")."""
    bare = text.strip().casefold()
    return bool(bare) and any(bare == n.casefold() for _, names in people for n in names)


def _people(scene: Scene) -> list[tuple[str, list[str]]]:
    """Those he could speak to here, with the names he might call them by."""
    found = [(n.id, [*npc_names(n), *n.name.split()[:1]]) for n in scene.npcs()]
    for other in scene.others():
        name = scene.gm.characters_by_id[other].name
        found.append((other, list(dict.fromkeys([name, *name.split()[:1]]))))
    return found
