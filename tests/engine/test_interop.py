"""SillyTavern interop: cards in PNG and JSON, World Info in and out, against the real corpus."""

from __future__ import annotations

import base64
import contextlib
import json
import struct
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.interop import (
    CardError,
    card_to_world,
    import_file,
    lorebook_entries,
    read_png_card,
    world_to_worldinfo,
    worldinfo_to_entries,
    worldinfo_to_world,
)
from engine.world import WorldDefinition, export_world, load_world
from tests.fixtures.interop import make
from tests.support.corpus import corpus_dir, fixture_bytes, fixture_path, requires_corpus

CORPUS = corpus_dir()
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


def _corpus(name: str) -> bytes:
    path = CORPUS / name
    assert path.is_file(), f"corpus file missing: {path} (set FABULA_SHARED to the shared/ dir)"
    return path.read_bytes()


def _import(name: str) -> WorldDefinition:
    world, _warnings = import_file(_corpus(name), name)
    return world


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def _png(*chunks: bytes) -> bytes:
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    pixels = _chunk(b"IDAT", zlib.compress(b"\x00\x00\x00\x00"))
    return b"\x89PNG\r\n\x1a\n" + header + pixels + b"".join(chunks) + _chunk(b"IEND", b"")


def _text(keyword: str, card: dict[str, Any]) -> bytes:
    payload = base64.b64encode(json.dumps(card).encode())
    return _chunk(b"tEXt", keyword.encode() + b"\0" + payload)


def _v2(name: str, **data: Any) -> dict[str, Any]:
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": name, **data}}


def _v3(name: str, **data: Any) -> dict[str, Any]:
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": name, **data}}


def _dump(entries: list[Any]) -> list[dict[str, Any]]:
    return [entry.model_dump(mode="json", by_alias=True) for entry in entries]


# --- the corpus --------------------------------------------------------------------------


@requires_corpus
def test_corpus_holds_the_files_the_readme_lists():
    assert sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".png", ".json")) == CORPUS_FILES


@requires_corpus
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_corpus_file_imports_and_survives_export(name):
    world = _import(name)

    again = load_world(export_world(world))

    assert world.entries
    assert export_world(again) == export_world(world)


@requires_corpus
def test_seraphina_book_and_eldoria_file_give_the_same_entries():
    card_lore = lorebook_entries(_import("default_Seraphina.png"))
    file_lore = _import("Eldoria.json").entries

    # SillyTavern's card export switched the probability off (useProbability: false); the
    # original is kept for the export, the rest is the same.
    assert all(e.model_extra["stExtensions"].pop("useProbability") is False for e in card_lore)
    assert _dump(card_lore) == _dump(file_lore)
    assert [e.id for e in file_lore] == ["eldoria", "shadowfang", "glade", "power"]
    assert file_lore[0].keywords == ["eldoria", "wood", "forest", "magical forest"]
    assert {(e.section, e.role, e.position, e.depth, e.enabled) for e in file_lore} == {
        ("chat-history", "lore", 100, None, True)
    }


@requires_corpus
def test_seraphina_card_maps_to_always_sent_entries_and_metadata():
    world, warnings = import_file(_corpus("default_Seraphina.png"), "default_Seraphina.png")

    description, greeting = world.entries[:2]
    assert (world.name, world.author) == ("Seraphina", "OtisAlejandro")
    assert world.description == "ST Default Bot contest winner: roleplay bots category"
    assert (description.id, description.role, description.section) == (
        "description",
        "character",
        "system-presets",
    )
    assert description.content.startswith("[Seraphina's Personality=")
    assert "\r" not in description.content
    assert '<START>\n{{user}}: "Describe your traits?"' in description.content
    assert (greeting.role, greeting.api_role, greeting.position) == ("greeting", "assistant", 1)
    assert greeting.content.startswith("*You wake with a start")
    assert not any(e.role == "personality" for e in world.entries)  # empty in the card
    assert world.model_extra == {
        "stCard": {
            "spec": "chara_card_v2",
            "specVersion": "2.0",
            "characterVersion": "1.0.0",
            "extensions": {"talkativeness": "0.5", "fav": False, "world": "Eldoria"},
            "characterBook": {"name": "Eldoria"},
        }
    }
    assert warnings == []


@requires_corpus
def test_flux_post_history_instructions_go_after_the_chat_verbatim():
    world = _import("default_FluxTheCat.png")

    by_id = world.entries_by_id
    assert [e.id for e in world.entries] == [
        "description",
        "personality",
        "scenario",
        "greeting",
        "post-history-instructions",
    ]
    post = by_id["post-history-instructions"]
    assert (post.section, post.role, post.position) == ("post-history", "system", 0)
    assert "use at MOST 300 words per <CHR>" in post.content  # not a macro: left alone
    assert post.content.endswith("A: [understood.]")
    assert by_id["personality"].content == "Cool, Impulsive, Wary, Quick-Witted, Curious, Smart"
    assert by_id["scenario"].content.startswith("{{char}} is the new cat and owned by {{user}}.")
    assert world.custom_tags == []  # top-level V1 "tags" is "" here; data.tags wins


