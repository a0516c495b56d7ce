"""Untrusted JSON: depth, encoding, NUL characters and numbers (engine.jsonguard)."""

from __future__ import annotations

import json
import math

import pytest

from engine.jsonguard import (
    MAX_JSON_DEPTH,
    JsonInputError,
    JsonSyntaxError,
    check_value,
    loads,
    nesting_depth,
)


def deep(levels: int, opener: str = "[") -> str:
    closer = {"[": "]", "{": "}"}[opener]
    inner = '{"a":' if opener == "{" else "["
    return inner * levels + ("1" if opener == "{" else "") + closer * levels


def test_a_body_nested_100000_deep_is_refused_without_recursion():
    with pytest.raises(JsonInputError) as caught:
        loads("[" * 100_000)

    assert str(caught.value) == "$: is nested deeper than 64 levels"


@pytest.mark.parametrize("opener", ["[", "{"])
def test_nesting_up_to_the_limit_is_read(opener):
    assert loads(deep(MAX_JSON_DEPTH, opener)) == json.loads(deep(MAX_JSON_DEPTH, opener))
    with pytest.raises(JsonInputError, match="nested deeper than 64 levels"):
        loads(deep(MAX_JSON_DEPTH + 1, opener))


def test_brackets_inside_strings_do_not_count():
    text = json.dumps({"text": "[" * 500 + '\\"{' * 200, "list": [[["x"]]]})

    assert nesting_depth(text) == 4  # the object and three lists; the strings are skipped
    assert loads(text)["list"] == [[["x"]]]
    assert nesting_depth("[[1]]") == 0  # so few brackets cannot pass the limit: not scanned


def test_a_nul_escape_is_refused_with_its_path():
    with pytest.raises(JsonInputError) as caught:
        loads('{"entries": [{"id": "a"}, {"content": "a\\u0000b"}]}')

    assert caught.value.field == "entries[1].content"
    assert caught.value.message == "contains a NUL character (U+0000), which cannot be stored"


def test_a_nul_in_a_key_is_refused_and_an_escaped_backslash_u_is_text():
    with pytest.raises(JsonInputError) as caught:
        loads('{"settings": {"a\\u0000": 1}}')
    assert str(caught.value).startswith("settings: has a key that contains a NUL character")

    assert loads('{"a": "\\\\u0000"}') == {"a": "\\u0000"}


def test_a_raw_nul_byte_is_refused():
    with pytest.raises(JsonInputError) as caught:
        loads(b'{"a": 1}\x00')

    assert str(caught.value) == "$: contains a NUL byte"


def test_broken_utf8_names_the_byte_and_its_position():
    with pytest.raises(JsonInputError) as caught:
        loads(b'{"name": "caf\xe9"}')

    assert str(caught.value) == "$: is not valid UTF-8 (byte 0xe9 at position 13)"


def test_a_utf8_bom_is_allowed():
    assert loads(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"settings": {"maxTokens": 1e400}}', "settings.maxTokens: must be a finite number"),
        ('{"values": [1, NaN]}', "values[1]: must be a finite number"),
        ('{"t": -Infinity}', "t: must be a finite number"),
        ('{"n": ' + "9" * 101 + "}", "$: has a number of more than 100 digits"),
    ],
)
def test_numbers_json_cannot_carry_are_refused_with_their_path(text, error):
    with pytest.raises(JsonInputError) as caught:
        loads(text)

    assert str(caught.value) == error


def test_not_json_is_a_syntax_error():
    with pytest.raises(JsonSyntaxError) as caught:
        loads("{oops")

    assert caught.value.field == "$"
    assert caught.value.message.startswith("not valid JSON: Expecting property name")


def test_check_value_walks_data_built_by_code():
    check_value({"a": [1, "ok", {"b": None}]})
    with pytest.raises(JsonInputError, match=r"^a\[1\]\.b: contains a NUL"):
        check_value({"a": [1, {"b": "x\0"}]})
    with pytest.raises(JsonInputError, match=r"^x: must be a finite number"):
        check_value({"x": math.nan})
    check_value({"x": math.nan, "y": "\0"}, allow_nan=True, allow_nul=True)


def test_check_value_refuses_300_levels_at_the_limit_path():
    value: object = 1
    for _ in range(300):
        value = {"k": value}

    with pytest.raises(JsonInputError) as caught:
        check_value({"extra": value})

    assert caught.value.field == "extra" + ".k" * 63
    assert caught.value.message == "is nested deeper than 64 levels"


@pytest.mark.parametrize(
    ("text", "field"),
    [('{"a": [1, "\\ud800"]}', "a[1]"), ('{"\\udc00": 1}', "$"), ('["x\\uDFFFy"]', "[0]")],
)
def test_a_lone_surrogate_is_refused_with_its_path(text, field):
    with pytest.raises(JsonInputError) as caught:
        loads(text)
    assert (caught.value.field, "lone surrogate" in caught.value.message) == (field, True)


def test_a_surrogate_pair_is_one_character_and_welcome():
    assert loads('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}
