"""The closure check (seed 001 "Comprobación del cierre": "Antes de enseñar la narración, el motor
la revisa. Rechaza (y pide repetir) si …"; the remit table: "no actúa por un jugador, no resuelve
más de una acción por mensaje, no mata ni resucita, no adelanta el tiempo"; GAME_MASTER.md §5,
decision 15).

One function per rule, each free engine code: lookups of names and places against the world,
the turn's tool results, the roll's outcome and the player characters' names, with the words of
``engine/gm/lexicon/master.<lang>.json``. ``check_closure`` reports which rules fired (the loop
asks once more, then falls back); ``fallback_closure`` is the templated closure built from what
the tools applied. The word lists live in the data files, the logic here; each rule looks at
whole sentences and skips what a negation ("no", "never", "不") or a question turns around.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from engine.gm.dice import Roll
from engine.gm.mentions import fold, folded_spans, mentions, spans
from engine.gm.phrasebook import phrasebook
from engine.gm.reading import Narration, after_subject, ends_with_tag, mask, starts_with
from engine.gm.scene import Scene
from engine.gm.tools import LOG_EVENT, ToolCall, ToolOutcome
from engine.gm.tools.refs import npc_names

VIOLATIONS = (
    "failed-tool-narrated",
    "unknown-place",
    "unregistered-deal",
    "contradicts-roll",
    "acts-for-player",
    "death-or-return",
    "time-advanced",
    "several-actions",
)
DEAL_TOOLS = ("set_debt", "settle_debt", "pawn_item", "buy_item", "sell_item", "transfer_item")
ACTION_TOOLS = (
    "move_character",
    "request_skill_check",
    "request_attack",
    "discover_hidden_point",
    "buy_item",
    "sell_item",
    "gather",
    "pawn_item",
    "rest",
)
OBJECT_KEYS = (
    "item",
    "npc",
    "target",
    "to",
    "who",
    "clue",
    "quest",
    "resource",
    "from",
    "with",
    "shop",
    "debtor",
    "creditor",
    "weapon",
)
UNTOLD = ("invalid-arguments", "unknown-tool", "invalid")  # errors meant for the master only


@dataclass(frozen=True)
class TurnFacts:
    """What the turn really did, for the check."""

    tool_calls: list[tuple[ToolCall, ToolOutcome]]
    rolls: list[Roll]
    character_id: str
    player_character_ids: list[str]  # other players' characters
    language: str


@dataclass(frozen=True)
class ClosureReport:
    ok: bool
    violations: list[str] = field(default_factory=list)


Rule = Callable[[Narration, TurnFacts, Scene], bool]


def _ok_calls(facts: TurnFacts) -> list[tuple[ToolCall, ToolOutcome]]:
    return [(c, o) for c, o in facts.tool_calls if o.ok and c.name != LOG_EVENT]


# --- failed-tool-narrated ---------------------------------------------------------------------


def failed_tool_narrated(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """A tool that failed (and was not redone) is told as done: its object and one of its
    "done" verbs in one sentence."""
    redone = {c.name for c, _ in _ok_calls(facts)}
    for call, outcome in facts.tool_calls:
        if outcome.ok or call.name in redone:
            continue
        verbs = n.words.list(f"done_{call.name}")
        objects = _objects(scene, call)
        for sentence in n.sentences(quotes=False):
            named = not objects or any(mentions(sentence, o, n.spaced) for o in objects)
            if named and n.any_said(sentence, verbs):
                return True
    return False


def _objects(scene: Scene, call: ToolCall) -> list[str]:
    """The names a call's arguments stand for (an id read as its item's, NPC's, place's…)."""
    gm, out = scene.gm, []
    named = [v for k, v in call.arguments.items() if k in OBJECT_KEYS]
    for value in _strings(named):
        out.append(value)
        if value in gm.items_by_id:
            item = gm.items_by_id[value]
            out += [item.name, *item.aliases]
        if value in gm.npcs_by_id:
            out += npc_names(gm.npcs_by_id[value])
        if value in gm.locations_by_id:
            place = gm.locations_by_id[value]
            out += [place.name, *place.aliases]
        clue = gm.clues_by_id.get(value)
        if clue is not None:
            out.append(clue.name)
    return [o for o in dict.fromkeys(out) if len(o) >= 2 and o.casefold() not in ("me", "here")]


def _strings(values: Iterable[object]) -> list[str]:
    out: list[str] = []
    for value in values:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            out += _strings(value.values())
    return out


# --- unknown-place ------------------------------------------------------------------------------


def unknown_place(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """A place noun ("trapdoor", "crypt", "escalera", "密道") that nothing the character can know
    of here has in its name or description: an invented point, or a hidden one not found. In
    the narrator's own words (quotes aside: people know their world) the places counted are
    those the character knows, and naming one he has not discovered fires too (issue 32).

    The narration is read first (a few nouns at most are in it); the world's places are folded
    into one text only when one is, and each noun is looked up in it once."""
    told = n.sentences(quotes=False)
    if _names_undiscovered(told, scene, n.spaced):
        return True
    nouns = n.words.list("place_nouns")
    said = [w for w in nouns if any(n.said(s, w) for s in _statements(n.sentences()))]
    mine = [w for w in nouns if any(n.said(s, w) for s in _statements(told))]
    if not said and not mine:
        return False
    steps = ""
    if any(e.direction in ("up", "down") for e in scene.exits()):
        steps = " " + fold(" ".join(n.words.list("exit_nouns")))  # a way up or down has steps
    known = _known_places_text(scene, facts) + steps
    if any(not _in_text(known, noun, n.spaced) for noun in said):
        return True
    if not mine:
        return False
    known = _known_places_text(scene, facts, discovered=True) + steps
    return any(not _in_text(known, noun, n.spaced) for noun in mine)


def _statements(sentences: list[str]) -> list[str]:
    return [s for s in sentences if not any(q in s for q in ("?", "？"))]


def _names_undiscovered(sentences: list[str], scene: Scene, spaced: bool) -> bool:
    """The narrator names a place of the world the character has not discovered (a one-word
    name only when written as one, capitalised: "you vault the bar" names no Vault)."""
    names = [p.name for p in scene.gm.locations if p.name.strip() and not scene.knows_place(p.id)]
    for sentence in sentences:
        for name in names:
            for start, _ in spans(sentence, name, spaced):
                if not spaced or len(name.split()) > 1 or sentence[start].isupper():
                    return True
    return False


def _in_text(known: str, noun: str, spaced: bool) -> bool:
    """``noun`` (or its plural or singular) is in ``known``, a folded text."""
    noun = fold(noun)
    if not spaced:
        return noun in known
    forms = {noun, noun + "s", noun + "es", noun.removesuffix("s"), noun.removesuffix("es")}
    return any(folded_spans(known, form, spaced) for form in forms if form)


def _known_places_text(scene: Scene, facts: TurnFacts, *, discovered: bool = False) -> str:
    """Everything the world lets him speak of as a place now, as one folded text (with
    ``discovered``, of the world's places only those the character knows)."""
    gm, here = scene.gm, scene.location
    parts = [here.description, *here.ambient]
    for place in gm.locations:
        if discovered and not scene.knows_place(place.id):
            continue
        parts += [place.name, *place.aliases, *(p.name for p in place.points)]
        parts += [a for p in place.points for a in p.aliases]
    for point in scene.points():
        parts += [point.name, *point.aliases, point.description]
    for way in scene.exits():
        parts.append(gm.locations_by_id[way.to].description)
    for item in [*scene.items_here(), *scene.carried()]:
        parts += [item.name, *item.aliases, item.description]
    parts += [npc.public_description for npc in scene.npcs()]
    parts += [b.name for b in scene.boards()] + [a for b in scene.boards() for a in b.aliases]
    parts += [gm.clues_by_id[c].text for c in scene.me.clues if c in gm.clues_by_id]
    parts += [str(o.result.get("done", "")) for _, o in _ok_calls(facts)]
    return fold(" \n ".join(parts))


# --- unregistered-deal, contradicts-roll, death-or-return, time-advanced ----------------------


def unregistered_deal(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """A deal is closed (agreed, paid, owed, pawned) and no deal tool applied one."""
    if any(c.name in DEAL_TOOLS for c, _ in _ok_calls(facts)):
        return False
    phrases = n.words.list("deal_closed")
    return any(
        n.any_said(s, phrases) for s in n.sentences() if not s.rstrip().endswith(("?", "？"))
    )


def contradicts_roll(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """The outcome told is the opposite of the turn's deciding roll (its last check or attack)."""
    rolls = [*facts.rolls, *(r for _, o in _ok_calls(facts) for r in o.rolls)]
    deciding = [r for r in rolls if r.kind in ("check", "attack")]
    if not deciding:
        return False
    roll = deciding[-1]
    success = roll.outcome in ("success", "critical-success")
    good = [*n.words.list("success"), *(n.words.list("hit") if roll.kind == "attack" else ())]
    bad = [*n.words.list("failure"), *(n.words.list("miss") if roll.kind == "attack" else ())]
    for sentence in n.sentences(quotes=False):
        # The told outcome's own phrases are blanked first: "you slip past" is no slip.
        told, opposite = (good, bad) if success else (bad, good)
        if n.any_said(mask(sentence, told, n.spaced), opposite):
            return True
    return False


def death_or_return(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """Someone dies or comes back from death (idioms like "dead of night" aside)."""
    phrases = [*n.words.list("death"), *n.words.list("return")]
    idioms = n.words.list("death_idioms")
    return any(n.any_said(mask(s, idioms, n.spaced), phrases) for s in n.sentences(quotes=False))


def time_advanced(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """Time passes in the narration while no tool moved the clock (only the engine does)."""
    if any("clock" in o.changes for _, o in _ok_calls(facts)):
        return False
    phrases = n.words.list("time_passing")
    return any(n.any_said(s, phrases) for s in n.sentences(quotes=False))


# --- acts-for-player ----------------------------------------------------------------------------


def acts_for_player(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """Another player's character acts, speaks or wants: its name as the subject of an action
    verb, or a speech tag ("says Ada", "dice Ada", "Ada说")."""
    verbs, after = n.words.list("act_verbs"), n.words.list("act_speech_after")
    joiners = n.words.list("subject_joiners")
    for ident in facts.player_character_ids:
        sheet = scene.gm.characters_by_id.get(ident)
        if sheet is None or ident == facts.character_id:
            continue
        names = [sheet.name, *([sheet.name.split()[0]] if len(sheet.name.split()[0]) > 2 else [])]
        for sentence in n.sentences():
            for name in dict.fromkeys(names):
                for start, end in spans(sentence, name, n.spaced):
                    rest = after_subject(sentence[end:], joiners, n.spaced)
                    if rest.startswith((":", "：")) or any(
                        starts_with(rest, v, n.spaced) for v in verbs
                    ):
                        return True
                    if n.spaced and any(ends_with_tag(sentence[:start], v) for v in after):
                        return True
    return False


# --- several-actions ----------------------------------------------------------------------------


def several_actions(n: Narration, facts: TurnFacts, scene: Scene) -> bool:
    """More than one action resolved: two kinds of action tools applied for the character, or
    the narration chains his actions ("then you…", "y luego…", "然后你…")."""
    kinds = {
        c.name
        for c, o in _ok_calls(facts)
        if c.name in ACTION_TOOLS and not (c.name == "move_character" and _moves_npc(c))
    }
    if len(kinds) > 1:
        return True
    follower = n.words.table("sequence_next").get("pattern")
    for sentence in n.sentences(quotes=False):
        for marker in n.words.list("sequence"):
            for start, end in spans(sentence, marker, n.spaced):
                chained = follower is None or re.match(follower, fold(sentence[end:]))
                if chained and not n.negated(sentence, start):
                    return True
    return False


def _moves_npc(call: ToolCall) -> bool:
    who = call.arguments.get("who")
    return isinstance(who, str) and fold(who) not in ("me", "self", "yo", "我", "")


# --- the check ----------------------------------------------------------------------------------

RULES: dict[str, Rule] = {
    "failed-tool-narrated": failed_tool_narrated,
    "unknown-place": unknown_place,
    "unregistered-deal": unregistered_deal,
    "contradicts-roll": contradicts_roll,
    "acts-for-player": acts_for_player,
    "death-or-return": death_or_return,
    "time-advanced": time_advanced,
    "several-actions": several_actions,
}


def check_closure(narration: str, facts: TurnFacts, scene: Scene) -> ClosureReport:
    """Run every rule on the narration; ``violations`` lists the rules that fired, in order."""
    read = Narration.read(narration, facts.language)
    fired = [code for code, rule in RULES.items() if rule(read, facts, scene)]
    return ClosureReport(not fired, fired)


def fallback_closure(facts: TurnFacts, scene: Scene) -> str:
    """A closure built from what the tools applied (and why a failed one did not happen), for
    when the master's narration failed the check twice."""
    words = phrasebook(facts.language)
    lines = [str(o.result["done"]) for _, o in _ok_calls(facts) if o.result.get("done")]
    redone = {c.name for c, _ in _ok_calls(facts)}
    lines += [
        words.t("fallback_failed", error=o.error)
        for c, o in facts.tool_calls
        if not o.ok
        and c.name not in redone
        and c.name != LOG_EVENT
        and o.result.get("code") not in UNTOLD
    ]
    lines = list(dict.fromkeys(lines))
    return " ".join(lines) if lines else words.t("fallback_nothing")