@requires_corpus
def test_coding_sensei_tags_become_custom_tags_and_empty_depth_prompt_is_dropped():
    world = _import("default_CodingSensei.png")

    assert world.custom_tags == ["coding", "utility", "assistant"]
    assert [e.id for e in world.entries] == ["description", "greeting"]
    assert world.entries_by_id["greeting"].content.startswith('"Hello world!"')


@requires_corpus
def test_legacy_world_keeps_its_folder_and_comments():
    world = _import("legacy_Sample_world.json")

    assert world.name == "legacy_Sample_world"
    assert [(f.id, f.name) for f in world.entry_folders] == [("sample-folder", "Sample Folder")]
    assert [(e.id, e.name, e.keywords, e.folder_id) for e in world.entries] == [
        ("aaa-definition", "AAA definition", ["AAA"], "sample-folder"),
        ("bbb-definition", "BBB definition", ["BBB"], "sample-folder"),
    ]
    assert "BBB" in world.entries[0].content  # the recursion pair stays intact


# --- PNG ---------------------------------------------------------------------------------


@pytest.mark.parametrize("v3_first", [True, False])
def test_ccv3_chunk_wins_over_chara(v3_first):
    v2, v3 = _text("chara", _v2("Old")), _text("ccv3", _v3("New"))

    card = read_png_card(_png(v3, v2) if v3_first else _png(v2, v3))

    assert card["spec"] == "chara_card_v3"
    assert card["data"]["name"] == "New"


def test_a_broken_ccv3_chunk_falls_back_to_chara_with_a_warning():
    broken = _chunk(b"tEXt", b"ccv3\0!!!not base64!!!")
    world, warnings = import_file(_png(broken, _text("chara", _v2("Old"))), "x.png")

    assert world.name == "Old"
    assert warnings == [
        "PNG: card chunk 'ccv3' is unusable (card chunk 'ccv3' is not valid base64); read 'chara'"
    ]


def test_ztxt_and_itxt_card_chunks_are_read():
    payload = base64.b64encode(json.dumps(_v2("Zed")).encode())
    ztxt = _chunk(b"zTXt", b"chara\0\0" + zlib.compress(payload))
    itxt = _chunk(
        b"iTXt", b"ccv3\0\1\0en\0\0" + zlib.compress(base64.b64encode(b'{"name": "Ito"}'))
    )

    assert read_png_card(_png(ztxt))["data"]["name"] == "Zed"
    assert read_png_card(_png(itxt)) == {"name": "Ito"}


def test_other_text_chunks_are_ignored():
    comment = _chunk(b"tEXt", b"Comment\0made with love")

    assert read_png_card(_png(comment, _text("chara", _v2("Ann"))))["data"]["name"] == "Ann"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"GIF89a not a png", "not a PNG file"),
        (b"", "not a PNG file"),
        (
            _png(_chunk(b"tEXt", b"Comment\0hi")),
            "no character card (tEXt chunk 'chara' or 'ccv3') in PNG",
        ),
        (_png(_chunk(b"tEXt", b"chara\0%%%%")), "card chunk 'chara' is not valid base64"),
        (_png(_chunk(b"tEXt", b"chara\0")), "card chunk 'chara' is empty"),
        (
            _png(_chunk(b"tEXt", b"chara\0" + base64.b64encode(b"{name: 1}"))),
            "card JSON is invalid: Expecting property name enclosed in double quotes "
            "at line 1 column 2",
        ),
        (
            _png(_chunk(b"tEXt", b"chara\0" + base64.b64encode(b"[1, 2]"))),
            "card JSON is invalid: expected an object, got array",
        ),
        (_png()[:45], "PNG is truncated: chunk 'IDAT' at byte 33 runs past the end of the file"),
    ],
    ids=["gif", "empty", "no-card", "bad-base64", "empty-chunk", "bad-json", "array", "truncated"],
)
def test_bad_png_gets_a_clear_message(data, message):
    with pytest.raises(CardError) as caught:
        read_png_card(data)

    assert str(caught.value) == message


def test_a_truncated_tail_after_the_card_is_forgiven():
    data = _png(_text("chara", _v2("Cut")))[:-6]

    world, warnings = import_file(data, "cut.png")

    assert world.name == "Cut"
    assert warnings == [
        "PNG: PNG is truncated: chunk header at byte "
        f"{len(data) - 6} is cut off; the card chunk before it was read"
    ]


# --- cards -------------------------------------------------------------------------------


