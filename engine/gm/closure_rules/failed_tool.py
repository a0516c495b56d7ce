"""Rule: a tool that failed is told as done (seed 001 "narra como hecho una tool que falló").

A failed call (not redone successfully in the same turn) is the effect it would have had: an
item changing hands, money moving, a clue learned, a place entered or found, an errand done, a
wound, a secret told. The narration breaks the rule when it asserts that effect about the
same thing: "Consigues la pista" after ``grant_clue`` failed (the clue by name, or "the clue"),
"Osric te da el farol" or "提灯现在归你了" after the transfer failed, "You stride into the
chapel" after the move failed. Negated, tried, wished or asked effects do not count, nor the
same verb about something else. Effects told as a state or a scene rather than by a verb of
their class ("a bowl of stew sits in front of you", "Down in the cellar now, you…") are read
by effect class in ``failed_effects``; a clue told by its own words in ``failed_clue``.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
from engine.gm.closure_rules.failed_clue import clue_stated, clue_words
from engine.gm.closure_rules.failed_effects import (
    arrival_told,
    clue_named,
    kind_nouns,
    other_receiver,
    place_there,
    possession_told,
)
from engine.gm.closure_rules.failed_refused import turned_down
from engine.gm.closure_rules.subjects import THING
from engine.gm.closure_rules.targets import targets
from engine.gm.language import content
from engine.gm.tools import LOG_EVENT, ToolCall

Test = Callable[[Event, ToolCall, Reading], bool]
UNTOLD = ("invalid-arguments", "unknown-tool")  # the master's own slip: nothing was attempted


def failed_tool_narrated(reading: Reading) -> bool:
    redone = {c.name for c, _ in reading.ok_calls()}
    for call, outcome in reading.facts.tool_calls:
        if outcome.ok or call.name in redone or call.name == LOG_EVENT:
            continue
        test = TESTS.get(call.name)
        if test is not None and _told(reading, call, test):
            return True
        if call.name == "grant_clue" and clue_stated(reading, call):
            return True
        if _effect_told(reading, call):
            return True
    return False


def _effect_told(reading: Reading, call: ToolCall) -> bool:
    """The call's effect told as a state or a scene (``closure_rules.failed_effects``)."""
    if call.name == "buy_item" or (
        call.name == "transfer_item" and YOU in targets(call, reading.scene, ("to",))
    ):
        return possession_told(reading, targets(call, reading.scene, ("item",)))
    if call.name == "move_character" and YOU in (targets(call, reading.scene, ("who",)) or {YOU}):
        places = {r for r in targets(call, reading.scene, ("to",)) if r.kind == "place"}
        return bool(places) and arrival_told(reading, places)
    if call.name == "grant_clue":
        clues = {r for r in targets(call, reading.scene) if r.kind == "clue"}
        return clue_named(reading, clues) or possession_told(reading, clues, ("clue_nouns",))
    return False


def _told(reading: Reading, call: ToolCall, test: Test) -> bool:
    return any(
        test(event, call, reading) and not _refused(event, reading)
        for event in reading.events
        if _claimed(event) and not _noun_headed(event, reading)
    )


def _noun_headed(event: Event, reading: Reading) -> bool:
    """The verb's word is a noun after a possessive ("Osric's hand closes over the lantern",
    "her hand"), not a handing over."""
    before = reading.doc.text[max(0, event.start - 12) : event.start].rstrip().lower()
    if reading.doc.language != "en":
        return False
    return before.endswith(("'s", "’s", " his", " her", " their", " its")) or before in (
        "his",
        "her",
        "their",
        "its",
    )


def _refused(event: Event, reading: Reading) -> bool:
    """A handing over the receiver turns down in the same sentence ("你递上玉佩，可小梅碰都
    不碰", "you hold it out, but Hilda won't take it", "…老板娘却摇了摇头")."""
    if event.key not in ("give", "pay") or event.actor != YOU:
        return False
    return turned_down(reading, event) or any(
        later.start > event.start
        and later.clause.sentence == event.clause.sentence
        and later.negated
        and later.key in ("accept", "acquire", "volition")
        and _someone_else(later.actor)
        for later in reading.events
    )


