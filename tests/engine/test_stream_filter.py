"""The streaming filter: what the player sees while the reply arrives (seed 000 "Cómo procesa el
motor la salida de la IA"; ARCHITECTURE "The turn, as data flows", step 4)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.directives import parse_reply
from engine.stream_filter import StreamFilter
from engine.world import WorldDefinition, load_world


def make_world() -> WorldDefinition:
    return load_world(
        {
            "name": "Stream",
            "variables": [
                {
                    "id": "health",
                    "name": "Health",
                    "type": "number",
                    "defaultValue": 100,
                    "min": 0,
                    "max": 100,
                },
                {"id": "gold", "type": "number", "defaultValue": 0},
                {"id": "player-hp", "name": "Player HP", "type": "number", "defaultValue": 50},
                {"id": "hp-cn", "name": "生命值", "type": "number", "defaultValue": 30},
                {"id": "mood", "type": "string", "defaultValue": "calm"},
                {"id": "has-key", "type": "boolean", "defaultValue": False},
                {"id": "stats", "type": "json", "defaultValue": {"level": 1}},
                {"id": "inventory", "type": "json", "defaultValue": []},
                {"id": "npcs", "type": "json"},
            ],
            "audioTracks": [{"id": "bgm-tavern"}, {"id": "bgm-battle"}],
        }
    )


WORLD = make_world()
NAMES = [
    "health",
    "gold",
    "player-hp",
    "player hp",
    "hp-cn",
    "生命值",
    "mood",
    "has-key",
    "stats",
    "inventory",
    "npcs",
    "audio",
]
LEAK = re.compile(
    r"<think|<updatevariable|</?current-state|<persona|\[\s*(?:"
    + "|".join(map(re.escape, NAMES))
    + r")\s*[:.]",
    re.IGNORECASE,
)


def stream(reply: str, cuts: list[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(reply)})
    chunks = [reply[a:b] for a, b in zip([0, *points], [*points, len(reply)], strict=True)]
    filt = StreamFilter(WORLD)
    emitted = [filt.feed(chunk) for chunk in chunks]
    emitted.append(filt.close())
    return emitted


# --- behaviour ---------------------------------------------------------------------------


def test_plain_text_is_emitted_at_once_but_trailing_whitespace_waits() -> None:
    filt = StreamFilter(WORLD)
    assert filt.feed("Hello world") == "Hello world"
    assert filt.feed(" and more.\n") == " and more."
    assert filt.feed("Next") == "\nNext"
    assert filt.close() == ""


def test_a_partial_directive_is_never_emitted() -> None:
    filt = StreamFilter(WORLD)
    assert filt.feed("He hits you [hea") == "He hits you"
    assert filt.feed("lth: -") == ""
    assert filt.feed("5] hard.") == " hard."
    assert filt.close() == ""
    assert filt.result().state["health"] == 95


def test_a_bracket_that_cannot_name_a_variable_is_emitted_early() -> None:
    filt = StreamFilter(WORLD)
    assert filt.feed("[Chap") == "[Chap"
    assert filt.feed("ter 2]") == "ter 2]"
    filt = StreamFilter(WORLD)
    assert filt.feed("[Heal") == ""  # could still become [Health: …]
    assert filt.feed("ing potion]") == "[Healing potion]"


def test_prose_with_a_colon_after_a_known_name_prefix_is_released_at_the_colon() -> None:
    filt = StreamFilter(WORLD)
    assert filt.feed("[Player") == ""
    assert filt.feed(" One: ready]") == "[Player One: ready]"


def test_thinking_never_leaves_even_when_its_tags_are_cut_in_pieces() -> None:
    pieces = ["<th", "ink>secret [gold: +1]", " plan</thi", "nk>", "Visible."]
    filt = StreamFilter(WORLD)
    assert [filt.feed(p) for p in pieces] == ["", "", "", "", "Visible."]
    assert filt.close() == ""


def test_an_unterminated_thinking_block_swallows_the_rest() -> None:
    filt = StreamFilter(WORLD)
    assert filt.feed("Shown. <thinking>") == "Shown."
    assert filt.feed("hidden forever") == ""
    assert filt.close() == ""


def test_an_update_variable_block_streamed_char_by_char_never_shows() -> None:
    reply = (
        'Start.\n<UpdateVariable target="stats"><JSONPatch>[{"op": "replace", "path": "/level",'
        ' "value": 2}]</JSONPatch></UpdateVariable>\nEnd.'
    )
    emitted = stream(reply, list(range(len(reply))))
    assert "".join(emitted) == "Start.\nEnd."
    assert all(not LEAK.search(e) for e in emitted)


def test_a_json_payload_with_brackets_streamed_char_by_char() -> None:
    reply = 'Loot [inventory: push {"name": "Map [north]", "tags": ["a]"]}] found.'
    emitted = stream(reply, list(range(len(reply))))
    assert "".join(emitted) == "Loot found."
    filt = StreamFilter(WORLD)
    for char in reply:
        filt.feed(char)
    filt.close()
    assert filt.result().state["inventory"] == [{"name": "Map [north]", "tags": ["a]"]}]


def test_a_directive_left_open_is_released_at_the_end_of_its_line() -> None:
    filt = StreamFilter(WORLD)
    assert filt.feed("A [health: -5") == "A"
    assert filt.feed("\nB") == " [health: -5\nB"
    assert filt.close() == ""


def test_blank_lines_left_by_directives_are_collapsed_while_streaming() -> None:
    reply = "One.\n\n[gold: +1]\n\n\n[health: -1]\nTwo.\n\n\n\nThree. [mood: tense]\n\n"
    emitted = stream(reply, list(range(len(reply))))
    assert "".join(emitted) == "One.\n\nTwo.\n\nThree."


def test_feeding_after_close_is_refused() -> None:
    filt = StreamFilter(WORLD)
    filt.close()
    with pytest.raises(ValueError, match="closed"):
        filt.feed("late")
    assert filt.close() == ""


def test_result_parses_the_whole_reply_with_the_given_state() -> None:
    filt = StreamFilter(WORLD, {"gold": 10})
    filt.feed("Paid. [gold: -")
    filt.feed("4]")
    filt.close()
    assert filt.raw == "Paid. [gold: -4]"
    result = filt.result()
    assert (result.text, result.state["gold"]) == ("Paid.", 6)


def test_a_long_reply_is_kept_whole_in_a_few_pieces_not_one_per_token() -> None:
    """A streamed reply's raw text stays exact while its tokens are joined as they pile up."""
    tokens = [f"word{i} " for i in range(500)] + ["[gold: +5]"]
    filt = StreamFilter(WORLD, {"gold": 1})
    shown = "".join(filt.feed(token) for token in tokens) + filt.close()
    assert filt.raw == "".join(tokens)
    assert shown == "".join(tokens[:-1]).rstrip()
    assert len(filt._chunks) < 32  # bounded, whatever the length of the reply
    assert filt.result().state["gold"] == 6


