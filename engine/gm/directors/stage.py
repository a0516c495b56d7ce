"""The Scene Director's request and reply (seed 003 "El Director de Escena 'interpreta' la escena
que le entrega el Director de Historia … genuinamente no conoce los secretos"; GAME_MASTER.md
SW-12–SW-15; seed 001 "El gesto de quien habla … va en cursiva dentro de su propia burbuja").

``scene_request`` is the only builder of a Scene Director request, and it reads nothing but a
``SceneDirectorInput``: the types of ``engine.gm.directors.public``, which have no field for a
secret. The request is its brief (fixed, above the cache breakpoint), the scene's context, the
scene so far as alternating turns (it keeps the scenes it played, so each new turn is appended
and the prefix stays in cache), then this turn. No tools: the Game Director already applied
the mechanics. ``parse_scene`` reads the reply: narration, and each ``<say npc gesture>`` as a
speech bubble of an NPC in the scene (anyone else's words stay in the narration).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.gm.directors.prompts import words
from engine.gm.directors.public import (
    PublicCharacterSheet,
    PublicNpcSheet,
    SceneDirectorInput,
)
from engine.gm.directors.requests import director_request
from engine.gm.directors.synopsis import slug
from engine.llm.base import ChatRequest
from engine.session import Message

_FLAGS = re.S | re.I
_SAY = re.compile(r"<\s*say\b([^>]*)>(.*?)(?:<\s*/\s*say\s*>|(?=<\s*say\b)|\Z)", _FLAGS)
_ATTR = re.compile(r"([a-z_-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", _FLAGS)
_THINK = re.compile(r"<(think|thinking)\b[^>]*>.*?(?:</\1\s*>|\Z)", _FLAGS)
_TAG = re.compile(r"<[^<>]*>")
MAX_BUBBLES = 6


@dataclass(frozen=True)
class Bubble:
    speaker: str  # an NPC id of the scene
    name: str  # how the character names it
    text: str
    gesture: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"speaker": self.speaker, "name": self.name, "text": self.text}
        return {**out, "gesture": self.gesture} if self.gesture else out


@dataclass(frozen=True)
class SceneReply:
    narration: str
    bubbles: tuple[Bubble, ...] = ()

    @property
    def said(self) -> str:
        """Everything the player reads, for the closure check."""
        return " ".join([self.narration, *(b.text for b in self.bubbles)]).strip()


def scene_request(scene: SceneDirectorInput, base: ChatRequest | None = None) -> ChatRequest:
    """The Scene Director's request for ``scene``; ``base`` gives sampling settings."""
    text = words(scene.language)
    name = scene.character.name
    messages = [Message("system", text.brief("scene")), Message("user", scene_context(scene))]
    for turn in scene.history:
        said = text.t("history_turn", name=name, action=turn.input)
        messages.append(Message("user", _with_lines(said, turn.mechanics)))
        messages.append(Message("assistant", turn.narration))
    lines = "\n".join(f"- {line}" for line in scene.turn.mechanics) or text.t("scene_nothing")
    now = text.t("scene_turn", mechanics=lines, name=name, action=scene.turn.action)
    messages.append(Message("user", now))
    return director_request(
        base, messages, action=scene.turn.action, director="scene", cache_tail=True
    )


def _with_lines(said: str, mechanics: tuple[str, ...]) -> str:
    return "\n".join([*(f"- {line}" for line in mechanics), said]) if mechanics else said


