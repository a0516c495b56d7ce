"""The play page's Status panel for a game-master world (issue 33 §4): one character's sheet as
his player may read it.

``character_status`` is the one projector from the block and the state to ``CharacterStatus``,
whose types, like ``engine.gm.views``, have no field for a secret: no other character's sheet,
no NPC's secret or id, no hidden place, no dice seed. People go by what the character can call
them (``Scene.npc_label``: the name once learnt, the trade until then); places are the ones he
knows (``Scene.knows_place``). The state may come from an older or newer engine: whatever it
lacks is simply not shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from engine.gm import localize
from engine.gm.readmoves import readbook
from engine.gm.scene import Scene
from engine.gm.state import GMState
from engine.gm.words import lexicon
from engine.gm.world import GameMaster

QuestStatus = Literal["active", "done"]


@dataclass(frozen=True)
class ItemLine:
    name: str
    quantity: int = 1
    equipped: bool = False


@dataclass(frozen=True)
class ResourceLine:
    name: str
    current: int
    max: int


@dataclass(frozen=True)
class QuestLine:
    title: str
    summary: str
    status: QuestStatus


@dataclass(frozen=True)
class NoteLine:
    """A notice read, a clue found or a note: what the journal holds, as it was written."""

    title: str
    text: str
    day: int | None = None


@dataclass(frozen=True)
class DebtLine:
    mine: bool  # he owes it (else it is owed to him)
    other: str | None  # the other party as he can call it; None: someone he cannot name
    amount: int
    due_day: int | None = None


@dataclass(frozen=True)
class PawnLine:
    item: str
    held_by: str | None
    redeem_price: int


@dataclass(frozen=True)
class PersonLine:
    name: str  # the name he learnt, else the trade
    trade: str  # shown beside a learnt name; "" when ``name`` is the trade
    here: bool


@dataclass(frozen=True)
class PlaceLine:
    name: str
    here: bool


@dataclass(frozen=True)
class CharacterStatus:
    name: str
    hp: int
    max_hp: int
    conditions: tuple[str, ...]
    money: int
    place: str
    day: int
    time_of_day: str
    equipped: tuple[str, ...] = ()
    items: tuple[ItemLine, ...] = ()
    resources: tuple[ResourceLine, ...] = ()
    quests: tuple[QuestLine, ...] = ()
    notices: tuple[NoteLine, ...] = ()
    clues: tuple[NoteLine, ...] = ()
    notes: tuple[NoteLine, ...] = ()
    debts: tuple[DebtLine, ...] = ()
    pawns: tuple[PawnLine, ...] = ()
    people: tuple[PersonLine, ...] = ()
    places: tuple[PlaceLine, ...] = ()

    @property
    def low_hp(self) -> int:
        """Below this the HP meter shows the danger colour: a quarter of the maximum."""
        return max(1, -(-self.max_hp // 4))

    @property
    def journal_empty(self) -> bool:
        return not (
            self.quests or self.notices or self.clues or self.notes or self.debts or self.pawns
        )


def character_status(
    state: GMState, gm: GameMaster, character_id: str, language: str = "en"
) -> CharacterStatus | None:
    """What the Status panel shows of ``character_id`` (None: no such character in play).
    ``language`` names the engine's own words (the time of day) and the world's nouns where
    the world translates them (``engine.gm.localize``), its own words otherwise."""
    if character_id not in state.characters or character_id not in gm.characters_by_id:
        return None
    lex = lexicon(language)
    scene = Scene(localize.block(gm, language), state, character_id, lex, lex)
    me = scene.me
    equipped = _equipped_ids(scene)
    names = readbook(language).table("conditions")
    return CharacterStatus(
        name=scene.name,
        hp=me.hp,
        max_hp=me.max_hp,
        conditions=tuple(str(names.get(c, c)) for c in me.conditions),
        money=_money(scene),
        place=scene.place_name(me.location),
        day=state.clock.day,
        time_of_day=lex.name("times", state.clock.time_of_day),
        equipped=tuple(_item_names(scene.gm, equipped)),
        items=_items(scene, set(equipped)),
        resources=tuple(
            ResourceLine(_resource_name(scene, k), v.current, v.max)
            for k, v in me.resources.items()
            if v.max > 0
        ),
        quests=_quests(scene),
        notices=_notices(scene),
        clues=_clues(scene),
        notes=_journal(scene, "note"),
        debts=_debts(scene),
        pawns=_pawns(scene),
        people=_people(scene),
        places=_places(scene),
    )


# --- what he carries ------------------------------------------------------------------------


def _money(scene: Scene) -> int:
    """His coins: ``money``, or a ``purse`` a later state may keep them in."""
    for name in ("money", "purse"):
        value = getattr(scene.me, name, None)
        if isinstance(value, int):
            return value
    return 0


def _equipped_ids(scene: Scene) -> list[str]:
    """What he holds ready: the item in hand, and anything a state marks ``equipped``."""
    out = [scene.me.in_hand] if scene.me.in_hand else []
    worn = getattr(scene.me, "equipped", None)
    if isinstance(worn, dict):
        worn = list(worn.values())
    if isinstance(worn, list | tuple):
        out += [str(i) for i in worn if i]
    return list(dict.fromkeys(out))


def _item_names(gm: GameMaster, ids: Iterable[str]) -> list[str]:
    return [gm.items_by_id[i].name for i in ids if i in gm.items_by_id]


def _items(scene: Scene, equipped: set[str]) -> tuple[ItemLine, ...]:
    """Items by name, with how many of each he carries (a stack's units, ``GMState.counts``;
    two loaves are one line, ×2) and the stocks he gathered; what he holds ready first."""
    units: dict[str, int] = getattr(scene.state, "counts", None) or {}
    counts: dict[str, int] = {}
    ready: dict[str, bool] = {}
    for item in scene.carried():
        counts[item.name] = counts.get(item.name, 0) + max(1, units.get(item.id, 1))
        ready[item.name] = ready.get(item.name, False) or item.id in equipped
    for key, pool in scene.me.resources.items():
        if pool.max == 0 and pool.current > 0:  # a stock gathered, not a pool refilled by rest
            name = _resource_name(scene, key)
            counts[name] = counts.get(name, 0) + pool.current
            ready.setdefault(name, False)
    lines = [ItemLine(name, count, ready[name]) for name, count in counts.items()]
    return tuple(sorted(lines, key=lambda line: not line.equipped))  # what is in hand first


def _resource_name(scene: Scene, key: str) -> str:
    """A resource as the world names what fills it (a gatherable's name), else its key."""
    for place in scene.gm.locations:
        for source in place.gatherables:
            if source.resource == key and source.name:
                return source.name
    return key


# --- the journal ----------------------------------------------------------------------------


def _quests(scene: Scene) -> tuple[QuestLine, ...]:
    """Errands he took (in talk, or from a notice he read), done once the engine says so."""
    gm, me = scene.gm, scene.me
    notices = {n.id: n for b in gm.boards for n in b.notices}
    found: dict[str, tuple[str, str]] = {}
    for entry in me.journal:
        if entry.kind == "quest" and entry.ref:
            found.setdefault(entry.ref, (entry.title, entry.text))
        elif entry.kind == "notice" and entry.ref in notices:
            notice = notices[entry.ref]
            if notice.quest:
                found.setdefault(notice.quest, (notice.title, notice.summary))
    for quest_id in me.completed:
        quest = gm.quests_by_id.get(quest_id)
        if quest is not None:
            found.setdefault(quest_id, (quest.title, ""))
    return tuple(
        QuestLine(
            title or _quest_title(gm, ref),
            text,
            "done" if ref in me.completed else "active",
        )
        for ref, (title, text) in found.items()
    )


def _quest_title(gm: GameMaster, ref: str) -> str:
    quest = gm.quests_by_id.get(ref)
    return quest.title if quest is not None else ref


def _journal(scene: Scene, kind: str) -> tuple[NoteLine, ...]:
    return tuple(NoteLine(e.title, e.text, e.day) for e in scene.me.journal if e.kind == kind)


def _notices(scene: Scene) -> tuple[NoteLine, ...]:
    """The notices he read: a notice that offers an errand by its title only (its text is the
    errand's, listed with the quests)."""
    errands = {n.id for b in scene.gm.boards for n in b.notices if n.quest}
    return tuple(
        NoteLine(e.title, "" if e.ref in errands else e.text, e.day)
        for e in scene.me.journal
        if e.kind == "notice"
    )


def _clues(scene: Scene) -> tuple[NoteLine, ...]:
    """The clues he found (the block's text), then clue notes the journal holds besides."""
    out = [
        NoteLine(clue.name, clue.text)
        for ref in scene.me.clues
        if (clue := scene.gm.clues_by_id.get(ref)) is not None
    ]
    found = set(scene.me.clues)
    out += [
        NoteLine(e.title, e.text, e.day)
        for e in scene.me.journal
        if e.kind == "clue" and e.ref not in found
    ]
    return tuple(out)


def _party(scene: Scene, ident: str) -> str | None:
    """Someone in a deal, as he can call him: an NPC by name or trade, another character by
    name once he knows it; None when he cannot name him."""
    npc = scene.gm.npcs_by_id.get(ident)
    if npc is not None:
        return scene.npc_label(npc)
    sheet = scene.gm.characters_by_id.get(ident)
    if sheet is not None and (ident == scene.character_id or ident in _names_known(scene)):
        return sheet.name
    return None


def _names_known(scene: Scene) -> set[str]:
    """The ids whose names he knows: NPCs and other player characters (``met`` in play)."""
    met = getattr(scene.me, "met", None) or []
    return {*scene.me.known_names, *met}


def _debts(scene: Scene) -> tuple[DebtLine, ...]:
    me = scene.character_id
    return tuple(
        DebtLine(
            debt.debtor == me,
            _party(scene, debt.creditor if debt.debtor == me else debt.debtor),
            debt.amount,
            debt.due_day,
        )
        for debt in scene.state.debts
        if me in (debt.debtor, debt.creditor) and debt.amount > 0
    )


def _pawns(scene: Scene) -> tuple[PawnLine, ...]:
    names = {i.id: i.name for i in scene.gm.items}
    return tuple(
        PawnLine(names.get(p.item, p.item), _party(scene, p.held_by), p.redeem_price)
        for p in scene.state.pawns
        if p.owner == scene.character_id and p.item in names
    )


# --- whom and where he knows ----------------------------------------------------------------


def _met(scene: Scene) -> set[str]:
    """The NPCs he has dealt with: named to him, talked with, or whose trust he moved."""
    me = scene.character_id
    met = {n for n, scores in scene.state.trust.items() if me in scores}
    met |= {str(e.data["talk"]) for e in scene.state.events if e.actor == me and e.data.get("talk")}
    return met | set(scene.me.known_names)


def _people(scene: Scene) -> tuple[PersonLine, ...]:
    met, here = _met(scene), {n.id for n in scene.npcs()}
    out = []
    for npc in scene.gm.npcs:
        if npc.id not in met:
            continue
        name = scene.npc_label(npc)
        trade = npc.trade if npc.trade and name != npc.trade else ""
        out.append(PersonLine(name, trade, npc.id in here))
    others, known = set(scene.others()), _names_known(scene)
    for sheet in scene.gm.characters:
        if sheet.id != scene.character_id and sheet.id in known:
            out.append(PersonLine(sheet.name, "", sheet.id in others))
    return tuple(out)


def _places(scene: Scene) -> tuple[PlaceLine, ...]:
    here = scene.me.location
    known = dict.fromkeys([here, *scene.me.known_places])
    return tuple(
        PlaceLine(location.name, location.id == here)
        for location in scene.gm.locations
        if location.id in known and scene.knows_place(location.id)
    )