def _claimed(event: Event) -> bool:
    return event.asserted and not event.quoted


def _about(event: Event, wanted: set[Ref], reading: Reading | None = None) -> bool:
    """The event is about one of the call's entities (or the call named none we know); an
    event that names no thing at all is about the one named before it ("小梅就这么给了你")."""
    items = {r for r in wanted if r.kind not in ("you",)}
    if not items:
        return True
    said = {*event.objects, *([event.recipient] if event.recipient else [])}
    if said & items or event.actor in items:
        return True
    things = [r for r in (*said, event.actor) if r is not None and r.kind in ("item", "clue")]
    if things or reading is None:
        return False
    return any(m.ref in items and m.end <= event.start for m in reading.mentions)


def _nouns(event: Event, reading: Reading, *keys: str) -> bool:
    """A noun of these kinds stands in the event's clause ("la pista", "the errand")."""
    clause = event.clause
    return any(
        clause.start <= h.start < clause.end for k in keys for h in reading.doc.hits.get(k, ())
    )


def _apposed(event: Event, reading: Reading, key: str) -> bool:
    """A noun of ``key`` in the verbless clauses right after the event's, in its sentence:
    what a bare "it" stands for."""
    doc = reading.doc
    ends = [event.clause.end]
    for later in doc.clauses[event.clause.index + 1 :]:
        if later.sentence != event.clause.sentence or any(
            e.clause.index == later.index for e in reading.events
        ):
            break
        ends.append(later.end)
    return any(event.clause.end <= h.start < ends[-1] for h in doc.hits.get(key, ()))


# --- one test per tool ----------------------------------------------------------------------


def _transfer(event: Event, call: ToolCall, reading: Reading) -> bool:
    to = targets(call, reading.scene, ("to",))
    items = targets(call, reading.scene, ("item",))
    if not _about(event, items, reading):
        return False
    handed = YOU in to and event.key == "give" and _someone_else(event.actor)
    if handed and event.recipient is None and not other_receiver(reading, event.end):
        return True  # "Osric passes the lantern over the counter": to the one it was for
    if YOU in to:
        return (
            (event.key == "own" and not _someone_else(event.actor))
            or (event.key == "acquire" and event.actor in (YOU, None))
            or (event.key == "give" and event.recipient == YOU)
            or (event.key == "give" and event.actor not in (YOU, None) and YOU in event.objects)
        )
    receivers = {r for r in to if r.kind in ("npc", "pc")}
    if receivers:
        return (event.key == "give" and event.actor == YOU) or (
            event.key == "acquire" and event.actor in receivers
        )
    return event.key == "drop" and event.actor == YOU


def _of_kind(event: Event, items: set[Ref], reading: Reading) -> bool:
    """A word for what the item is follows the verb in its clause ("your supper")."""
    clause = event.clause
    return any(event.start <= h.start < clause.end for h in kind_nouns(reading, items))


def _kind_before(event: Event, items: set[Ref], reading: Reading) -> bool:
    """The event names nothing, and a word for what the item is stands before it in its
    sentence ("Supper's sorted … worth every copper you paid for it")."""
    if any(r.kind in ("item", "clue") for r in event.objects):
        return False
    opening = min(c.start for c in reading.doc.clauses if c.sentence == event.clause.sentence)
    return any(opening <= h.start < event.start for h in kind_nouns(reading, items))


def _arrives(event: Event, items: set[Ref], reading: Reading) -> bool:
    """The item (or a word for what it is) is what arrives: it stands just before the verb
    in its clause ("The stew arrives", "your dinner arrives at last")."""
    named = [(m.start, m.end) for m in reading.mentions if m.ref in items]
    named += [(h.start, h.end) for h in kind_nouns(reading, items)]
    clause = event.clause
    return any(
        clause.start <= start and not reading.doc.text[end : event.start].strip()
        for start, end in named
    )


def _someone_else(actor: Ref | None) -> bool:
    return actor is not None and actor.person and actor != YOU


