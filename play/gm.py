"""Game-master worlds in play (seed 001 "El máster IA"; issue 10 §4, §5; docs/PROTOCOL.md).

The engine (engine.gm) decides everything: where the character goes, which check an action
needs, every die. This module only carries it to the player, and only what the player may see:

- the character a session plays (``Session.character_id``; the world's first when unset);
- a turn's order on the wire: the whole action is decided before any text, so the roll's
  breakdown (``roll-result``) goes out first and the narration of its consequence follows as a
  normal reply; hidden rolls have no breakdown (``GMActionResult.player_rolls``);
- after the turn, ``scene`` (the place, its ways and points to click, the check waited on) and,
  when a check waits for the player's roll, ``check-pending`` (verb, check, DC and target as
  the character knows it; an attack's armour class stays unsaid until the roll);
- what a reply costs: an action the engine resolved alone is marked ``source: "engine"`` and
  gives back the quota it reserved (decision 10; play.gm_quota).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from engine.gm import localize
from engine.gm.adapter import ROLL, gm_action_of
from engine.gm.perception import perceive
from engine.gm.play import GMActionResult, ensure_gm_state
from engine.gm.speech import speech_of
from engine.gm.words import lexicon
from engine.session import SessionState
from engine.turn import ChoicesEvent, Turn, TurnEvent, TurnResult
from engine.world import WorldDefinition
from play import frames, gm_quota
from play.errors import PlayError
from play.models import Session
from play.narrator import narrator
from play.providers import ProviderConfig, release_action
from play.relay import relay
from play.sessions import Player, state_of, with_version_hash, world_of
from studio.models import World, WorldVersion

ENGINE = "engine"
TRACE_RESULT_CHARS = 4000  # a longer tool result is shown as cut (frames stay small)
MODEL = "model"
__all__ = ["ROLL"]  # the action id a roll frame plays (engine.gm.adapter)


# --- the character a session plays ---------------------------------------------------------------


def version_characters(version: WorldVersion) -> list[tuple[str, str]]:
    """(id, name) of each player character of a published version (none for a plain world)."""
    block = (version.definition or {}).get("gameMaster")
    characters = block.get("characters") if isinstance(block, dict) else None
    return [
        (str(c["id"]), str(c.get("name") or c["id"]))
        for c in characters or []
        if isinstance(c, dict) and c.get("id")
    ]


def set_character(session: Session, character_id: str | None) -> Session:
    """Play ``character_id`` in ``session`` (blank: the world's first); PlayError if unknown."""
    if not character_id:
        return session
    gm = world_of(session).game_master
    if gm is None or character_id not in gm.characters_by_id:
        raise PlayError(_("This world has no such character."), field="character")
    Session.objects.filter(pk=session.pk).update(character_id=character_id)
    session.character_id = character_id
    return session


def character_of(session: Session, world: WorldDefinition) -> str | None:
    """The character the session plays: its own choice, else the world's first; None in a plain
    world (or one without characters)."""
    gm = world.game_master
    if gm is None or not gm.characters:
        return None
    chosen = session.character_id
    return chosen if chosen in gm.characters_by_id else gm.characters[0].id


# --- a turn --------------------------------------------------------------------------------------


async def turn_events(turn: Turn, session_id: str) -> AsyncIterator[TurnEvent]:
    """The turn's events; a game-master action's roll breakdown is published before them.

    A game-master action is decided whole before its text (it does not stream), so nothing is
    lost by deciding first: the player sees the dice, then what they brought (seed 001).
    """
    if turn.world.game_master is None or gm_action_of(turn) is None:
        async for event in turn.events():
            yield event
        return
    events = [event async for event in turn.events()]
    played = _played(turn.result)
    if played is not None:
        rolls = player_rolls(played)
        if rolls:
            relay.publish(session_id, frames.roll_result(rolls))
        if played.pending is not None and turn.result is not None:
            events = _without_roll_choice(events, turn.result, played)
    for event in events:
        yield event


def _played(result: TurnResult | None) -> GMActionResult | None:
    played = result.gm if result is not None else None
    return played if isinstance(played, GMActionResult) else None


def _without_roll_choice(
    events: list[TurnEvent], result: TurnResult, played: GMActionResult
) -> list[TurnEvent]:
    """Drop the "Roll" suggestion: the Roll button stands for it (typing "Roll" rolls too)."""
    assert played.pending is not None
    word = lexicon(played.pending.language).t("suggest_roll").casefold()
    result.choices = [c for c in result.choices if c.casefold() != word]
    out: list[TurnEvent] = []
    for event in events:
        if isinstance(event, ChoicesEvent):
            if result.choices:
                out.append(ChoicesEvent(list(result.choices)))
            continue
        out.append(event)
    return out


def speech(result: TurnResult) -> dict[str, Any]:
    """A talk turn's reply as speech bubbles and an aside (engine.gm.speech); {} for prose."""
    played = _played(result)
    return speech_of(played) if played is not None else {}


def delivered(result: TurnResult) -> dict[str, str]:
    """What each character perceived of a game-master action (engine.gm.delivery)."""
    played = _played(result)
    return dict(played.delivered_to) if played is not None else {}


def player_rolls(played: GMActionResult) -> list[dict[str, Any]]:
    """The breakdowns the player may see (hidden rolls left out), with display names."""
    lex = lexicon(played.language)
    out = []
    for roll in played.player_rolls():
        del roll["hidden"]
        roll["label"] = lex.name("checks", roll["check"]) if roll["check"] else roll["die"]
        roll["outcome_label"] = lex.name("outcomes", roll["outcome"])
        for modifier in roll["modifiers"]:
            modifier["label"] = lex.name("checks", modifier["source"])
        out.append(roll)
    return out


def usage_source(result: TurnResult) -> str:
    """``engine`` for a reply no model request made (cost 0), else ``model``."""
    played = _played(result)
    return ENGINE if played is not None and played.model_calls == 0 else MODEL


def settle_quota(config: ProviderConfig, result: TurnResult) -> None:
    """An engine move, a question or a refusal does not count: give its reservation back."""
    played = _played(result)
    if played is not None and not played.counts_toward_quota:
        release_action(config)


def shows_engine_trace(session: Session) -> bool:
    """Seed 001: "what the engine did" is for the world's creator playtesting it (the studio
    panel, or a session he plays of his own world); a player never sees tool results, which
    can name what his character has not learned. A guest's session has no owner: never."""
    if session.owner_id is None or session.world_id is None:
        return False
    return World.objects.filter(pk=session.world_id, owner_id=session.owner_id).exists()


def engine_trace(result: TurnResult) -> list[dict[str, Any]]:
    """The master's tool calls with their results, each result cut to ``TRACE_RESULT_CHARS``."""
    played = _played(result)
    if played is None:
        return []
    out = []
    for call in played.tool_calls:
        entry = call.trace()
        if len(json.dumps(entry["result"], ensure_ascii=False)) > TRACE_RESULT_CHARS:
            entry["result"] = {"truncated": True}
        out.append(entry)
    return out


def turn_frames(world: WorldDefinition, result: TurnResult, character_id: str | None) -> list[Any]:
    """What follows a game-master action's reply: the Story Director's out-of-character line
    for the player (seed 003), the scene, and the check it waits on."""
    played = _played(result)
    if played is None or character_id is None:
        return []
    directors = played.changes.get("directors")
    ooc = str(directors.get("ooc") or "") if isinstance(directors, dict) else ""
    aside = [frames.notification(ooc, "ooc")] if ooc.strip() else []
    return [*aside, *scene_frames(world, result.state, character_id, played.language)]


# --- the scene -----------------------------------------------------------------------------------


def scene_frames(
    world: WorldDefinition, state: SessionState, character_id: str, language: str | None = None
) -> list[Any]:
    """``scene``, plus ``check-pending`` when a check waits for the player's roll; its words
    (directions, time, check) and the world's nouns in ``language``, the world's by default
    (issue 33 §3: the scene bar speaks the narration's language)."""
    gm = world.game_master
    if gm is None or character_id not in gm.characters_by_id:
        return []
    language = language or world.language or "en"
    if state.gm is None or character_id not in state.gm.characters:
        state = state.model_copy(deep=True)  # no action yet: the block's starting state
        ensure_gm_state(world, state)
    assert state.gm is not None
    view = perceive(localize.block(gm, language), state.gm, character_id, values=state.values)
    lex = lexicon(language)
    check = _pending(state, character_id, view.pending.target if view.pending else None, lex)
    scene = {
        "character": {"id": view.me.id, "name": view.me.name},
        "place": {"id": view.place.id, "name": view.place.name},
        "day": view.day,
        "time_of_day": lex.name("times", view.time_of_day),
        "ways": [
            {
                "direction": w.direction,
                "label": lex.name("directions", w.direction),
                "to": w.to_id,
                "name": w.to_name,
                "locked": w.locked,
            }
            for w in view.ways
        ],
        "points": [{"id": p.id, "name": p.name} for p in view.points],
        "pending": check,
    }
    out = [frames.scene(scene)]
    if check is not None:
        out.append(frames.check_pending(check))
    return out


def _pending(state: SessionState, character_id: str, target: str | None, lex: Any) -> Any:
    """The check waited on, as the player may see it; None for none (or a hidden one)."""
    pending = state.gm.pending.get(character_id) if state.gm is not None else None
    if pending is None or pending.hidden:
        return None
    attack = pending.kind == "attack"
    return {
        "verb": pending.verb,
        "check": pending.check,
        "label": lex.name("checks", "attack" if attack else pending.check or pending.verb),
        "dc": None if attack else pending.dc,  # an armour class shows in the breakdown only
        "target": target,
    }


def session_frames(session: Session) -> list[Any]:
    """The scene of a session whose state just changed wholesale (revert, swipe, restore)."""
    world = world_of(session)
    character = character_of(session, world)
    if character is None:
        return []
    return scene_frames(world, state_of(session), character, page_language(world))


def page_language(world: WorldDefinition) -> str:
    """The language of a scene sent outside a turn (a join, a revert): the page's (play.languages
    on the socket) when the world names its things in it, else the world's (issue 33 §3)."""
    page, own = get_language() or "", world.language or "en"
    gm = world.game_master
    return page if gm is not None and localize.speaks(gm, own, page) else own


def join_frames(session_id: str, player: Player) -> list[Any]:
    """What a socket of a game-master session gets after its history: the scene, the check
    waited on, and the quota notice when the character's live actions are used up."""
    session = with_version_hash(Session.objects.filter(pk=session_id)).first()
    if session is None:
        return []
    out = session_frames(session)
    world = world_of(session)
    character = character_of(session, world)
    now = timezone.now()
    if (
        character is not None
        and narrator(session, world)["live"]
        and gm_quota.used_up(world, player, character, now)
    ):
        notice = gm_quota.used_up_notice(world, character, now, player.time_zone)
        out.append(frames.notification(notice, "quota"))
    return out


def client_config(session: Session, world: WorldDefinition) -> dict[str, Any] | None:
    """What the play page needs to show a game-master session (None for a plain world)."""
    character = character_of(session, world)
    if character is None or world.game_master is None:
        return None
    sheet = world.game_master.characters_by_id[character]
    return {"characterId": sheet.id, "characterName": sheet.name}


def client_strings() -> dict[str, str]:
    return {
        "gmRoll": _("Roll"),
        "gmRollFor": _("Roll for {check}"),
        "gmDc": _("DC {dc}"),
        "gmAgainst": _("against {target}"),
        "gmTotal": _("total {total}"),
        "gmWhere": _("Where you are"),
        "gmWays": _("Ways on"),
        "gmLook": _("Look at"),
        "gmLocked": _("locked"),
        "gmEngine": _("engine · free"),
        "gmCost": _("{input} in · {cached} cached · {output} out · ${cost}"),
        "gmEngineDid": _("What the engine did"),
        "gmToolFailed": _("refused"),
    }
