"""Several player characters in one place (seed 001 "Multijugador": "Un NPC habla con uno cada
vez; los demás esperan turno o se unen a la conversación"; GAME_MASTER.md GM-P-2, decision 5:
"A whisper reaches only its addressee"; issue 12 §4).

``hold_turn`` runs before the master, at no cost: an explicit join ("I join the conversation",
"me uno a la conversación", "加入他们的谈话") makes the character part of the conversation an
NPC here is having with another character (an ``action`` event that talks to that NPC, which
``engine.gm.conversation`` reads as his ongoing talk); words to an NPC that is talking with
another character present, from a character who is not part of that talk, are answered
``refused`` in the player's language: it is talking with X, wait or join. A character is named
to another once they met (joining his conversation is meeting him; ``engine.gm.acquaintance``),
described until then; the NPC is named as the asker knows it, and matched only by
what he can call it (``Scene.npc_names_known``): a name he never learnt is a made-up one, with
the same answer, so what he types cannot test a guess (issue 32).

``hush`` turns a whisper ("I whisper to Hilda: …", "le susurro a Hilda …", "我低声对Hilda说…") to
someone present (an NPC or a character: the one named, else the only other person here) into a
scene where, in this place, only the two of them witness what the turn logs: the words, the
NPC's reply, the names it gives. The others present see that it happened, without the words
(one ``whisper`` event: "Ren Ashby whispers something to the innkeeper.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.gm import acquaintance
from engine.gm import conversation as talks
from engine.gm.mentions import mentioned, spans
from engine.gm.moves import languages_from
from engine.gm.partybook import partybook
from engine.gm.phrasebook import Phrasebook, phrasebook
from engine.gm.scene import MoveResult, Scene
from engine.gm.seen import SEEN
from engine.gm.state import GMEvent, characters_at, log_event, npcs_at
from engine.gm.talk import talk_target
from engine.gm.tools.base import label
from engine.gm.world import Npc

_SPEECH_START = re.compile(r"[:\"“«「：]")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _spaced(text: str) -> bool:
    return not _CJK.search(text)


def _says(text: str, words: str, language: str, *, start: bool = False) -> bool:
    """Whether ``text`` holds (or, with ``start``, begins with) a phrase of ``words``."""
    spaced, text = _spaced(text), text.strip()
    for code in languages_from(language):
        for phrase in partybook(code).list(words):
            found = spans(text, phrase, spaced)
            if found and (not start or found[0][0] == 0):
                return True
    return False


def _pc_names(scene: Scene, character_id: str) -> list[str]:
    """What he can call another character: a name he never learnt calls nobody (issue 33 §5)."""
    return scene.pc_names(character_id)


# --- one NPC, one character at a time (GM-P-2) --------------------------------------------------


def hold_turn(scene: Scene, text: str) -> MoveResult | None:
    """A join, or a "wait your turn", answered by the engine; None lets the master play."""
    current = scene.state.next_event
    if _says(text, "join", scene.lex.language, start=True):
        return join(scene, text, current)
    npc = talk_target(scene, text, current)
    if npc is None or talks.ongoing(scene.state, scene.character_id, npc.id, current):
        return None
    busy = talking_with(scene, npc, current)
    if not busy:
        return None
    book = partybook(scene.lex.language)
    names = scene.lex.join(scene.pc_label(c) for c in busy)
    narration = book.tidy(book.t("busy", npc=label(scene, npc), pc=names))
    return MoveResult("refused", narration, suggestions=[book.t("join_suggestion")])


def talking_with(scene: Scene, npc: Npc, current: int) -> list[str]:
    """The other characters here in an ongoing talk with ``npc``."""
    return [c for c in scene.others() if talks.ongoing(scene.state, c, npc.id, current)]


def join(scene: Scene, text: str, current: int) -> MoveResult:
    """Become part of a conversation here (the one the text names as he knows them, else the
    first)."""
    book = partybook(scene.lex.language)
    talking = [(n, c) for n in scene.npcs() for c in talking_with(scene, n, current)]
    if not talking:
        return MoveResult("refused", book.t("no_conversation"))
    spaced = _spaced(text)
    named = [
        (n, c)
        for n, c in talking
        if mentioned(text, [(n.id, scene.npc_names_known(n)), (c, _pc_names(scene, c))], spaced)
    ]
    npc, other = (named or talking)[0]
    acquaintance.meet(scene.state, scene.character_id, [other])  # the talk is theirs now
    witnesses = scene.witnesses()
    world_book = partybook(scene.world_lex.language)
    text = world_book.t(
        "ev_join", actor=scene.name, npc=label(scene, npc, witnesses, _words(scene))
    )
    event = log_event(
        scene.state,
        "action",
        scene.character_id,
        scene.me.location,
        text,
        seen_by=witnesses,
        # the engine's own line: the others read it (engine.gm.seen), never a typed input
        data={talks.TALK: npc.id, "said": ["join"], "escalation": 0, "errand": "", SEEN: [text]},
        at=scene.at,
    )
    pc = scene.gm.characters_by_id[other].name
    narration = book.tidy(book.t("joined", npc=label(scene, npc), pc=pc))
    return MoveResult("engine", narration, events=[event])


def _words(scene: Scene) -> Phrasebook:
    """The world's phrasebook: event text names an NPC in the world's language."""
    return phrasebook(scene.world_lex.language)


# --- whispers (decision 5) -----------------------------------------------------------------


@dataclass
class HushedScene(Scene):
    """A scene where, in the character's own place, only he and the addressee witness what is
    logged, and the only NPC here to speak is the addressee; the others present see one line."""

    pair: tuple[str, ...] = ()
    told: bool = False  # the others' line is logged with the action, once

    def npcs(self, location_id: str | None = None) -> list[Npc]:
        found = super().npcs(location_id)
        if (location_id or self.me.location) != self.me.location:
            return found
        return [n for n in found if n.id in self.pair]

    def witnesses(self, location_id: str | None = None) -> list[str]:
        found = super().witnesses(location_id)
        if (location_id or self.me.location) != self.me.location:
            return found
        return [w for w in found if w in self.pair]

    def log(self, kind: str, template: str, **options: Any) -> GMEvent:
        event = super().log(kind, template, **options)
        if kind == "action" and not self.told:
            self.told = True
            self._aside()
        return event

    def _aside(self) -> None:
        where = self.me.location
        npcs = [n.id for n in npcs_at(self.gm, self.state, where)]
        others = [w for w in [*characters_at(self.state, where), *npcs] if w not in self.pair]
        if not others:
            return
        target = self.pair[1]
        npc = self.gm.npcs_by_id.get(target)
        pc = self.gm.characters_by_id.get(target)
        name = label(self, npc, others, _words(self)) if npc else pc.name if pc else target
        book = partybook(self.world_lex.language)
        text = book.t("ev_whisper", actor=self.name, target=name)
        log_event(self.state, "whisper", self.character_id, where, text, seen_by=others, at=self.at)


def whisper_to(scene: Scene, text: str) -> str | None:
    """The one a whisper is for (an NPC or a character here, by a name he knows), or None when
    it is no whisper."""
    head = _SPEECH_START.split(text, maxsplit=1)[0]
    if not _says(head, "whisper", scene.lex.language):
        return None
    people = [(n.id, scene.npc_names_known(n)) for n in scene.npcs() if n.kind != "animal"]
    people += [(c, _pc_names(scene, c)) for c in scene.others()]
    named = mentioned(head, people, _spaced(head))
    if len(named) == 1:
        return named[0]
    return people[0][0] if not named and len(people) == 1 else None


def hush(scene: Scene, text: str) -> Scene:
    """The scene for this turn: hushed when the text whispers to someone here."""
    target = whisper_to(scene, text)
    if target is None:
        return scene
    return HushedScene(
        scene.gm,
        scene.state,
        scene.character_id,
        scene.lex,
        scene.world_lex,
        scene.at,
        scene.values,
        pair=(scene.character_id, target),
    )
