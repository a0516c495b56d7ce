"""Rule: time passes in the narration while no tool moved the clock (seed 001 "Adelanta el
tiempo"; GAME_MASTER.md GM-0-12: only the engine moves it).

Time passes when the narrator says so: a lapse ("hours later", "pasan las horas", "几个小时后",
"al cabo de unas horas": a duration with a word of passing), a change of the time of day
("night falls", "al amanecer", "天亮了"), the next day, sleeping until morning. What people
say ("Come back tomorrow"), the light of the hour it already is ("the morning light"), the
past ("an hour ago", "anoche"), the future or a wish, a question and a negation do not count.
"""

from __future__ import annotations

from engine.gm.closure_rules.events import modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.vocab import TIMES_OF_DAY


def time_advanced(reading: Reading) -> bool:
    if any("clock" in o.changes for _, o in reading.ok_calls()):
        return False
    doc = reading.doc
    markers = [h for h in doc.of("time_markers") if _stated(reading, h)]
    if markers or _another_hour(reading):
        return True
    lapses = [h for h in doc.hits.get("lapse", ()) if _stated(reading, h)]
    for duration in doc.of("duration"):
        if not _stated(reading, duration):
            continue
        clause = doc.clause_at(duration.start)
        if any(_paired(reading, duration, lapse, clause.index) for lapse in lapses):
            return True
    return False


def _another_hour(reading: Reading) -> bool:
    """The narrator says it is now another time of day than the clock's ("It is evening
    now" in the morning; "ya es de noche"; "现在已是傍晚")."""
    doc, now = reading.doc, reading.scene.state.clock.time_of_day
    for marker in doc.hits.get("now_markers", ()):
        if not _stated(reading, marker):
            continue
        clause = doc.clause_at(marker.start)
        for part in TIMES_OF_DAY:
            if part == now:
                continue
            if any(
                clause.start <= h.start < clause.end for h in doc.hits.get(f"daypart_{part}", ())
            ):
                return True
    return False


def _stated(reading: Reading, hit: Hit) -> bool:
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if clause.quoted or clause.question:
        return False
    if negated(doc, clause, hit.start, hit.first, hit.last):
        return False
    if modal(doc, clause, hit.start, hit.first, hit.last):
        return False
    past = doc.hits.get("past_time", ())
    return not any(doc.clause_at(p.start).index == clause.index for p in past)


def _paired(reading: Reading, duration: Hit, lapse: Hit, clause: int) -> bool:
    """A duration with its word of passing in the same clause, next to it ("hours later",
    "pasan las horas", "tras varias horas", "几个小时后")."""
    doc = reading.doc
    if doc.clause_at(lapse.start).index != clause:
        return False
    gap = (
        lapse.first - duration.last if lapse.start >= duration.end else duration.first - lapse.last
    )
    return 0 <= gap <= (3 if doc.spaced else 6)
