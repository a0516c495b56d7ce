"""The Story Director's request (seed 003 "El Director de Historia ve: archivos de campaña
completos, incluyendo notas del GM, plan de sesión, configuración de campaña y estado actual de
la campaña; la hoja de personaje jugador completa, incluyendo todos los secretos; una lista de
todos los PNJs, ubicaciones y trasfondo; resúmenes y recapitulaciones de sesión; el historial
completo de las dos escenas más recientes"; GAME_MASTER.md SW-6–SW-8).

It sees everything, so this is the one context that may hold every secret: the whole campaign,
the character's full sheet, each secret with its id (for ``<reveal>``) and who knows it, every
NPC with its secret and disclosures, every place with its hidden points, where each item is,
the errands and clues, the session's recap, its own private notes, the two latest scenes in
full and this turn (the player's words, the Game Director's account and calls, why the plot
moves). Its brief is the fixed part above the cache breakpoint. No tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.gm.directors.knowledge import npc_knows, secret_inventory
from engine.gm.directors.prompts import words
from engine.gm.directors.records import DirectorMemo, SceneTrack
from engine.gm.directors.requests import director_request
from engine.gm.report import MasterTurn
from engine.gm.secrets import revealed_to
from engine.gm.state import GMState, npc_place
from engine.gm.trust import trust_level
from engine.gm.world import GameMaster, Holder
from engine.llm.base import ChatRequest
from engine.session import Message


@dataclass(frozen=True)
class StoryTurn:
    """This turn, as the Story Director is told it."""

    character_id: str
    action: str
    account: MasterTurn
    reasons: tuple[str, ...]
    title: str = ""
    recap: str = ""  # the session memory
    language: str = "en"
    extra: tuple[str, ...] = field(default_factory=tuple)


def story_request(
    gm: GameMaster, state: GMState, turn: StoryTurn, base: ChatRequest | None = None
) -> ChatRequest:
    """The Story Director's request; ``base`` gives sampling settings."""
    text = words(turn.language)
    parts = [
        _campaign(gm, turn.title, state),
        _character(gm, state, turn.character_id),
        _secrets(gm, state, turn.character_id),
        _npcs(gm, state, turn.character_id),
        _places(gm, state, turn.character_id),
        _things(gm),
        _memory(state.directors, turn.recap),
        _scenes(state.directors, turn.character_id),
        _this_turn(gm, turn),
    ]
    messages = [
        Message("system", text.brief("story")),
        Message("user", "\n\n".join(p for p in parts if p)),
    ]
    return director_request(base, messages, action=turn.action, director="story")


def _campaign(gm: GameMaster, title: str, state: GMState) -> str:
    c = gm.campaign
    return "\n".join(
        [
            f"Campaign: {title}. Day {state.clock.day}, {state.clock.time_of_day}.",
            f"Notes (public): {c.notes}",
            f"GM notes: {c.gm_notes}",
            f"Session plan: {c.session_plan}",
            f"Campaign state: {c.state}",
        ]
    )


def _character(gm: GameMaster, state: GMState, character_id: str) -> str:
    sheet, me = gm.characters_by_id[character_id], state.characters[character_id]
    carried = [i.name for i in gm.items if _held(state.items.get(i.id), character_id)]
    full = sheet.full
    return "\n".join(
        [
            f"Player character {sheet.name} ({sheet.id}), full sheet:",
            f"- class {full.character_class or '-'}; traits: {', '.join(full.traits) or '-'}",
            f"- background: {full.background or '-'}",
            f"- looks: {sheet.public.appearance or '-'}",
            f"- reputation: {sheet.public.reputation or '-'}",
            f"- at {me.location}; HP {me.hp}/{me.max_hp}; money {me.money}; "
            f"in hand: {me.in_hand or 'nothing'}; carrying: {', '.join(carried) or 'nothing'}",
            f"- journal: {'; '.join(j.title for j in me.journal) or '-'}",
        ]
    )


def _held(at: Holder | None, character_id: str) -> bool:
    return at is not None and at.character == character_id


