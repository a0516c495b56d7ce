"""The actor's context: what the second model that plays an NPC's lines reads (seed 001 "Director
y actor (apagado)": "Lo que ve el actor: la ficha del NPC, lo que le ronda hoy (su agenda, lo que
ha puesto en el tablón, lo que pasa en el pueblo, los encargos del PJ que son suyos o de su
gente), el trato con el PJ, lo que recuerda de él y las últimas 10 réplicas literales entre los
dos. El secreto, no.").

Two steps, as for the master's scene context (``engine.gm.perception``), so that the secret stays
out by construction: ``actor_view`` is the only function here that reads the full block, and it
projects it into ``ActorView``, which has no field for a secret, a withheld disclosure's text or
the campaign's notes; ``actor_request`` builds the model request from that view alone. When the
master's own lines for the NPC already say its secret (a gate opened it), there is nothing for
the actor to play: ``actor_view`` gives None and the master's lines stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.gm import conversation as talks
from engine.gm.directors.leaks import fingerprint, leaks
from engine.gm.directors.prompts import words
from engine.gm.directors.requests import director_request
from engine.gm.memory import memories
from engine.gm.scene import Scene
from engine.gm.state import GMEvent
from engine.gm.talk import TalkScript
from engine.gm.trust import TONES, rank
from engine.gm.world import Npc, TrustLevel
from engine.llm.base import ChatRequest
from engine.session import Message

ACTOR = "actor"  # the director label of its requests (``--trace``)
EXCHANGES = 10  # "las últimas 10 réplicas literales entre los dos"


@dataclass(frozen=True)
class Exchange:
    speaker: str
    text: str


@dataclass(frozen=True)
class ActorView:
    """What the actor reads, and nothing else: no field could hold the NPC's secret."""

    npc: str
    trade: str
    manner: str
    looks: str
    motivation: str
    situation: str
    pc: str  # how it names him: his name when it knows it, else how he looks
    trust: TrustLevel
    tone: str
    concerns: tuple[str, ...]  # today's: its worries, agenda, board posts, his errands for it
    tells: tuple[str, ...]  # what it would tell him at this trust
    memories: tuple[str, ...]  # what it remembers of him
    exchanges: tuple[Exchange, ...]  # at most ``EXCHANGES``, oldest first
    said: str  # his words this turn
    lines: str  # the master's lines for it this turn (what the master decided)
    language: str


def actor_view(scene: Scene, script: TalkScript, event: GMEvent, lines: str) -> ActorView | None:
    """Project the NPC ``script`` talks with for the actor; None when ``lines`` (the master's)
    already tell its secret. ``event`` is his action's event (the exchanges before it count)."""
    npc, me = script.npc, script.character_id
    if npc.secret is not None and leaks(lines, fingerprint(npc.id, npc.secret.text)):
        return None
    return ActorView(
        npc=npc.name,
        trade=npc.trade,
        manner=npc.description,
        looks=npc.public_description,
        motivation=npc.motivation,
        situation=npc.situation,
        pc=script.pc_name,
        trust=script.level,
        tone=TONES[script.level],
        concerns=_concerns(scene, npc),
        tells=tuple(t for lvl, t in npc.disclosures.items() if rank(lvl) <= rank(script.level)),
        memories=tuple(m.text for m in memories(scene.gm, scene.state, npc.id, me)),
        exchanges=exchanges(scene, npc, script.pc_name, event.id),
        said=script.text,
        lines=lines,
        language=script.language,
    )


def _concerns(scene: Scene, npc: Npc) -> tuple[str, ...]:
    out = list(npc.concerns)
    places = scene.gm.locations_by_id
    for slot in npc.schedule:
        where = places[slot.location].name if slot.location in places else slot.location
        out.append(f"{slot.time_of_day}: {slot.activity or 'at'} ({where})".replace("at (", "("))
    for board in scene.gm.boards:
        out += [f"posted: {n.title}" for n in board.notices if n.owner == npc.id]
    quests = scene.gm.quests_by_id
    for entry in scene.me.journal:
        quest = quests.get(entry.ref or "") if entry.kind == "quest" else None
        if quest is not None and (quest.owner == npc.id or quest.owner in npc.people):
            out.append(f"his errand for it: {quest.title}")
    return tuple(out)


def exchanges(scene: Scene, npc: Npc, pc: str, before: int) -> tuple[Exchange, ...]:
    """The last literal lines between the two before event ``before``: his words to it and its
    bubbles he perceived."""
    me = scene.character_id
    out: list[Exchange] = []
    for event in scene.state.events:
        if event.id >= before:
            break
        if event.actor == me and event.data.get(talks.TALK) == npc.id:
            out.append(Exchange(pc, _words(event.text)))
        if me not in (event.actor, *event.seen_by, *event.heard_by):
            continue
        for bubble in event.data.get("bubbles") or []:
            if isinstance(bubble, dict) and bubble.get("speaker") == npc.id:
                out.append(Exchange(npc.name, str(bubble.get("text") or "")))
    return tuple(x for x in out if x.text.strip())[-EXCHANGES:]


def _words(text: str) -> str:
    """His words out of the action line ``Name: "words"``."""
    _, sep, tail = text.partition(': "')
    return tail[:-1] if sep and tail.endswith('"') else text


def actor_prompt(view: ActorView) -> str:
    """The actor's user message, from the view alone."""
    trade = f", {view.trade}" if view.trade else ""
    sheet = [("Manner", view.manner), ("Looks", view.looks), ("Wants", view.motivation)]
    sheet.append(("Situation", view.situation))
    lines = [
        f"You play {view.npc}{trade}.",
        *(f"{key}: {value}" for key, value in sheet if value.strip()),
        f"Speaking with: {view.pc}. Trust: {view.trust} ({view.tone}).",
        "Today on its mind:",
        *([f"- {c}" for c in view.concerns] or ["- nothing special"]),
        "What it would tell him at this trust:",
        *([f"- {t}" for t in view.tells] or ["- only common knowledge"]),
        "What it remembers of him:",
        *([f"- {m}" for m in view.memories] or ["- nothing yet"]),
        "Their last exchanges:",
        *([f"{x.speaker}: {x.text}" for x in view.exchanges] or ["(none)"]),
        f"He says now: {view.said}",
        f"The master's lines for {view.npc} (keep what they decide, nothing more): {view.lines}",
    ]
    return "\n".join(lines)


def actor_request(
    view: ActorView, base: ChatRequest | None, failed: str = "", *, action: str = ""
) -> ChatRequest:
    """The actor's request, built from ``view`` only; ``failed``: why its last lines failed."""
    names = words(view.language).data["language_names"]
    language = names.get(view.language, "English")
    system = (
        f"You are an actor voicing one character of a role-play game, in {language}. "
        "Write only its spoken lines: 1 to 4 short sentences, no quotes, no narration. "
        "Answer what he said, in its tone; never speak or act for him; never repeat a line "
        "it already said; close no deal and promise to go nowhere the master's lines do not."
    )
    user = actor_prompt(view)
    if failed:
        user += f"\nYour last lines were rejected: {failed}. Write them again."
    messages = [Message("system", system), Message("user", user)]
    return director_request(base, messages, action=action or view.said, director=ACTOR)