def test_v2_card_maps_every_field_to_its_section_and_role():
    card = _v2(
        "Mira",
        description="<BOT> is a bard.",
        personality="cheerful",
        scenario="A tavern.",
        first_mes="Hi <user>!",
        alternate_greetings=["Second", "", "Third"],
        mes_example="<START>\n{{user}}: hello\n{{char}}: hey",
        system_prompt="You are {{char}}.",
        post_history_instructions="Stay brief.",
        creator_notes="A bard card.",
        creator="Ana",
        tags=["music", "fantasy"],
        character_version="2.1",
    )

    world = card_to_world(card)

    rows = [(e.id, e.section, e.role, e.api_role, e.position) for e in world.entries]
    assert rows == [
        ("system-prompt", "system-presets", "system", "system", 0),
        ("description", "system-presets", "character", "system", 1),
        ("personality", "system-presets", "personality", "system", 2),
        ("scenario", "system-presets", "scenario", "system", 3),
        ("greeting", "system-presets", "greeting", "assistant", 4),
        ("alternate-greeting-1", "system-presets", "greeting", "assistant", 5),
        ("alternate-greeting-2", "system-presets", "greeting", "assistant", 6),
        ("example-dialogue", "examples", "example", "system", 0),
        ("post-history-instructions", "post-history", "system", "system", 0),
    ]
    by_id = world.entries_by_id
    assert by_id["description"].content == "{{char}} is a bard."
    assert by_id["greeting"].content == "Hi {{user}}!"
    assert [by_id[f"alternate-greeting-{i}"].content for i in (1, 2)] == ["Second", "Third"]
    assert all(e.enabled for e in world.entries)
    assert by_id["example-dialogue"].content == "<START>\n{{user}}: hello\n{{char}}: hey"
    assert (world.name, world.description, world.author) == ("Mira", "A bard card.", "Ana")
    assert world.custom_tags == ["music", "fantasy"]
    assert world.model_extra["stCard"]["characterVersion"] == "2.1"


def test_example_dialogue_without_start_gets_one():
    world = card_to_world(_v2("Ex", mes_example="{{user}}: hi\n{{char}}: yo"))

    assert world.entries_by_id["example-dialogue"].content == "<START>\n{{user}}: hi\n{{char}}: yo"


def test_v1_flat_card_and_old_tavernai_names_are_read():
    v1 = card_to_world({"name": "Old", "description": "desc", "first_mes": "hello <BOT>"})
    tavern = card_to_world({"char_name": "Older", "char_persona": "grumpy", "char_greeting": "Hm."})

    assert [(e.id, e.content) for e in v1.entries] == [
        ("description", "desc"),
        ("greeting", "hello {{char}}"),
    ]
    assert v1.model_extra["stCard"] == {"spec": "chara_card_v1"}
    assert tavern.name == "Older"
    assert [(e.role, e.content) for e in tavern.entries] == [
        ("personality", "grumpy"),
        ("greeting", "Hm."),
    ]


def test_v3_card_keeps_its_own_fields_in_the_note():
    card = _v3(
        "Nova",
        description="A pilot.",
        nickname="Nov",
        group_only_greetings=["Hello, crew."],
        extensions={"depth_prompt": {"prompt": "Nova is tired.", "depth": 2, "role": "user"}},
    )

    world = card_to_world(card)

    group = world.entries_by_id["group-greeting-1"]
    assert (group.enabled, group.tags) == (False, ["group-only"])
    note = world.entries_by_id["character-note"]
    assert (note.section, note.api_role, note.content) == ("post-history", "user", "Nova is tired.")
    assert world.model_extra["stCard"]["fields"] == {"nickname": "Nov"}
    assert world.warnings == [
        "extensions.depth_prompt: SillyTavern inserts the character note at depth 2; "
        "Fabula sends it after the chat (post-history)"
    ]


def test_card_book_entries_come_after_the_character_and_never_reuse_an_id():
    book = {"name": "B", "entries": [{"keys": ["x"], "content": "lore", "name": "Description"}]}

    world = card_to_world(_v2("Dup", description="d", character_book=book))

    assert [e.id for e in world.entries] == ["description", "description-2"]
    assert world.entries[1].section == "chat-history"


NO_DATA = "card JSON is invalid: a '{}' card needs a 'data' object"
NO_FIELDS = (
    "card JSON is invalid: none of the character fields "
    "(name, description, personality, scenario, first_mes, mes_example)"
)


@pytest.mark.parametrize(
    ("card", "message"),
    [
        ({"spec": "chara_card_v2", "data": 5}, NO_DATA.format("chara_card_v2")),
        ({"spec": "chara_card_v3"}, NO_DATA.format("chara_card_v3")),
        ({"foo": 1}, NO_FIELDS),
        ([], "card JSON is invalid: expected an object, got array"),
    ],
)
def test_card_of_the_wrong_shape_is_refused(card, message):
    with pytest.raises(CardError) as caught:
        card_to_world(card)

    assert str(caught.value) == message


