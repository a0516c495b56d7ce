"""The outcome a narration tells through what happened, for the roll rule (issue 34 §1: "judge
claims by entity and effect"; seed 001 "el desenlace contradice la tirada").

Besides the outcome words of ``closure_rules.roll`` (a lock that gives, a guard who turns), a
check's success shows in the effect it was rolled for, told with any verb of its class: a
perception or search check succeeds when the character finds, spots or notices something (the
``find`` verbs, or seeing "at once"), an athletic one when he climbs and ends up on top, a
stealthy one when nothing he does makes a sound ("without a board creaking": a noise, negated).
The vocabulary is data (``rl_*`` keys of ``engine/gm/lexicon/closure.<lang>.json``); here each
class is tied to the outcome cue it speaks for, and the effect events become cues at their
place, so that negation, speech, wishes and someone else's deeds are judged as for any cue.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import YOU
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit

# outcome cue → the lexicon classes that speak for it too
ALIASES: dict[str, tuple[str, ...]] = {
    "succeed": ("rl_succeed",),
    "found": ("find",),
    "convinced": ("rl_convinced", "rl_yield_said"),
    "unseen": ("rl_unseen",),
    "spotted": ("rl_noise",),
    "climb_ok": ("rl_climb_up",),
}
CANONICAL = {alias: cue for cue, aliases in ALIASES.items() for alias in aliases}


def cue_keys(keys: list[str]) -> list[str]:
    """The outcome cues with the classes that speak for them."""
    return [*keys, *(a for k in keys for a in ALIASES.get(k, ()))]


def canonical(hit: Hit) -> Hit:
    """A hit of an alias class as the cue it speaks for."""
    key = CANONICAL.get(hit.key)
    return hit if key is None else Hit(key, hit.start, hit.end, hit.first, hit.last)


def effect_cues(reading: Reading, keys: list[str]) -> list[Hit]:
    """Cues told as effects: seeing at once for a search ("Lo ves enseguida", "your gaze
    snags at once on…"), climbing to a top for a climb ("翻上了房梁", "you scramble up and
    perch on the mantel"), dropping down on the far side ("you drop down on the other side",
    "caes en el patio de al lado")."""
    effects = (  # the effect word in the verb's clause or the next (1), or its own (0)
        ("found", "perceive", "rl_at_once", 1),
        ("found", "perceive", "rl_plainly", 0),  # "you see it plainly", "看得一清二楚"
        ("climb_ok", "climb", "rl_climb_top", 1),
    )
    out: list[Hit] = []
    for cue, verb, word, reach in effects:
        if cue not in keys:
            continue
        for start, end in _mine(reading, verb):
            said = _with(reading, start, word, reach)
            if said is not None:
                out.append(_cue(reading, cue, start, max(end, said.end)))
    return out + (_landed(reading) if "climb_ok" in keys else [])


def _landed(reading: Reading) -> list[Hit]:
    """A drop on the far side is a landing, not a fall ("you drop down on the other side",
    "caes en el patio de al lado", "跳到了墙那头")."""
    doc = reading.doc
    out: list[Hit] = []
    for fall in doc.of("fall"):
        clause = doc.clause_at(fall.start).index
        far = [
            h
            for h in doc.of("rl_far_side")
            if doc.clause_at(h.start).index == clause and h.start >= fall.end
        ]
        if far:
            out.append(_cue(reading, "climb_ok", fall.start, far[0].end))
    return out


def yielded_aloud(reading: Reading, hit: Hit) -> bool:
    """The listener gives in in their own words ("—Tú ganas —suspira—. Te lo diré.", "“算你会
    说，我告诉你就是。”"): a quoted concession is the outcome of the player's persuasion."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if not clause.quoted or not any(
        h.start == hit.start and h.end == hit.end for h in doc.hits.get("rl_yield_said", ())
    ):
        return False
    after = [n for n in doc.hits.get("negations", ()) if n.first in (hit.last, hit.last + 1)]
    return not any(n.start < clause.end for n in after)  # "You win nothing from me"


def plain_sight(reading: Reading, hit: Hit) -> bool:
    """A "found" cue that is only a verb of seeing ("Ves a los de siempre", "你看见的还是那些
    人"): what anyone sees, unless it is seen at once or is hidden ("ves la trampilla
    oculta")."""
    if hit.key != "found":
        return False
    seeing = reading.doc.hits.get("perceive", ())
    if not any(s.start == hit.start and s.end >= hit.end for s in seeing):
        return False
    events = [e for e in reading.events if e.start == hit.start]
    if not events or any(r.kind == "hidden" for e in events for r in e.objects):
        return False
    return not any(_with(reading, hit.start, k) for k in ("rl_at_once", "hidden_words"))


def _mine(reading: Reading, key: str) -> list[tuple[int, int]]:
    """Where the player does ``key``: his events, and the class's words right after "your"
    ("your gaze", "tu mirada": a look that is his)."""
    spans = [(e.start, e.end) for e in reading.events if e.key == key and e.actor in (YOU, None)]
    yours = [m.end for m in reading.mentions if m.ref == YOU]
    doc = reading.doc
    spans += [
        (h.start, h.end)
        for h in doc.hits.get(key, ())
        if any(0 <= h.start - end <= 1 for end in yours)
    ]
    return sorted(set(spans))


def _with(reading: Reading, start: int, key: str, reach: int = 1) -> Hit | None:
    """A word of ``key`` in the clause at ``start`` or the next one of its sentence ("你一撑就翻
    上了房梁", "you scramble up the chimney and perch on the mantel, triumphant")."""
    doc = reading.doc
    clause = doc.clause_at(start)
    near = [
        c
        for c in doc.clauses
        if c.sentence == clause.sentence and clause.index <= c.index <= clause.index + reach
    ]
    end = near[-1].end if near else clause.end
    return next((h for h in doc.hits.get(key, ()) if clause.start <= h.start < end), None)


def _cue(reading: Reading, key: str, start: int, end: int) -> Hit:
    """The cue spans the verb and the word that tells the effect, so that a set phrase inside
    it ("lo ves") does not hide it."""
    tokens = reading.doc.tokens
    first = next((n for n, t in enumerate(tokens) if t.start >= start), len(tokens))
    last = next((n for n, t in enumerate(tokens) if t.start >= end), len(tokens))
    return Hit(key, start, end, first, max(last, first + 1))
