"""The read moves: inventory, character sheet, journal and reading one notice (issue 33 §1; seed
001 "Los encargos del tablón entran en el Diario al leerlo"; decisions 9 and 10).

Each is narrated from the templates of ``engine/gm/lexicon/reads.<lang>.json``, the world's nouns
(items, quests, clues, people) as the world names them. Looking at one's own pack, sheet or
journal is private and changes nothing: no event, no change, and a check waiting for its roll
stays waiting. The master still has these facts: the scene context of his next turn carries the
character's purse, hand, pack, hit points, errands, clues and debts (``engine.gm.perception``).
Reading a notice is done in public, like reading the whole board: it logs an event seen by whoever
is there and puts that notice (only) in the journal.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from engine.gm.dice import SKILL_ABILITY, ability_modifier
from engine.gm.phrasebook import Phrasebook
from engine.gm.readmoves import readbook
from engine.gm.scene import EngineMove, MoveResult, Scene
from engine.gm.space import suggest
from engine.gm.state import log_event
from engine.gm.things import read_board
from engine.gm.words import match_names, normalize
from engine.gm.world import ABILITIES, Board, JournalEntry, Notice

FACTS = {  # the dealings as the master's context says them (English, like the whole context)
    "journal_owe": "owes {creditor} {amount} coins",
    "journal_owe_due": "owes {creditor} {amount} coins, due on day {day}",
    "journal_owed": "{debtor} owes him {amount} coins",
    "journal_pawn": "pawned {item} with {holder}; redeeming it costs {price} coins",
}


def _book(scene: Scene) -> Phrasebook:
    return readbook(scene.lex.language)


def _read(scene: Scene, lines: list[str]) -> MoveResult:
    """A private read: narrated to the player alone, nothing logged, nothing changed."""
    return MoveResult("engine", "\n".join(line for line in lines if line), [], {}, suggest(scene))


def _sentences(scene: Scene, lines: list[str]) -> str:
    """Sentences one after another: a space between them, none in Chinese."""
    return (" " if scene.lex.spaced else "").join(line for line in lines if line)


def money_line(scene: Scene) -> str:
    money, book = scene.me.money, _book(scene)
    if money <= 0:
        return book.t("money_none")
    return book.t("money_one") if money == 1 else book.t("money", money=money)


def _units(scene: Scene, item_id: str) -> int:
    """The units of an item's one stack: ``GMState.counts`` of the trade moves (issue 33 §1,
    ``engine.gm.market``), one when absent; read softly, so a state without it is one each."""
    counts = getattr(scene.state, "counts", None) or {}
    return int(counts.get(item_id, 1))


def _resource_name(scene: Scene, key: str) -> str:
    """A resource as the world names what fills it (a gatherable's name), else its key."""
    for place in scene.gm.locations:
        for source in place.gatherables:
            if source.resource == key and source.name:
                return source.name
    return key


# --- inventory ------------------------------------------------------------------------------------


def inventory(move: EngineMove, scene: Scene) -> MoveResult:
    """What the character carries (with how many of each), holds in hand, and his purse."""
    book, lex, me = _book(scene), scene.lex, scene.me
    if move.target == "money":
        return _read(scene, [money_line(scene)])
    counts: Counter[str] = Counter()
    for item in scene.carried():
        counts[item.name] += _units(scene, item.id)
    for key, pool in me.resources.items():
        if pool.max == 0 and pool.current > 0:  # a stock gathered, not a pool refilled by rest
            counts[_resource_name(scene, key)] += pool.current
    shown = [
        name if count == 1 else book.t("inv_count", item=name, count=count)
        for name, count in counts.items()
    ]
    lines = [book.t("inv_items", list=lex.join(shown)) if shown else book.t("inv_nothing")]
    hand = scene.gm.items_by_id.get(me.in_hand or "")
    lines.append(book.t("inv_hand", item=hand.name) if hand else book.t("inv_hand_empty"))
    lines.append(money_line(scene))
    return _read(scene, [_sentences(scene, lines)])


# --- character sheet ------------------------------------------------------------------------------


def sheet(move: EngineMove, scene: Scene) -> MoveResult:
    """Hit points and conditions as play left them; abilities and skills as the sheet gives them."""
    book, lex, me = _book(scene), scene.lex, scene.me
    card = scene.gm.characters_by_id[scene.character_id]
    cls = card.full.character_class
    lines = [
        book.t("sheet_head", name=card.name, **{"class": cls})
        if cls
        else book.t("sheet_head_plain", name=card.name)
    ]
    if card.full.traits:
        lines.append(book.t("sheet_traits", list=lex.join(card.full.traits)))
    lines.append(book.t("sheet_hp", hp=me.hp, max_hp=me.max_hp, ac=card.ac))
    names = book.table("conditions")
    conditions = [str(names.get(c, c)) for c in me.conditions]
    lines.append(
        book.t("sheet_conditions", list=lex.join(conditions))
        if conditions
        else book.t("sheet_no_conditions")
    )
    lines.append(book.t("sheet_abilities", list=lex.join(_abilities(scene, book))))
    skills = _skills(scene, book)
    if skills:
        lines.append(book.t("sheet_skills", list=lex.join(skills)))
    pools = [
        book.t("sheet_resource", name=_resource_name(scene, k), current=p.current, max=p.max)
        for k, p in me.resources.items()
        if p.max > 0
    ]
    if pools:
        lines.append(book.t("sheet_resources", list=lex.join(pools)))
    lines.append(money_line(scene))
    return _read(scene, lines)


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else str(value)


def _abilities(scene: Scene, book: Phrasebook) -> list[str]:
    scores = scene.gm.characters_by_id[scene.character_id].abilities
    out = []
    for ability in ABILITIES:
        score = int(getattr(scores, ability))
        name = scene.lex.name("checks", ability)
        out.append(
            book.t(
                "sheet_ability", name=name, score=score, modifier=_signed(ability_modifier(score))
            )
        )
    return out


def _skills(scene: Scene, book: Phrasebook) -> list[str]:
    card = scene.gm.characters_by_id[scene.character_id]
    out = []
    for check in card.proficiencies:
        ability = check if check in ABILITIES else SKILL_ABILITY[check]
        bonus = ability_modifier(int(getattr(card.abilities, ability))) + card.proficiency_bonus
        out.append(
            book.t("sheet_skill", name=scene.lex.name("checks", check), bonus=_signed(bonus))
        )
    return out


# --- journal --------------------------------------------------------------------------------------


def journal(move: EngineMove, scene: Scene) -> MoveResult:
    """Quests with their status, notices read, clues known, debts and pawns, notes; or only the
    part asked for ("my debts", "mis pistas")."""
    book = _book(scene)
    parts = {
        "quests": (_quests, "journal_no_quests"),
        "clues": (_clues, "journal_no_clues"),
        "debts": (_debts, "journal_no_debts"),
    }
    if move.target in parts:
        lines, empty = parts[move.target][0](scene, book), parts[move.target][1]
        return _read(scene, lines or [book.t(empty)])
    lines = [
        *_quests(scene, book),
        *_notices(scene, book),
        *_clues(scene, book),
        *_debts(scene, book),
        *_notes(scene, book),
    ]
    return _read(scene, lines or [book.t("journal_empty")])


def quest_refs(scene: Scene) -> list[str]:
    """The errands in the journal, in the order they came: taken in talk, or read on a notice."""
    notices = {n.id: n.quest for b in scene.gm.boards for n in b.notices if n.quest}
    out: dict[str, None] = {}
    for entry in scene.me.journal:
        if entry.kind == "quest" and entry.ref:
            out[entry.ref] = None
        elif entry.kind == "notice" and notices.get(entry.ref or ""):
            out[str(notices[entry.ref or ""])] = None
    out.update(dict.fromkeys(q for q in scene.me.completed if q in scene.gm.quests_by_id))
    return [q for q in out if q in scene.gm.quests_by_id]


def _quests(scene: Scene, book: Phrasebook) -> list[str]:
    lines = []
    for ref in quest_refs(scene):
        quest = scene.gm.quests_by_id[ref]
        status = book.t("status_done" if ref in scene.me.completed else "status_open")
        key = "journal_quest" if quest.summary else "journal_quest_plain"
        lines.append(book.t(key, title=quest.title, status=status, summary=quest.summary))
    return [book.t("journal_quests"), *lines] if lines else []


def _notices(scene: Scene, book: Phrasebook) -> list[str]:
    read = [e for e in scene.me.journal if e.kind == "notice"]
    lines = [book.t("journal_notice", title=e.title) for e in read]
    return [book.t("journal_notices"), *lines] if lines else []


def _clues(scene: Scene, book: Phrasebook) -> list[str]:
    lines = []
    for ref in scene.me.clues:
        clue = scene.gm.clues_by_id.get(ref)
        if clue is not None:
            key = "journal_clue" if clue.text else "journal_clue_plain"
            lines.append(book.t(key, name=clue.name, text=clue.text))
    return [book.t("journal_clues"), *lines] if lines else []


def _someone(scene: Scene, ident: str) -> str:
    """A party to a deal as the character knows him: an NPC by name once known, else trade."""
    npc = scene.gm.npcs_by_id.get(ident)
    if npc is not None:
        return scene.npc_label(npc)
    card = scene.gm.characters_by_id.get(ident)
    return card.name if card is not None else ident


def _dealings(scene: Scene) -> list[tuple[str, dict[str, Any]]]:
    """His debts, what he is owed and what he pawned: (template key, values)."""
    me, out = scene.character_id, []
    for debt in scene.state.debts:
        if debt.amount <= 0:
            continue
        if debt.debtor == me:
            key = "journal_owe_due" if debt.due_day else "journal_owe"
            who = _someone(scene, debt.creditor)
            out.append((key, {"creditor": who, "amount": debt.amount, "day": debt.due_day}))
        elif debt.creditor == me:
            who = _someone(scene, debt.debtor)
            out.append(("journal_owed", {"debtor": who, "amount": debt.amount}))
    for pawn in scene.state.pawns:
        item = scene.gm.items_by_id.get(pawn.item)
        if pawn.owner == me and item is not None:
            holder = _someone(scene, pawn.held_by)
            values = {"item": item.name, "holder": holder, "price": pawn.redeem_price}
            out.append(("journal_pawn", values))
    return out


def _debts(scene: Scene, book: Phrasebook) -> list[str]:
    lines = [book.t(key, **values) for key, values in _dealings(scene)]
    return [book.t("journal_debts"), *lines] if lines else []


def _notes(scene: Scene, book: Phrasebook) -> list[str]:
    lines = [
        book.t("journal_note", title=e.title, text=e.text)
        if e.title and e.text
        else book.t("journal_note_plain", text=e.text or e.title)
        for e in scene.me.journal
        if e.kind == "note"
    ]
    return [book.t("journal_notes"), *lines] if lines else []


# --- one notice -----------------------------------------------------------------------------------


def notice(move: EngineMove, scene: Scene) -> MoveResult:
    """Read the notice of the board here that the player named: it enters the journal (once).
    Without a name, or on a board of one notice, it is reading the board."""
    boards = scene.boards()
    pinned = [(b, n) for b in boards for n in b.notices]
    if not move.target or len(pinned) <= 1:
        return read_board(EngineMove("board", "", move.language, move.text), scene)
    found = _matching(scene, move.target, pinned)
    book = _book(scene)
    if len(found) != 1:
        titles = scene.lex.join(n.title for _, n in (found or pinned))
        if found:
            return MoveResult("refused", scene.lex.t("ambiguous", options=titles))
        return MoveResult("refused", book.t("no_notice", target=move.target, options=titles))
    board, chosen = found[0]
    return _read_notice(scene, book, board, chosen)


def _read_notice(scene: Scene, book: Phrasebook, board: Board, chosen: Notice) -> MoveResult:
    me = scene.me
    known = any(e.kind == "notice" and e.ref == chosen.id for e in me.journal)
    changes: dict[str, Any] = {}
    if not known:
        me.journal.append(
            JournalEntry(
                kind="notice",
                ref=chosen.id,
                title=chosen.title,
                text=chosen.summary,
                day=scene.state.clock.day,
            )
        )
        changes = {"journal": {"added": [chosen.id]}}
    told = readbook(scene.world_lex.language).t("ev_notice", actor=scene.name, board=board.name)
    event = log_event(
        scene.state,
        "board",
        scene.character_id,
        scene.location.id,
        told,
        seen_by=scene.witnesses(),
        data={"board": board.id, "notice": chosen.id},
        at=scene.at,
    )
    lines = [
        book.t("notice", title=chosen.title, summary=chosen.summary).strip(),
        book.t("notice_known" if known else "notice_journal"),
    ]
    return MoveResult("engine", _sentences(scene, lines), [event], changes, suggest(scene))


def _matching(
    scene: Scene, target: str, pinned: list[tuple[Board, Notice]]
) -> list[tuple[Board, Notice]]:
    """The notices whose words hold most of the words asked for. A word of another language
    counts through the world's own aliases: "cáliz" or "圣杯" is the chalice's alias, so the
    notice that names the silver chalice matches."""
    asked = _words_of(scene, target)
    scores = []
    for _board, note in pinned:
        text = normalize(" ".join(_notice_text(scene, note)))
        scores.append(sum(1 for word in asked if word in text))
    best = max(scores, default=0)
    return [pin for pin, score in zip(pinned, scores, strict=True) if best and score == best]


def _notice_text(scene: Scene, note: Notice) -> list[str]:
    quest = scene.gm.quests_by_id.get(note.quest or "")
    owner = scene.gm.npcs_by_id.get(note.owner or "")
    return [
        note.title,
        note.summary,
        *([quest.title, quest.summary] if quest else []),
        *([owner.name, owner.trade, *owner.aliases] if owner else []),
    ]


def _words_of(scene: Scene, target: str) -> list[str]:
    """The words asked for, and the world's names of the things they are an alias of."""
    lex = scene.lex
    query = normalize(target)
    if lex.spaced:
        words = [re.sub(r"'s?$", "", w) for w in query.split() if w not in lex.fillers]
    else:
        words = [query]
    named: list[tuple[str, list[str]]] = [(i.id, [i.name, *i.aliases]) for i in scene.gm.items]
    named += [(n.id, [n.name, n.trade, *n.aliases]) for n in scene.gm.npcs]
    names = {**{i.id: i.name for i in scene.gm.items}, **{n.id: n.name for n in scene.gm.npcs}}
    for ident in match_names(lex, query, named):
        words += [w for w in normalize(names[ident]).split() if len(w) > 2]
    return [w for w in dict.fromkeys(words) if w]


def journal_facts(scene: Scene) -> tuple[str, ...]:
    """The journal as the master's scene context carries it (English, about him): quests with
    their status, clues known, debts and pawns. What a read shows the player, the master knows."""
    out = []
    for ref in quest_refs(scene):
        done = "done" if ref in scene.me.completed else "in progress"
        out.append(f"- quest {scene.gm.quests_by_id[ref].title}: {done}")
    for ref in scene.me.clues:
        clue = scene.gm.clues_by_id.get(ref)
        if clue is not None:
            out.append(f"- clue known: {clue.name}" + (f": {clue.text}" if clue.text else ""))
    out += [f"- {FACTS[key].format(**values)}" for key, values in _dealings(scene)]
    return tuple(out)