def _buy(event: Event, call: ToolCall, reading: Reading) -> bool:
    items = targets(call, reading.scene, ("item",))
    if event.key in ("buy", "acquire") and event.actor in (YOU, None):
        return (
            _about(event, items, reading)
            or _kind_before(event, items, reading)
            or _of_kind(event, items, reading)
        )
    if event.key == "own" and not _someone_else(event.actor):
        return _about(event, items, reading)
    if event.key in ("sell", "give") and event.recipient == YOU:
        return _about(event, items, reading)
    unsaid = event.recipient is None or not event.recipient.person  # "hands it to you"
    if event.key == "give" and _someone_else(event.actor) and unsaid:
        if other_receiver(reading, event.end):
            return False
        return _about(event, items, reading)  # "Hilda slides it across the bar": to the buyer
    if event.key in ("acquire", "own") and event.actor in (YOU, None):
        return _of_kind(event, items, reading)  # "you've got your supper at last"
    if event.key == "arrive" and not _someone_else(event.actor):
        return _arrives(event, items, reading)  # "your dinner arrives at last"
    if event.key == "consume" and event.actor in (YOU, None):
        return bool(items & set(event.objects))  # "you scrape the bowl clean": you had it
    if event.key == "give" and event.actor == YOU and _nouns(event, reading, "money_nouns"):
        return True  # "you slide two coins across the bar": you paid
    return event.key == "pay" and event.actor == YOU


def _sell(event: Event, call: ToolCall, reading: Reading) -> bool:
    items = targets(call, reading.scene, ("item",))
    if event.key in ("sell", "give") and event.actor == YOU:
        return _about(event, items, reading)
    if event.key in ("buy", "acquire") and event.actor not in (YOU, None):
        return _about(event, items, reading)
    return event.key == "pay" and event.recipient == YOU


def _clue(event: Event, call: ToolCall, reading: Reading) -> bool:
    """The clue is learned: "you learn / find out / work out …", "Hilda tells you …", "you get
    the clue"; about the clue by name, by a clue noun, or by the clue's own words (two of them
    in the sentence: "someone crossed the room with wet boots")."""
    if event.key not in ("learn", "acquire", "find", "tell", "own"):
        return False
    if event.key == "tell" and event.recipient not in (YOU, None):
        return False
    mine = event.actor in (YOU, None) or (event.key == "learn" and event.actor == THING)
    if event.key != "tell" and not mine:  # "the clue clicks into place": learned all the same
        return False
    named = {r for r in targets(call, reading.scene) if r.kind == "clue"}
    if named & set(event.objects) or _nouns(event, reading, "clue_nouns"):
        return True
    if not event.objects and _apposed(event, reading, "clue_nouns"):
        return True  # "You've got it now, a trail of boot marks…"
    if event.key in ("learn", "tell", "find") and _echoes(event, reading, named):
        return True
    own = Ref("pc", reading.scene.character_id)  # "the thief" may name the player's own
    people = [r for r in event.objects if r.kind in ("item", "npc", "pc", "place", "point")]
    people = [r for r in people if r != own]
    return event.key == "learn" and event.actor in (YOU, None) and not people


def _echoes(event: Event, reading: Reading, clues: set[Ref]) -> bool:
    """The event's sentence says two of the clue's own words."""
    words = clue_words(reading, clues)
    sentence = [c for c in reading.doc.clauses if c.sentence == event.clause.sentence]
    said = reading.doc.text[sentence[0].start : sentence[-1].end] if sentence else ""
    return len(words & set(content(said, reading.doc.language))) >= 2


def _discover(event: Event, call: ToolCall, reading: Reading) -> bool:
    """The hidden thing is found: by the character ("you spot", "your eye catches") or it
    strikes him ("te llama la atención la trampilla", "引起了你的注意"); seeing a hidden
    point is finding it."""
    hidden = any(r.kind == "hidden" for r in event.objects)
    if event.key == "perceive":
        return hidden and event.actor in (YOU, None)
    strikes_you = event.recipient == YOU or any(
        event.start <= h.start < event.end for h in reading.doc.hits.get("you", ())
    )
    if event.key != "find" or not (event.actor in (YOU, None) or strikes_you):
        return False
    return hidden or _nouns(event, reading, "place_nouns", "hidden_words")


