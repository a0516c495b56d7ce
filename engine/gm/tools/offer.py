"""Which tools a master turn is offered, and in what words (issue 37 §4 "A prompt that fits the
model").

The 29 schemas cost ~5,300 estimated tokens, most of a small model's context and most of a
local server's cold first token. A turn is offered only the tools its situation can use: the
always-useful ones (``ALWAYS``: close, read, check, move, carry…), the people tools when an NPC
is present, trade (buying, selling, pawns, debts) when a shop's keeper is here
(``engine.gm.market.shops_here``), combat when a hostile NPC is present, the action reads as an
attack (``engine.gm.risk.classify_risky``) or someone present is hurt, and the bookkeeping
tools (clues, errands, hooks, debts) only when the world has any. The set is decided once per
turn (the list stays byte-identical inside the loop, so it is still read from cache) and
changes only when the situation does; the always-offered tools lead the list, so a prompt
cache still reuses them across situations (``bench/gm.py``: ≥ 85 % cached over the demo).

``compact`` is the schema as sent: the validation-only keywords (lengths, item counts, ranges)
are dropped, since ``engine.gm.tools.execute`` checks the full schema and answers a violation
with a narratable error; every description is cut to its first sentence, and ``log_event``'s
optional structured ``claims`` are not offered (the closure check reads the narration). A tool
the master calls without being offered still runs: the set trims the prompt, not the rules.
"""

from __future__ import annotations

from typing import Any

from engine.gm.market import shops_here
from engine.gm.risk import classify_risky
from engine.gm.scene import Scene
from engine.gm.tools import tool_schemas
from engine.gm.trust import trust_level

ALWAYS = frozenset(
    {
        "log_event",
        "lookup_rule",
        "get_campaign_notes",
        "request_skill_check",
        "move_character",
        "transfer_item",
        "hold_item",
        "discover_hidden_point",
        "gather",
        "rest",
        "spend_resource",
        "note_character_fact",
        "seed_rumour",
        "seed_hook",
    }
)
PEOPLE = frozenset({"adjust_trust", "offer_quest"})
TRADE = frozenset({"buy_item", "sell_item", "pawn_item", "set_debt"})
COMBAT = frozenset({"request_attack", "damage", "heal", "stabilise"})
CARE = frozenset({"heal", "stabilise"})
SPEECH = ("bubbles", "memories", "trust")  # log_event's fields about the people present
BOOKKEEPING = frozenset({"grant_clue", "complete_errand", "cancel_hook", "settle_debt"})
_ORDER = (ALWAYS, BOOKKEEPING, PEOPLE, frozenset({"reveal_secret"}), TRADE, CARE, COMBAT)
_DROPPED = ("maxLength", "minLength", "maxItems", "minItems", "minimum", "maximum")


def offered_tools(scene: Scene, action: str = "") -> frozenset[str]:
    """The names of the tools this turn's situation can use (see the module)."""
    names = set(ALWAYS)
    present = scene.npcs()
    if present:
        names |= PEOPLE
        if any(n.secret is not None for n in present):
            names.add("reveal_secret")
    if shops_here(scene):
        names |= TRADE
    if _hostile(scene) or _attack(scene, action):
        names |= COMBAT
    elif _hurt(scene):
        names |= CARE
    names |= _bookkeeping(scene)
    return frozenset(names)


def offered_schemas(scene: Scene, action: str = "") -> list[dict[str, Any]]:
    """The compact schemas of the offered tools, in ``_rank`` order: what a master request
    sends. Alone, the character's ``log_event`` has no speech bubbles, memories nor trust."""
    chosen = sorted(tool_schemas(offered_tools(scene, action)), key=lambda s: _rank(s["name"]))
    schemas = [compact(schema) for schema in chosen]
    if not scene.npcs():
        for schema in schemas:
            if schema["name"] == "log_event":
                for name in SPEECH:
                    schema["parameters"]["properties"].pop(name, None)
    return schemas


def _rank(name: str) -> tuple[int, str]:
    """The tools every turn has first, then the world's, then the ones a situation adds: the
    longest shared prefix from one turn's list to the next, which is what a prompt cache
    reuses (tools lead the cached prefix on both wire protocols)."""
    for index, group in enumerate(_ORDER):
        if name in group:
            return index, name
    return len(_ORDER), name


def _hostile(scene: Scene) -> bool:
    return any(
        trust_level(scene.state, npc, scene.character_id) == "hostile" for npc in scene.npcs()
    )


def _attack(scene: Scene, action: str) -> bool:
    risky = classify_risky(action, [scene.lex.language]) if action.strip() else None
    return risky is not None and risky.verb.kind == "attack"


def _hurt(scene: Scene) -> bool:
    """Someone here below full health: the character, another player's, or an NPC."""
    here = scene.me.location
    characters = scene.state.characters.values()
    if any(c.location == here and c.hp < c.max_hp for c in characters):
        return True
    return any(scene.state.npc_hp.get(n.id, n.hp) < n.hp for n in scene.npcs())


def _bookkeeping(scene: Scene) -> set[str]:
    gm, state = scene.gm, scene.state
    names: set[str] = set()
    if gm.clues:
        names.add("grant_clue")
    if gm.quests:
        names.add("complete_errand")
    if gm.hooks or state.hooks:
        names.add("cancel_hook")
    if gm.debts or state.debts or state.pawns:
        names |= {"settle_debt", "set_debt"}
    return names


def compact(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool schema as sent: validation-only keywords dropped, descriptions cut to their first
    sentence, ``log_event``'s optional ``claims`` left out (see the module)."""
    out = _compact_object(schema)
    if out.get("name") == "log_event":
        out["parameters"]["properties"].pop("claims", None)
    return out


def _compact_object(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: _compact(key, value) for key, value in schema.items() if key not in _DROPPED}


def _compact(key: str, value: Any) -> Any:
    if key == "description" and isinstance(value, str):
        return first_sentence(value)
    if key == "properties" and isinstance(value, dict):
        return {name: _compact_object(sub) for name, sub in value.items()}
    if isinstance(value, dict):
        return _compact_object(value)
    return value


def first_sentence(text: str) -> str:
    """Up to the first full stop followed by a space (or the whole text)."""
    cuts = [cut for mark in (". ", "。") if (cut := text.find(mark)) > 0]
    return text[: min(cuts) + 1] if cuts else text
