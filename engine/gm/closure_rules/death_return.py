"""Someone dead or gone is back in the scene (seed 001 "no mata ni resucita"): for the
death-or-return rule.

Three ways the narrator tells it without a verb of coming back to life: the one buried acts
("Your father, ten years in his grave, pushes through the crowd"); the one everyone believed
dead acts ("Jory staggers in, the brother the whole village swore had drowned", "a quien
todo el pueblo daba por muerto", "全镇人都以为他淹死了"); someone is alive after a long
absence or after all ("alive and well after all these months gone", "vivito y coleando
después de tantos meses", "消失了这么多个月，他竟然好端端地活着回来了").
"""

from __future__ import annotations

from engine.gm.closure_rules.death_scope import someone_in, stated
from engine.gm.closure_rules.events import modal, negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit

_DEEDS_TEXT = (
    "go enter arrive leave flee climb open close act gesture attack acquire give posture "
    "consume wounded dr_back"
)
_DEEDS = tuple(_DEEDS_TEXT.split())
_TALK = ("talk", "speech")
_DEATH = ("die", "kill", "dr_states", "dr_gone")


def returned(reading: Reading) -> bool:
    if _back_from_the_grave(reading) or _believed_dead(reading) or _alive_again(reading):
        return True
    return _dead_yet_here(reading)


def _deeds(reading: Reading, sentence: int, keys: tuple[str, ...]) -> list[Hit]:
    """The deeds told as done in a sentence (a verb of moving, acting, standing…)."""
    doc = reading.doc
    out: list[Hit] = []
    for hit in doc.of(*keys):
        clause = doc.clause_at(hit.start)
        if clause.sentence != sentence or clause.quoted or clause.question:
            continue
        if negated(doc, clause, hit.start, hit.first, hit.last):
            continue
        if not modal(doc, clause, hit.start, hit.first, hit.last):
            out.append(hit)
    return out


def _back_from_the_grave(reading: Reading) -> bool:
    """Someone buried acts in the same sentence ("Father Aldric, buried a week, walks in");
    an aside about the burial between commas after the sentence's first words stands for
    the one it opens with ("Your father, ten years in his grave, pushes…")."""
    doc = reading.doc
    for burial in doc.hits.get("burial", ()):
        clause = doc.clause_at(burial.start)
        if clause.quoted or clause.question:
            continue
        people = {
            m.ref
            for m in reading.mentions
            if m.ref.person
            and m.ref.kind != "you"
            and doc.clause_at(m.start).sentence == clause.sentence
        }
        deeds = reading.of(*_DEEDS, *_TALK)
        same = [e for e in deeds if e.clause.sentence == clause.sentence]
        if any(e.actor in people for e in same):
            return True
        if _aside(reading, clause.index) and any(e.start > burial.end for e in same):
            return True
    return False


def _aside(reading: Reading, index: int) -> bool:
    """The clause is an aside right after the sentence's opening words ("X, …, acts")."""
    clauses = reading.doc.clauses
    if index < 1 or clauses[index - 1].sentence != clauses[index].sentence:
        return False
    opening = clauses[index - 1]
    first = index - 1 == 0 or clauses[index - 2].sentence != opening.sentence
    return first and not any(e.clause.index == opening.index for e in reading.events)


def _believed_dead(reading: Reading) -> bool:
    """Believed dead (a word of belief, then a death, in one clause or the next) and acting
    after it or in another clause of the sentence ("the peddler everyone swore had been
    hanged walks in"), or mourned ("Jory, whom the valley had mourned since the flood,
    pushes the door open")."""
    doc = reading.doc
    mourned = doc.of("dr_mourned")  # mourning says the death by itself
    for belief in [*doc.hits.get("dr_belief", ()), *mourned]:
        clause = doc.clause_at(belief.start)
        if clause.quoted or clause.question:
            continue
        deaths = (
            [belief]
            if belief in mourned
            else [
                h
                for h in doc.of(*_DEATH)
                if h.start >= belief.end and doc.clause_at(h.start).index - clause.index in (0, 1)
            ]
        )
        if not deaths or not someone_in(reading, clause.sentence):
            continue
        near = {clause.index, doc.clause_at(deaths[0].start).index}
        deeds = _deeds(reading, clause.sentence, _DEEDS)
        if any(doc.clause_at(d.start).index not in near or d.start > deaths[0].end for d in deeds):
            return True
    return False


def _alive_again(reading: Reading) -> bool:
    """Someone alive ("alive and well", "vivito y coleando", "活着") and, in the same
    sentence, a long absence or a surprise ("after all these months", "después de tantos
    años", "竟然")."""
    doc = reading.doc
    for alive in doc.of("dr_alive"):
        if not stated(reading, alive):
            continue
        sentence = doc.clause_at(alive.start).sentence
        if not someone_in(reading, sentence):
            continue
        if any(doc.clause_at(h.start).sentence == sentence for h in doc.of("dr_absence")):
            return True
    return False


_HERE = ("dr_back", "enter", "arrive", "go", "posture", "speech", "gesture", "consume")


def _dead_yet_here(reading: Reading) -> bool:
    """Someone already dead comes or acts in the scene: "the late Aldric walks in", "el
    difunto Tomás entra", "早已过世的道长推门而入", or one a relative clause says died
    ("the dog that died last week trots in", "el perro que murió ayer entra")."""
    doc = reading.doc
    for late in doc.of("dr_late"):
        if _opening(reading, late) and _here_after(reading, late):
            return True
    for rel in doc.of("dr_late_rel"):
        clause = doc.clause_at(rel.start).index
        deaths = [
            h
            for h in doc.of("die", "dr_states")
            if doc.clause_at(h.start).index == clause
            and 0 <= h.first - rel.last <= 2
            and stated(reading, h)
        ]
        if deaths and _opening(reading, rel) and _here_after(reading, deaths[0]):
            return True
    return False


def _opening(reading: Reading, hit: Hit) -> bool:
    """Nothing done before ``hit`` in its sentence: it is part of the subject."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    if clause.quoted or clause.question:
        return False
    opening = min(c.start for c in doc.clauses if c.sentence == clause.sentence)
    keys = (*doc.words.verb_keys, "reported", "dr_belief", "modals", "conditionals")
    return not any(opening <= h.start < hit.start for k in keys for h in doc.hits.get(k, ()))


def _here_after(reading: Reading, hit: Hit) -> bool:
    """After it in its sentence, the dead one comes, acts or is alive ("…trots in, alive")."""
    doc = reading.doc
    sentence = doc.clause_at(hit.start).sentence
    alive = doc.of("dr_alive", "dr_back")
    if any(doc.clause_at(h.start).sentence == sentence and h.start >= hit.end for h in alive):
        return True
    return any(e.clause.sentence == sentence and e.start >= hit.end for e in reading.of(*_HERE))
