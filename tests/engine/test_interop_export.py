"""SillyTavern interop, both ways (issue 16 §3): World Info and cards out, read back the same.

"The same" is checked two ways: Fabula reads its own export back into the same world
(``export_world`` equal), and SillyTavern reads the export as it read the original, field by
field (``tests.support.sillytavern`` spells out how SillyTavern reads an entry).
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest

from engine.interop import (
    CardError,
    import_file,
    import_report,
    lorebook_entries,
    placeholder_png,
    read_png_card,
    world_to_card,
    world_to_card_png,
    world_to_worldinfo,
    worldinfo_to_world,
    write_card_png,
)
from engine.interop.png import iter_chunks
from engine.interop.report import PICTURE_KEPT
from engine.world import WorldDefinition, export_world, load_world
from tests.support.corpus import corpus_dir, fixture_bytes, requires_corpus
from tests.support.sillytavern import book_entry, read_book, read_world_info

CORPUS_FILES = [
    "Eldoria.json",
    "default_CodingSensei.png",
    "default_FluxTheCat.png",
    "default_Seraphina.png",
    "legacy_Sample_world.json",
]
FIXTURE_FILES = [
    "ferryman_v2.json",
    "ferryman_v2.png",
    "ferryman_v3.json",
    "ferryman_v3.png",
    "the_landing_legacy.json",
    "the_wend_worldinfo.json",
]
WORLD_INFO_FILES = [
    "Eldoria.json",
    "legacy_Sample_world.json",
    "the_wend_worldinfo.json",
    "the_landing_legacy.json",
]
CARD_FILES = [
    "default_CodingSensei.png",
    "default_FluxTheCat.png",
    "default_Seraphina.png",
    "ferryman_v2.png",
    "ferryman_v3.png",
    "ferryman_v2.json",
    "ferryman_v3.json",
]


def _entry(uid: int, **fields: Any) -> dict[str, Any]:
    """A native entry as SillyTavern 1.12 saves a new one, with ``fields`` changed."""
    entry = {
        "uid": uid, "key": ["k"], "keysecondary": [], "comment": f"Entry {uid}", "content": "c",
        "constant": False, "vectorized": False, "selective": True, "selectiveLogic": 0,
        "addMemo": True, "order": 100, "position": 0, "disable": False,
        "excludeRecursion": False, "preventRecursion": False, "delayUntilRecursion": False,
        "probability": 100, "useProbability": True, "depth": 4, "group": "",
        "groupOverride": False, "groupWeight": 100, "scanDepth": None, "caseSensitive": None,
        "matchWholeWords": None, "useGroupScoring": None, "automationId": "", "role": None,
        "sticky": 0, "cooldown": 0, "delay": 0, "displayIndex": uid,
    }  # fmt: skip
    entry.update(fields)
    return entry


# A World Info file as SillyTavern writes it, using every field it reads.
SAVED_BY_SILLYTAVERN: dict[str, Any] = {
    "entries": {
        "0": _entry(0, key=["dragon", "/wyrms?/i"], content="Dragons nest in the north."),
        "1": _entry(
            1, keysecondary=["river"], selective=False, probability=30, useProbability=False,
            group="weather", groupOverride=True, groupWeight=50, sticky=2, cooldown=3, delay=1,
            characterFilter={"isExclude": True, "names": ["Bob"], "tags": []},
            caseSensitive=True, matchWholeWords=False, role=1, position=4, depth=2,
        ),
        "2": _entry(
            2, comment="", key=["lantern"], constant=True, position=6, triggers=["normal"],
            ignoreBudget=True, scanDepth=5, useGroupScoring=True, automationId="lamp",
            vectorized=True, excludeRecursion=True, preventRecursion=True,
            delayUntilRecursion=True, disable=True, order=7, selectiveLogic=3,
            keysecondary=["a", "b"], matchPersonaDescription=True, outletName="o",
        ),
        "3": _entry(3, probability=25, key=["rare"], role=2, position=4, depth=0),
    }
}  # fmt: skip


def _card(book_entries: list[dict[str, Any]], **data: Any) -> dict[str, Any]:
    """A V2 card as SillyTavern exports it, its World Info embedded as a character book."""
    book = {"name": "Book", "entries": book_entries}
    fields = {"name": "Wyrm", "description": "A dragon.", "first_mes": "Hail.", **data}
    data = {**fields, "character_book": book}
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}


SILLYTAVERN_CARD = _card([book_entry(e) for e in SAVED_BY_SILLYTAVERN["entries"].values()])


def _source(name: str) -> bytes:
    path = corpus_dir() / name
    return path.read_bytes() if path.is_file() else fixture_bytes(name)


def _needs(name: str) -> None:
    """Skip a corpus file's test where ../shared is absent (our fixtures always run)."""
    if name in CORPUS_FILES and requires_corpus.args[0]:  # the same test as requires_corpus
        pytest.skip(requires_corpus.kwargs["reason"])


