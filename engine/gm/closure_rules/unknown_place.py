"""Rule: a place or point that does not exist, or that the character has not found, is named
(seed 001 "se inventa un punto que no existe"; GAME_MASTER.md K-2; issue 32 finding 7).

A place noun ("trapdoor", "escaleras", "密道") is grounded when the world lets the character
speak of it here: the location's description and ambient lines, the places and points he
knows (any place of the world in people's mouths: they know their village), the exits and
where they lead, the items and people in view, his clues, what the tools applied this turn
said. Nouns are compared by stem ("trampillas" is "trampilla"), negated or asked ones skipped
("There is no trapdoor here"). The narrator never names a place of the world the character
has not discovered, nor a hidden point he has not found ("the loose stone in the niche").
Besides the place words of the lexicon, the head noun of where a move goes is judged, whatever
the word ("onto the veranda": ``place_motion``); a place asked back, denied, supposed,
imagined, remembered, told as a story or reported from someone's mouth is no claim about the
scene (``place_frames``).
"""

from __future__ import annotations

from functools import lru_cache

from engine.gm.closure_rules.events import negated
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.lexicon import Hit
from engine.gm.closure_rules.place_forms import small_places
from engine.gm.closure_rules.place_frames import unreal
from engine.gm.closure_rules.place_motion import destinations
from engine.gm.closure_rules.place_named import named_places
from engine.gm.closure_rules.place_sought import sought
from engine.gm.closure_rules.possessor import owner
from engine.gm.closure_rules.tokens import phrase_stems, tokenize
from engine.gm.language import tag_zh
from engine.gm.mentions import fold, spans

_ONE_TEXT = (
    "a an another other some next neighbouring neighboring nearby distant far un una unos unas "
    "otro otra vecino vecina cercano cercana siguiente próximo próxima lejano lejana"
)
_ONE = frozenset(_ONE_TEXT.split())
_ZH_ONE = ("一个", "一座", "一处", "另一个", "另一座", "别的", "邻近的", "附近的", "隔壁", "邻")


def unknown_place(reading: Reading) -> bool:
    scene, doc = reading.scene, reading.doc
    if _names_undiscovered(reading) or _hidden_named(reading):
        return True
    if _upper_floor(reading):
        return True
    named = named_places(reading)  # "the Blue Boar": judged by the whole name
    found = [
        h
        for h in [
            *doc.of("place_nouns"),
            *small_places(reading),
            *_by_suffix(reading),
            *_rooms(reading),
        ]
        if not any(n.start <= h.start < n.end for n in named)
    ]
    found += named
    found += [
        h for h in destinations(reading) if not any(f.start <= h.start < f.end for f in found)
    ]
    nouns = [h for h in found if _stated(reading, h)]
    if not nouns:
        return False
    steps = ""
    if any(e.direction in ("up", "down") for e in scene.exits()):
        steps = " ".join(reading.doc.words.list("exit_nouns"))
    stairs = [h for h in doc.of("exit_nouns") if _stated(reading, h)]
    if any(_wrong_way(reading, h) for h in [*nouns, *stairs]):
        return True
    said = list(nouns)
    mine = [h for h in nouns if not doc.in_quotes(h.start)]
    known = _known(reading, steps, discovered=False)
    if any(not _grounded(reading, h, known) for h in said):
        return True
    if not mine:
        return False
    known = _known(reading, steps, discovered=True)
    return any(not _grounded(reading, h, known) for h in mine)


def _by_suffix(reading: Reading) -> list[Hit]:
    """Nouns a place-word ends with ("guardhouse", "鱼市", "储藏室"): in Chinese a noun of the
    segmenter ending in a character of buildings and grounds, in English a compound."""
    doc = reading.doc
    ends = tuple(doc.words.list("place_suffixes"))
    if not ends:
        return []
    taken = {(h.start, h.end) for h in doc.hits.get("place_nouns", ())}
    out: list[Hit] = []
    if doc.spaced:
        for n, token in enumerate(doc.tokens):
            word = token.light
            long_enough = any(len(word) - len(e) > 3 for e in ends if word.endswith(e))
            if long_enough and not any(a <= token.start < b for a, b in taken):
                out.append(Hit("place_nouns", token.start, token.end, n, n + 1))
        return out
    stop = set(doc.words.list("place_suffix_stop"))
    at = 0
    for word, tag in tag_zh(doc.text):
        start = doc.text.find(word, at)
        if start < 0:
            continue
        at = start + len(word)
        if len(word) < 2 or word in stop or not tag.startswith(("n", "s")):
            continue
        if word.endswith(ends) and not any(a <= start < b for a, b in taken):
            n = next((i for i, t in enumerate(doc.tokens) if t.end > start), 0)
            out.append(Hit("place_nouns", start, at, n, n + 1))
    return out