def test_card_with_wrong_types_is_coerced_with_warnings():
    card = _v2("", description=42, tags="a, b", alternate_greetings="One", creator=["x"])

    world = card_to_world(card)

    assert world.name == "Unnamed character"
    assert world.entries_by_id["description"].content == "42"
    assert world.custom_tags == ["a", "b"]
    assert world.entries_by_id["alternate-greeting-1"].content == "One"
    assert world.warnings == [
        "name: the card has no name; using 'Unnamed character'",
        "description: expected text, got number; converted",
        "creator: expected text, got array; ignored",
    ]


def test_cjk_names_get_numbered_ids():
    book = {"entries": [{"keys": ["龙"], "content": "a", "comment": "龙"}] * 2}

    entries = worldinfo_to_entries(book)

    assert [(e.id, e.name) for e in entries] == [("entry-1", "龙"), ("entry-2", "龙")]


# --- World Info --------------------------------------------------------------------------


def _native(**fields: Any) -> dict[str, Any]:
    entry = {"uid": 0, "key": ["k"], "keysecondary": [], "comment": "c", "content": "text"}
    return {"entries": {"0": {**entry, **fields}}}


@pytest.mark.parametrize(
    ("logic", "expected"), [(0, "AND_ANY"), (1, "NOT_ALL"), (2, "NOT_ANY"), (3, "AND_ALL")]
)
def test_selective_logic_numbers_map_to_secondary_keyword_logic(logic, expected):
    data = _native(keysecondary=["s"], selective=True, selectiveLogic=logic)

    (entry,) = worldinfo_to_entries(data)

    assert (entry.secondary_keywords, entry.secondary_keyword_logic) == (["s"], expected)


def test_native_entry_fields_map_one_to_one():
    data = _native(
        constant=True,
        disable=True,
        order=7,
        position=4,
        depth=2,
        role=2,
        caseSensitive=True,
        matchWholeWords=True,
        excludeRecursion=True,
        preventRecursion=True,
        probability=None,
        useProbability=True,
    )
    warnings: list[str] = []

    (entry,) = worldinfo_to_entries(data, warnings=warnings)

    assert (entry.id, entry.name, entry.content, entry.keywords) == ("c", "c", "text", ["k"])
    assert (entry.section, entry.role, entry.enabled, entry.position) == (
        "system-presets",
        "lore",
        False,
        7,
    )
    assert (entry.depth, entry.api_role) == (2, "assistant")
    assert entry.case_sensitive and entry.match_whole_words
    assert entry.exclude_recursion and entry.prevent_recursion
    assert entry.model_extra == {"stExtensions": {"probability": None}}  # null stays null
    assert warnings == []


def test_depth_only_counts_at_the_depth_position():
    (entry,) = worldinfo_to_entries(_native(position=0, depth=4))
    (deep,) = worldinfo_to_entries(_native(position=4))

    assert entry.depth is None
    assert deep.depth == 4


def test_character_book_v2_naming_and_extensions_are_read():
    book = {
        "entries": [
            {
                "id": 3,
                "keys": ["sword"],
                "secondary_keys": ["blade", "steel"],
                "name": "Sword",
                "content": "A sword.",
                "selective": True,
                "insertion_order": 5,
                "enabled": False,
                "case_sensitive": True,
                "position": "after_char",
                "priority": 10,
                "extensions": {
                    "position": 4,
                    "depth": 1,
                    "selectiveLogic": 3,
                    "match_whole_words": True,
                    "exclude_recursion": True,
                    "prevent_recursion": True,
                    "group": "weapons",
                    "sticky": 2,
                    "probability": 100,
                    "useProbability": True,
                },
            }
        ]
    }
    warnings: list[str] = []

    (entry,) = worldinfo_to_entries(book, warnings=warnings)

    assert (entry.id, entry.keywords, entry.secondary_keywords) == (
        "sword",
        ["sword"],
        ["blade", "steel"],
    )
    assert (entry.secondary_keyword_logic, entry.position, entry.enabled) == ("AND_ALL", 5, False)
    assert (entry.depth, entry.case_sensitive, entry.match_whole_words) == (1, True, True)
    assert entry.exclude_recursion and entry.prevent_recursion
    assert entry.model_extra == {
        "stExtensions": {
            "group": "weapons",
            "sticky": 2,
            "priority": 10,
            "comment": "",
            "specCaseSensitive": True,  # SillyTavern itself reads only the extension (issue 35)
        }
    }
    assert warnings == [
        "entries[0] ('Sword'): SillyTavern settings with no Fabula equivalent kept in "
        "stExtensions: group, priority, sticky"
    ]


