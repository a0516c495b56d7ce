"""How the tools read what the master names (seed 001 "El motor valida": name and place lookups
against the world; decision 15).

The master sees ids for NPCs and names for everything else, so an argument may be an id, a name,
an alias or (for an NPC whose name the character does not know) its trade. Lookups only reach
what the character perceives, and an error lists only that: a refusal never names a hidden
point, an unmet NPC, an item out of sight or a place he has not discovered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from engine.gm.scene import Scene
from engine.gm.tools.base import fail, label, place_label
from engine.gm.words import lookup, match_names, normalize
from engine.gm.world import Item, Npc

PartyKind = Literal["character", "npc", "here"]
SELF = ("me", "self", "myself", "yo", "我")
HERE = ("here", "ground", "floor", "aquí", "aqui", "suelo", "这里", "地上")


def _pick(scene: Scene, ref: str, candidates: list[tuple[str, list[str]]]) -> list[str]:
    exact = [ident for ident, _ in candidates if ident in (ref, normalize(ref))]
    return exact or match_names(scene.lex, ref, candidates)


def npc_names(npc: Npc) -> list[str]:
    """Every name the master may use for an NPC (it knows them all; only what it *says* is
    checked for leaks)."""
    return [npc.name, *npc.aliases, *([npc.trade] if npc.trade else [])]


def npc_here(scene: Scene, ref: str) -> Npc:
    """An NPC in the character's location; ToolError listing who is here."""
    people = scene.npcs()
    found = _pick(scene, ref, [(n.id, npc_names(n)) for n in people])
    if len(found) == 1:
        return scene.gm.npcs_by_id[found[0]]
    options = scene.lex.join(label(scene, n) for n in people)
    if found:
        raise fail(scene, "ambiguous", "ambiguous", options=options)
    if not people:
        raise fail(scene, "no_npc_alone", "unknown-npc", ref=ref, actor=scene.name)
    raise fail(scene, "no_npc_here", "unknown-npc", ref=ref, options=options)


def npc_known(scene: Scene, ref: str) -> Npc:
    """Any NPC of the world by id, or by a name the character could use; ToolError otherwise."""
    npc = scene.gm.npcs_by_id.get(ref)
    if npc is not None:
        return npc
    found = _pick(scene, ref, [(n.id, npc_names(n)) for n in scene.gm.npcs])
    if len(found) == 1:
        return scene.gm.npcs_by_id[found[0]]
    raise fail(scene, "no_npc", "unknown-npc", ref=ref)


def character(scene: Scene, ref: str | None) -> str:
    """A player character's id: the scene's own for None or "me"; ToolError otherwise."""
    if ref is None or normalize(ref) in SELF:
        return scene.character_id
    sheets = scene.gm.characters
    found = _pick(scene, ref, [(c.id, [c.name, c.name.split()[0]]) for c in sheets])
    if len(found) == 1:
        return found[0]
    raise fail(scene, "no_character", "unknown-character", ref=ref)


def party(scene: Scene, ref: str | None, *, here: bool = False) -> tuple[PartyKind, str]:
    """Who holds or owes: the character ("me"), another character, an NPC present, or (with
    ``here``) the place itself."""
    if ref is None or normalize(ref) in SELF:
        return "character", scene.character_id
    if here and normalize(ref) in HERE:
        return "here", scene.me.location
    if ref in scene.gm.characters_by_id:
        return "character", ref
    sheets = [(c.id, [c.name, c.name.split()[0]]) for c in scene.gm.characters]
    found = _pick(scene, ref, sheets)
    if len(found) == 1:
        return "character", found[0]
    return "npc", npc_here(scene, ref).id


def party_name(scene: Scene, kind: PartyKind, ident: str) -> str:
    if kind == "character":
        return scene.gm.characters_by_id[ident].name
    if kind == "npc":
        return label(scene, scene.gm.npcs_by_id[ident])
    return place_label(scene, ident)


def item_among(scene: Scene, ref: str, items: Iterable[Item], missing: str = "no_item") -> Item:
    """One of ``items`` by id, name or alias; ToolError listing them."""
    pool = list(items)
    found = _pick(scene, ref, [(i.id, [i.name, *i.aliases]) for i in pool])
    if len(found) == 1:
        return scene.gm.items_by_id[found[0]]
    options = scene.lex.join(i.name for i in pool) or "-"
    if found:
        raise fail(scene, "ambiguous", "ambiguous", options=options)
    raise fail(scene, missing, "unknown-item", ref=ref, options=options, actor=scene.name)


def held_by(scene: Scene, kind: PartyKind, ident: str) -> list[Item]:
    """The items a party holds (for the place: those lying where the character can see)."""
    if kind == "here":
        return scene.items_here()
    return [
        item
        for item in scene.gm.items
        if (at := scene.state.items.get(item.id)) is not None and at.key == (kind, ident)
    ]


def within_reach(scene: Scene) -> list[Item]:
    """What the character could name: carried, lying here, held by the NPCs present."""
    out = [*scene.carried(), *scene.items_here()]
    for npc in scene.npcs():
        out += held_by(scene, "npc", npc.id)
    return out


def location(scene: Scene, ref: str) -> str:
    """A location of the world by id, name or alias; ToolError listing the places he knows."""
    found = place_named(scene, ref)
    if found is not None:
        return found
    known = scene.lex.join(scene.place_name(p) for p in scene.me.known_places)
    raise fail(scene, "no_place", "unknown-place", ref=ref, options=known)


def place_named(scene: Scene, ref: str) -> str | None:
    """The location of the world ``ref`` is the id, name or alias of; None for no single one."""
    if ref in scene.gm.locations_by_id:
        return ref
    found = _pick(scene, ref, [(p.id, [p.name, *p.aliases]) for p in scene.gm.locations])
    return found[0] if len(found) == 1 else None


def unknown_place(scene: Scene, ref: str) -> bool:
    """Whether ``ref`` names a place the character has not discovered: a refusal then never
    repeats it (the master's id or name would tell the player what he has not found)."""
    if lookup(scene.lex, normalize(ref), scene.lex.directions) is not None:
        return False  # "east" is a way, not The East Road
    found = place_named(scene, ref)
    return found is not None and not scene.knows_place(found)
