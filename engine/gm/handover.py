"""Giving and holding as engine moves (issue 33 §1: "give an item to a present character;
equip; quest hand-in when its condition holds"; seed 001 "Objetos: transferir"; "lo que lleva
en la mano").

``give`` hands a carried item (its whole stack) to someone here: an NPC, or another player's
character (the item is the giver's own). The receiver is the one the words name, else the one
"him"/"her" means (whom the character is talking with), else the only one here; with several,
the move asks. An item an NPC ``needs`` raises its trust, and an errand whose item this is
completes by its world rule (``engine.gm.handin``): reward and all. ``equip`` puts a carried
item in hand ("my weapon" is the one weapon carried); ``unequip`` empties the hand. Every done
move logs an event everyone present perceives.
"""

from __future__ import annotations

from typing import Any

from engine.gm import conversation as talks
from engine.gm import handin, market
from engine.gm.mentions import fold, folded_spans
from engine.gm.scene import EngineMove, MoveResult, Scene
from engine.gm.space import suggest
from engine.gm.state import GMEvent
from engine.gm.trade import (
    Party,
    book_of,
    carried_item,
    down,
    log,
    named_party,
    party_label,
    present,
    say,
)
from engine.gm.tradewords import item_text, tradebook
from engine.gm.trust_rules import apply_moves, event_moves
from engine.gm.world import Holder, Item


def give(move: EngineMove, scene: Scene) -> MoveResult:
    """Give a carried item to someone here; the errand it completes is done with it."""
    if down(scene):
        return say(scene, "refused", "cannot_act")
    carried = scene.carried()
    if not carried:
        return say(scene, "refused", "carry_nothing")
    item = carried_item(scene, move, carried, "give_ask")
    if isinstance(item, MoveResult):
        return item
    to = _receiver(scene, move, item)
    if isinstance(to, MoveResult):
        return to
    quest = handin.errand_for(scene, item.id, to[1]) if to[0] == "npc" else None
    if quest is not None and not handin.ready(scene, quest):
        who, what = party_label(scene, to), _name(scene, item)
        return say(scene, "refused", "not_yet", receiver=who, item=what)
    return _hand_over(scene, item, to)


def _hand_over(scene: Scene, item: Item, to: Party) -> MoveResult:
    """Move the item (its whole stack), log it, and complete the errand it fulfils."""
    shown = _name(scene, item, count=True)
    holder = Holder(npc=to[1]) if to[0] == "npc" else Holder(character=to[1])
    changes: dict[str, Any] = {"items": market.move_item(scene, item, holder)}
    gm = scene.gm
    receiver = gm.npcs_by_id[to[1]] if to[0] == "npc" else gm.characters_by_id[to[1]].name
    data = {"item": item.id, "to": to[1]}
    events = [log(scene, "give", "ev_give", data, item=item, receiver=receiver)]
    book = book_of(scene)
    lines = [book.tidy(book.t("give", item=shown, receiver=party_label(scene, to)))]
    done = handin.hand_in(scene, item.id, to[1]) if to[0] == "npc" else None
    if done is not None:
        events += done.events
        lines += done.lines
        changes.update({k: v for k, v in done.changes.items() if k != "items"})
        changes["items"] = {**changes["items"], **done.changes.get("items", {})}
    _trust(scene, events, changes)
    return MoveResult("engine", book.t("sep").join(lines), events, changes, suggest(scene))


def _trust(scene: Scene, events: list[GMEvent], changes: dict[str, Any]) -> None:
    """The trust rules of what was given: a needed gift, help to an errand owner's people."""
    shifts = apply_moves(scene, event_moves(scene, events))
    if shifts:
        merged = dict(changes.get("trust") or {})
        for npc_id, shift in shifts.items():
            merged[npc_id] = merged.get(npc_id, 0) + shift
        changes["trust"] = merged


def _receiver(scene: Scene, move: EngineMove, item: Item) -> Party | MoveResult:
    """Whom the item goes to: the one named, else the one talked with, else the only one."""
    party, here = named_party(scene, move)
    people = present(scene)
    if party is not None:
        if party == ("character", scene.character_id):
            return say(scene, "refused", "give_self", item=_name(scene, item))
        if not here:
            return say(scene, "refused", "not_present", name=party_label(scene, party))
        return party
    last = talks.talked_to(
        talks.previous_action(scene.state, scene.character_id, scene.state.next_event)
    )
    if last is not None and ("npc", last) in people:
        return ("npc", last)
    if len(people) == 1:
        return people[0]
    if not people:
        return say(scene, "refused", "give_nobody", item=_name(scene, item))
    options = scene.lex.join(party_label(scene, p) for p in people)
    return say(scene, "ask", "give_whom", item=_name(scene, item), options=options)


def _name(scene: Scene, item: Item, count: bool = False) -> str:
    return item_text(scene, book_of(scene), item, count=count)


def _weapon(scene: Scene, carried: list[Item]) -> Item | MoveResult:
    weapons = [i for i in carried if i.damage is not None]
    if len(weapons) == 1:
        return weapons[0]
    if not weapons:
        return say(scene, "refused", "no_weapon")
    return say(scene, "ask", "ambiguous", options=scene.lex.join(i.name for i in weapons))


def equip(move: EngineMove, scene: Scene) -> MoveResult:
    """Put a carried item in hand (the one weapon carried, for "my weapon")."""
    if down(scene):
        return say(scene, "refused", "cannot_act")
    carried = scene.carried()
    if not carried:
        return say(scene, "refused", "carry_nothing")
    if not (move.slots or {}).get("item") and move.target and _weapon_words(move):
        item: Item | MoveResult = _weapon(scene, carried)
    else:
        item = carried_item(scene, move, carried, "equip_ask")
    if isinstance(item, MoveResult):
        return item
    if scene.me.in_hand == item.id:
        return say(scene, "refused", "equip_already", item=_name(scene, item))
    before = scene.me.in_hand
    scene.me.in_hand = item.id
    event = log(scene, "equip", "ev_equip", {"item": item.id}, item=item)
    book = book_of(scene)
    changes = {"inHand": {"from": before, "to": item.id}}
    text = book.tidy(book.t("equip", item=_name(scene, item)))
    return MoveResult("engine", text, [event], changes, suggest(scene))


def _weapon_words(move: EngineMove) -> bool:
    """ "Draw my weapon": the words name a weapon, not an item."""
    spaced = move.language != "zh"
    words = tradebook(move.language).list("weapons")
    return any(folded_spans(fold(move.target), word, spaced) for word in words)


def unequip(move: EngineMove, scene: Scene) -> MoveResult:
    """Empty the hand (put away what it holds)."""
    held = scene.gm.items_by_id.get(scene.me.in_hand or "")
    if held is None:
        return say(scene, "refused", "hands_empty")
    wanted = scene.gm.items_by_id.get((move.slots or {}).get("item", ""))
    if wanted is not None and wanted.id != held.id:
        return say(
            scene, "refused", "not_holding", item=_name(scene, wanted), held=_name(scene, held)
        )
    scene.me.in_hand = None
    event = log(scene, "unequip", "ev_unequip", {"item": held.id}, item=held)
    book = book_of(scene)
    changes = {"inHand": {"from": held.id, "to": None}}
    text = book.tidy(book.t("unequip", item=_name(scene, held)))
    return MoveResult("engine", text, [event], changes, suggest(scene))