def test_after_char_book_position_is_kept_for_export():
    book = {"entries": [{"keys": ["a"], "content": "x", "position": "after_char"}]}

    (entry,) = worldinfo_to_entries(book)

    assert entry.depth is None
    assert entry.model_extra["stExtensions"]["position"] == 1
    assert (
        world_to_worldinfo(WorldDefinition(name="w", entries=[entry]))["entries"]["0"]["position"]
        == 1
    )


def test_features_fabula_lacks_are_warned_about():
    data = {
        "entries": {
            "0": {"key": ["a"], "content": "x", "comment": "Odds", "probability": 25},
            "1": {"key": ["b"], "content": "y", "comment": "Note", "position": 2},
            "2": {"key": ["c"], "keysecondary": ["d"], "comment": "Loose", "selective": False},
        }
    }
    warnings: list[str] = []

    entries = worldinfo_to_entries(data, warnings=warnings)

    assert entries[0].model_extra == {
        "stExtensions": {
            "caseSensitive": None,
            "matchWholeWords": None,
            "probability": 25,
            "useProbability": True,
        }
    }
    assert entries[2].secondary_keywords == ["d"]
    assert warnings == [
        "entries[0] ('Odds'): SillyTavern fires it 25% of the time; Fabula fires it every time",
        "entries[1] ('Note'): SillyTavern inserts it at the top of the author's note; "
        "Fabula sends it with the other triggered entries",
        "entries[2] ('Loose'): 'selective' is off, so SillyTavern ignored its secondary keys; "
        "Fabula applies them",
    ]


def test_wrong_types_are_coerced_or_skipped_with_warnings():
    data = {
        "entries": {
            "0": {"key": "red, blue , ,red", "content": 7, "order": "12", "disable": "yes"},
            "1": "not an entry",
            "2": {"key": [1, None, "x"], "depth": -3, "position": 4, "selectiveLogic": 9},
        }
    }
    warnings: list[str] = []

    first, second = worldinfo_to_entries(data, warnings=warnings)

    assert (first.keywords, first.content, first.position, first.enabled) == (
        ["red", "blue"],
        "7",
        12,
        True,
    )
    assert (second.keywords, second.depth) == (["1", "x"], 4)
    assert warnings == [
        "entries[0].content: expected text, got number; converted",
        "entries[0].disable: expected true/false, got text; using False",
        "entries[1]: expected an object, got text; skipped",
        "entries[2].key: skipped a null among the words",
        "entries[2].selectiveLogic: unknown value 9; using AND_ANY",
        "entries[2] ('1'): depth -3 is negative; using 4",
    ]


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "key", "keys", "keysecondary", "secondary_keys", "comment", "name", "content",
                "constant", "selective", "selectiveLogic", "order", "insertion_order", "position",
                "disable", "enabled", "depth", "role", "probability", "useProbability",
                "caseSensitive", "extensions", "fabula", "group",
            ]
        ),
        st.recursive(
            # JSON carries no NaN or infinity (RFC 8259): a file's numbers are finite.
            st.none()
            | st.booleans()
            | st.integers()
            | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=8), inner, max_size=3)
            ),
            max_leaves=6,
        ),
    )
)  # fmt: skip
def test_any_entry_shape_imports_without_crashing(raw):
    warnings: list[str] = []

    entries = worldinfo_to_entries({"entries": [raw, raw]}, warnings=warnings)

    assert len({e.id for e in entries}) == len(entries)
    world = WorldDefinition(name="fuzz", entries=entries)
    assert load_world(export_world(world)).entries == world.entries


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
CARD_KEYS = st.sampled_from(
    [
        "spec",
        "data",
        "name",
        "description",
        "first_mes",
        "alternate_greetings",
        "tags",
        "extensions",
        "character_book",
        "mes_example",
        "creator_notes",
        "char_name",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(CARD_KEYS, JSON_VALUES), st.dictionaries(CARD_KEYS, JSON_VALUES))
def test_any_card_shape_gives_a_world_or_a_card_error(top, data):
    card = {**top, "data": data} if top.get("spec") == "chara_card_v2" else top

    try:
        world = card_to_world(card)
    except CardError:
        return
    assert load_world(export_world(world)).entries == world.entries


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64))
def test_any_png_bytes_give_a_card_or_a_card_error(tail):
    for data in (b"\x89PNG\r\n\x1a\n" + tail, _png(_chunk(b"iTXt", b"chara\0" + tail))):
        with contextlib.suppress(CardError):
            assert isinstance(read_png_card(data), dict)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "World Info JSON is invalid: expected an object with 'entries', got array"),
        ({"name": "x"}, "World Info JSON is invalid: 'entries' must be an object or array, none"),
        (
            {"entries": 3},
            "World Info JSON is invalid: 'entries' must be an object or array, number",
        ),
    ],
)
def test_world_info_without_entries_is_refused(data, message):
    with pytest.raises(CardError) as caught:
        worldinfo_to_entries(data)

    assert str(caught.value) == message


