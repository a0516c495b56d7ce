"""Whether a line puts its action in the future (seed 001 "Acciones sugeridas": "Son reacciones a
lo que acaba de pasar, no planes a futuro"; issue 34 §4).

A plan is read from the verb and from time words, per language, over ``engine.gm.language``'s
words and the closed classes of ``lexicon/grammar.<lang>.json``:

- the future's morphology: English "will", "'ll", "going to" + verb; Spanish synthetic futures
  read from the ending on an infinitive or an irregular future stem ("iré", "buscaremos",
  "haré") and "voy a" + infinitive; Chinese 将/将要, and 要/会 after a subject before a verb
  (jieba's tags tell "我要去" from "要一杯酒");
- a time word that dates the action itself: "tomorrow", "tonight", "later", "esta noche",
  "después", "明天", "之后"…, a time noun after an opener ("at dawn", "al amanecer"), a clause
  that waits for a moment ("When she leaves, …", "Cuando anochezca", "等天黑了再…").

What is not a plan: a time word inside what is said or asked ("Ask about tomorrow's market",
"Preguntar qué pasará mañana", "问问她明天去不去"), a modifier ("the festival of tonight",
"明天的集市"), a past ("last night", "昨晚"), a duration that starts now ("Rest until dawn",
"Esperar al anochecer") unless something follows it ("…, then sneak in", "等天黑再…"), and a
future asked of someone ("Will you help me?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engine.gm.language import Grammar, code, grammar, stem, tag_zh, tokens


@dataclass(frozen=True)
class _Line:
    lang: str
    words: tuple[str, ...]
    tags: tuple[str, ...]  # Chinese parts of speech; empty strings elsewhere
    grammar: Grammar
    question: bool

    def at(self, index: int) -> str:
        return self.words[index] if 0 <= index < len(self.words) else ""

    def tag(self, index: int) -> str:
        return self.tags[index] if 0 <= index < len(self.tags) else ""

    def has(self, index: int, key: str) -> bool:
        return self.at(index) in self.grammar.words(key)

    def phrase(self, start: int, key: str) -> int:
        """The length of the longest phrase of ``key`` starting at ``start`` (0: none)."""
        glue = "" if self.lang == "zh" else " "
        for size in (4, 3, 2, 1):
            said = glue.join(self.words[start : start + size])
            if start + size <= len(self.words) and said in self.grammar.words(key):
                return size
        return 0


def plan_marker(text: str, language: str | None) -> str | None:
    """The words that put ``text``'s own action in the future, or None when it is not a plan."""
    line = _line(text, language)
    reported = _reported(line)
    for index in range(len(line.words)):
        if index in reported:
            continue
        hit = _future_verb(line, index) or _time(line, index) or _waiting(line, index)
        hit = hit or _sequence(line, index)
        if hit:
            return hit
    return None


def _line(text: str, language: str | None) -> _Line:
    lang = code(language)
    if lang == "zh":
        tagged = [(w.lower(), t) for w, t in tag_zh(text.lower()) if _wordlike(w)]
        words, tags = tuple(w for w, _ in tagged), tuple(t for _, t in tagged)
    else:
        words = tuple(tokens(text, lang))
        tags = ("",) * len(words)
    book = grammar(lang)
    question = any(mark in text for mark in book.words("question_marks"))
    return _Line(lang, words, tags, book, question)


def _wordlike(word: str) -> bool:
    return any(ch.isalnum() for ch in word)


# --- what is said or asked ---------------------------------------------------------------------


def _reported(line: _Line) -> set[int]:
    """The words inside what the line says or asks ("Ask whether she will come tonight"): after
    a speech verb, from a clause opener on; a topic's first words ("about tomorrow's market");
    the words after a genitive ("la fiesta de mañana")."""
    out: set[int] = set()
    speech = to_verb = False
    for index, word in enumerate(line.words):
        if index in out:
            continue
        if line.has(index - 1, "genitives") or (word.endswith("'s") and line.lang == "en"):
            out.add(index)
        if speech and (line.phrase(index, "clause_openers") or (to_verb and word == "to")):
            return out | set(range(index, len(line.words)))
        if speech and line.has(index, "topic_openers"):
            out |= _topic(line, index + 1)
        if _speech_verb(line, word):
            speech, to_verb = True, to_verb or _to_verb(line, word)
            if line.lang == "zh":
                return out | set(range(index + 1, len(line.words)))
    return out


