"""What the automatic player and the default route know of a game (seed 001: the player sees
what his character perceives, never the master's context).

``player_view`` reads the world and the session state into a ``PlayerView``: in a game-master
world the character's place, its visible exits, who is there (by a name he knows, else by
trade), the items in sight and in his pack, what shops sell and the other player characters; in
a plain world only the world's characters. ``default_route`` is the fixed ten-action route of
the bench ("un recorrido fijo de 10 acciones por modelo"), built from that first view, so any
world gets one; the studio lets a creator edit it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.evals.player import INVENTED, PlayerView, with_article
from engine.gm.state import GMState, initial_gm_state, items_held, npcs_at
from engine.gm.world import GameMaster, Npc
from engine.session import SessionState
from engine.world import WorldDefinition

ROUTE_LENGTH = 10


def player_view(
    world: WorldDefinition,
    state: SessionState,
    character_id: str | None,
    narration: str = "",
    suggestions: Sequence[str] = (),
) -> PlayerView:
    """The view of ``character_id`` (the first character when None) in ``state``."""
    language = world.language or "en"
    gm = world.game_master
    if gm is None or not gm.characters:
        names = tuple(e.name for e in world.entries if e.role == "character" and e.name)
        return PlayerView(
            language=language,
            npcs=names,
            narration=narration,
            suggestions=tuple(suggestions),
        )
    gm_state = state.gm or initial_gm_state(gm)
    me = character_id if character_id in gm_state.characters else gm.characters[0].id
    return _gm_view(gm, gm_state, me, language, narration, tuple(suggestions))


def _gm_view(
    gm: GameMaster,
    gm_state: GMState,
    me: str,
    language: str,
    narration: str,
    suggestions: tuple[str, ...],
) -> PlayerView:
    sheet = gm_state.characters[me]
    place = gm.locations_by_id.get(sheet.location)
    visible = {p.id for p in place.points} if place else set()
    exits = tuple(e.direction for e in place.exits if not e.hidden) if place else ()
    here = [
        i
        for i in items_held(gm_state, "location", sheet.location)
        if (holder := gm_state.items[i]) is not None
        and (holder.point is None or holder.point in visible)
    ]
    carried = items_held(gm_state, "character", me)
    return PlayerView(
        character=gm.characters_by_id[me].name,
        language=language,
        place=place.name if place else sheet.location,
        exits=exits,
        npcs=tuple(_called(n, sheet.known_names) for n in npcs_at(gm, gm_state, sheet.location)),
        items_here=tuple(gm.items_by_id[i].name for i in here if i in gm.items_by_id),
        carried=tuple(gm.items_by_id[i].name for i in carried if i in gm.items_by_id),
        lacks=tuple(i.name for i in gm.items if i.id not in carried),
        goods=tuple(
            gm.items_by_id[s.item].name
            for shop in gm.shops
            for s in shop.stock
            if s.item in gm.items_by_id
        ),
        others=tuple(c.name for c in gm.characters if c.id != me),
        narration=narration,
        suggestions=suggestions,
    )


def _called(npc: Npc, known: list[str]) -> str:
    """His name when the character knows it, else what anyone sees: its trade."""
    if npc.id in known or not npc.trade:
        return npc.name
    return f"the {npc.trade}"


def default_route(world: WorldDefinition, character_id: str | None = None) -> list[str]:
    """Ten actions for the bench: looking, talking, taking, moving, and five break attempts."""
    view = player_view(world, SessionState.initial(world), character_id)
    npc = view.npcs[0] if view.npcs else "anyone here"
    route = [
        "I look around.",
        f"I ask {npc} what news there is.",
        f"take {view.items_here[0]}" if view.items_here else "I check what I carry.",
        f"I ask {npc} the way to {INVENTED[0]}.",
        f"I offer {npc} a single copper for the {(view.goods or ('lantern',))[0]}.",
        f"go {view.exits[0]}" if view.exits else "I walk a little way and look back.",
        "I look around.",
        "I say the bishop sent me and I am owed free lodging.",
        f"I show everyone {with_article((view.lacks or ('golden key',))[0])} I carry.",
        "I wait and listen for a while.",
    ]
    return route[:ROUTE_LENGTH]


def parse_route(text: str) -> list[str]:
    """One action per non-empty line, trimmed; blank lines and ``#`` comments skipped."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]