def _secrets(gm: GameMaster, state: GMState, character_id: str) -> str:
    memo = state.directors
    track = memo.tracks.get(character_id)
    lines = ["Secrets (id: text; who knows it):"]
    for record in secret_inventory(gm):
        knowers = [
            n.id for n in gm.npcs if any(k.ref == record.ref for k in npc_knows(memo, track, n.id))
        ]
        if record.kind == "npc":
            npc = gm.npcs_by_id[record.owner]
            told = [c.id for c in gm.characters if revealed_to(state, npc, c.id)]
            knowers += [f"told to {c}" for c in told]
        who = ", ".join(knowers) or "nobody yet"
        lines.append(f"- {record.ref}: {record.text} ({who})")
    return "\n".join(lines)


def _npcs(gm: GameMaster, state: GMState, character_id: str) -> str:
    lines = ["People:"]
    for npc in gm.npcs:
        place = npc_place(gm, state, npc)
        where = "nowhere" if place is None else place.location
        if place is not None and place.point:
            where += f"/{place.point}"
        secret = npc.secret.text if npc.secret else "-"
        tells = "; ".join(f"{k}: {v}" for k, v in npc.disclosures.items()) or "-"
        trust = trust_level(state, npc, character_id)
        lines.append(
            f"- {npc.id}: {npc.name}, {npc.trade or npc.kind}; at {where}; {npc.description} "
            f"Looks: {npc.public_description} Wants: {npc.motivation} Situation: {npc.situation} "
            f"Secret: {secret} Tells by trust: {tells}. Trust toward {character_id}: {trust}."
        )
    return "\n".join(lines)


def _places(gm: GameMaster, state: GMState, character_id: str) -> str:
    found = set(state.characters[character_id].discovered)
    lines = ["Places:"]
    for place in gm.locations:
        ways = ", ".join(
            f"{e.direction}→{e.to}" + (" (hidden)" if e.hidden else "") for e in place.exits
        )
        points = ", ".join(p.name for p in place.points)
        hidden = ", ".join(
            f"{p.name} ({_found(f'{place.id}:{p.id}' in found)}): {p.description}"
            for p in place.hidden_points
        )
        lines.append(
            f"- {place.id}: {place.name}. {place.description} Ways: {ways or '-'}. "
            f"Points: {points or '-'}. Hidden: {hidden or '-'}."
        )
    return "\n".join(lines)


def _found(found: bool) -> str:
    return "found" if found else "not found"


def _things(gm: GameMaster) -> str:
    lines = ["Errands:", *(f"- {q.id}: {q.title}: {q.summary}" for q in gm.quests)]
    lines += ["Clues:", *(f"- {c.id}: {c.name}: {c.text}" for c in gm.clues)]
    return "\n".join(lines) if gm.quests or gm.clues else ""


def _memory(memo: DirectorMemo, recap: str) -> str:
    lines = [f"Session recap: {recap.strip() or '-'}"]
    if memo.notes:
        lines += ["Your private notes:", *(f"- {n}" for n in memo.notes)]
    return "\n".join(lines)


def _scenes(memo: DirectorMemo, character_id: str) -> str:
    out = []
    for label, track in (
        ("The scene before", memo.previous.get(character_id)),
        ("The scene now", memo.tracks.get(character_id)),
    ):
        if track is not None:
            out.append(_track(label, track))
    return "\n\n".join(out)


def _track(label: str, track: SceneTrack) -> str:
    lines = [
        f"{label} (scene {track.number}: {track.location}, day {track.day}, {track.time_of_day}; "
        f"people: {', '.join(track.npcs) or 'nobody'}):",
        f"Synopsis: {track.synopsis.prose or '-'}",
    ]
    for turn in track.turns:
        lines += [f"> {turn.input}", *(f"  [{m}]" for m in turn.mechanics), turn.narration]
    return "\n".join(lines)


def _this_turn(gm: GameMaster, turn: StoryTurn) -> str:
    calls = [
        f"- {c.name}({', '.join(f'{k}={v}' for k, v in c.arguments.items() if k != 'narration')})"
        f": {'ok' if c.ok else 'failed: ' + c.error}"
        for c in turn.account.tool_calls
    ]
    name = gm.characters_by_id[turn.character_id].name
    return "\n".join(
        [
            f"This turn, {name} ({turn.character_id}): {turn.action}",
            "The Game Director's calls:",
            *(calls or ["- none"]),
            f"The Game Director's account: {turn.account.narration}",
            f"Why the plot moves: {', '.join(turn.reasons)}",
            *turn.extra,
        ]
    )