# --- nothing internal (issue 37 §5) ------------------------------------------------------


def test_an_echoed_current_state_block_is_never_shown_even_split_across_chunks() -> None:
    reply = "You wait.\n<current-state>\nhealth: 100\n</current-state>\nThe rain stops."

    emitted = stream(reply, [14, 20, 31, 52])

    assert "".join(emitted) == "You wait.\nThe rain stops."
    assert all("current-state" not in piece and "health: 100" not in piece for piece in emitted)


@pytest.mark.parametrize(
    "block",
    ["persona", "behavior-rules", "directive-syntax", "audio-tracks", "story-summary",
     "session-memory", "synopsis", "route", "ooc", "notes"],
)  # fmt: skip
def test_every_block_the_prompt_is_written_in_is_removed(block: str) -> None:
    reply = f"Before. <{block}>engine words</{block}> After."

    assert "".join(stream(reply, [9, 12])) == "Before. After."


def test_an_engine_block_left_open_is_dropped_to_the_end_and_a_lone_closer_alone() -> None:
    assert "".join(stream("Calm.\n<current-state>\ngold: 3", [8])) == "Calm."
    assert "".join(stream("Calm.</current-state> Still.", [9])) == "Calm. Still."


def test_a_directive_cut_off_by_the_end_of_the_reply_is_not_shown() -> None:
    filt = StreamFilter(WORLD)
    assert filt.feed("The blade bites. [health: -1") == "The blade bites."
    assert filt.close() == ""
    assert filt.result().text == "The blade bites."
    assert filt.result().state["health"] == 100  # never applied


def test_a_directive_head_cut_off_by_the_end_of_the_reply_is_not_shown() -> None:
    assert "".join(stream("It hurts. [heal", [11])) == "It hurts."
    assert "".join(stream("It hurts. [Chapter", [11])) == "It hurts. [Chapter"


def test_a_directive_left_open_before_more_text_stays_as_it_was() -> None:
    assert "".join(stream("A [health: -5\nB", [4])) == "A [health: -5\nB"


# --- properties --------------------------------------------------------------------------

