"""The player character's deeds told one after another (issue 34 §2: "Abres la puerta, coges la
gema y huyes corriendo": three actions narrated).

A narrator chains a character's deeds as clauses of one subject joined by commas, "and",
"then", "y", "luego", "然后", "又": "You bribe the stable boy, saddle a horse and ride off",
"Ren pockets the tankard, tips his hat to Hilda and walks out". The chain's subject is the
player's character ("you", his name, a pronoun for him) until another subject opens a clause.
Each clause of the chain holds at most one deed (a Chinese one may hold more: ``several_zh``):
its head verb, past the joining words, adverbs and clitics. A head is a deed when it is a verb
of doing, moving, taking, giving, attacking or asking, or, in English and Spanish, a word that
stands as a verb (a second-person form, or a word followed by its object: "saddle a horse",
"slam your fist"). Not deeds: how it is done ("whistling", "silbando"), looks, gestures,
postures, what is said along the way, what is wanted, tried, asked, negated or to come, an
infinitive ("vas a pagar, recoger la capa"), a clause of time ("before anyone can stop you")
and the verbs of ``chain_not_deeds``.
"""

from __future__ import annotations

from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.several_scope import scoped_out
from engine.gm.closure_rules.several_zh import events_by_start, zh_deeds, zh_topic
from engine.gm.closure_rules.text import Clause, Doc
from engine.gm.closure_rules.tokens import Token

_DEEDS_TEXT = (
    "go enter arrive leave flee climb acquire give drop buy sell pay pawn settle open close "
    "search hide attack consume rest gather light talk tell act kill hold spend"
)
DEEDS = frozenset(_DEEDS_TEXT.split())
NOT_DEEDS = frozenset(
    ("perceive", "gesture", "posture", "speech", "volition", "own", "learn", "find")
)
_SKIP = ("joiners", "coordinators", "conjunctions", "subjects", "sequence_first", "sequence_then")
_FOLLOW = ("determiners", "articles", "object_preps", "chain_particles", "pron_it", "pron_obj")
THING = Ref("thing")
NEW_EFFECT = frozenset(["give", "attack", "consume", "trade", "kill"])  # "…and hurl it at him"
_ONE_GO = frozenset(["move", "consume", "rest"])  # "go down the stairs and step into the dark"
_AFTER_DRINK = frozenset(["give", "drop", "deed"])  # "drain your tankard and set it down"
FAMILY = {
    "go": "move",
    "enter": "move",
    "arrive": "move",
    "leave": "move",
    "flee": "move",
    "climb": "move",
    "acquire": "take",
    "buy": "trade",
    "sell": "trade",
    "pay": "trade",
    "pawn": "trade",
    "settle": "trade",
    "close": "open",
    "tell": "talk",
}
_SECOND = ("as", "es", "ás", "és", "aste", "iste", "abas", "ías", "aras", "ieras")
_INFINITIVE = ("ar", "er", "ir", "arse", "erse", "irse", "arte", "erte", "irte", "arla", "arlo")


def chained_deeds(reading: Reading) -> int:
    """How many deeds of the player's character the narration chains, a deed done to "it"
    (the thing just handled: "take the rope and tuck it away") or a step of the same kind
    ("go down the stairs and step into the dark") counted with the one before it."""
    count, last, deed = 0, "", ""
    for family, on_it in _deeds(reading):
        if not family:
            last = ""  # a clause between: "climb onto a table and give a toast, then leap"
            continue
        same = family == last and family in _ONE_GO
        handled = on_it and family not in NEW_EFFECT
        if not (handled or same or (family in _AFTER_DRINK and deed == "consume")):
            count += 1
        last = deed = family
    return count


def _deeds(reading: Reading) -> list[tuple[str, bool]]:
    """The chained deeds in order: each one's kind and whether it is done to "it"."""
    doc, me = reading.doc, player(reading)
    out: list[tuple[str, bool]] = []
    agent: Ref | None = None
    sentence, listed = -1, listed_intent(reading)
    for clause in doc.clauses:
        if clause.sentence != sentence:
            agent, sentence = None, clause.sentence
        if clause.quoted or clause.question:
            agent = None
            continue
        who, head = _subject_and_head(reading, clause)
        if who is None and head is not None and agent is None:
            who = _implied(reading, clause, head)
        if who is not None:
            agent = who
        if agent not in me or head is None or _subordinate(doc, clause) or clause.index in listed:
            continue
        if agent == YOU and not _second_person_fits(doc, clause, head):
            continue
        if not doc.spaced:
            groups = events_by_start(reading, clause)
            families = zh_deeds(
                reading, clause, me, {s: _family(reading, g, me) for s, g in groups.items()}
            )
            out += [(f, n == 0 and on_it(doc, clause, head)) for n, f in enumerate(families)]
            continue
        out.append((_deed(reading, clause, head, me), on_it(doc, clause, head)))
    return out


