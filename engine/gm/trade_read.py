"""Which trade or hand-over move a player's sentence asks for (issue 33 §1: buy, sell, give,
equip; seed 001 "Objetos: transferir, comprar, vender"; decision 9: the words are data).

The words live in ``engine/gm/lexicon/trade.<lang>.json``. A sentence is folded (case and
accents) and cut into clauses at sentence punctuation; every verb of the vocabulary found in it
is a cue ("sell", "le vendo", "交给"), wherever it stands, and the first cue that holds wins:

- not negated ("I won't sell it"), not reported or wondered about ("I ask the priest whether
  to give it"), not an idiom ("give up", "buy time"), and no risky verb in the sentence (those
  are the master's);
- its object is the world item named next to it, after it or before it ("把圣杯交给神父", "la
  cuerda se la vendo"), with no preposition between ("thank the priest for the chalice"), or a
  pronoun whose thing the sentence or the character's hand tells;
- who does what: "sell me", "véndeme", "卖给我" turn a sale into a purchase and "buy my rope",
  "cómprame", "买我的" a purchase into a sale; a question that only asks what someone trades
  ("do you sell rope?", "¿vendes cuerda?", "你卖面包吗") is talk.

A purchase needs no item (the move then says what is for sale); a sale, a gift or a change of
hand needs a thing of the world, so "give the priest a nod" stays the master's. Softer requests
("I'd like a loaf", "me lo llevo", "来一个面包", "bread, please") buy only what a trader here
sells and the character has neither in hand nor at his feet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import cast

from engine.gm import market
from engine.gm.mentions import fold, folded_spans
from engine.gm.phrasebook import Phrasebook
from engine.gm.scene import EngineMove, MoveKind, Scene
from engine.gm.tradewords import first_word, spans_of, starts_with, strip_cjk, tradebook
from engine.gm.words import lexicon

CUE_KINDS = ("buy", "buy_you", "sell", "sell_you", "give", "give_me", "equip", "unequip", "soft")
MOVE_OF = {"buy_you": "buy", "sell_you": "sell", "give_me": "soft"}
SOFT = ("soft", "give_me")
CLITICS = ("me", "nos", "melo", "mela", "melos", "melas", "noslo", "nosla")
_END = re.compile(r"[.!?;。！？；\n]")
_WORD = re.compile(r"[\w']+")
_QUESTION = ("?", "？", "吗", "么", "呢")
_A_NOT_A = re.compile(r"(.)[不没]\1")


@dataclass(frozen=True)
class Span:
    key: str  # a cue's word list, or an item id
    start: int
    end: int


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    question: bool


@dataclass(frozen=True)
class Reading:
    kind: str  # buy, sell, give, equip, unequip
    item: str = ""  # the item id meant, when the words or the context tell it
    ref: str = ""  # the words naming the thing ("sword"), for a refusal


def read_deal(text: str, scene: Scene, languages: Sequence[str]) -> EngineMove | None:
    """The trade move ``text`` asks for, read in the first of ``languages`` that finds one."""
    for code in languages:
        reading = Reader(tradebook(code), text, scene).read()
        if reading is not None:
            slots = {"item": reading.item} if reading.item else {}
            kind = cast(MoveKind, reading.kind)
            return EngineMove(kind, reading.ref, code, text, slots=slots)
    return None


class Reader:
    """One sentence read in one language, against one scene."""

    def __init__(self, book: Phrasebook, text: str, scene: Scene) -> None:
        self.book, self.scene = book, scene
        self.spaced = book.language != "zh"
        self.text = fold(text.replace("’", "'").replace("`", "'"))

    # --- what the sentence holds -----------------------------------------------------------

    def find(self, words: str, within: str | None = None) -> list[tuple[int, int]]:
        text = self.text if within is None else within
        return [s for phrase in self.book.list(words) for s in spans_of(text, phrase, self.spaced)]

    def has(self, words: str, text: str) -> bool:
        return bool(self.find(words, text))

    @cached_property
    def clauses(self) -> list[Clause]:
        out, start = [], 0
        for mark in [*_END.finditer(self.text), None]:
            end = mark.start() if mark else len(self.text)
            body = self.text[start:end].strip()
            said = self.text[start : mark.end() if mark else end]
            asked = any(q in said[-2:] for q in _QUESTION) or "¿" in said
            asked = asked or bool(_A_NOT_A.search(body) and not self.spaced)
            out.append(Clause(start, end, asked))
            start = mark.end() if mark else end
        return out

    @cached_property
    def cues(self) -> list[Span]:
        idioms = self.find("not_moves")
        found = [
            Span(kind, start, end)
            for kind in CUE_KINDS
            for start, end in self.find(kind)
            if not any(s < end and start < e for s, e in idioms)
        ]
        found.sort(key=lambda c: (c.start, c.start - c.end, CUE_KINDS.index(c.key)))
        kept: list[Span] = []
        for cue in found:
            if all(cue.start >= k.end or cue.end <= k.start for k in kept):
                kept.append(cue)
        return kept

    @cached_property
    def items(self) -> list[Span]:
        found = [
            Span(item.id, start, end)
            for item in self.scene.gm.items
            for name in dict.fromkeys([item.name, *item.aliases])
            for start, end in folded_spans(self.text, name, self.spaced)
        ]
        found.sort(key=lambda m: (m.start, m.start - m.end))
        kept: list[Span] = []
        for mention in found:
            if all(mention.start >= k.end or mention.end <= k.start for k in kept):
                kept.append(mention)
        return kept

    def clause_of(self, cue: Span) -> Clause:
        return next(c for c in self.clauses if c.start <= cue.start <= c.end)

    def risky(self) -> bool:
        lex = lexicon(self.book.language)
        words = [w for verb in lex.risky.values() for w in verb.words]
        return any(folded_spans(self.text, w, self.spaced) for w in words)

    # --- reading ----------------------------------------------------------------------------

    def read(self) -> Reading | None:
        if not self.cues and not self.has("please", self.text):
            return None
        if self.risky():
            return None
        firm = [c for c in self.cues if c.key not in SOFT]
        for cues in (firm, self.cues):  # a firm verb first; a soft ask only when none holds
            for n, cue in enumerate(cues):
                if cues is firm or cue.key in SOFT:
                    reading = self.cue_reading(cue, n, cues)
                    if reading is not None:
                        return reading
        return self.please()

    def cue_reading(self, cue: Span, n: int, cues: list[Span]) -> Reading | None:
        """What one cue means, its object looked for between its neighbours in ``cues``."""
        clause = self.clause_of(cue)
        if self.negated(cue, clause) or self.asked(cue, clause):
            return None
        low = clause.start if n == 0 else max(clause.start, cues[n - 1].end)
        high = clause.end if n + 1 >= len(cues) else min(clause.end, cues[n + 1].start)
        item = self.object(cue, low, high)
        kind = MOVE_OF.get(cue.key, cue.key)
        if kind in ("buy", "sell"):
            return self.trade(cue, clause, kind, item, high)
        if kind == "give":
            return self.give(cue, item, low, high)
        if kind in ("equip", "unequip"):
            return self.hold(kind, item, cue, low, high)
        return self.soft(item, cue, high)

    def negated(self, cue: Span, clause: Clause) -> bool:
        before = self.text[clause.start : cue.start]
        before = before[before.rfind(",") + 1 :] if "," in before else before
        if self.spaced:
            before = " ".join(_WORD.findall(before)[-4:])
        else:  # "买不买" asks, it does not refuse
            said = _A_NOT_A.sub(r"\1", before + cue_text(self, cue))
            before = said[: len(said) - (cue.end - cue.start)][-6:]
        return self.has("negations", before)

    def asked(self, cue: Span, clause: Clause) -> bool:
        return self.has("ask", self.text[clause.start : cue.start])

    def object(self, cue: Span, low: int, high: int) -> Span | None:
        """The item named right after the cue, else right before it, with no blocker between."""
        for mention in self.items:
            if cue.end <= mention.start < high and not self.blocked(cue.end, mention.start):
                return mention
        before = [m for m in self.items if low <= m.start and m.end <= cue.start]
        if before and not self.blocked(before[-1].end, cue.start) and self.fronted(before[-1], cue):
            return before[-1]
        return None

    def fronted(self, mention: Span, cue: Span) -> bool:
        """An object before its verb: Chinese puts it there ("把圣杯交给"); a spaced language
        only with a pronoun taking it up ("la cuerda, se la vendo"): "escondo el cáliz bajo
        la capa" hides it, under the cloak."""
        if not self.spaced:
            return True
        return self.it(cue, mention.end, self.clause_of(cue).end)

    def blocked(self, start: int, end: int) -> bool:
        return self.has("blockers", self.text[start:end])

    def words_after(self, cue: Span, high: int) -> str:
        rest = self.text[cue.end : high]
        cut = min([s for s, _ in self.find("blockers", rest)] + [len(rest)])
        words = rest[:cut].split() if self.spaced else [rest[:cut]]
        skip = set(self.book.list("fillers")) | set(self.book.list("me"))
        while words and words[0] in skip:
            words.pop(0)
        said = strip_cjk(words[0], self.book.list("fillers")) if not self.spaced and words else ""
        said = said if not self.spaced else " ".join(words).strip(" ,'\"")
        return "" if said in {fold(w) for w in self.book.list("vague")} else said

    def weapon_word(self, low: int, high: int) -> str:
        spans = self.find("weapons", self.text[low:high])
        return self.text[low + spans[0][0] : low + spans[0][1]] if spans else ""

    def it(self, cue: Span, low: int, high: int) -> bool:
        """Whether the verb's object is a pronoun: after it ("sell it", "compro eso"), a
        clitic on it ("se la vendo", "dáselo"), or in Chinese on either side ("把它交给")."""
        if self.has("pronouns", self.text[cue.end : high] if self.spaced else self.text[low:high]):
            return True
        near = " ".join(_WORD.findall(self.text[low : cue.end])[-3:])
        ends = tuple(fold(w) for w in self.book.list("enclitics"))
        return self.has("clitics", near) or bool(ends and cue_text(self, cue).endswith(ends))

    # --- the moves ------------------------------------------------------------------------

    def trade(
        self, cue: Span, clause: Clause, kind: str, item: Span | None, high: int
    ) -> Reading | None:
        me, mine = self.to_me(cue, clause, kind), self.speaker(cue, clause)
        if me and not mine:
            kind = "sell" if kind == "buy" else "buy"
        elif not mine and not me and clause.question:
            return None  # "do you sell rope?", "does Hilda sell ale?": a question, not a deal
        ref = self.words_after(cue, high)
        if item is not None:
            return Reading(kind, item.key, ref)
        if kind == "buy":
            return Reading(kind, "", ref)
        held = self.referent(cue, high)
        return Reading(kind, held, ref) if held else None

    def to_me(self, cue: Span, clause: Clause, kind: str) -> bool:
        """Whether the words make the speaker the other side of the verb ("sell me", "buy my
        rope", "me vendes", "卖给我")."""
        after, before = self.text[cue.end : clause.end], self.text[clause.start : cue.start]
        first = first_word(after, self.spaced)
        if self.book.language == "es" and (
            self.clitic(before) or cue_text(self, cue).endswith(CLITICS)
        ):
            return True
        if kind == "sell":  # "sell me", "卖给我", but not "出售我的匕首"
            mine = starts_with(first, after, self.book.list("mine"))
            return (starts_with(first, after, self.book.list("me")) and not mine) or self.has(
                "to_me", after
            )
        near = after if self.spaced else after[:6]
        if starts_with(first, after, self.book.list("mine")) or self.has("from_me", near):
            return True
        return not self.spaced and self.has("from_me", before[-4:])

    def clitic(self, before: str) -> bool:
        """ "me vendes", "¿me puedes vender?": "me" on the verb, or on the modal before it."""
        words, me = _WORD.findall(before), self.book.list("me")
        if words and words[-1] in me:
            return True
        return len(words) > 1 and words[-2] in me and self.modal(words[-1])

    def modal(self, text: str) -> bool:
        return any(text.endswith(fold(m)) for m in self.book.list("you_modals"))

    def speaker(self, cue: Span, clause: Clause) -> bool:
        """Whether the speaker does the verb: a first-person form, or "I" nearer than "you"."""
        if self.book.language == "es":
            before = " ".join(_WORD.findall(self.text[clause.start : cue.start])[-3:])
            return not cue.key.endswith("_you") and not self.modal(before)
        return self.last_subject(cue, clause) == "self"

    def other(self, cue: Span, clause: Clause) -> bool:
        if self.book.language == "es":
            return not self.speaker(cue, clause)
        return self.last_subject(cue, clause) == "you"

    def last_subject(self, cue: Span, clause: Clause) -> str:
        before = self.text[clause.start : cue.start]
        marks = [(s, "self") for s, _ in self.find("self", before)]
        marks += [(s, "you") for s, _ in self.find("you", before)]
        return max(marks)[1] if marks else ""

    def referent(self, cue: Span, high: int) -> str:
        """What "it" means: an item named elsewhere in the sentence, else the one in hand."""
        if not self.it(cue, self.clause_of(cue).start, high) and not self.dropped(cue, high):
            return ""
        if self.items:
            return self.items[0].key
        return self.scene.me.in_hand or ""

    def dropped(self, cue: Span, high: int) -> bool:
        """Chinese drops the pronoun: "绳子？我卖给你" sells the rope (nothing but whom after)."""
        rest = self.words_after(cue, high)
        whom = {*self.book.list("you"), *self.book.list("people")}
        return not self.spaced and (not rest or rest in whom)

    def give(self, cue: Span, item: Span | None, low: int, high: int) -> Reading | None:
        after = self.text[cue.end : high]
        if self.has("to_me", after) or self.has("show", self.text[cue.start : high]):
            return None
        if item is not None:
            return Reading("give", item.key, self.words_after(cue, high))
        if self.recipient(cue, low, high):
            held = self.referent(cue, high)
            return Reading("give", held) if held else None
        return None

    def recipient(self, cue: Span, low: int, high: int) -> bool:
        """Whether someone is given to: "to …", "le/les", a person's pronoun or name."""
        after, before = self.text[cue.end : high], self.text[low : cue.end]
        if self.has("to", after) or self.has("people", after) or self.has("people", before):
            return True
        return not self.spaced and bool(after.strip())  # 交给他, 给狗: who follows the verb

    def hold(self, kind: str, item: Span | None, cue: Span, low: int, high: int) -> Reading | None:
        if item is not None:
            here = {i.id for i in self.scene.items_here()}
            mine = {i.id for i in self.scene.carried()}
            taking = cue_text(self, cue) in {fold(w) for w in self.book.list("take_like")}
            if item.key in here or (taking and item.key not in mine):
                return None  # a thing to pick up: the take move's
            return Reading(kind, item.key)
        if self.has("weapons", self.text[low:high]):  # "draw my weapon", "把武器收起来", "收刀"
            return Reading(kind, "", self.words_after(cue, high) or self.weapon_word(low, high))
        if kind == "unequip" and self.it(cue, low, high) and self.scene.me.in_hand:
            return Reading(kind, self.scene.me.in_hand)
        return None

    def soft(self, item: Span | None, cue: Span, high: int) -> Reading | None:
        meant = item.key if item is not None else self.referent(cue, high)
        if not meant and not self.words_after(cue, high) and self.items:
            meant = self.items[0].key  # "面包多少钱？我要了": taking what was just named
        return Reading("buy", meant) if meant and self.for_sale(meant) else None

    def please(self) -> Reading | None:
        """ "A loaf of bread, please": a clause of an item and courtesy alone."""
        for clause in self.clauses:
            body = self.text[clause.start : clause.end]
            named = [m for m in self.items if clause.start <= m.start < clause.end]
            if len(named) != 1 or not self.has("please", body):
                continue
            rest = body[: named[0].start - clause.start] + " " + body[named[0].end - clause.start :]
            for phrase in self.book.list("please"):
                rest = rest.replace(fold(phrase), " ")
            left = [w for w in _WORD.findall(rest) if w not in self.book.list("fillers")]
            if not self.spaced:
                left = [strip_cjk("".join(left), self.book.list("fillers"))] if left else []
            if not [w for w in left if w] and self.for_sale(named[0].key):
                return Reading("buy", named[0].key)
        return None

    def for_sale(self, item_id: str) -> bool:
        """A trader here sells it, and it is neither his nor lying at his feet."""
        item = self.scene.gm.items_by_id[item_id]
        if item in self.scene.carried() or item in self.scene.items_here():
            return False
        return any(market.offer(shop, item_id) for shop in market.shops_here(self.scene))


def cue_text(reader: Reader, cue: Span) -> str:
    return reader.text[cue.start : cue.end]