# --- export and round trips --------------------------------------------------------------


@requires_corpus
def test_exported_world_info_has_the_fields_sillytavern_reads():
    world = _import("Eldoria.json")

    exported = world_to_worldinfo(world)

    assert list(exported) == ["entries"]
    assert list(exported["entries"]) == ["0", "1", "2", "3"]
    first = exported["entries"]["0"]
    assert {k: first[k] for k in first if k not in ("content", "fabula")} == {
        "uid": 0,
        "key": ["eldoria", "wood", "forest", "magical forest"],
        "keysecondary": [],
        "comment": "",  # as in the file (Fabula names the entry after its first key)
        "constant": False,
        "selective": False,  # as in the file
        "selectiveLogic": 0,
        "addMemo": True,
        "order": 100,
        "position": 0,
        "disable": False,
        "excludeRecursion": False,
        "preventRecursion": False,
        "depth": 4,
        "caseSensitive": None,  # absent in the file: SillyTavern's global setting
        "matchWholeWords": None,
        "role": 0,
        "displayIndex": 0,
        "vectorized": False,
        "ignoreBudget": False,
        "matchPersonaDescription": False,
        "matchCharacterDescription": False,
        "matchCharacterPersonality": False,
        "matchCharacterDepthPrompt": False,
        "matchScenario": False,
        "matchCreatorNotes": False,
        "delayUntilRecursion": False,
        "probability": 100,
        "useProbability": True,
        "outletName": "",
        "group": "",
        "groupOverride": False,
        "groupWeight": 100,
        "scanDepth": None,
        "useGroupScoring": None,
        "automationId": "",
        "sticky": None,
        "cooldown": None,
        "delay": None,
        "triggers": [],
    }
    assert first["fabula"] == {"id": "eldoria", "role": "lore", "section": "chat-history"}
    assert json.loads(json.dumps(exported)) == exported


@requires_corpus
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_lorebooks_survive_a_round_trip(name):
    world = _import(name)

    again = worldinfo_to_world(world_to_worldinfo(world), world.name)

    assert _dump(again.entries) == _dump(lorebook_entries(world))
    assert again.warnings == []


def test_a_fabula_world_keeps_every_lorebook_field_through_world_info():
    world = load_world(
        {
            "name": "Round",
            "variables": [{"id": "hp", "type": "number"}],
            "entryFolders": [{"id": "f1", "name": "Places"}],
            "entries": [
                {"id": "intro", "content": "always", "section": "system-presets", "role": "system"},
                {"id": "greet", "content": "Hi", "role": "greeting"},
                {"id": "lore-1", "name": "", "content": "x\r\n<USER>", "role": "lore",
                 "section": "system-presets", "position": 3, "depth": 2, "keywords": ["a"]},
                {"id": "quest", "name": "任务", "content": "go", "section": "chat-history",
                 "role": "plot", "apiRole": "user", "keywords": ["quest"], "tags": ["t"],
                 "secondaryKeywords": ["b"], "secondaryKeywordLogic": "NOT_ANY",
                 "conditions": [{"variableId": "hp", "operator": "gt", "value": 3}],
                 "conditionLogic": "any", "folderId": "f1", "enabled": False},
                {"id": "deep", "name": "Deep", "content": "d", "section": "chat-history",
                 "apiRole": "assistant", "depth": 0, "keywords": ["z"], "caseSensitive": True,
                 "matchWholeWords": True, "preventRecursion": True, "excludeRecursion": True},
            ],
        }
    )  # fmt: skip

    exported = world_to_worldinfo(world)
    again = worldinfo_to_world(json.loads(json.dumps(exported)), "Round")

    assert [e.id for e in lorebook_entries(world)] == ["lore-1", "quest", "deep"]
    assert _dump(again.entries) == _dump(lorebook_entries(world))
    assert again.entry_folders == world.entry_folders
    assert exported["entries"]["2"]["position"] == 4
    assert exported["entries"]["2"]["role"] == 2


def test_sillytavern_only_settings_come_back_on_export():
    data = _native(group="g", sticky=3, probability=40, useProbability=True, position=6, depth=9)

    exported = world_to_worldinfo(worldinfo_to_world(data, "w"))["entries"]["0"]

    assert {k: exported[k] for k in ("group", "sticky", "probability", "position", "depth")} == {
        "group": "g",
        "sticky": 3,
        "probability": 40,
        "position": 6,
        "depth": 9,
    }


# --- import_file -------------------------------------------------------------------------