def listed_intent(reading: Reading) -> set[int]:
    """The clauses of a wish ("你真想付了钱") and those listed after a wish or a plan ("、拿上
    外衣就走", "你要付钱、拿衣服、走人"): the enumeration comma carries the intent over."""
    doc = reading.doc
    wishes = doc.of("chain_intent")
    out = {c.index for c in doc.clauses if any(c.start <= h.start < c.end for h in wishes)}
    wished = set(out)
    marks = doc.words.list("chain_list_marks")
    for clause in doc.clauses[1:]:
        before = doc.clauses[clause.index - 1]
        if before.sentence != clause.sentence:
            continue
        if before.index in wished and _coordinated(doc, clause):
            out.add(clause.index)  # "you'd love to grab the key and run"
            wished.add(clause.index)
        elif doc.text[before.end - 1 : before.end] in marks and (
            before.index in out or _intended(reading, before)
        ):
            out.add(clause.index)
    return out | scoped_out(reading)


def _coordinated(doc: Doc, clause: Clause) -> bool:
    """The clause goes on the list of the one before: after a comma, "and", "or", "y"."""
    first = doc.tokens[clause.first] if clause.first < clause.last else None
    joined = first is not None and first.fold in doc.words.stems("chain_list_words")
    return joined or doc.text[: clause.start].rstrip()[-1:] in (",", "、", "，")


def _intended(reading: Reading, clause: Clause) -> bool:
    doc = reading.doc
    hits = doc.of("modals", "conditionals")
    if any(clause.start <= h.start < clause.end for h in hits):
        return True
    return any(e.clause.index == clause.index and e.modal for e in reading.events)


def thing_subjects(reading: Reading) -> set[int]:
    """The clauses a thing opens as their subject ("灯也点上了"): no deed of anyone's."""
    out: set[int] = set()
    for clause in reading.doc.clauses:
        if not reading.doc.spaced and _subject_and_head(reading, clause)[0] == THING:
            out.add(clause.index)
    return out


def player(reading: Reading) -> set[Ref]:
    """The acting player's character as the narration names it: "you", his name."""
    return {YOU, Ref("pc", reading.facts.character_id)}


def _subject_and_head(reading: Reading, clause: Clause) -> tuple[Ref | None, int | None]:
    """The person who opens the clause (None: no new subject) and its head word's index."""
    doc, who = reading.doc, None
    n = clause.first
    while n < clause.last:
        token = doc.tokens[n]
        mention = next((m for m in reading.mentions if m.start == token.start), None)
        if mention is not None and mention.ref.person and who is None and not _object(doc, n):
            who = mention.ref
            while n < clause.last and doc.tokens[n].end <= mention.end:
                n += 1
            continue
        if skippable(doc, token):
            n += 1
            continue
        if who is None and not doc.spaced and mention is None and zh_topic(doc, clause, n):
            return THING, n  # "灯也点上了": the lamp was lit
        return who, n
    return who, None


def _implied(reading: Reading, clause: Clause, head: int) -> Ref | None:
    """The subject a verb's own form gives ("Sobornas al mozo": you), where none is named."""
    token = reading.doc.tokens[head]
    actors = {e.actor for e in _head_events(reading, clause, head) if e.start == token.start}
    if YOU in actors:
        return YOU
    second = reading.doc.language == "es" and verb_like(reading.doc, clause, head)
    return YOU if second else None


def _object(doc: Doc, n: int) -> bool:
    """A Spanish clitic or an English object pronoun is no subject ("te", "le", "him")."""
    return doc.tokens[n].fold in doc.words.stems("chain_object_words")