def _card_of(name: str) -> dict[str, Any]:
    data = _source(name)
    return read_png_card(data) if name.endswith(".png") else json.loads(data)


def _import(name: str) -> WorldDefinition:
    return import_file(_source(name), name)[0]


def _json(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def _same_reading(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    """SillyTavern reads every entry field of ``after`` as it read ``before``."""
    assert len(after) == len(before)
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        differing = {key: (old[key], new.get(key)) for key in old if new.get(key) != old[key]}
        assert differing == {}, f"entry {index}: {differing}"


def _without_spec(world: WorldDefinition) -> dict[str, Any]:
    data = export_world(world)
    note = data.get("stCard")
    if isinstance(note, dict):
        note.pop("spec", None)
        note.pop("specVersion", None)
    return data


# --- World Info out: nothing changes meaning ---------------------------------------------


def test_a_null_case_or_whole_word_flag_stays_null():
    world = worldinfo_to_world(SAVED_BY_SILLYTAVERN, "w")

    exported = world_to_worldinfo(world)["entries"]

    assert (exported["0"]["caseSensitive"], exported["0"]["matchWholeWords"]) == (None, None)
    assert (exported["1"]["caseSensitive"], exported["1"]["matchWholeWords"]) == (True, False)


def test_a_flag_the_creator_turns_on_in_fabula_wins_over_the_kept_null():
    world = worldinfo_to_world(SAVED_BY_SILLYTAVERN, "w")
    world.entries[0].case_sensitive = True

    assert world_to_worldinfo(world)["entries"]["0"]["caseSensitive"] is True


def test_selective_off_with_secondary_keys_comes_back_off():
    world = worldinfo_to_world(SAVED_BY_SILLYTAVERN, "w")

    entry = world_to_worldinfo(world)["entries"]["1"]

    assert (entry["selective"], entry["keysecondary"]) == (False, ["river"])


def test_a_probability_switched_off_keeps_its_number():
    world = worldinfo_to_world(SAVED_BY_SILLYTAVERN, "w")

    entries = world_to_worldinfo(world)["entries"]

    assert (entries["1"]["probability"], entries["1"]["useProbability"]) == (30, False)
    assert (entries["3"]["probability"], entries["3"]["useProbability"]) == (25, True)


def test_groups_timed_effects_filters_roles_and_regex_keys_come_back():
    world = worldinfo_to_world(SAVED_BY_SILLYTAVERN, "w")

    first, second, third, _ = world_to_worldinfo(world)["entries"].values()

    assert first["key"] == ["dragon", "/wyrms?/i"]
    assert {k: second[k] for k in ("group", "groupOverride", "groupWeight", "sticky")} == {
        "group": "weather",
        "groupOverride": True,
        "groupWeight": 50,
        "sticky": 2,
    }
    assert (second["cooldown"], second["delay"], second["role"], second["depth"]) == (3, 1, 1, 2)
    assert second["characterFilter"] == {"isExclude": True, "names": ["Bob"], "tags": []}
    assert (third["position"], third["triggers"], third["automationId"]) == (6, ["normal"], "lamp")


def test_an_empty_comment_comes_back_empty_until_the_entry_is_renamed():
    world = worldinfo_to_world(SAVED_BY_SILLYTAVERN, "w")
    assert world.entries[2].name == "lantern"
    assert world_to_worldinfo(world)["entries"]["2"]["comment"] == ""

    world.entries[2].name = "The lantern"

    assert world_to_worldinfo(world)["entries"]["2"]["comment"] == "The lantern"


def test_sillytavern_reads_our_world_info_as_it_read_its_own():
    world = worldinfo_to_world(SAVED_BY_SILLYTAVERN, "w")

    _same_reading(read_world_info(SAVED_BY_SILLYTAVERN), read_world_info(world_to_worldinfo(world)))


@pytest.mark.parametrize("name", WORLD_INFO_FILES)
def test_a_world_info_file_reads_the_same_after_fabula(name):
    _needs(name)
    original = json.loads(_source(name))

    exported = world_to_worldinfo(_import(name))

    _same_reading(read_world_info(original), read_world_info(exported))


@requires_corpus
def test_a_card_book_exported_as_world_info_reads_as_sillytavern_reads_the_book():
    card = read_png_card(_source("default_Seraphina.png"))

    exported = world_to_worldinfo(_import("default_Seraphina.png"))

    _same_reading(read_book(card["data"]["character_book"]), read_world_info(exported))


# --- cards out ---------------------------------------------------------------------------


def test_a_card_book_from_sillytavern_reads_the_same_after_fabula():
    world, _ = import_file(_json(SILLYTAVERN_CARD), "wyrm.json")

    for spec in ("v2", "v3"):
        card = world_to_card(world, spec)
        _same_reading(
            read_book(SILLYTAVERN_CARD["data"]["character_book"]),
            read_book(card["data"]["character_book"]),
        )


@pytest.mark.parametrize("name", CARD_FILES)
def test_a_card_reads_the_same_after_fabula(name):
    _needs(name)
    original = _card_of(name)["data"]

    card = world_to_card(_import(name), "v2")["data"]

    fields = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
    fields += ("creator_notes", "system_prompt", "post_history_instructions", "tags", "creator")
    for field in (*fields, "alternate_greetings", "character_version"):
        assert card[field] == _card_text(original.get(field)), field
    if "character_book" in original:
        _same_reading(read_book(original["character_book"]), read_book(card["character_book"]))
    extensions = {k: v for k, v in card["extensions"].items() if k != "fabula"}
    assert extensions == original["extensions"]


def _card_text(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\r\n", "\n").strip()
    return value


def test_a_v2_card_has_every_field_sillytavern_reads():
    world, _ = import_file(_json(SILLYTAVERN_CARD), "wyrm.json")

    card = world_to_card(world, "v2")

    assert (card["spec"], card["spec_version"]) == ("chara_card_v2", "2.0")
    assert set(card["data"]) >= {
        "name", "description", "personality", "scenario", "first_mes", "mes_example",
        "creator_notes", "system_prompt", "post_history_instructions", "alternate_greetings",
        "tags", "creator", "character_version", "extensions", "character_book",
    }  # fmt: skip
    assert (card["name"], card["first_mes"]) == ("Wyrm", "Hail.")  # the V1 copies
    entry = card["data"]["character_book"]["entries"][1]
    assert (entry["use_regex"], entry["enabled"], entry["selective"]) == (True, True, False)
    assert entry["extensions"]["group"] == "weather"


def test_a_v3_card_has_its_spec_and_group_only_greetings():
    world = load_world(
        {
            "name": "Nova",
            "entries": [
                {"id": "hi", "role": "greeting", "content": "Hi."},
                {"id": "crew", "role": "greeting", "content": "Crew!", "enabled": False,
                 "tags": ["group-only"]},
            ],
        }
    )  # fmt: skip

    card = world_to_card(world, "v3")

    assert (card["spec"], card["spec_version"]) == ("chara_card_v3", "3.0")
    assert (card["data"]["first_mes"], card["data"]["group_only_greetings"]) == ("Hi.", ["Crew!"])
    assert "character_book" not in card["data"]
    assert "name" not in card  # no V1 copies in a V3 card


# --- round trips -------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["v2", "v3"])
@pytest.mark.parametrize("name", CORPUS_FILES + FIXTURE_FILES)
def test_import_export_import_gives_the_same_world(name, spec):
    _needs(name)
    world = _import(name)

    as_json, json_warnings = import_file(_json(world_to_card(world, spec)), "card.json")
    as_png, png_warnings = import_file(world_to_card_png(world, spec), "card.png")

    assert _without_spec(as_json) == _without_spec(world)
    assert _without_spec(as_png) == _without_spec(world)
    assert json_warnings == png_warnings == []


@pytest.mark.parametrize("name", ["the_wend_worldinfo.json", "the_landing_legacy.json"])
def test_world_info_in_world_info_out_gives_the_same_world(name):
    world = _import(name)

    again, warnings = import_file(_json(world_to_worldinfo(world)), name)

    assert export_world(again) == export_world(world)
    assert warnings == []


def test_a_card_from_sillytavern_gives_the_same_world_after_a_trip_through_its_export():
    world, _ = import_file(_json(SILLYTAVERN_CARD), "wyrm.json")

    again, _ = import_file(_json(world_to_card(world, "v2")), "wyrm.json")

    assert export_world(again) == export_world(world)


FULL_WORLD: dict[str, Any] = {
    "id": "4d3c",
    "name": "The Salt Road",
    "description": "Caravans cross a drowned desert.",
    "author": "Alice",
    "language": "en",
    "customTags": ["desert"],
    "variables": [{"id": "water", "type": "number", "defaultValue": 5, "min": 0, "max": 9,
                   "behaviorRules": "Drops each day."}],
    "rules": [{"id": "thirst", "trigger": {"type": "variable-crossed", "variableId": "water",
               "direction": "drops-below", "threshold": 2},
               "actions": [{"type": "notify-player", "message": "Thirsty."}]}],
    "audioTracks": [{"id": "wind", "type": "ambient", "url": "https://example.com/w.ogg"}],
    "entryFolders": [{"id": "lore", "name": "Lore"}],
    "settings": {"temperature": 0.7, "lorebookRecursionDepth": 2, "lorebookScanDepth": 4},
    "entries": [
        {"id": "narrator", "role": "system", "content": "You narrate the salt road."},
        {"id": "aria", "name": "Aria", "role": "character", "content": "Aria, a guide.",
         "tags": ["npc"], "position": 2},
        {"id": "style", "role": "style", "content": "Terse. {{char}}."},
        {"id": "dunes", "section": "chat-history", "keywords": ["dune"], "depth": 2,
         "folderId": "lore", "content": "Dunes walk at night.", "futureEntryField": [1]},
        {"id": "oasis", "section": "chat-history", "keywords": ["oasis"], "content": "Sweet.",
         "conditions": [{"variableId": "water", "operator": "lt", "value": 3}]},
        {"id": "hello", "role": "greeting", "content": "  The caravan waits.  "},
        {"id": "bye", "role": "greeting", "content": "Not now.", "enabled": False},
        {"id": "ex", "section": "examples", "role": "example",
         "content": "{{user}}: water?\n{{char}}: later."},
        {"id": "brief", "section": "post-history", "role": "system", "content": "Be brief."},
        {"id": "ooc", "section": "post-history", "apiRole": "user", "content": "OOC: stay."},
    ],
}  # fmt: skip


@pytest.mark.parametrize("spec", ["v2", "v3"])
def test_a_fabula_world_comes_back_whole_from_its_card(spec):
    world = load_world(FULL_WORLD)

    again, warnings = import_file(world_to_card_png(world, spec), "salt.png")

    assert export_world(again) == export_world(world)
    assert warnings == []


def test_a_fabula_world_fills_the_card_fields_by_role_and_the_book_with_the_rest():
    card = world_to_card(load_world(FULL_WORLD), "v2")["data"]

    assert (card["system_prompt"], card["description"]) == (
        "You narrate the salt road.",
        "Aria, a guide.",
    )
    assert (card["first_mes"], card["alternate_greetings"]) == ("  The caravan waits.  ", [])
    assert card["mes_example"] == "{{user}}: water?\n{{char}}: later."
    assert card["post_history_instructions"] == "Be brief."
    book = card["character_book"]
    assert [e["comment"] for e in book["entries"]] == ["", "", "", ""]
    assert [e["keys"] for e in book["entries"]] == [[], ["dune"], ["oasis"], []]
    assert [(e["constant"], e["extensions"]["position"]) for e in book["entries"]] == [
        (True, 0),
        (False, 4),
        (False, 0),
        (True, 4),
    ]
    assert (book["scan_depth"], book["recursive_scanning"]) == (4, True)
    assert (card["creator_notes"], card["creator"], card["tags"]) == (
        "Caravans cross a drowned desert.",
        "Alice",
        ["desert"],
    )


def test_text_edited_in_sillytavern_wins_over_the_stash():
    card = world_to_card(load_world(FULL_WORLD), "v2")
    card["data"]["description"] = "Aria, now a smuggler."
    card["data"]["character_book"]["recursive_scanning"] = False

    world, _ = import_file(_json(card), "salt.json")

    assert world.entries_by_id["aria"].content == "Aria, now a smuggler."
    assert world.entries_by_id["aria"].tags == ["npc"]
    assert world.settings.lorebook_recursion_depth == 0


def test_a_broken_stash_is_ignored_with_a_warning():
    card = world_to_card(load_world(FULL_WORLD), "v2")
    card["data"]["extensions"]["fabula"]["world"]["variables"] = [{"id": "Bad Id"}]

    world, warnings = import_file(_json(card), "salt.json")

    assert world.variables == []
    assert warnings == [
        "extensions.fabula: ignored (variables.0.id: Value error, must be kebab-case "
        "(lowercase letters, digits and single hyphens))"
    ]


# --- the PNG -------------------------------------------------------------------------------


def _text_chunks(data: bytes) -> dict[str, dict[str, Any]]:
    found = {}
    for kind, body in iter_chunks(data):
        if kind == b"tEXt":
            keyword, _, text = body.partition(b"\0")
            found[keyword.decode()] = json.loads(base64.b64decode(text))
    return found


def test_a_v2_png_holds_a_chara_chunk_and_a_v3_png_a_ccv3_one_too():
    world = load_world(FULL_WORLD)

    v2 = _text_chunks(world_to_card_png(world, "v2"))
    v3 = _text_chunks(world_to_card_png(world, "v3"))

    assert list(v2) == ["chara"]
    assert v2["chara"]["spec"] == "chara_card_v2"
    assert list(v3) == ["chara", "ccv3"]
    assert (v3["chara"]["spec"], v3["ccv3"]["spec"]) == ("chara_card_v2", "chara_card_v3")
    assert read_png_card(world_to_card_png(world, "v3"))["spec"] == "chara_card_v3"


def test_the_portrait_is_kept_and_its_old_card_chunks_are_dropped():
    portrait = world_to_card_png(load_world({"name": "Old card"}), "v3")

    data = world_to_card_png(load_world(FULL_WORLD), "v2", portrait=portrait)

    assert [kind for kind, _ in iter_chunks(data)] == [b"IHDR", b"IDAT", b"tEXt", b"IEND"]
    assert _text_chunks(data)["chara"]["data"]["name"] == "The Salt Road"


def test_without_a_portrait_a_placeholder_is_drawn_from_the_name():
    first, again, other = placeholder_png("Salt"), placeholder_png("Salt"), placeholder_png("Ash")

    assert first == again != other
    header = dict(iter_chunks(first))[b"IHDR"]
    assert (int.from_bytes(header[:4], "big"), int.from_bytes(header[4:8], "big")) == (400, 600)


def test_a_portrait_that_is_not_a_png_is_refused():
    with pytest.raises(CardError, match="not a PNG file"):
        write_card_png(b"GIF89a", [("chara", {"spec": "chara_card_v2"})])


# --- the import report ---------------------------------------------------------------------


def _report(data: dict[str, Any], name: str = "book.json") -> list[tuple[str, str]]:
    world, warnings = import_file(_json(data), name)
    return [(line.kind, line.message) for line in import_report(world, warnings)]


def test_the_report_says_one_line_per_problem_not_per_entry():
    entries = {str(i): _entry(i, key=[f"/k{i}/"], probability=50) for i in range(12)}

    report = _report({"entries": entries})

    assert report == [
        ("mapped", "lorebook → 12 entries (12 keyword-triggered, 0 always sent)"),
        (
            "attention",
            "12 entries fire only part of the time in SillyTavern (probability); Fabula fires "
            "them every time ('Entry 0', 'Entry 1', 'Entry 2' …)",
        ),
        (
            "attention",
            "12 entries use regex keys: Fabula matches them as plain text "
            "('Entry 0', 'Entry 1', 'Entry 2' …)",
        ),
    ]


def test_use_regex_true_alone_is_not_a_problem():
    book = copy.deepcopy(SILLYTAVERN_CARD)
    book["data"]["character_book"]["entries"] = [
        {**book_entry(_entry(i, key=["plain"])), "use_regex": True} for i in range(3)
    ]

    assert [kind for kind, _ in _report(book, "card.json")] == ["mapped", "mapped", "mapped"]


def test_the_report_names_what_was_dropped_with_its_path():
    data = {"entries": {"0": {"key": ["a"], "content": 7, "comment": "A"}, "1": "junk"}}

    report = _report(data)

    assert ("dropped", "entries[1]: expected an object, got text; skipped") in report
    assert ("attention", "entries[0].content: expected text, got number; converted") in report


def test_the_report_of_a_card_png_says_what_became_of_its_picture():
    world, warnings = import_file(world_to_card_png(load_world(FULL_WORLD)), "salt.png")

    kept = import_report(world, warnings, picture=PICTURE_KEPT)
    refused = import_report(world, warnings, picture="is larger than the 5 MB limit")

    assert [line.to_dict() for line in kept] == [
        {"kind": "mapped", "message": "2 greetings"},
        {"kind": "mapped", "message": "8 more entries with their Fabula roles"},
        {"kind": "mapped", "message": "also: 1 variable, 1 rule, 1 audio track, 1 entry folder"},
        {"kind": "mapped", "message": "the card's picture → the world's portrait"},
    ]  # fmt: skip
    assert refused[-1].to_dict() == {
        "kind": "dropped",
        "message": "the card's picture: is larger than the 5 MB limit; it is not kept",
    }
    assert "picture" not in str([line.to_dict() for line in import_report(world, warnings)])


def test_lorebook_entries_are_what_the_world_info_export_holds():
    world = load_world(FULL_WORLD)

    assert [e.id for e in lorebook_entries(world)] == ["dunes", "oasis"]
    assert list(world_to_worldinfo(world)["fabula"]) == ["entryFolders"]
