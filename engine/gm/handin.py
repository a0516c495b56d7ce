"""Errands done by a world rule (issue 33 §1: "quest hand-in when its condition holds (the
quest's completion is a world rule, not the master's whim)"; seed 001 "Misiones (hueco D):
entrega lo pedido"; GAME_MASTER.md GM-W-34).

An errand with a ``handIn`` is done when its item ends in the hands of its receiver (``to``,
else the errand's owner) while its ``requires`` hold. The engine's give move and the master's
``transfer_item`` both end here, and ``complete_errand`` refuses such an errand before that.
Completing it pays the ``reward`` (money the engine owns, items out of whoever held them),
raises the owner's trust (``fulfil_quest``) and logs an ``errand`` event, which the trust rules
read for the owner's people (``help_people``). This module imports no tool: the tools import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.gm import market
from engine.gm.clues import clue_status
from engine.gm.scene import Scene
from engine.gm.state import GMEvent, log_event
from engine.gm.tradewords import coins, item_text, tradebook
from engine.gm.trust import move_trust
from engine.gm.world import Anchor, Clue, Holder, JournalEntry, Quest


@dataclass
class Done:
    """What completing an errand did: the events, the changes, and what the player reads."""

    events: list[GMEvent] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)


def receiver(quest: Quest) -> str | None:
    """The NPC an errand's item goes to."""
    rule = quest.hand_in
    return None if rule is None else rule.to or quest.owner or quest.offered_by


def errand_for(scene: Scene, item_id: str, npc_id: str) -> Quest | None:
    """The errand of the character that handing ``item_id`` to ``npc_id`` completes."""
    for quest in scene.gm.quests:
        rule = quest.hand_in
        if rule is None or rule.item != item_id or receiver(quest) != npc_id:
            continue
        if quest.id not in scene.me.completed:
            return quest
    return None


def ready(scene: Scene, quest: Quest) -> bool:
    """Whether the errand's ``requires`` hold for the character (as a clue's would)."""
    rule, to = quest.hand_in, receiver(quest)
    if rule is None or not rule.requires or to is None:
        return True
    probe = Clue(
        id=f"hand-in-{quest.id}", name=quest.title, anchor=Anchor(npc=to), requires=rule.requires
    )
    status, _ = clue_status(scene.gm, scene.state, scene.character_id, probe, scene.values)
    return status == "ready"


def delivered(scene: Scene, quest: Quest) -> bool:
    """Whether the errand's item is in its receiver's hands (always, without a hand-in)."""
    rule, to = quest.hand_in, receiver(quest)
    if rule is None:
        return True
    at = scene.state.items.get(rule.item)
    return at is not None and to is not None and at.npc == to


def hand_in(scene: Scene, item_id: str, npc_id: str) -> Done | None:
    """Complete the errand this hand-over fulfils, if any and if its requirements hold."""
    quest = errand_for(scene, item_id, npc_id)
    if quest is None or not ready(scene, quest) or not delivered(scene, quest):
        return None
    return complete(scene, quest)


def complete(scene: Scene, quest: Quest) -> Done:
    """Mark the errand done, pay its reward, raise its owner's trust and log it."""
    me, done = scene.me, Done()
    me.completed.append(quest.id)
    done.changes["completed"] = [quest.id]
    if not any(j.kind == "quest" and j.ref == quest.id for j in me.journal):
        day = scene.state.clock.day
        me.journal.append(
            JournalEntry(kind="quest", ref=quest.id, title=quest.title, text=quest.summary, day=day)
        )
        done.changes["journal"] = {"added": [quest.id]}
    done.lines.append(tradebook(scene.lex.language).t("hand_in", quest=quest.title))
    pay_reward(scene, quest, done)
    owner = scene.gm.npcs_by_id.get(quest.owner or quest.offered_by or "")
    if owner is not None:
        shift = move_trust(scene.state, owner, scene.character_id, "fulfil_quest")
        done.changes["trust"] = {owner.id: shift}
    words, own = tradebook(scene.world_lex.language), scene.world_gm.quests_by_id[quest.id]
    text = words.tidy(words.t("ev_hand_in", actor=scene.name, quest=own.title))
    done.events.append(
        log_event(
            scene.state,
            "errand",
            scene.character_id,
            me.location,
            text,
            seen_by=scene.witnesses(),
            data={"quest": quest.id},
            at=scene.at,
        )
    )
    return done


def pay_reward(scene: Scene, quest: Quest, done: Done) -> None:
    """The errand's reward into the character's purse and hands (the engine's numbers)."""
    reward, book = quest.reward, tradebook(scene.lex.language)
    if reward is None:
        return
    if reward.money:
        done.changes.update(market.pay(scene, reward.money))
        done.lines.append(book.t("reward_money", money=coins(book, reward.money)))
    moved: dict[str, Any] = {}
    for item_id in reward.items:
        item = scene.gm.items_by_id.get(item_id)
        if item is None:
            continue
        moved.update(market.move_item(scene, item, Holder(character=scene.character_id)))
        done.lines.append(book.t("reward_item", item=item_text(scene, book, item)))
    if moved:
        done.changes["items"] = {**done.changes.get("items", {}), **moved}