def _topic(line: _Line, start: int) -> set[int]:
    """The first words of a topic: its determiners and the word they lead to."""
    index = start
    while line.has(index, "determiners"):
        index += 1
    return set(range(start, index + 1))


def _speech_verb(line: _Line, word: str) -> bool:
    return word in line.grammar.words("speech_verbs") or (
        line.lang != "zh" and stem(word, line.lang) in _stems(line.lang, "speech_verbs")
    )


def _to_verb(line: _Line, word: str) -> bool:
    return stem(word, line.lang) in _stems(line.lang, "to_verbs")


@lru_cache(maxsize=16)
def _stems(lang: str, key: str) -> frozenset[str]:
    return frozenset(stem(w, lang) for w in grammar(lang).words(key))


# --- the verb --------------------------------------------------------------------------------


def _future_verb(line: _Line, index: int) -> str | None:
    word = line.at(index)
    if line.phrase(index, "plan_verbs") and not line.has(index - 1, "determiners"):
        return word
    if line.question:
        return None  # a future asked of someone ("Will you help?") is a request made now
    if line.lang == "en":
        return _future_en(line, index)
    if line.lang == "es":
        return _future_es(line, index)
    return _future_zh(line, index)


def _future_en(line: _Line, index: int) -> str | None:
    word, before, after = line.at(index), line.at(index - 1), line.at(index + 1)
    noun = before in line.grammar.words("determiners") or before.endswith("'s")  # "his will"
    if line.has(index, "future_aux") and not noun:
        return word
    if any(word.endswith(c) for c in line.grammar.words("future_clitics")):
        return word
    if line.has(index, "going") and line.has(index + 1, "going_particle"):
        verb = line.at(index + 2)
        if verb and not line.has(index + 2, "function") and not line.has(index + 2, "determiners"):
            return f"{word} {after} {verb}"
    return None


def _future_es(line: _Line, index: int) -> str | None:
    word = line.at(index)
    if _synthetic_future(word):
        return word
    verb = line.at(index + 2)
    going = line.has(index, "going") and line.has(index + 1, "going_particle")
    if going and _INFINITIVE.fullmatch(verb) and len(verb) > 3:
        return f"{word} a {verb}"
    return None


def _synthetic_future(word: str) -> bool:
    """Spanish "iré", "buscarás", "haremos": a future ending on an infinitive or an irregular
    future stem (an accent carries the ending, so "está" and "jamás" are not futures)."""
    table = grammar("es").table("future_endings")
    for ending in table:
        rest = word[: -len(ending)]
        if word.endswith(ending) and len(rest) >= 2:
            if rest in _ES_STEMS or rest in grammar("es").table("future_not_stems"):
                return rest in _ES_STEMS
            if re.fullmatch(r"\w*(?:ar|er|ir)", rest):  # "iré" is "ir" + "é"
                return ending != "emos" or not rest.endswith("er") or len(rest) > 4
    return False


def _future_zh(line: _Line, index: int) -> str | None:
    word = line.at(index)
    verb_next = line.tag(index + 1).startswith(("v", "t", "p", "d"))  # "我会在这儿等"
    if line.has(index, "future_aux") and not line.tag(index + 1).startswith(("n", "r", "m")):
        return word
    if line.has(index, "future_modal_words") and verb_next:
        return word
    if line.has(index, "future_modals") and line.has(index - 1, "subjects") and verb_next:
        return word
    return None


# --- time -------------------------------------------------------------------------------------


def _time(line: _Line, index: int) -> str | None:
    """A time word that dates the action: "tomorrow", "esta noche", "at dawn", "明天"…"""
    size = line.phrase(index, "time_future")
    if size and not line.has(index - 1, "determiners"):  # "la mañana" is the morning
        return _dated(line, index, index + size)
    if line.has(index, "time_nouns") and _opened(line, index):
        return _dated(line, index, index + 1)
    if _weekday(line, index) or _glued_time(line, index):
        return _dated(line, index, index + 1)
    if line.has(index, "time_next") and not line.has(index - 1, "determiners"):
        following = line.at(index + 1)
        if following and not line.has(index + 1, "function"):
            return f"{line.at(index)} {following}"
    return None