def _move(event: Event, call: ToolCall, reading: Reading) -> bool:
    who = targets(call, reading.scene, ("who",)) or {YOU}
    swallowed = YOU in who and event.recipient == YOU and event.key in ("enter", "arrive")
    if event.actor not in who and not (YOU in who and event.actor is None) and not swallowed:
        return False
    places = {r for r in targets(call, reading.scene, ("to",)) if r.kind == "place"}
    if event.key in ("enter", "arrive") and places & set(event.objects):
        return place_there(reading, places, event.clause, owned_too=False)  # not "走到地窖门口"
    if event.key in ("enter", "arrive", "leave", "flee"):
        return True
    if event.key in ("enter", "arrive") and YOU in who and event.recipient == YOU:
        return True  # "the cellar swallows you"
    # "you are standing in the square", "estás en la plaza", "你已经站在集市中央": there
    if event.key not in ("go", "climb", "posture") or not places & set(event.objects):
        return False
    if any(h.start > event.start for h in reading.doc.hits.get("ft_barred", ())):
        return False  # "you head down toward the cellar, but the door is bolted"
    return place_there(reading, places, event.clause, owned_too=event.key != "posture")


def _by(keys: tuple[str, ...], actors: tuple[Ref | None, ...] = (YOU, None)) -> Test:
    def test(event: Event, call: ToolCall, reading: Reading) -> bool:
        return event.key in keys and event.actor in actors

    return test


def _any(keys: tuple[str, ...]) -> Test:
    def test(event: Event, call: ToolCall, reading: Reading) -> bool:
        return event.key in keys

    return test


def _on_target(keys: tuple[str, ...]) -> Test:
    """An effect on the call's target: "Hilda bleeds", "you wound him", "her wound closes"."""

    def test(event: Event, call: ToolCall, reading: Reading) -> bool:
        if event.key not in keys:
            return False
        people = {r for r in targets(call, reading.scene) if r.person}
        return not people or bool(people & {event.actor, *event.objects})

    return test


def _with_nouns(keys: tuple[str, ...], nouns: tuple[str, ...]) -> Test:
    def test(event: Event, call: ToolCall, reading: Reading) -> bool:
        if event.key not in keys:
            return False
        named = {r for r in targets(call, reading.scene) if r.kind in ("quest", "clue", "item")}
        return bool(named & set(event.objects)) or _nouns(event, reading, *nouns)

    return test


def _errand(event: Event, call: ToolCall, reading: Reading) -> bool:
    """The errand is done: told so, or its reward handed over."""
    if _with_nouns(("complete",), ("quest_nouns", "money_nouns"))(event, call, reading):
        return True
    return (
        event.key in ("give", "pay")
        and event.recipient == YOU
        and _nouns(event, reading, "money_nouns", "quest_nouns")
    )


def _secret(event: Event, call: ToolCall, reading: Reading) -> bool:
    if event.key not in ("confess", "tell"):
        return False
    npcs = {r for r in targets(call, reading.scene) if r.kind == "npc"}
    by_them = event.actor in npcs or event.actor is None
    return by_them and (event.key == "confess" or _nouns(event, reading, "clue_nouns"))


def _pawn(event: Event, call: ToolCall, reading: Reading) -> bool:
    return event.key == "pawn" or (
        event.key in ("accept", "acquire", "give") and _nouns(event, reading, "pledge_nouns")
    )


TESTS: dict[str, Test] = {
    "transfer_item": _transfer,
    "buy_item": _buy,
    "sell_item": _sell,
    "gather": _by(("gather",)),
    "hold_item": _by(("hold",)),
    "grant_clue": _clue,
    "discover_hidden_point": _discover,
    "move_character": _move,
    "complete_errand": _errand,
    "offer_quest": _with_nouns(("offer",), ("quest_nouns",)),
    "reveal_secret": _secret,
    "damage": _on_target(("hit", "hurt")),
    "heal": _on_target(("heal",)),
    "stabilise": _on_target(("stabilise", "heal")),
    "rest": _by(("rest",)),
    "spend_resource": _by(("spend",)),
    "set_debt": _any(("owe", "lend")),
    "settle_debt": _any(("settle",)),
    "pawn_item": _pawn,
}