def _rooms(reading: Reading) -> list[Hit]:
    """A room named by its kind, another room than the one the character stands in: "the
    gaming room", "a private booth", "la sala de juego", "el cuarto de atrás" (a room word with
    a kind before it, or in Spanish "de" and a noun after it); "the room", "la sala de la
    posada" are no new place."""
    doc = reading.doc
    out: list[Hit] = []
    for head in doc.of("room_heads"):
        n = head.first
        if doc.language == "en" and n > 0 and doc.words.has(doc.tokens[n - 1], "room_kinds"):
            out.append(Hit("place_nouns", doc.tokens[n - 1].start, head.end, n - 1, head.last))
        after = doc.tokens[head.last : head.last + 2]
        kind = len(after) == 2 and after[0].fold == "de" and after[1].fold not in ("la", "las")
        if doc.language == "es" and kind and not doc.words.has(after[1], "determiners"):
            out.append(Hit("place_nouns", head.start, after[1].end, n, head.last + 2))
    return out


def _wrong_way(reading: Reading, hit: Hit) -> bool:
    """Stairs or a ladder told going where no way goes: up from a room whose only stair goes
    down to the cellar ("a narrow stair climbs to the upper rooms"), unless the room's own
    description has them."""
    doc, scene = reading.doc, reading.scene
    if not doc.spaced or not doc.words.has(doc.tokens[hit.first], "exit_nouns"):
        return False
    ways = {e.direction for e in scene.exits()} & {"up", "down"}
    if not ways or _grounded(
        reading, hit, _stems_text(scene.location.description, doc.language, True)
    ):
        return False
    sentence = doc.clause_at(hit.start).sentence
    told = {
        way
        for way in ("up", "down")
        for key in (f"{way}_words", f"place_{way}_words")
        for h in doc.hits.get(key, ())
        if doc.clause_at(h.start).sentence == sentence
    }
    return len(told) == 1 and not told & ways  # "climb down" is no way up


def _upper_floor(reading: Reading) -> bool:
    """An upper floor ("upstairs", "el piso de arriba", "二楼") where no way leads up and the
    room's own words have none."""
    doc, scene = reading.doc, reading.scene
    if any(e.direction == "up" for e in scene.exits()):
        return False
    told = [h for h in doc.of("upper_floor") if _stated(reading, h) and not doc.in_quotes(h.start)]
    room = _stems_text(scene.location.description, doc.language, doc.spaced)
    return any(not _grounded(reading, h, room) for h in told)


def _stated(reading: Reading, hit: Hit) -> bool:
    doc = reading.doc
    if any(i.start <= hit.start < i.end for i in doc.hits.get("place_idioms", ())):
        return False  # "un callejón sin salida", "死胡同"
    if doc.spaced and _verb_here(reading, hit) and not _determined(reading, hit):
        return False  # "El golpe tumba a Marta": a verb, not a tomb
    clause = doc.clause_at(hit.start)
    if clause.question or _supposed(reading, hit) or _not_a_place(reading, hit):
        return False
    if sought(reading, hit):
        return False  # "you look for a staircase, a side door": wanted, not there
    if unreal(reading, hit):
        return False  # asked back, denied, supposed, remembered, a story, hearsay
    return not negated(doc, clause, hit.start, hit.first, hit.last, own=False)


def _supposed(reading: Reading, hit: Hit) -> bool:
    """Supposed or asked about, not there: in the clause of an "if" ("If there were a back
    door", "Si hubiera una puerta trasera", "要是有后门") or of an asking ("you ask about rooms
    upstairs", "preguntas si hay sótano", "你问楼上有没有客房")."""
    doc = reading.doc
    clause = doc.clause_at(hit.start)
    return any(
        clause.start <= h.start < hit.start or (h.start >= hit.end and h.end <= clause.end)
        for h in doc.of("conditionals", "asked_about")
        if h.key == "asked_about" or h.start < hit.start
    )


def _not_a_place(reading: Reading, hit: Hit) -> bool:
    """A place word that is no place here: part of a person's noun ("the stable hand"), a
    container someone owns ("Greta's strongbox", "el cofre de Inés", "小梅的钱箱"), or a
    settlement as the owner of something ("half the village's debts", "半个镇子的债")."""
    doc = reading.doc
    if any(h.start <= hit.start and hit.end <= h.end for h in doc.of("person_nouns")):
        return True
    same = [
        h
        for k in ("container_nouns", "settlement_nouns")
        for h in doc.hits.get(k, ())
        if h.start <= hit.start and hit.end <= h.end
    ]
    if any(h.key == "container_nouns" for h in same):
        who = owner(doc, reading.mentions, hit)
        if who is not None and who.ref.person:
            return True
    if not same or same[0].key != "settlement_nouns":
        return False
    if doc.text[hit.end : hit.end + 3].startswith(("'s", "’s", "的")):
        return True
    return not _indefinite(reading, hit)


