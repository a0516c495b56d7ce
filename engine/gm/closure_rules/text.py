"""A narration cut the way the closure check reads it (issue 34 §1): quoted speech apart from
the narrator's words, sentences, clauses and the word classes found in each.

A clause ends at a comma, a semicolon, a dash, a quote's edge or a joining word ("and",
"y", "然后"): a verb's subject and objects are looked for inside its clause. Speech is what
stands between quotes («…», "…", “…”, 「…」) or after a Spanish dialogue dash up to its tag
("—Deberíamos irnos —dice Ada."). A question is a sentence ending in "?" (in Spanish the part
between "¿" and "?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import pairwise

from engine.gm.closure_rules.lexicon import Hit, Words, words
from engine.gm.closure_rules.tokens import Token, tokenize

_PAIRED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|「[^」\n]*」|『[^』\n]*』|‘[^’\n]*’")
_SINGLE = re.compile(r"(?<![\w])'[^'\n]*?[.,!?;:…]'(?![\w])")
_TERMINATOR = set(".!?。！？…\n")
_BREAK = set(",;:，、；：—–()（）")


@dataclass(frozen=True, slots=True)
class Clause:
    index: int
    start: int
    end: int
    sentence: int
    first: int  # token index
    last: int  # exclusive
    quoted: bool
    question: bool


@dataclass
class Doc:
    """A narration read once: tokens, clauses and every class's hits."""

    text: str
    language: str
    words: Words
    tokens: list[Token]
    clauses: list[Clause]
    quotes: list[tuple[int, int]]
    hits: dict[str, list[Hit]] = field(default_factory=dict)

    @property
    def spaced(self) -> bool:
        return self.words.spaced

    def of(self, *keys: str) -> list[Hit]:
        """The hits of these classes in order, a hit inside a longer one of them left out."""
        found = sorted((h for k in keys for h in self.hits.get(k, ())), key=_longest_first)
        kept: list[Hit] = []
        for hit in found:
            if not any(k.start <= hit.start and hit.end <= k.end for k in kept):
                kept.append(hit)
        return sorted(kept, key=lambda h: h.start)

    def clause_at(self, position: int) -> Clause:
        for clause in self.clauses:
            if clause.start <= position < clause.end:
                return clause
        return self.clauses[-1]

    def in_quotes(self, position: int) -> bool:
        return any(a <= position < b for a, b in self.quotes)

    def between(self, start: int, end: int) -> list[Token]:
        return [t for t in self.tokens if t.start >= start and t.end <= end]


def _longest_first(hit: Hit) -> tuple[int, int]:
    return (-(hit.end - hit.start), hit.start)


def read_doc(text: str, language: str, keep: tuple[str, ...] = ()) -> Doc:
    """``text`` read in ``language``; ``keep``: names the Chinese segmenter keeps whole."""
    book = words(language)
    tokens = tokenize(text, book.language, keep)
    quotes = _quotes(text)
    clauses = _clauses(text, tokens, quotes, book)
    doc = Doc(text, book.language, book, tokens, clauses, quotes)
    doc.hits = book.scan(text, tokens)
    doc.clauses = _reported_speech(doc)
    return doc


def _reported_speech(doc: Doc) -> list[Clause]:
    """What follows "X说，" / "says:" / "dice:" in its sentence is X's words, not the
    narrator's ("小梅笑着说，老王再迟到她就宰了他")."""
    speech = doc.hits.get("speech", ()) if doc.language == "zh" else ()
    out: list[Clause] = []
    told = False
    for clause in doc.clauses:
        if out and out[-1].sentence != clause.sentence:
            told = False
        if told and not clause.quoted:
            clause = replace(clause, quoted=True)
        said = doc.text[clause.start : clause.end].rstrip()
        if said.endswith((":", "：", "，")) and any(
            clause.start <= h.start < clause.end
            and h.end >= len(said.rstrip(":：，")) + clause.start - 1
            and doc.text[h.end : h.end + 1] != "完"  # "听你说完，": done talking, no words follow
            and not _unsaid(doc, h.start)  # "你还没开口，": nothing said, no words follow
            for h in speech
        ):
            told = True
        out.append(clause)
    return out


