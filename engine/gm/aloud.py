"""What the others present perceive of a player's typed action (seed 001 "Multijugador"; issue
32 §10: a table delivers what was perceived, never what was typed).

What a player types is his alone: it stays the ``text`` of his ``action`` event, which only he
reads back (``engine.gm.seen``). ``others_see`` writes on the event the lines the others who
see it read instead (``data["seen"]``, in the world's language): his words, as a line
``Name: “words”``, when he says them aloud; else, when he talks with an NPC, that he does (the
NPC named as every one of them knows it); to the one he whispers to, at least that he does;
else nothing, and they see only what the engine or the master logs of the outcome. Names his
words say aloud become known to those who hear them (decision 17), when he knows them: a name
he never learnt is a guess, which calls nobody and teaches nobody (issue 32). Words said to
those present (not to an NPC), or a whisper to another character, are meeting them; a
character's name said aloud by one who knows it is an introduction (``engine.gm.acquaintance``,
issue 33 §5).

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

from engine.gm.acquaintance import introduce
from engine.gm.mentions import mentioned, spans
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
    hearers = [w for w in others if w in scene.state.characters]
    sayable = [n.id for n in scene.gm.npcs if scene.npc_label(n) == n.name]  # names he knows
    learn_names(scene, words, hearers, only=sayable)
    spoken_to = _spoken_to(scene, text, words, hearers, npc, whispered=whispered)
    introduce(scene.gm, scene.state, scene.character_id, words, hearers, spoken_to, world)


def _spoken_to(
    scene: Scene, text: str, words: str, hearers: list[str], npc: Npc | None, *, whispered: bool
) -> list[str]:
    """The characters he speaks to, whom he meets (issue 33 §5): the one he whispers to; all
    present when his words go to no NPC; else those his input calls by a name he can use."""
    pcs = [h for h in hearers if h in scene.state.characters]
    if whispered or (words and npc is None):
        return pcs
    if not words:
        return []
    people = [(c, scene.pc_names(c)) for c in pcs]
    return mentioned(text, people, not _CJK.search(text))


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
    """Those he could speak to here, with the names he might call them by (an NPC's name only
    once he knows it: a name he never learnt calls nobody, like a made-up one)."""
    found = []
    for npc in scene.npcs():
        first = npc.name.split()[:1] if scene.npc_label(npc) == npc.name else []
        found.append((npc.id, [*scene.npc_names_known(npc), *first]))
    for other in scene.others():  # a character he has not met: by how he looks (issue 33 §5)
        found.append((other, scene.pc_names(other)))
    return found
