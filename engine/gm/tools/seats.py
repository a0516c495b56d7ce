"""Another player's character is his player's (seed 001 "El máster no … actúa por un jugador",
"hace actuar, hablar o querer algo a otro jugador"; GAME_MASTER.md GM-W-49; issue 32 finding 5).

At a table each seat's master answers that seat's words, so a player who talks his master into
it must not be able to hurt, rob, indebt or brand the character of another seat. One guard, run
by ``engine.gm.tools.execute`` after every tool on the trial state, refuses a call that changed
a player character other than the acting one, whatever the tool, unless this turn resolved an
action against that character with a roll the engine made and the roll went the actor's way.
The seeds give that character's player no way to agree to it, so the roll is the only way.

What belongs to a character (``_part``): his state in play (hit points, conditions, place,
purse, hand, resources, journal, clues, passed checks, facts, errands, rests; not the names he
has learnt, which is what witnessing the narration gives), the items he holds, the debts and
pawns he is party to, his pending roll and the NPCs' trust in him. A change to any of it needs
either a successful ``check`` or ``attack`` of the acting character in this turn aimed at him
(``data.target``, ``data.outcome``: ``engine.gm.outcomes``), each clearing one call, or the roll
the call itself made on him (``stabilise``'s Medicine check). NPCs are not protected: the master
plays them.
"""

from __future__ import annotations

from engine.gm.scene import Scene
from engine.gm.state import CharacterState, GMState
from engine.gm.tools.base import fail, marks, turn_events

SUCCESS = ("success", "critical-success")
ROLLS = ("check", "attack")  # a roll against someone; any other kind counts only in its call
LEARNT = ("known_names", "met")  # names learnt by witnessing (issue 33 §5: "met")
_SHEET = tuple(name for name in CharacterState.model_fields if name not in LEARNT)


def _part(state: GMState, who: str) -> tuple[object, ...]:
    """Everything of the state that is ``who``'s, comparable with ``!=``."""
    sheet = state.characters.get(who)
    return (
        tuple(getattr(sheet, name) for name in _SHEET) if sheet is not None else None,
        {i: at for i, at in state.items.items() if at is not None and at.character == who},
        [d for d in state.debts if who in (d.debtor, d.creditor)],
        [p for p in state.pawns if p.owner == who],
        state.pending.get(who),
        {npc: scores[who] for npc, scores in state.trust.items() if who in scores},
    )


def others_changed(before: GMState, after: GMState, actor: str) -> list[str]:
    """The player characters other than ``actor`` whose part differs between the two states."""
    others = dict.fromkeys([*before.characters, *after.characters])
    return [c for c in others if c != actor and _part(before, c) != _part(after, c)]


def guard_seats(before: GMState, trial: Scene, first_event: int) -> None:
    """ToolError (narratable) when the call run on ``trial`` changed another player's character
    without a roll against him; ``first_event`` is the first event id the call could log."""
    for who in others_changed(before, trial.state, trial.character_id):
        if not _spend_roll(trial, who, first_event):
            sheet = trial.gm.characters_by_id.get(who)
            raise fail(trial, "other_seat", "other-seat", name=sheet.name if sheet else who)


def _spend_roll(scene: Scene, who: str, first_event: int) -> bool:
    """Spend an unspent roll of this turn that went the actor's way against ``who``."""
    done = marks(scene)
    for event in turn_events(scene):
        data = event.data
        if event.actor != scene.character_id or data.get("target") != who:
            continue
        if data.get("outcome") not in SUCCESS:
            continue
        if event.kind not in ROLLS and event.id < first_event:
            continue
        mark = f"against:{event.id}"
        if mark not in done:
            done.append(mark)
            return True
    return False