def _unsaid(doc: Doc, start: int) -> bool:
    """A negation just before the verb of saying ("还没开口", "没说话"): nothing is said."""
    return any(h.end <= start <= h.end + 1 for h in doc.hits.get("negations", ()))


# --- speech ---------------------------------------------------------------------------------


def _quotes(text: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _PAIRED.finditer(text)]
    spans += [m.span() for m in _SINGLE.finditer(text) if not _inside(m.start(), spans)]
    spans += _dialogue(text, spans)
    return sorted(spans)


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= position < b for a, b in spans)


def _dialogue(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spanish dialogue: a line opening with a dash is speech up to the next dash, then the
    narrator's tag up to the dash after it, then speech again ("—¿Trato hecho? —pregunta
    Greta—. Piénsalo." quotes "¿Trato hecho?" and ". Piénsalo.")."""
    out: list[tuple[int, int]] = []
    at = 0
    for line in text.split("\n"):
        stripped = line.lstrip()
        start = at + len(line) - len(stripped)
        at += len(line) + 1
        if not stripped.startswith(("—", "–")) or _inside(start, taken):
            continue
        dashes = [start + m.start() for m in re.finditer(r"[—–]", stripped)] + [
            start + len(stripped)
        ]
        for n in range(0, len(dashes) - 1, 2):
            out.append((dashes[n], dashes[n + 1]))
    return out


# --- sentences and clauses ------------------------------------------------------------------


def _clauses(
    text: str, tokens: list[Token], quotes: list[tuple[int, int]], book: Words
) -> list[Clause]:
    joiners = book.stems("conjunctions")
    cuts = {0, len(text)}
    for n, char in enumerate(text):
        if char in _BREAK or char in _TERMINATOR:
            cuts.add(n + 1)
    for a, b in quotes:
        cuts |= {a, b}
    for token in tokens:
        if token.fold in joiners:
            cuts |= {token.start, token.end}
    sentences = _sentence_starts(text, quotes)
    questions = _question_spans(text, sentences)
    questions += [(a, b) for a, b in quotes if re.search(r"[?？]\s*$", text[a + 1 : b - 1])]
    clauses: list[Clause] = []
    edges = sorted(cuts)
    for start, end in pairwise(edges):
        inner = [n for n, t in enumerate(tokens) if t.start >= start and t.end <= end]
        if not inner:
            continue
        words_in = [tokens[n] for n in inner]
        if len(words_in) == 1 and words_in[0].fold in joiners:
            continue
        sentence = sum(1 for s in sentences if s <= start) - 1
        clauses.append(
            Clause(
                len(clauses),
                start,
                end,
                sentence,
                inner[0],
                inner[-1] + 1,
                _inside(start + (len(text[start:end]) - len(text[start:end].lstrip())), quotes),
                _inside(start + (len(text[start:end]) - len(text[start:end].lstrip())), questions),
            )
        )
    return clauses or [Clause(0, 0, len(text), 0, 0, len(tokens), False, False)]


def _sentence_starts(text: str, quotes: list[tuple[int, int]]) -> list[int]:
    """Where each sentence starts: after a terminator outside quotes, or after a quote that
    ends one and is followed by a capital ("«Trato hecho.» Greta…")."""
    starts = [0]
    for n, char in enumerate(text):
        if char in _TERMINATOR and not _inside(n, quotes):
            starts.append(n + 1)
    for a, b in quotes:
        inner = text[a + 1 : b - 1].rstrip()
        after = text[b:].lstrip()
        if inner[-1:] in _TERMINATOR and after[:1].isupper():
            starts.append(b)
    return sorted(set(starts))


def _question_spans(text: str, starts: list[int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    bounds = [*starts, len(text)]
    for a, b in pairwise(bounds):
        sentence = text[a:b]
        for match in re.finditer(r"¿[^?]*\?", sentence):
            spans.append((a + match.start(), a + match.end()))
        if re.search(r"[?？]\s*[\"”»’']?\s*$", sentence.strip()) and "¿" not in sentence:
            spans.append((a, b))
    return spans
