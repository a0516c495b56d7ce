"""Rule: time passes in the narration while no tool moved the clock (seed 001 "Adelanta el
tiempo"; GAME_MASTER.md GM-0-12: only the engine moves it).

Time passes when the narrator says so: a lapse ("hours later", "pasan las horas", "几个小时后",
"al cabo de unas horas": a duration with a word of passing), a change of the time of day
("night falls", "al amanecer", "天亮了"), the next day, sleeping until morning; and what
shows time gone by: the sky's light running through its colours ("the light goes from grey
to gold", "del gris al dorado", "天光从灰变金") or what burns down with the hours ("the
candles have burned to stubs", "las velas ya son cabos", "蜡烛都烧完了"). What people
say ("Come back tomorrow"), the light of the hour it already is ("the morning light"), the
past ("an hour ago", "anoche"), the future or a wish, a question and a negation do not count.
"""

from __future__ import annotations

from itertools import pairwise

from engine.gm.closure_rules.events import modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.time_dusk import day_arrives, planned_after, until_done
from engine.gm.closure_rules.time_scope import bell_hits, not_the_clock, spent_hits
from engine.gm.vocab import TIMES_OF_DAY


def time_advanced(reading: Reading) -> bool:
    if any("clock" in o.changes for _, o in reading.ok_calls()):
        return False
    doc = reading.doc
    shifts = [h for h in doc.of("tm_shift") if doc.clause_at(h.end - 1) == doc.clause_at(h.start)]
    told = [*doc.of("time_markers"), *shifts, *bell_hits(doc), *spent_hits(doc)]
    told += day_arrives(doc)
    markers = [h for h in told if _stated(reading, h)]
    if markers or _another_hour(reading) or _sky_turns(reading) or _burned_down(reading):
        return True
    if _looked_up(reading):
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
    if not_the_clock(doc, hit):
        return False
    if modal(doc, clause, hit.start, hit.first, hit.last) and not until_done(doc, clause, hit):
        return False
    if planned_after(doc, clause, hit):
        return False
    past = [*doc.hits.get("past_time", ()), *doc.hits.get("past_refs", ())]  # "for years"
    inside = range(hit.start, hit.end) if hit.key == "tm_day" else range(0)  # "中午早已过了"
    return not any(
        doc.clause_at(p.start).index == clause.index and p.start not in inside for p in past
    )


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


def _burned_down(reading: Reading) -> bool:
    """A candle, a torch or a fire told as burned down in the sentence that names it."""
    doc = reading.doc
    keepers = {doc.clause_at(h.start).sentence for h in doc.of("timekeeper_nouns")}
    return any(
        doc.clause_at(h.start).sentence in keepers and _stated(reading, h)
        for h in doc.of("burned_down")
    )


def _sky_turns(reading: Reading) -> bool:
    """The sky's light passes from one colour to another ("from grey to gold", "del gris
    al dorado", "从灰变金") in a sentence about the sky, the light or the window: only
    links and articles stand between the two ("dark to the east and red to the west" is
    two colours at once)."""
    doc = reading.doc
    skies = {doc.clause_at(h.start).sentence for h in doc.of("sky_nouns")}
    phases = [h for h in _phases(reading) if _stated(reading, h)]
    for one, other in pairwise(phases):
        sentence = doc.clause_at(one.start).sentence
        if sentence not in skies or doc.clause_at(other.start).sentence != sentence:
            continue
        if doc.text[one.start : one.end] != doc.text[other.start : other.end] and _linked(
            reading, one, other
        ):
            return True
    return False


def _looked_up(reading: Reading) -> bool:
    """Time lost while absorbed, then the sky changed: "When you next look up, the windows
    are dark", "Cuando vuelves a levantar la vista…", "等你再抬头，窗外已经黑了" (the look
    and a colour of the sky in one sentence)."""
    doc = reading.doc
    looks = {doc.clause_at(h.start).sentence for h in doc.of("lookup_lapse") if _stated(reading, h)}
    skies = {doc.clause_at(h.start).sentence for h in doc.of("sky_nouns")} & looks
    return any(doc.clause_at(h.start).sentence in skies for h in _phases(reading))


def _phases(reading: Reading) -> list[Hit]:
    """The colours named; in Chinese every colour character, wherever the segmenter put it
    ("从灰变金" is one word to it)."""
    doc = reading.doc
    if doc.spaced:
        return doc.of("phase_nouns")
    colours = set(doc.words.list("phase_nouns"))
    compounds = set(doc.words.list("phase_stop"))  # "灰尘", "金币": no colour
    out: list[Hit] = []
    for at, char in enumerate(doc.text):
        if char in colours:
            n = next((i for i, tok in enumerate(doc.tokens) if tok.end > at), 0)
            if n < len(doc.tokens) and doc.tokens[n].text in compounds:
                continue
            out.append(Hit("phase_nouns", at, at + 1, n, n + 1))
    return out


def _linked(reading: Reading, one: Hit, other: Hit) -> bool:
    doc = reading.doc
    if not doc.spaced:
        gap = doc.text[one.end : other.start]
        return len(gap) <= 5 and any(c in gap for c in doc.words.list("phase_links"))
    links = [h for h in doc.of("phase_links") if one.end <= h.start and h.end <= other.start]
    if not links:
        return False
    words = doc.words
    between = doc.tokens[one.last : other.first]
    glue = ("phase_links", "shade_words", "articles", "determiners", "conjunctions", "object_preps")
    return all(
        any(h.first <= n < h.last for h in links) or any(words.has(t, k) for k in glue)
        for n, t in zip(range(one.last, other.first), between, strict=True)
    )