def _opened(line: _Line, index: int) -> bool:
    """A time noun said as a moment: after an opener ("at dawn", "in the morning", "al alba"),
    or in Chinese as the sentence's time (not "昨晚")."""
    if line.has(index - 1, "time_past") or line.has(index + 1, "time_past"):
        return False
    if line.lang == "zh":
        return not line.tag(index - 1).startswith("v")  # "看看日落" watches it
    if line.has(index - 1, "time_adjectives"):  # "at first light", "a primera hora"
        index -= 1
    if line.has(index - 1, "time_openers") or line.has(index - 1, "durations"):
        return True
    return line.at(index - 1) in ("the", "la", "el") and line.at(index - 2) in ("in", "por")


def _weekday(line: _Line, index: int) -> bool:
    """A day of the week that dates the action ("On Sunday, go…", "El domingo iré…", "周日去…"),
    not one that is past ("last Sunday", "el domingo pasado") or owns a noun ("la misa del
    domingo", "周日的集市")."""
    if not line.has(index, "weekdays") or line.has(index - 1, "genitives"):
        return False
    near = (index - 2, index - 1, index + 1)
    return not any(line.has(i, "time_past") for i in near)


def _glued_time(line: _Line, index: int) -> bool:
    """Chinese words jieba glues to a time word ("改天再来" is one token): the token starts with
    a future time word of two characters or more."""
    if line.lang != "zh":
        return False
    word = line.at(index)
    return any(
        word.startswith(time) and word != time and len(time) > 1
        for time in line.grammar.words("time_future")
    )


def _dated(line: _Line, start: int, end: int) -> str | None:
    """The time words, unless they modify a noun ("明天的集市") or are a duration from now
    ("until dawn") that nothing follows."""
    words = " ".join(line.words[start:end])
    if line.has(start - 1, "time_past"):
        return None
    if line.has(end, "genitives"):
        return words if line.at(end + 1) in ("时候", "时") else None
    if _after_duration(line, start):
        return words if _then_after(line, end) else None
    return words


def _after_duration(line: _Line, index: int) -> bool:
    """A wait within the two words before: "until dawn", "esperar al anochecer", "等到天亮"."""
    return any(line.has(i, "durations") for i in range(max(0, index - 2), index))


def _then_after(line: _Line, start: int) -> bool:
    """Something follows the wait ("…, then sneak in", "等天黑了再…")."""
    return any(line.has(i, "then") for i in range(start, len(line.words)))


def _waiting(line: _Line, index: int) -> str | None:
    """A clause that waits for a moment before the action: "When she leaves, …", "Cuando
    anochezca, …", "等她走了再…"."""
    if index != 0 or line.question:
        return None
    size = line.phrase(0, "future_clauses")
    if not size:
        return None
    if line.lang == "zh" and not (_then_after(line, size) or _wait_ends(line, size)):
        return None
    return " ".join(line.words[:size])


def _wait_ends(line: _Line, start: int) -> bool:
    """A Chinese wait that ends before the action: "等天黑了溜进…", "等风暴过去，划船…" (a word
    between 等 and the end, so "等了很久" is a past wait)."""
    return any(line.has(i, "wait_ends") for i in range(start + 1, len(line.words)))


def _sequence(line: _Line, index: int) -> str | None:
    """Chinese "X 再 Y": do X, and only then Y ("睡一觉起来再去找…") is a plan; a leading 再
    ("再看看") only repeats."""
    if line.lang != "zh" or index < 1 or not line.has(index, "sequence_then"):
        return None
    before = any(line.tag(i).startswith(("v", "i", "l")) for i in range(index))
    return line.at(index) if before and line.tag(index + 1).startswith("v") else None


_ES_STEMS = frozenset(grammar("es").table("future_stems"))
_INFINITIVE = re.compile(r"\w+" + str(grammar("es").table("infinitive")))