def skippable(doc: Doc, token: Token) -> bool:
    """A joining word, an adverb or a subject word before a clause's verb."""
    if any(doc.words.has(token, k) for k in _SKIP) or token.fold in doc.words.stems("chain_skip"):
        return True
    if doc.language == "en":
        return token.fold.endswith("ly") and len(token.fold) > 4
    return doc.language == "es" and token.fold.endswith("mente")


def _subordinate(doc: Doc, clause: Clause) -> bool:
    """A clause of time or purpose around the deed: "before anyone can stop you", "醒来时"."""
    first = doc.tokens[clause.first] if clause.first < clause.last else None
    if first is not None and first.fold in doc.words.stems("chain_subordinators"):
        return True
    if first is not None and first.fold in doc.words.list("several_relatives"):
        return True  # "…, where the ale is cheaper": it tells of the place, no deed
    ends = doc.words.list("chain_subordinators_after")
    return bool(ends) and doc.text[clause.start : clause.end].rstrip(" ，,、；;").endswith(ends)


def _deed(reading: Reading, clause: Clause, head: int, me: set[Ref]) -> str:
    """The head's kind of deed ("" when it is none): its family of action, "deed" for a
    verb the lexicon does not class."""
    doc = reading.doc
    events = _head_events(reading, clause, head)
    if _badly(doc, head):
        return ""
    if events:
        return _family(reading, events, me)
    if _modal_at(doc, doc.tokens[head]) and not _with_object(doc, head):
        return ""  # "try to open it" is a try; "try the door" a deed
    if not verb_like(doc, clause, head) or _limb(doc, clause, head):
        return ""  # "you plant a hand on the bar": a gesture that readies the deed
    return "move" if doc.words.has(doc.tokens[head], "chain_move_verbs") else "deed"


def handed(reading: Reading, event: Event) -> bool:
    """A giving verb hands something over: a thing, to someone, or money ("two coins"); a
    Chinese one says to whom in the verb itself ("扔给了老王")."""
    if event.recipient not in (None, event.actor) or any(not r.person for r in event.objects):
        return True
    if not reading.doc.spaced and any(r != event.actor for r in event.objects):
        return True
    clause = event.clause
    return any(
        clause.start <= h.start < clause.end for h in reading.doc.of("money_nouns", "amounts")
    )


def _badly(doc: Doc, head: int) -> bool:
    """ "Mides mal la distancia", "you judge it badly": a blunder, not a deed."""
    after = doc.tokens[head + 1 : head + 3] if doc.spaced else []
    return any(doc.words.has(t, "chain_badly") for t in after)


def _second_person_fits(doc: Doc, clause: Clause, head: int) -> bool:
    """A Spanish verb tells its subject: in a chain of "you" a third-person form ("y han
    encendido los candiles") is someone else's deed."""
    if doc.language != "es":
        return True
    lead = doc.tokens[max(clause.first, head - 2) : head]
    if any(t.fold in ("te", "tu") for t in lead):
        return True
    finite = next((t for t in lead if t.fold in doc.words.stems("chain_auxiliaries")), None)
    word = (finite or doc.tokens[head]).fold
    return word.endswith(_SECOND) or (finite is None and not _conjugated(word))


def _conjugated(word: str) -> bool:
    """A Spanish form that is plainly not the second person: "-aron", "-ieron", "-an", "-en"."""
    return word.endswith(("aron", "ieron", "an", "en", "ó")) and len(word) > 4


def _family(reading: Reading, events: list[Event], me: set[Ref]) -> str:
    """The family of one verb's events ("" when it is no deed of the character's)."""
    if any(e.key in NOT_DEEDS or e.negated or e.modal for e in events):
        return ""
    if not all(e.actor is None or e.actor in me or e.actor.kind == "thing" for e in events):
        return ""
    if any(e.key == "drop" and not _item(e) for e in events):
        return ""  # "you drop softly on the other side", "把碗放下": the deed's own end
    keys = [
        e.key
        for e in events
        if e.key in DEEDS and e.key != "act" and (e.key != "give" or handed(reading, e))
    ]  # "te das de bruces", "pasas junto a Bruno": nothing handed over
    return FAMILY.get(keys[0], keys[0]) if keys else ""


def _item(event: Event) -> bool:
    return any(r.kind == "item" for r in event.objects)