@requires_corpus
def test_import_file_reads_card_json_world_info_json_and_fabula_worlds():
    card = json.dumps(_v2("Jay", description="d")).encode()
    book = json.dumps({"entries": [{"keys": ["a"], "content": "b"}]}).encode()
    fabula = json.dumps(export_world(_import("Eldoria.json"))).encode()

    assert import_file(card, "jay.json")[0].name == "Jay"
    assert import_file(book, "My Book.json")[0].name == "My Book"
    world, warnings = import_file(b"\xef\xbb\xbf" + fabula, "eldoria-world.json")
    assert (world.name, warnings) == ("Eldoria", [])
    assert _dump(world.entries) == _dump(_import("Eldoria.json").entries)


BAD_FILES = {
    "png-name-json-bytes": (b"{}", "card.png", "not a PNG file"),
    "jpeg": (b"\xff\xd8\xff jpeg", "a.jpg", "file is neither a PNG character card nor JSON text"),
    "zip": (
        b"PK\x03\x04 zip",
        "card.charx",
        "CHARX and other zip archives are not supported; upload the PNG or JSON",
    ),
    "bad-json": (
        b"{oops",
        "card.json",
        "JSON is invalid: Expecting property name enclosed in double quotes at line 1 column 2",
    ),
    "array": (b"[1, 2]", "card.json", "JSON is invalid: expected an object, got array"),
    "unknown-object": (
        b'{"hello": "world"}',
        "x.json",
        "JSON is not a character card, a SillyTavern World Info file or a Fabula world",
    ),
    "bad-world": (
        b'{"version": "20.0.0", "name": ""}',
        "w.json",
        "Fabula world is invalid: name: string should have at least 1 character",
    ),
}


@pytest.mark.parametrize(
    ("data", "filename", "message"), list(BAD_FILES.values()), ids=list(BAD_FILES)
)
def test_import_file_refuses_bad_files_with_a_clear_message(data, filename, message):
    with pytest.raises(CardError) as caught:
        import_file(data, filename)

    assert str(caught.value) == message


def test_import_file_refuses_more_than_20_mb():
    too_big = b"\x89PNG\r\n\x1a\n" + b"\0" * (20 * 1024 * 1024)

    with pytest.raises(CardError) as caught:
        import_file(too_big, "huge.png")

    assert str(caught.value) == "file is larger than 20 MB"


def test_an_invalid_fabula_world_lists_every_problem():
    data = json.dumps({"version": "20.0.0", "name": "", "entries": [{"id": "Bad Id"}]}).encode()

    with pytest.raises(CardError) as caught:
        import_file(data, "w.json")

    assert caught.value.errors == [
        "name: string should have at least 1 character",
        "entries[0].id: must be kebab-case (lowercase letters, digits and single hyphens)",
    ]
    assert str(caught.value).endswith("(and 1 more)")


# --- the project's own fixtures (any clone) ----------------------------------------------


def test_fixtures_are_what_make_py_writes():
    assert sorted(make.fixtures()) == FIXTURE_FILES
    for name, data in make.fixtures().items():
        assert fixture_bytes(name) == data, f"{name}: run tests/fixtures/interop/make.py"


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_every_fixture_imports_and_survives_export(name):
    world, warnings = import_file(fixture_bytes(name), name)

    assert world.entries
    assert warnings == []
    assert export_world(load_world(export_world(world))) == export_world(world)


@pytest.mark.parametrize("name", ["ferryman_v2.png", "ferryman_v3.png", "ferryman_v2.json"])
def test_a_card_gives_its_fields_and_its_book(name):
    world, _ = import_file(fixture_bytes(name), name)

    ids = [e.id for e in world.entries]
    assert (world.name, world.author) == ("Orrin the Ferryman", "Fabula")
    assert ids[:6] == [
        "description",
        "personality",
        "scenario",
        "greeting",
        "alternate-greeting-1",
        "example-dialogue",
    ]
    assert _dump(lorebook_entries(world)) == _dump(
        import_file(fixture_bytes("the_wend_worldinfo.json"), "wend.json")[0].entries
    )


def test_a_v3_png_prefers_its_ccv3_chunk_over_the_v2_copy():
    from_png = export_world(import_file(fixture_bytes("ferryman_v3.png"), "o.png")[0])
    from_json = export_world(import_file(fixture_bytes("ferryman_v3.json"), "o.json")[0])

    assert from_png == from_json
    assert from_png["stCard"]["spec"] == "chara_card_v3"
    assert read_png_card(fixture_bytes("ferryman_v3.png"))["data"]["nickname"] == "Orrin"


def test_the_legacy_fixture_keeps_titles_as_names_and_recurses():
    world, _ = import_file(fixture_bytes("the_landing_legacy.json"), "landing.json")

    assert [e.id for e in world.entries] == ["landing-definition", "orrin-definition"]
    assert "Orrin" in world.entries[0].content
    assert fixture_path("the_landing_legacy.json").stat().st_size < 4096


