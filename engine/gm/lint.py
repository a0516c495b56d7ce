"""The ``gameMaster`` block's cross references (issue "Game master I" §1; GAME_MASTER.md §1).

Pydantic checks each part alone; this linter checks what parts say about each other: exits to
missing locations, items in two places or held by nobody that exists, clues anchored to nothing,
NPCs placed in missing locations, duplicate ids… Each problem carries its JSON path, so
``engine.world.load_world`` can refuse the world with the same ``path: message`` lines as every
other error, and the studio can show them beside the field.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.gm.world import GameMaster, Holder, Location, Npc, Place, Quest

ROOT = "gameMaster"


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken reference; ``path`` is a JSON path from the world's root."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def game_master_errors(gm: GameMaster | None, variables: Collection[str] = ()) -> list[str]:
    """Every problem of the block as ``path: message`` lines (none for a world without it)."""
    return [] if gm is None else [str(p) for p in lint_game_master(gm, variables)]


def lint_game_master(gm: GameMaster, variables: Collection[str] | None = None) -> list[Problem]:
    """Check every reference of the block; ``variables`` (the world's variable ids) enables the
    check of clue conditions. Returns the problems in document order, empty when all is well."""
    lint = _Lint(gm, variables)
    for check in (
        lint.duplicates,
        lint.locations,
        lint.items,
        lint.npcs,
        lint.clues,
        lint.errands,
        lint.trade,
        lint.hooks,
        lint.characters,
    ):
        check()
    return lint.problems


class _Lint:
    def __init__(self, gm: GameMaster, variables: Collection[str] | None) -> None:
        self.gm = gm
        self.variables = variables
        self.problems: list[Problem] = []
        self.locations_ = gm.locations_by_id
        self.npcs_ = gm.npcs_by_id
        self.characters_ = gm.characters_by_id
        self.items_ = gm.items_by_id

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(f"{ROOT}.{path}", message))

    def ref(self, path: str, value: str | None, known: Mapping[str, Any], what: str) -> bool:
        if value is None or value in known:
            return True
        self.add(path, f"unknown {what} '{value}'")
        return False

    def party(self, path: str, value: str) -> None:
        if value not in self.npcs_ and value not in self.characters_:
            self.add(path, f"unknown character or NPC '{value}'")

    def place(self, path: str, place: Place | Holder) -> None:
        if not self.ref(f"{path}.location", place.location, self.locations_, "location"):
            return
        if place.point is not None and place.location is not None:
            location = self.locations_[place.location]
            if place.point not in _point_ids(location):
                self.add(f"{path}.point", f"no point '{place.point}' in '{location.id}'")

    # --- the checks -----------------------------------------------------------------------

    def duplicates(self) -> None:
        gm = self.gm
        lists: dict[str, Iterable[Any]] = {
            "locations": gm.locations,
            "items": gm.items,
            "npcs": gm.npcs,
            "clues": gm.clues,
            "quests": gm.quests,
            "boards": gm.boards,
            "shops": gm.shops,
            "debts": gm.debts,
            "hooks": gm.hooks,
            "rumours": gm.rumours,
            "characters": gm.characters,
        }
        for key, values in lists.items():
            note = " (an item is in one place only)" if key == "items" else ""
            self._unique(key, [v.id for v in values], "id", note)
        for n, location in enumerate(gm.locations):
            ids = [p.id for p in location.points] + [p.id for p in location.hidden_points]
            self._unique(f"locations[{n}].points", ids, "point id")
            self._unique(f"locations[{n}].exits", [e.direction for e in location.exits], "exit")
        people = {n.id for n in gm.npcs} & {c.id for c in gm.characters}
        for n, character in enumerate(gm.characters):
            if character.id in people:
                self.add(f"characters[{n}].id", f"'{character.id}' is also an NPC id")

    def _unique(self, path: str, ids: list[str], what: str, note: str = "") -> None:
        seen: dict[str, int] = {}
        for index, value in enumerate(ids):
            if value in seen:
                first = f"{ROOT}.{path}[{seen[value]}]"
                message = f"duplicate {what} '{value}' (first at {first}){note}"
                self.add(f"{path}[{index}]", message)
            seen.setdefault(value, index)

    def locations(self) -> None:
        for n, location in enumerate(self.gm.locations):
            for e, way in enumerate(location.exits):
                path = f"locations[{n}].exits[{e}]"
                self.ref(f"{path}.to", way.to, self.locations_, "location")
                if way.to == location.id:
                    self.add(f"{path}.to", "an exit cannot lead to its own location")
                if way.found_by is not None and not way.hidden:
                    self.add(f"{path}.foundBy", "only a hidden exit is found by a check")
                if way.key is not None:
                    self.ref(f"{path}.key", way.key, self.items_, "item")

    def items(self) -> None:
        held: dict[str, str] = {}
        for n, item in enumerate(self.gm.items):
            if item.at is None:
                continue
            self._holder(f"items[{n}].at", item.at)
            held[item.id] = f"{ROOT}.items[{n}].at"
        for n, pawn in enumerate(self.gm.pawns):
            path = f"pawns[{n}]"
            if self.ref(f"{path}.item", pawn.item, self.items_, "item"):
                at = self.items_[pawn.item].at
                if at is not None and at.npc != pawn.held_by:
                    where = held[pawn.item]
                    self.add(f"{path}.item", f"'{pawn.item}' is in two places (also at {where})")
            self.party(f"{path}.owner", pawn.owner)
            self.ref(f"{path}.heldBy", pawn.held_by, self.npcs_, "NPC")
            self.ref(f"{path}.debt", pawn.debt, {d.id: d for d in self.gm.debts}, "debt")

    def _holder(self, path: str, at: Holder) -> None:
        if at.location is not None:
            self.place(path, at)
        self.ref(f"{path}.npc", at.npc, self.npcs_, "NPC")
        self.ref(f"{path}.character", at.character, self.characters_, "character")

    def npcs(self) -> None:
        for n, npc in enumerate(self.gm.npcs):
            path = f"npcs[{n}]"
            self.ref(f"{path}.location", npc.location, self.locations_, "location")
            self.ref(f"{path}.home", npc.home, self.locations_, "location")
            if npc.fixed_place is not None:
                self.place(f"{path}.fixedPlace", npc.fixed_place)
            self._schedule(path, npc)
            for i, other in enumerate(npc.people):
                self.ref(f"{path}.people[{i}]", other, self.npcs_, "NPC")
            for i, who in enumerate(npc.knows):
                self.ref(f"{path}.knows[{i}]", who, self.characters_, "character")
            for who in npc.trust:
                self.ref(f"{path}.trust.{who}", who, self.characters_, "character")
            for i, memory in enumerate(npc.memories):
                self.ref(f"{path}.memories[{i}].about", memory.about, self.characters_, "character")
            if not (npc.location or npc.home or npc.fixed_place or npc.schedule):
                self.add(path, "is nowhere: give it a location, home, fixedPlace or schedule")

    def _schedule(self, path: str, npc: Npc) -> None:
        seen: set[str] = set()
        for i, slot in enumerate(npc.schedule):
            self.place(f"{path}.schedule[{i}]", slot)
            if slot.time_of_day in seen:
                self.add(f"{path}.schedule[{i}].timeOfDay", f"two places at {slot.time_of_day}")
            seen.add(slot.time_of_day)

    def clues(self) -> None:
        clues = self.gm.clues_by_id
        for n, clue in enumerate(self.gm.clues):
            path = f"clues[{n}]"
            self.ref(f"{path}.anchor.location", clue.anchor.location, self.locations_, "location")
            self.ref(f"{path}.anchor.npc", clue.anchor.npc, self.npcs_, "NPC")
            for r, need in enumerate(clue.requires):
                here = f"{path}.requires[{r}]"
                if need.type == "trust":
                    self.ref(f"{here}.npc", need.npc, self.npcs_, "NPC")
                elif need.type == "item":
                    self.ref(f"{here}.item", need.item, self.items_, "item")
                elif need.type == "clue":
                    self.ref(f"{here}.clue", need.clue, clues, "clue")
                    if need.clue == clue.id:
                        self.add(f"{here}.clue", "a clue cannot require itself")
                elif need.type == "condition" and self.variables is not None:
                    known = {v: v for v in self.variables}
                    self.ref(f"{here}.variableId", need.variable_id, known, "variable")

    def errands(self) -> None:
        quests = self.gm.quests_by_id
        for n, quest in enumerate(self.gm.quests):
            self.ref(f"quests[{n}].owner", quest.owner, self.npcs_, "NPC")
            self.ref(f"quests[{n}].offeredBy", quest.offered_by, self.npcs_, "NPC")
            self.hand_in(f"quests[{n}]", quest)
        for n, board in enumerate(self.gm.boards):
            self.place(f"boards[{n}]", Place(location=board.location, point=board.point))
            for i, notice in enumerate(board.notices):
                here = f"boards[{n}].notices[{i}]"
                self.ref(f"{here}.owner", notice.owner, self.npcs_, "NPC")
                self.ref(f"{here}.quest", notice.quest, quests, "quest")

    def hand_in(self, path: str, quest: Quest) -> None:
        """An errand's hand-in and reward (issue 33 §1) name things that exist."""
        rule = quest.hand_in
        if rule is not None:
            self.ref(f"{path}.handIn.item", rule.item, self.items_, "item")
            self.ref(f"{path}.handIn.to", rule.to, self.npcs_, "NPC")
            if (rule.to or quest.owner or quest.offered_by) is None:
                self.add(f"{path}.handIn.to", "a hand-in needs an NPC: give it to or an owner")
        for i, item in enumerate(quest.reward.items if quest.reward else []):
            self.ref(f"{path}.reward.items[{i}]", item, self.items_, "item")

    def trade(self) -> None:
        for item in self.gm.prices.items:
            self.ref(f"prices.items.{item}", item, self.items_, "item")
        for n, shop in enumerate(self.gm.shops):
            for i, wanted in enumerate(shop.buys):
                self.ref(f"shops[{n}].buys[{i}].item", wanted.item, self.items_, "item")
            self.ref(f"shops[{n}].npc", shop.npc, self.npcs_, "NPC")
            self.ref(f"shops[{n}].location", shop.location, self.locations_, "location")
            for i, stock in enumerate(shop.stock):
                path = f"shops[{n}].stock[{i}].item"
                if self.ref(path, stock.item, self.items_, "item"):
                    at = self.items_[stock.item].at
                    if at is not None and at.npc != shop.npc:
                        message = f"'{stock.item}' is in two places: sold here, held elsewhere"
                        self.add(path, message)
        for n, debt in enumerate(self.gm.debts):
            self.party(f"debts[{n}].debtor", debt.debtor)
            self.party(f"debts[{n}].creditor", debt.creditor)
            if debt.debtor == debt.creditor:
                self.add(f"debts[{n}].creditor", "a debt needs two different parties")

    def hooks(self) -> None:
        for n, hook in enumerate(self.gm.hooks):
            trigger = hook.trigger
            path = f"hooks[{n}].trigger"
            self.ref(f"{path}.location", trigger.location, self.locations_, "location")
            if trigger.type == "enter" and trigger.location is None:
                self.add(f"{path}.location", "an enter hook needs a location")
        for n, rumour in enumerate(self.gm.rumours):
            for i, where in enumerate(rumour.heard_at):
                self.ref(f"rumours[{n}].heardAt[{i}]", where, self.locations_, "location")

    def characters(self) -> None:
        for n, character in enumerate(self.gm.characters):
            path = f"characters[{n}]"
            self.place(path, Place(location=character.location, point=character.point))
            hand = character.in_hand
            if hand is not None and self.ref(f"{path}.inHand", hand, self.items_, "item"):
                at = self.items_[hand].at
                if at is None or at.character != character.id:
                    self.add(f"{path}.inHand", f"'{hand}' is not carried by this character")
            for i, name in enumerate(character.known_names):
                if name not in self.npcs_ and name not in self.characters_:
                    self.add(f"{path}.knownNames[{i}]", f"unknown character or NPC '{name}'")
            for i, place in enumerate(character.known_places):
                self.ref(f"{path}.knownPlaces[{i}]", place, self.locations_, "location")
            if character.hp > character.max_hp:
                self.add(f"{path}.hp", "must not be greater than maxHp")


def _point_ids(location: Location) -> set[str]:
    return {p.id for p in location.points} | {p.id for p in location.hidden_points}