def _head_events(reading: Reading, clause: Clause, head: int) -> list[Event]:
    """The events of the clause's head verb; in Chinese the clause's last verb, past the
    verbs used as prepositions ("冲小梅笑了笑", "朝古井走去", "把碗放下")."""
    doc, token = reading.doc, reading.doc.tokens[head]
    if doc.spaced:  # a Spanish clitic may open the verb's span: "le das vueltas"
        lead = doc.tokens[max(clause.first, head - 2) : head]
        starts = {token.start} | {t.start for t in lead if doc.words.has(t, "chain_object_words")}
        return [e for e in reading.events if e.start in starts]
    inside = [e for e in reading.events if e.clause.index == clause.index]
    tail = doc.tokens[clause.last - 1].start if clause.last > clause.first else -1
    preps = doc.words.stems("object_preps")
    inside = [e for e in inside if e.start >= tail or doc.text[e.start : e.end] not in preps]
    last = max((e.start for e in inside), default=-1)
    return [e for e in inside if e.start == last]


def on_it(doc: Doc, clause: Clause, head: int) -> bool:
    """The deed's object is "it", the thing of the deed before: "tuck it into your pack",
    "te la bebes", "把它放下"."""
    words = doc.words.stems("chain_it_words")
    if not doc.spaced:
        return any(
            w in doc.text[clause.start : clause.end] for w in doc.words.list("chain_it_words")
        )
    near = doc.tokens[head + 1 : min(clause.last, head + 2)] if doc.language == "en" else []
    near += doc.tokens[max(clause.first, head - 2) : head] if doc.language == "es" else []
    return any(t.fold in words for t in near)


def _with_object(doc: Doc, head: int) -> bool:
    after = doc.tokens[head + 1 : head + 2]
    return bool(after) and any(doc.words.has(after[0], k) for k in ("articles", "determiners"))


def _modal_at(doc: Doc, token: Token) -> bool:
    return any(h.start == token.start for h in doc.of("modals", "negations", "conditionals"))


def verb_like(doc: Doc, clause: Clause, head: int) -> bool:
    """A word unknown to the lexicon that stands as a verb: "saddle a horse", "sobornas al
    mozo"; not a manner ("whistling"), an infinitive, a name, a noun or a non-deed."""
    token = doc.tokens[head]
    word = token.fold
    if len(word) < 3 or not word.isalpha() or token.stem in doc.words.stems("chain_not_deeds"):
        return False
    if word.endswith(("ing", "ando", "iendo")):
        return False  # how it is done: "walks out whistling"
    if token.text[:1].isupper() and head != clause.first:
        return False  # a name
    if doc.language == "es":  # and its clause goes on: "Adoquines, toldos…" is no verb
        return (
            not word.endswith(_INFINITIVE)
            and word.endswith(("as", "es", "ás", "és"))
            and head + 1 < clause.last
        )
    after = doc.tokens[head + 1] if head + 1 < clause.last else None
    if after is None or not any(doc.words.has(after, k) for k in _FOLLOW):
        return False
    bare = doc.words.has(after, "object_preps") and not doc.words.has(after, "chain_particles")
    return not bare or _after_subject(doc, clause, head)  # "back to the wall": no verb


def _after_subject(doc: Doc, clause: Clause, head: int) -> bool:
    """The word follows its subject right away ("you head for the door")."""
    return head > clause.first and doc.words.has(doc.tokens[head - 1], "you")


def _limb(doc: Doc, clause: Clause, head: int) -> bool:
    """The unclassed verb's object is a hand, a foot, a knee, and "and" joins it to the deed it
    readies ("plant a hand on the bar and jump", "apoyas el codo y empujas"); a gesture of its
    own in a list ("slam your fist on the bar, demand answers") is still a deed."""
    after = doc.clauses[clause.index + 1 : clause.index + 2]
    if not after or after[0].sentence != clause.sentence:
        return False
    gap = doc.text[clause.end : after[0].start].split() or [","]
    joined = [t for t in doc.tokens[clause.last : after[0].first + 1] if t.fold == gap[-1]]
    if not joined or not doc.words.has(joined[0], "coordinators"):
        return False
    for token in doc.tokens[head + 1 : min(clause.last, head + 4)]:
        if doc.words.has(token, "several_limb_nouns"):
            return True
        if not any(doc.words.has(token, k) for k in ("determiners", "articles")):
            return False
    return False
