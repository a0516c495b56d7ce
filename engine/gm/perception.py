"""The master's scene context: only what the character perceives (seed 001 "El contexto: poco y
justo", "Percepción"; seed 003 context isolation; decisions 5, 11 and 17).

Two steps, so that isolation is structural. ``perceive`` is the only function here that reads
the full block; it projects it into ``engine.gm.views`` types, which have no field for a secret.
``scene_context`` builds the text from those views alone: what the character perceives with the
band of each thing (seen here, heard, nearby through a way), for each NPC present only what it
would tell him at its current trust and, when it keeps something back, *that* it does and to
whom it would tell it (never the text); the clues anchored here or to these NPCs that he can
already get; his errands one line each; the last six events he perceived; and a warning when
nobody witnesses what he does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.gm import acquaintance
from engine.gm.acquaintance import names_known
from engine.gm.clues import clue_status
from engine.gm.scene import Scene
from engine.gm.seen import TYPED, witnessed
from engine.gm.sheet import journal_facts
from engine.gm.state import GMEvent, GMState, npc_place
from engine.gm.trust import TONES, rank, trust_level
from engine.gm.views import (
    Band,
    ClueView,
    EventView,
    NpcView,
    PendingView,
    PersonView,
    PlaceView,
    PointView,
    SceneView,
    SelfView,
    SoundView,
    ThingView,
    WayView,
    WithheldView,
)
from engine.gm.words import lexicon
from engine.gm.world import TRUST_LEVELS, GameMaster, Npc

LAST_EVENTS = 6
# What the engine logs for a move of its own (never an answer to a player's words): every other
# event right after his words (the NPC's reply, the master's closing, a roll, a tool's) is theirs.
_MOVES = ("go", "arrive", "point", "look", "take", "drop", "wait", "board", "unlock", "whisper")
_DEALS = ("equip", "unequip", "give", "buy", "sell", "pawn", "redeem", "errand")
OWN_EVENTS = frozenset(_MOVES + _DEALS)
MAX_LISTED = 12  # people and things listed by name; the rest are counted
ERRAND_CHARS = 120


def perceive(
    gm: GameMaster,
    state: GMState,
    character_id: str,
    *,
    location: str | None = None,
    values: Mapping[str, Any] | None = None,
    language: str | None = None,
) -> SceneView:
    """Project what ``character_id`` perceives (at ``location``, if given: the studio preview).

    ``values`` are the world's variable values, for clue conditions; ``language`` the world's,
    in which the lines he perceived of the others' events are told. KeyError for an unknown
    character or location.
    """
    if location is not None:
        gm.locations_by_id[location]
        me = state.characters[character_id].model_copy(update={"location": location, "point": None})
        state = state.model_copy(update={"characters": {**state.characters, character_id: me}})
    lex = lexicon("en")
    scene = Scene(gm, state, character_id, lex, lex)
    npcs = scene.npcs()
    others = scene.others()
    return SceneView(
        me=_self(scene),
        place=_place(scene),
        day=state.clock.day,
        time_of_day=state.clock.time_of_day,
        points=tuple(PointView(p.id, p.name, p.description) for p in scene.points()),
        things=_things(scene),
        ways=tuple(
            WayView(w.direction, w.to, scene.place_name(w.to), w.locked) for w in scene.exits()
        ),
        npcs=tuple(_npc(scene, n) for n in npcs),
        people=tuple(_person(gm, c, scene) for c in others),
        sounds=tuple(SoundView(line) for line in scene.location.ambient),
        clues=_clues(scene, npcs, values),
        errands=_errands(scene),
        journal=journal_facts(scene),
        events=_events(gm, state, character_id, language or "en"),
        no_witness=not npcs and not others and not scene.location.witness,
        pending=_pending(scene),
    )


def _things(scene: Scene) -> tuple[ThingView, ...]:
    out = []
    for item in scene.items_here():
        at = scene.state.items.get(item.id)
        out.append(ThingView(item.id, item.name, scene.point_name(at.point if at else None)))
    return tuple(out)


def _self(scene: Scene) -> SelfView:
    sheet, me = scene.gm.characters_by_id[scene.character_id], scene.me
    hand = scene.gm.items_by_id.get(me.in_hand or "")
    return SelfView(
        id=sheet.id,
        name=sheet.name,
        character_class=sheet.full.character_class,
        traits=tuple(sheet.full.traits),
        appearance=sheet.public.appearance,
        reputation=sheet.public.reputation,
        hp=me.hp,
        max_hp=me.max_hp,
        conditions=tuple(me.conditions),
        money=me.money,
        in_hand=hand.name if hand else None,
        carrying=tuple(i.name for i in scene.carried()),
    )


def _place(scene: Scene) -> PlaceView:
    here = scene.location
    alarm = scene.state.alarms.get(here.id)
    return PlaceView(here.id, here.name, here.description, alarm, scene.point_name(scene.me.point))


def _npc(scene: Scene, npc: Npc) -> NpcView:
    level = trust_level(scene.state, npc, scene.character_id)
    told, kept = [], []
    for tier in TRUST_LEVELS:
        if tier not in npc.disclosures:
            continue
        if rank(tier) <= rank(level):
            told.append(npc.disclosures[tier])
        else:
            kept.append(WithheldView(False, f"someone it trusts as {tier}"))
    if npc.secret is not None:
        to_whom = npc.secret.tells_to or f"someone it trusts as {npc.secret.reveal_at_trust}"
        kept.append(WithheldView(True, to_whom))
    place = npc_place(scene.gm, scene.state, npc)
    return NpcView(
        id=npc.id,
        label=scene.npc_label(npc),
        name_known=npc.id in scene.me.known_names,
        trade=npc.trade,
        public_description=npc.public_description,
        manner=npc.description,
        point=scene.point_name(place.point) if place else None,
        trust=level,
        tone=TONES[level],
        tells=tuple(told),
        withholds=tuple(kept),
        down=scene.state.npc_hp.get(npc.id, npc.hp) <= 0,
    )


def _person(gm: GameMaster, character_id: str, scene: Scene) -> PersonView:
    sheet = gm.characters_by_id[character_id]
    public = sheet.public
    known = acquaintance.knows(scene.state, scene.character_id, character_id)
    return PersonView(sheet.id, sheet.name, public.appearance, public.reputation, name_known=known)


def _clues(scene: Scene, npcs: list[Npc], values: Mapping[str, Any] | None) -> tuple[ClueView, ...]:
    here, present = scene.location.id, {n.id for n in npcs}
    out = []
    for clue in scene.gm.clues:
        if clue.anchor.location != here and clue.anchor.npc not in present:
            continue
        status, checks = clue_status(scene.gm, scene.state, scene.character_id, clue, values)
        if status == "ready":
            out.append(ClueView(clue.id, clue.name, clue.text, None))
        elif status == "needs-check":
            needs = ", ".join(f"{c.check} DC {c.dc}" for c in checks)
            out.append(ClueView(clue.id, clue.name, None, needs))
    return tuple(out)


def _errands(scene: Scene) -> tuple[str, ...]:
    lines = []
    for entry in scene.me.journal:
        if entry.kind in ("quest", "notice"):
            line = f"{entry.title}: {entry.text}" if entry.text else entry.title
            lines.append(line if len(line) <= ERRAND_CHARS else line[: ERRAND_CHARS - 1] + "…")
    return tuple(lines)


def _events(gm: GameMaster, state: GMState, character_id: str, lang: str) -> tuple[EventView, ...]:
    """The last events he perceived, each as he perceived it (``engine.gm.seen``): another
    player's typed input never, an NPC by the name he knows, a sound elsewhere as a sound.
    Only what he perceived counts, and a player's words are one event with what answered
    them (the events right after his ``action`` event that are no move of their own,
    ``OWN_EVENTS``): never an event of their own."""
    out: list[EventView] = []  # newest first
    tail: list[EventView] = []  # answers read so far that an earlier action may own
    for event in reversed(state.events):
        view = _event_view(gm, state, character_id, event, lang)
        if event.kind == TYPED and view is not None:
            answers = " ".join(t.text for t in reversed(tail))
            out.append(replace(view, text=f"{view.text} {answers}".strip()))
            tail = []
        elif event.kind not in OWN_EVENTS and view is not None and len(tail) < LAST_EVENTS:
            tail.append(view)
        else:  # the answers were to no action he perceived: each is its own event
            out += [*tail, *([view] if view is not None else [])]
            tail = []
        if len(out) >= LAST_EVENTS:
            break
    return tuple(reversed([*out, *tail][:LAST_EVENTS]))


def _event_view(
    gm: GameMaster, state: GMState, character_id: str, event: GMEvent, lang: str
) -> EventView | None:
    me = state.characters[character_id]
    band: Band = "seen" if character_id in (event.actor, *event.seen_by) else "heard"
    lines = witnessed(gm, character_id, event, lang, known=names_known(me), places=me.known_places)
    return EventView(event.day, event.time_of_day, " ".join(lines), band) if lines else None


def _pending(scene: Scene) -> PendingView | None:
    pending = scene.state.pending.get(scene.character_id)
    if pending is None:
        return None
    target = scene.gm.npcs_by_id.get(pending.target or "")
    label = scene.npc_label(target) if target else None
    return PendingView(pending.verb, pending.check, pending.dc, label)


# --- the text -----------------------------------------------------------------------------------


def scene_context(view: SceneView) -> str:
    """The master's scene context, built from the perceived view alone (never a secret)."""
    me, place = view.me, view.place
    lines = [f"Scene for {me.name} ({me.id}), day {view.day}, {view.time_of_day}."]
    at = f" {me.name} stands at {place.point}." if place.point else ""
    lines.append(f"Place: {place.name} ({place.id}). {place.description}{at}".strip())
    if place.alarm:
        lines.append(f"ALARM here: {place.alarm}.")
    lines.append(_self_line(me))
    seen = _seen_lines(view)
    if seen:
        lines += ["Seen here:", *seen]
    if view.sounds:
        lines += ["Heard:", *(f"- {s.text}" for s in view.sounds)]
    if view.ways:
        lines += ["Nearby (ways on):", *(_way_line(w) for w in view.ways)]
    if view.clues:
        lines += [f"Clues {me.name} can get here:", *(_clue_line(c) for c in view.clues)]
    if view.errands:
        lines += ["Errands:", *(f"- {e}" for e in view.errands)]
    if view.journal:  # what his journal read shows him (engine.gm.sheet)
        lines += [f"{me.name}'s journal:", *view.journal]
    if view.events:
        lines.append(f"Last events {me.name} perceived:")
        lines += [f"- day {e.day} {e.time_of_day} ({e.band}): {e.text}" for e in view.events]
    if view.no_witness:
        lines.append(f"No witnesses: nobody else sees or hears what {me.name} does here.")
    if view.pending is not None:
        lines.append(_pending_line(view.pending))
    return "\n".join(lines)