def test_our_world_info_round_trips_through_sillytavern_export():
    world, _ = import_file(fixture_bytes("the_wend_worldinfo.json"), "wend.json")

    again = worldinfo_to_world(world_to_worldinfo(world), "wend")

    assert _dump(again.entries) == _dump(world.entries)


# --- bad input: clear errors, bounded work (issue 9 §6) ------------------------------------


def _card_chunk_offset(data: bytes) -> int:
    return data.index(b"tEXtchara") - 4


@pytest.mark.parametrize("cut", [14, 40, -20], ids=["after-keyword", "in-text", "in-crc"])
def test_a_card_chunk_cut_off_by_the_end_of_the_file_says_the_card_is_incomplete(cut):
    data = _png(_text("chara", _v2("Cut", description="x" * 200)))
    offset = _card_chunk_offset(data)
    end = offset + cut if cut > 0 else data.index(b"IEND") + cut

    with pytest.raises(CardError) as caught:
        import_file(data[:end], "cut.png")

    assert str(caught.value) == (
        f"PNG is truncated: card chunk 'chara' at byte {offset} runs past the end of the file "
        "(the card is incomplete)"
    )


def test_a_card_chunk_declaring_2_gb_is_refused_without_reading_it():
    data = bytearray(_png(_text("chara", _v2("Huge"))))
    offset = _card_chunk_offset(bytes(data))
    data[offset : offset + 4] = struct.pack(">I", 0x7FFFFFF0)

    with pytest.raises(CardError, match=r"card chunk 'chara' at byte .* runs past the end"):
        import_file(bytes(data), "huge.png")


def test_a_card_chunk_inflating_past_20_mb_is_refused():
    card = json.dumps(_v2("Big", description="x" * (21 * 1024 * 1024))).encode()
    chunk = _chunk(b"zTXt", b"chara\0\0" + zlib.compress(card, 9))
    assert len(chunk) < 100_000

    with pytest.raises(CardError) as caught:
        import_file(_png(chunk), "big.png")

    assert str(caught.value) == "card chunk 'chara' is larger than 20 MB once decompressed"


def _bad_crc(chunk: bytes) -> bytes:
    return chunk[:-4] + bytes(b ^ 0xFF for b in chunk[-4:])


def test_a_card_that_reads_despite_a_bad_crc_is_kept_with_a_warning():
    world, warnings = import_file(_png(_bad_crc(_text("chara", _v2("Worn")))), "worn.png")

    assert world.name == "Worn"
    assert warnings == ["PNG: card chunk 'chara' fails its CRC check; read anyway"]


def test_an_unreadable_card_with_a_bad_crc_says_the_file_is_damaged():
    payload = base64.b64encode(json.dumps(_v2("Torn")).encode())[:-10]
    data = _png(_bad_crc(_chunk(b"tEXt", b"chara\0" + payload)))

    with pytest.raises(CardError) as caught:
        import_file(data, "torn.png")

    assert str(caught.value).startswith("card JSON is invalid: ")
    assert str(caught.value).endswith("(the chunk fails its CRC check: the file is damaged)")


def test_a_card_field_longer_than_an_entry_holds_is_refused_with_its_name():
    card = _v2("Long", description="d", alternate_greetings=["hi", "x" * 1_000_001])

    with pytest.raises(CardError) as caught:
        import_file(json.dumps(card).encode(), "long.json")

    problem = "alternate_greetings[1]: is longer than the 1,000,000 characters an entry holds"
    assert str(caught.value) == f"card JSON is invalid: {problem}"
    assert caught.value.errors == [problem]


def test_a_card_with_a_nul_character_is_refused_naming_the_field():
    card = _v2("Nul", description="a\0b")

    with pytest.raises(CardError) as caught:
        import_file(_png(_text("chara", card)), "nul.png")

    problem = "data.description: contains a NUL character (U+0000), which cannot be stored"
    assert str(caught.value) == f"card JSON is invalid: {problem}"
    assert caught.value.errors == [problem]


def test_a_card_with_extensions_300_deep_is_refused():
    nested: Any = {}
    for _ in range(300):
        nested = {"n": nested}
    card = _v2("Deep", description="d", extensions={"tool": nested})

    with pytest.raises(CardError, match="card JSON is invalid: nested deeper than 64 levels"):
        import_file(_png(_text("chara", card)), "deep.png")


def test_a_book_value_out_of_the_world_bounds_is_a_card_error_naming_the_setting():
    book = {"scan_depth": 10**9, "entries": [{"keys": ["a"], "content": "A."}]}
    card = _v2("Scan", description="d", character_book=book)

    with pytest.raises(CardError) as caught:
        import_file(json.dumps(card).encode(), "scan.json")

    assert caught.value.errors == [
        "settings.lorebookScanDepth: input should be less than or equal to 10000"
    ]