DIRECTIVES = [
    "[health: -5]",
    "[gold: +50]",
    "[health: set -10]",
    "[gold: 100]",
    "[Player HP: -3]",
    "[player hp: *2]",
    "[生命值: -1]",
    '[mood: set "dark: forest]"]',
    "[mood: happy]",
    "[has-key: toggle]",
    '[stats: merge {"level": 2, "note": "a]b"}]',
    "[stats.level: +1]",
    '[inventory: push {"name": "Sword", "tags": ["x", {"y": [1]}]}]',
    "[inventory: delete 0]",
    "[npcs.aria.affinity: +5]",
    "[audio: bgm-tavern play]",
    "[audio: bgm-battle crossfade 2.5]",
    "[ health : -1 ]",
    '[stats: merge {\n  "level": 3\n}]',
    "[gold: add]",
    "[audio: nope play]",
    '[stats: merge {"bad": ]',
    "[health: delete]",
]
BLOCKS = [
    "<think>plan [gold: +9]</think>",
    "<thinking>\n[health: -99]\n</thinking>",
    '<UpdateVariable target="stats"><JSONPatch>[{"op": "replace", "path": "/level", "value": 7}]'
    "</JSONPatch></UpdateVariable>",
    '<UpdateVariable>\n<JSONPatch>\n[{"op": "delta", "path": "/gold", "value": -5}]\n'
    "</JSONPatch>\n</UpdateVariable>",
    "<current-state>\nhealth: 100\ngold: 0\n</current-state>",
    "</current-state>",
    "<persona>\nA tall ranger.\n</persona>",
]
PROSE = st.lists(
    st.sampled_from([*"abcXYZ .,;:!?'-\n\t]>é", "   ", "\n\n", "你好"]), max_size=12
).map("".join) | st.sampled_from(["[Chapter 2]", "[Chapter 3: The Road]", "a < b", "[Heal all]"])
structured = st.lists(
    st.one_of(PROSE, st.sampled_from(DIRECTIVES), st.sampled_from(BLOCKS)), max_size=14
).map("".join)
unterminated_tail = st.sampled_from(
    [
        "",
        "<think>never closed [gold: +1]",
        "<UpdateVariable>[",
        "[health: -1",
        "[hea",
        "<story-summ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(structured, unterminated_tail, st.lists(st.integers(0, 600), max_size=30))
def test_structured_replies_stream_to_the_clean_text_and_never_leak(
    reply: str, tail: str, cuts: list[int]
) -> None:
    reply += tail
    emitted = stream(reply, cuts)
    assert "".join(emitted) == parse_reply(WORLD, reply).text
    for piece in emitted:
        assert not LEAK.search(piece), piece
    assert not LEAK.search("".join(emitted))


SOUP = st.sampled_from(
    [
        "[",
        "]",
        "{",
        "}",
        ":",
        '"',
        "\\",
        "\n",
        " ",
        "\t",
        "-",
        "+",
        "5",
        ".",
        "health",
        "Health",
        "Player HP",
        "player",
        "npcs.aria",
        "stats",
        "audio",
        "bgm-tavern",
        "play",
        "push",
        "merge",
        "delete",
        "<think>",
        "</think>",
        "<thinking>",
        "</thinking>",
        "<",
        ">",
        "<th",
        '<UpdateVariable target="stats">',
        "</UpdateVariable>",
        "<JSONPatch>",
        '{"a": 1}',
        "\n\n\n",
        "\x00",
        "\u3000",
        "生命值",
    ]
)
soup = st.lists(SOUP | st.text(max_size=3), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.text() | soup, st.lists(st.integers(0, 200), max_size=40))
def test_any_split_of_any_reply_streams_to_exactly_the_parsed_text(
    reply: str, cuts: list[int]
) -> None:
    assert "".join(stream(reply, cuts)) == parse_reply(WORLD, reply).text


@settings(max_examples=60, deadline=None)
@given(soup)
def test_one_character_chunks_match_the_parsed_text(reply: str) -> None:
    assert "".join(stream(reply, list(range(len(reply))))) == parse_reply(WORLD, reply).text


@settings(max_examples=400, deadline=None)
@given(structured | soup, st.lists(st.integers(0, 600), max_size=30))
def test_shown_is_what_feed_returned_so_far_wherever_the_chunks_were_cut(
    reply: str, cuts: list[int]
) -> None:
    """``shown()`` works the text out again from the raw reply, so the output must not depend
    on where the chunks were cut (a failed turn's partial text comes from it)."""
    points = sorted({c for c in cuts if 0 < c < len(reply)})
    chunks = [reply[a:b] for a, b in zip([0, *points], [*points, len(reply)], strict=True)]
    filt = StreamFilter(WORLD)
    emitted = ""
    for chunk in chunks:
        emitted += filt.feed(chunk)
        assert filt.shown() == emitted
    filt.close()
    with pytest.raises(ValueError):
        filt.shown()