def _indefinite(reading: Reading, hit: Hit) -> bool:
    """A settlement named as one more ("a village", "otra aldea", "另一个镇子"): a new place;
    "the village", "el pueblo", "整个镇子" is the one the character is in."""
    doc = reading.doc
    if not doc.spaced:
        return doc.text[max(0, hit.start - 3) : hit.start].endswith(_ZH_ONE)
    near = doc.tokens[max(0, hit.first - 2) : hit.first] + doc.tokens[hit.last : hit.last + 1]
    return any(t.fold in _ONE for t in near)  # "the next village", "el pueblo vecino"


def _verb_here(reading: Reading, hit: Hit) -> bool:
    return any(e.start <= hit.start < e.end for e in reading.events)


def _determined(reading: Reading, hit: Hit) -> bool:
    """An article, a possessive or a preposition just before: a noun ("la tumba")."""
    doc = reading.doc
    before = doc.tokens[max(0, hit.first - 1) : hit.first]
    words = doc.words
    if any(words.has(t, k) for t in before for k in ("determiners", "articles", "object_preps")):
        return True
    # English nouns stack ("wine vault"): a noun before it, no verb, makes it one
    return (
        doc.language == "en"
        and bool(before)
        and not any(e.start <= before[0].start < e.end for e in reading.events)
        and not words.has(before[0], "you")
    )


def _names_undiscovered(reading: Reading) -> bool:
    """The narrator names a place of the world the character has not discovered (a one-word
    name only when written as one, capitalised: "you vault the bar" names no Vault), as a
    fact of the scene: not in speech, a story, a memory or a wondering."""
    scene, doc = reading.scene, reading.doc
    names = [p.name for p in scene.gm.locations if p.name.strip() and not scene.knows_place(p.id)]
    for name in names:
        for start, end in spans(doc.text, name, doc.spaced):
            if doc.in_quotes(start) or doc.clause_at(start).quoted:
                continue
            if doc.spaced and len(name.split()) == 1 and not doc.text[start].isupper():
                continue
            first = next((n for n, t in enumerate(doc.tokens) if t.end > start), 0)
            last = next((n for n, t in enumerate(doc.tokens) if t.start >= end), len(doc.tokens))
            hit = Hit("place_nouns", start, end, first, max(last, first + 1))
            if not unreal(reading, hit, asked=False):
                return True
    return False


def _hidden_named(reading: Reading) -> bool:
    """A hidden point not found yet, named by the narrator as there."""
    scene, doc = reading.scene, reading.doc
    found = set(scene.me.discovered)
    if any(c.name == "discover_hidden_point" for c, _ in reading.ok_calls()):
        return False  # found this turn: the tool's own words say what
    here = scene.location.id + ":"
    for mention in reading.mentions:
        if mention.ref.kind != "hidden" or mention.ref.id in found:
            continue
        if not mention.ref.id.startswith(here):
            continue
        clause = doc.clause_at(mention.start)
        if clause.quoted or clause.question:
            continue
        first = next((n for n, t in enumerate(doc.tokens) if t.start >= mention.start), 0)
        if not negated(doc, clause, mention.start, first, first + 1):
            return True
    return False


def _grounded(reading: Reading, hit: Hit, known: str) -> bool:
    doc = reading.doc
    phrase = doc.text[hit.start : hit.end]
    if not doc.spaced:
        return fold(phrase) in known
    stems = " ".join(phrase_stems(phrase, doc.language, nouns=True))
    return f" {stems} " in known


def _known(reading: Reading, steps: str, *, discovered: bool) -> str:
    """Everything the world lets him speak of as a place now, as one text of stems (with
    ``discovered``, of the world's places only those the character knows)."""
    scene, gm = reading.scene, reading.scene.gm
    here = scene.location
    parts = [here.description, *here.ambient, steps, *reading.doc.words.list("place_self")]
    for place in gm.locations:
        if discovered and not scene.knows_place(place.id):
            continue
        parts += [place.name, *place.aliases, *(p.name for p in place.points)]
        parts += [a for p in place.points for a in p.aliases]
    for point in scene.points():
        parts += [point.name, *point.aliases, point.description]
    for way in scene.exits():
        parts.append(gm.locations_by_id[way.to].description)
    for item in [*scene.items_here(), *scene.carried()]:
        parts += [item.name, *item.aliases, item.description]
    parts += [npc.public_description for npc in scene.npcs()]
    parts += [b.name for b in scene.boards()] + [a for b in scene.boards() for a in b.aliases]
    parts += [gm.clues_by_id[c].text for c in scene.me.clues if c in gm.clues_by_id]
    parts += [str(o.result.get("done", "")) for _, o in reading.ok_calls()]
    return _stems_text(" \n ".join(parts), reading.doc.language, reading.doc.spaced)


@lru_cache(maxsize=512)  # the same room's words, turn after turn
def _stems_text(text: str, language: str, spaced: bool) -> str:
    if not spaced:
        return fold(text)
    stems = [t.light for code in dict.fromkeys((language, "en")) for t in tokenize(text, code)]
    return " " + " ".join(stems) + " "