def _self_line(me: SelfView) -> str:
    parts = [me.character_class or "no class"]
    if me.traits:
        parts.append("traits: " + ", ".join(me.traits))
    parts.append(f"in hand: {me.in_hand or 'nothing'}")
    if me.carrying:
        parts.append("carrying: " + ", ".join(me.carrying))
    parts.append(f"HP {me.hp}/{me.max_hp}")
    parts.append("conditions: " + (", ".join(me.conditions) or "none"))
    parts.append(f"money {me.money}")
    public = _joined(me.appearance, me.reputation)
    return (
        f"{me.name}: " + "; ".join(parts) + (f". Seen by others as: {public}." if public else ".")
    )


def _joined(*texts: str) -> str:
    """Sentences joined with "; ", their own final full stops dropped."""
    return "; ".join(t.strip().rstrip(".") for t in texts if t.strip())


def _seen_lines(view: SceneView) -> list[str]:
    lines = [f"- point {p.name}: {p.description}".rstrip(": ") for p in view.points]
    things = [f"- thing {t.name}" + (f" (at {t.where})" if t.where else "") for t in view.things]
    lines += _capped(things, "things")
    lines += _capped([_npc_line(n) for n in view.npcs], "people")
    for person in view.people:
        public = _joined(person.appearance, person.reputation)
        line = f"- player character {person.name}" + (f": {public}" if public else "")
        # Strangers until they meet (issue 33 §5): the master describes him, never names him.
        unknown = "" if person.name_known else f"; {view.me.name} does not know this name yet"
        lines.append(line + unknown)
    return lines


