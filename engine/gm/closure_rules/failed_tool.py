"""Rule: a tool that failed is told as done (seed 001 "narra como hecho una tool que falló").

A failed call (not redone successfully in the same turn) is the effect it would have had: an
item changing hands, money moving, a clue learned, a place entered or found, an errand done, a
wound, a secret told. The narration breaks the rule when it asserts that effect about the
same thing: "Consigues la pista" after ``grant_clue`` failed (the clue by name, or "the clue"),
"Osric te da el farol" or "提灯现在归你了" after the transfer failed, "You stride into the
chapel" after the move failed. Negated, tried, wished or asked effects do not count, nor the
same verb about something else.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.gm.closure_rules.entities import YOU, Ref
from engine.gm.closure_rules.events import Event
from engine.gm.closure_rules.facts import Reading
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
        if call.name == "grant_clue" and _clue_stated(reading, call):
            return True
    return False


def _clue_stated(reading: Reading, call: ToolCall) -> bool:
    """The narrator states the clue itself, three of its own words in a sentence he tells
    as fact ("wet footprints, fresh, run from the back door")."""
    clues = {r for r in targets(call, reading.scene) if r.kind == "clue"}
    gm, language = reading.scene.gm, reading.doc.language
    words: set[str] = set()
    for ref in clues:
        clue = gm.clues_by_id.get(ref.id)
        if clue is not None:
            words |= set(content(f"{clue.name} {clue.text}", language))
    doc = reading.doc
    for sentence in sorted({c.sentence for c in doc.clauses}):
        parts = [c for c in doc.clauses if c.sentence == sentence and not c.quoted]
        if not parts or any(c.question for c in parts):
            continue
        said = doc.text[parts[0].start : parts[-1].end]
        negations = [h for h in doc.hits.get("negations", ()) if parts[0].start <= h.start]
        if any(h.start < parts[-1].end for h in negations):
            continue
        if len(words & set(content(said, language))) >= 3:
            return True
    return False


def _told(reading: Reading, call: ToolCall, test: Test) -> bool:
    return any(
        test(event, call, reading) and not _refused(event, reading)
        for event in reading.events
        if _claimed(event)
    )


def _refused(event: Event, reading: Reading) -> bool:
    """A handing over the receiver turns down in the same sentence ("你递上玉佩，可小梅碰都
    不碰", "you hold it out, but Hilda won't take it")."""
    if event.key != "give" or event.actor != YOU:
        return False
    return any(
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


# --- one test per tool ----------------------------------------------------------------------


def _transfer(event: Event, call: ToolCall, reading: Reading) -> bool:
    to = targets(call, reading.scene, ("to",))
    items = targets(call, reading.scene, ("item",))
    if not _about(event, items, reading):
        return False
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


def _someone_else(actor: Ref | None) -> bool:
    return actor is not None and actor.person and actor != YOU


def _buy(event: Event, call: ToolCall, reading: Reading) -> bool:
    items = targets(call, reading.scene, ("item",))
    if event.key in ("buy", "acquire") and event.actor in (YOU, None):
        return _about(event, items, reading)
    if event.key == "own" and not _someone_else(event.actor):
        return _about(event, items, reading)
    if event.key in ("sell", "give") and event.recipient == YOU:
        return _about(event, items, reading)
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
    if event.key in ("learn", "tell") and _echoes(event, reading, named):
        return True
    people = [r for r in event.objects if r.kind in ("item", "npc", "pc", "place", "point")]
    return event.key == "learn" and event.actor in (YOU, None) and not people


def _echoes(event: Event, reading: Reading, clues: set[Ref]) -> bool:
    """The event's sentence says two of the clue's own words."""
    gm, language = reading.scene.gm, reading.doc.language
    words: set[str] = set()
    for ref in clues:
        clue = gm.clues_by_id.get(ref.id)
        if clue is not None:
            words |= set(content(f"{clue.name} {clue.text}", language))
    sentence = [c for c in reading.doc.clauses if c.sentence == event.clause.sentence]
    said = reading.doc.text[sentence[0].start : sentence[-1].end] if sentence else ""
    return len(words & set(content(said, language))) >= 2


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
    if event.key in ("enter", "arrive", "leave", "flee"):
        return True
    if event.key in ("enter", "arrive") and YOU in who and event.recipient == YOU:
        return True  # "the cellar swallows you"
    places = {r for r in targets(call, reading.scene, ("to",)) if r.kind == "place"}
    # "you are standing in the square", "estás en la plaza", "你已经站在集市中央": there
    return event.key in ("go", "climb", "posture") and bool(places & set(event.objects))


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