def scene_context(scene: SceneDirectorInput) -> str:
    """The scene as the Scene Director reads it, from the public types alone."""
    place, me = scene.location, scene.character
    lines = [f"Scene for {me.name} ({me.id}), day {scene.day}, {scene.time_of_day}."]
    lines.append(f"Campaign: {scene.campaign.title}. {scene.campaign.notes}".strip())
    at = f" {me.name} stands at {place.point}." if place.point else ""
    lines.append(f"Place: {place.name} ({place.id}). {place.description}{at}".strip())
    if place.alarm:
        lines.append(f"ALARM here: {place.alarm}.")
    for label, items in (
        ("Points", place.points),
        ("Things", place.things),
        ("Ways on", place.ways),
        ("Heard", place.sounds),
    ):
        if items:
            lines.append(f"{label}: " + "; ".join(items) + ".")
    lines.append(_person(me, "The player's character"))
    lines += [_person(other, "Another player's character") for other in scene.others]
    if scene.npcs:
        lines.append("People in the scene:")
        for npc in scene.npcs:
            lines += _npc_lines(npc, me.name)
    else:
        lines.append("Nobody else is in the scene.")
    lines.append(f"Synopsis from the Story Director: {scene.synopsis.prose or '(none)'}")
    if scene.synopsis.new_scene:
        lines.append("This is a new scene.")
    return "\n".join(lines)


def _person(sheet: PublicCharacterSheet, role: str) -> str:
    parts = [p for p in (sheet.appearance, sheet.reputation) if p.strip()]
    parts.append(f"in hand: {sheet.in_hand or 'nothing'}")
    if sheet.conditions:
        parts.append("conditions: " + ", ".join(sheet.conditions))
    if sheet.wounded:
        parts.append("wounded")
    return f"{role}: {sheet.name} ({sheet.id}). " + "; ".join(p.strip().rstrip(".") for p in parts)


def _npc_lines(npc: PublicNpcSheet, who: str) -> list[str]:
    known = "" if npc.name_known else f"; {who} does not know its name yet"
    head = f"- {npc.name} [{npc.id}], called {npc.label} by {who}{known}"
    lines = [head + (f"; {npc.trade}" if npc.trade else "") + (" (down)" if npc.down else "")]
    for label, value in (
        ("at", npc.point or ""),
        ("looks", npc.looks),
        ("manner", npc.manner),
        ("wants", npc.motivation),
        ("situation", npc.situation),
        ("today", "; ".join(npc.concerns)),
        ("its people", ", ".join(npc.people)),
        (f"trust toward {who}", f"{npc.trust} ({npc.tone})"),
        (f"would tell {who}", " / ".join(npc.tells)),
        ("keeps something back; would tell it to", " / ".join(npc.keeps_back)),
        ("knows", " / ".join(npc.knows)),
    ):
        if value.strip():
            lines.append(f"  {label}: {value.strip()}")
    for title, memories in (("remembers", npc.memories), ("older memories", npc.older_memories)):
        if memories:
            lines.append(f"  {title}:")
            lines += [f"    - day {m.day}, about {m.about}: {m.text}" for m in memories]
    if npc.scenes:
        lines.append("  scenes it was in (what it perceived):")
        lines += [f"    - {s.heading}: " + " ".join(s.lines) for s in npc.scenes]
    return lines


def parse_scene(text: str, cast: dict[str, str]) -> SceneReply:
    """Read the Scene Director's reply; ``cast`` maps the scene's NPC ids to how the
    character names them. Never raises."""
    body = _THINK.sub(" ", text or "")
    by_slug = {slug(label): ident for ident, label in cast.items()} | {i: i for i in cast}
    bubbles: list[Bubble] = []

    def bubble(match: re.Match[str]) -> str:
        attrs = {
            m.group(1).lower(): m.group(2) or m.group(3) or ""
            for m in _ATTR.finditer(match.group(1))
        }
        said = " ".join(_TAG.sub(" ", match.group(2)).split())
        speaker = by_slug.get(slug(attrs.get("npc", "") or attrs.get("speaker", "")))
        if not said:
            return " "
        if speaker is None or len(bubbles) >= MAX_BUBBLES:
            return f" “{said}” "
        gesture = " ".join(attrs.get("gesture", "").split())
        bubbles.append(Bubble(speaker, cast[speaker], said, gesture))
        return " "

    rest = _SAY.sub(bubble, body)
    paragraphs = [" ".join(_TAG.sub(" ", p).split()) for p in re.split(r"\n\s*\n", rest)]
    return SceneReply("\n\n".join(p for p in paragraphs if p), tuple(bubbles))