def _capped(lines: list[str], what: str) -> list[str]:
    if len(lines) <= MAX_LISTED:
        return lines
    return [*lines[:MAX_LISTED], f"- and {len(lines) - MAX_LISTED} more {what}"]


def _npc_line(npc: NpcView) -> str:
    name = npc.label if npc.name_known or not npc.trade else f"the {npc.trade} (name not known)"
    parts = [f"- {name} [{npc.id}]"]
    if npc.point:
        parts.append(f"at {npc.point}")
    if npc.public_description:
        parts.append(f"looks: {_joined(npc.public_description)}")
    if npc.manner:
        parts.append(f"manner: {_joined(npc.manner)}")
    if npc.down:
        parts.append("down, unconscious")
    parts.append(f"trust toward him: {npc.trust} ({npc.tone})")
    if npc.tells:
        parts.append("would tell him: " + " / ".join(t.strip().rstrip(".") for t in npc.tells))
    for kept in npc.withholds:
        what = "a secret" if kept.secret else "something more"
        parts.append(f"keeps back {what}: would tell it to {kept.would_tell}")
    return "; ".join(parts) + "."


def _way_line(way: WayView) -> str:
    return f"- {way.direction}: {way.to_name}" + (" (locked)" if way.locked else "")


def _clue_line(clue: ClueView) -> str:
    if clue.text is None:
        return f"- {clue.name}: needs a check ({clue.needs}); its content comes after it"
    return f"- {clue.name}: {clue.text}"


def _pending_line(pending: PendingView) -> str:
    check = f"{pending.check} DC {pending.dc}" if pending.check else "to hit"
    target = f" against {pending.target}" if pending.target else ""
    return f"Waiting for the player's roll: {pending.verb}{target} ({check})."
