"""Rule: the outcome told contradicts the roll (seed 001 "el desenlace contradice la tirada";
GAME_MASTER.md K-4).

The deciding roll is the turn's last check or attack. The narration tells an outcome through
cues of success or failure: said outright ("you manage", "no lo consigues", "失败"), or as the
effect the check was for: a lock giving way or holding, a climb reaching the top or a fall, a
creep past unseen or a guard turning, a listener convinced or not, a search that finds or comes
up empty, a blade that finds flesh or whistles past. A negation turns a cue around ("La
cerradura no cede", "Nadie te ve"); the last outcome told in the narrator's words is the one
that counts, and it must be the roll's. Which effects speak for a check depends on the check
(a failed stealth roll may still "find" a gap in the hedge).
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.events import modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.roll_effects import (
    canonical,
    cue_keys,
    effect_cues,
    plain_sight,
    yielded_aloud,
)
from engine.gm.dice import Roll

GENERIC = (("succeed", "fail"),)
PHYSICAL = (("climb_ok", "fall"), ("yield", "stuck"))
SNEAK = (("unseen", "spotted"),)
SOCIAL = (("convinced", "unconvinced"),)
SEARCH = (("found", "nothing_found"),)
CUES: dict[str, tuple[tuple[str, str], ...]] = {
    "athletics": PHYSICAL,
    "acrobatics": (*PHYSICAL, *SNEAK),
    "strength": PHYSICAL,
    "dexterity": (*PHYSICAL, *SNEAK),
    "stealth": SNEAK,
    "sleight-of-hand": (*SNEAK, ("yield", "stuck")),
    "persuasion": SOCIAL,
    "deception": SOCIAL,
    "intimidation": SOCIAL,
    "performance": SOCIAL,
    "charisma": SOCIAL,
    "insight": SEARCH,
    "investigation": SEARCH,
    "perception": SEARCH,
    "survival": SEARCH,
    "wisdom": SEARCH,
    "intelligence": SEARCH,
    "attack": (("hit", "miss"), ("wounded", "miss")),
}


def deciding_roll(reading: Reading) -> Roll | None:
    rolls = [*reading.facts.rolls, *(r for _, o in reading.ok_calls() for r in o.rolls)]
    deciding = [r for r in rolls if r.kind in ("check", "attack")]
    return deciding[-1] if deciding else None


def contradicts_roll(reading: Reading) -> bool:
    roll = deciding_roll(reading)
    if roll is None:
        return False
    success = roll.outcome in ("success", "critical-success")
    told = told_outcome(reading, roll)
    return told is not None and told != success


def told_outcome(reading: Reading, roll: Roll) -> bool | None:
    """The last outcome the narrator tells: True success, False failure, None none."""
    family = "attack" if roll.kind == "attack" else (roll.check or "")
    every = tuple(dict.fromkeys(p for ps in CUES.values() for p in ps if ps != CUES["attack"]))
    pairs = (*GENERIC, *CUES.get(family, every))  # a check not named: any of its effects
    keys = [k for pair in pairs for k in pair]
    doc = reading.doc
    idioms = doc.of("roll_idioms")
    said = [canonical(h) for h in doc.of(*cue_keys(keys))] + effect_cues(reading, keys)
    cues = _first_of_overlaps(sorted(said, key=lambda h: (h.start, -h.end)))
    last: bool | None = None
    told: list[Hit] = []
    for hit in cues:
        if _skipped(reading, hit, idioms) or _governed(reading, hit, told):
            continue
        if plain_sight(reading, hit):
            continue
        told.append(hit)
        good = any(hit.key == pair[0] for pair in pairs)
        if _turned(reading, hit, cues):
            good = not good
        last = good
    return last


def _first_of_overlaps(cues: list[Hit]) -> list[Hit]:
    """Of two cues that overlap, the one that starts first ("Nadie repara en ti" is unseen,
    not "repara en ti")."""
    kept: list[Hit] = []
    for cue in cues:
        if not any(k.start < cue.end and cue.start < k.end for k in kept):
            kept.append(cue)
    return kept


def _governed(reading: Reading, hit: Hit, told: list[Hit]) -> bool:
    """A cue right after another in its clause is that one's complement ("No logras trepar",
    "you manage to climb"): the first tells the outcome."""
    if not told:
        return False
    before = told[-1]
    if before.key not in ("succeed", "fail"):
        return False  # only "manage", "fail" take a complement: "A media subida pierdes…"
    same = reading.doc.clause_at(before.start).index == reading.doc.clause_at(hit.start).index
    return same and 0 <= hit.first - before.last <= 1


def _turned(reading: Reading, hit: Hit, cues: list[Hit]) -> bool:
    """A negation before the cue turns it around, unless it belongs to another cue ("No
    encuentras nada más que polvo": the "no" is "no encuentras nada"'s)."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if not negated(doc, clause, hit.start, hit.first, hit.last):
        return False
    mine = [
        n for n in doc.hits.get("negations", ()) if clause.start <= n.start and n.end <= hit.start
    ]
    return not all(any(c.start <= n.start < c.end for c in cues if c != hit) for n in mine)


def _skipped(reading: Reading, hit: Hit, idioms: list[Hit]) -> bool:
    """Not the narrator's telling of this action: speech, a question, a wish or an attempt,
    an idiom ("night falls"), someone else's deed ("Hilda hits you")."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if clause.question or (clause.quoted and not yielded_aloud(reading, hit)):
        return True
    longer = [i for i in idioms if i.end - i.start > hit.end - hit.start]
    if any(i.start <= hit.start and hit.end <= i.end for i in longer):
        return True
    if modal(doc, clause, hit.start, hit.first, hit.last):
        return True
    if hit.key in ("hit", "succeed", "fail", "climb_ok", "fall", "found"):  # his own deed
        if any(m.ref == YOU and hit.start <= m.start < hit.end for m in reading.mentions):
            return False  # "Tus ojos dan con…", "your eyes catch…": the phrase says whose
        doer = _doer(reading, hit)
        return doer is not None and doer.person and doer != YOU
    return False


def _doer(reading: Reading, hit: Hit) -> Ref | None:
    """Who does what the cue tells: the event at the cue, else the last one before it in its
    clause ("Él esquiva tu golpe sin esfuerzo": his)."""
    clause = reading.doc.clause_at(hit.start)
    before = [
        e for e in reading.events if clause.start <= e.start <= hit.start and e.actor is not None
    ]
    if before:
        return before[-1].actor
    named = [m.ref for m in reading.mentions if clause.start <= m.start < hit.start]
    return named[0] if named else None
