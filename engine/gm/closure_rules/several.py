"""Rule: more than one of the player's actions is resolved (seed 001 "Resuelve más de una
acción por mensaje"; issue 34 §2).

An action is a deed of the character with an effect of its own: moving somewhere, taking,
giving, opening, searching, hiding, attacking, trading, eating or drinking, resting, asking.
The narration resolves several when the character completes deeds of two different kinds
("Abres la puerta, coges la gema y huyes corriendo": open, take, move), counted only where
the narrator tells them as done by "you"; gestures, looks and postures along the way ("you
lean on the bar", "you glance at the door") are not actions, an NPC's deeds are not the
player's, and a deed asked about or put off ("¿Coges la gema?", "the gem will have to wait")
is not resolved. Two kinds of action tools applied for the character count as well.
"""

from __future__ import annotations

from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.several_actor import player_events
from engine.gm.closure_rules.several_chain import (
    NEW_EFFECT,
    chained_deeds,
    handed,
    listed_intent,
    on_it,
    player,
    thing_subjects,
)
from engine.gm.closure_rules.several_then import stepped
from engine.gm.tools import ToolCall

FAMILIES: dict[str, str] = {
    "go": "move",
    "enter": "move",
    "arrive": "move",
    "leave": "move",
    "flee": "move",
    "climb": "move",
    "acquire": "take",
    "give": "give",
    "drop": "give",
    "buy": "trade",
    "sell": "trade",
    "pay": "trade",
    "pawn": "trade",
    "settle": "trade",
    "open": "open",
    "close": "open",
    "search": "search",
    "hide": "hide",
    "attack": "attack",
    "consume": "consume",
    "rest": "rest",
    "gather": "gather",
    "light": "light",
    "talk": "talk",
}
ACTION_TOOLS = (
    "move_character",
    "request_skill_check",
    "request_attack",
    "discover_hidden_point",
    "buy_item",
    "sell_item",
    "gather",
    "pawn_item",
    "rest",
)


def several_actions(reading: Reading) -> bool:
    kinds = {
        c.name
        for c, _ in reading.ok_calls()
        if c.name in ACTION_TOOLS and not (c.name == "move_character" and _moves_npc(c))
    }
    if len(kinds) > 1 or len(action_kinds(reading)) > 1 or _sequenced(reading):
        return True
    if stepped(reading, player_events(reading, tuple(FAMILIES)), player(reading)):
        return True  # "take the rope, then the tankard, then the steps down"
    return chained_deeds(reading) > 1


def _sequenced(reading: Reading) -> bool:
    """The narrator orders the character's deeds: "First you warm your hands; then you sit
    down and order", "Primero te calientas…; después te sientas", "你先…，然后坐到…": the
    frame says two were done, whatever the first one was, when a deed follows the "then"."""
    doc = reading.doc
    firsts = [h for h in doc.of("sequence_first") if _yours(reading, h.start)]
    thens = doc.of("sequence_then")
    me = player(reading)
    deeds = [e.start for e in reading.of(*FAMILIES, "posture", "act") if e.actor in me]
    return any(
        f.end <= t.start and any(d >= t.end for d in deeds)
        for f in firsts
        for t in thens
        if not doc.clause_at(t.start).quoted
    )


def _yours(reading: Reading, position: int) -> bool:
    """A "you" in the clause at ``position``, not in speech."""
    clause = reading.doc.clause_at(position)
    me = player(reading)
    return not clause.quoted and any(
        m.ref in me and clause.start <= m.start < clause.end for m in reading.mentions
    )


def action_kinds(reading: Reading) -> list[str]:
    """The kinds of deed the narrator tells as done by the character, in order."""
    kinds: list[str] = []
    spans: list[tuple[int, int]] = []
    light = {h.start for h in reading.doc.of("light_verbs", "deal_idioms")}
    me = player(reading)
    auxiliaries = reading.doc.of("modals")
    listed = listed_intent(reading) | thing_subjects(reading)
    for event in player_events(reading, tuple(FAMILIES)):
        if event.actor not in me or event.start in light or event.clause.index in listed:
            continue
        if any(a <= event.start < b for a, b in spans):
            continue
        if event.key == "give" and not handed(reading, event):
            continue  # "pasas junto a Bruno": passing by, nothing handed over
        if any(h.start == event.start for h in auxiliaries) and not _reflexive(reading, event):
            continue  # "vas a pagar": the verb is the future's auxiliary
        if event.key == "drop" and not any(r.kind == "item" for r in event.objects):
            continue  # "you drop softly on the other side": no putting down
        if event.key == "drop" and "consume" in kinds:
            continue  # "you drain your tankard and set it down": the drink's own end
        if kinds and FAMILIES[event.key] not in NEW_EFFECT and _on_it(reading, event):
            continue  # "coges la vela y la acercas a la pared": the same thing, handled
        spans.append((event.start, event.end))
        family = FAMILIES[event.key]
        if family not in kinds:
            kinds.append(family)
    return kinds


def _on_it(reading: Reading, event: Event) -> bool:
    doc = reading.doc
    head = next((n for n, t in enumerate(doc.tokens) if t.start >= event.start), None)
    return head is not None and on_it(doc, event.clause, head)


def _reflexive(reading: Reading, event: Event) -> bool:
    """ "Te vas a dormir": going off to sleep, not the future's "vas a"."""
    before = [t for t in reading.doc.tokens if t.end <= event.start][-1:]
    return bool(before) and reading.doc.words.has(before[0], "chain_object_words")


def _moves_npc(call: ToolCall) -> bool:
    who = call.arguments.get("who")
    return isinstance(who, str) and who.strip().casefold() not in ("me", "self", "yo", "我", "")
