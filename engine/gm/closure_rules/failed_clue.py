"""A failed clue told by its own words (seed 001 "narra como hecho una tool que falló";
issue 34 §1): the narrator states what the clue says, three of its words in a sentence told as
fact, unless the sentence tells a search for it ("you look for footprints by the back door":
sought, not found; the ``ft_seek`` words of ``engine/gm/lexicon/closure.<lang>.json``).
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import Ref
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.targets import targets
from engine.gm.language import content
from engine.gm.tools import ToolCall


def clue_words(reading: Reading, clues: set[Ref]) -> set[str]:
    """The content words of the clues' names and texts, in the narration's language."""
    gm, language = reading.scene.gm, reading.doc.language
    words: set[str] = set()
    for ref in clues:
        clue = gm.clues_by_id.get(ref.id)
        if clue is not None:
            words |= set(content(f"{clue.name} {clue.text}", language))
    return words


def clue_stated(reading: Reading, call: ToolCall) -> bool:
    """The narrator states the clue itself, three of its own words in a sentence he tells
    as fact ("wet footprints, fresh, run from the back door")."""
    words = clue_words(reading, {r for r in targets(call, reading.scene) if r.kind == "clue"})
    doc = reading.doc
    for sentence in sorted({c.sentence for c in doc.clauses}):
        parts = [c for c in doc.clauses if c.sentence == sentence and not c.quoted]
        if not parts or any(c.question for c in parts):
            continue
        if seeking(reading, sentence):
            continue  # "you search for footprints by the back door": sought, not found
        said = doc.text[parts[0].start : parts[-1].end]
        negations = [h for h in doc.hits.get("negations", ()) if parts[0].start <= h.start]
        if any(h.start < parts[-1].end for h in negations):
            continue
        if len(words & set(content(said, doc.language))) >= 3:
            return True
    return False


def seeking(reading: Reading, sentence: int) -> bool:
    """The sentence tells a search ("you look for footprints", "buscas huellas", "寻找"):
    an attempt, whatever it names."""
    if any(e.key == "search" and e.clause.sentence == sentence for e in reading.events):
        return True
    doc = reading.doc
    return any(doc.clause_at(h.start).sentence == sentence for h in doc.hits.get("ft_seek", ()))
