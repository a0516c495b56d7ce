"""Decoding client frames and encoding server frames (play.frames)."""

from __future__ import annotations

import json

import pytest

from play import frames
from play.frames import FRAME_TYPES, FrameError, decode_frame

VALID = {
    "send": {"text": "Hello"},
    "regenerate": {},
    "swipe": {"message_id": 3, "direction": "left"},
    "edit": {"message_id": 3, "content": "New text"},
    "delete": {"message_id": 3},
    "continue": {},
    "stop": {},
    "revert": {"message_id": 3},
    "branch": {"message_id": 3},
    "checkpoint_save": {"name": "Camp"},
    "checkpoint_restore": {"checkpoint_id": 2},
    "checkpoint_delete": {"checkpoint_id": 2},
    "switch_greeting": {"index": 1},
    "action": {"action_id": "open-chest", "text": "I open it"},
    "roll": {},
    "demo_step": {},
    "sync": {"last_message_id": 4},
    "history": {"before": 4, "limit": 20},
    "set_variable": {"variable": "health", "value": 50},
    "inject_context": {"text": "It rains.", "position": "bottom", "duration": 2},
}


def test_every_frame_type_has_a_valid_example():
    assert set(VALID) == set(FRAME_TYPES)


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_it_decodes_each_frame_type(kind):
    frame = decode_frame(json.dumps({"type": kind, **VALID[kind]}))
    assert frame.type == kind
    dumped = frame.model_dump()
    assert {k: dumped[k] for k in VALID[kind]} == VALID[kind]


def test_unknown_fields_are_ignored():
    frame = decode_frame('{"type": "stop", "extra": 1}')
    assert frame.model_dump() == {"type": "stop"}


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        (None, "$", "frames must be JSON text"),
        ("{", "$", "not valid JSON"),
        ('"send"', "$", "must be a JSON object"),
        ('{"type": 3}', "type", "is required"),
        ('{"type": "fly"}', "type", "unknown frame type 'fly'"),
        ('{"type": "send", "text": 5}', "text", "input should be a valid string"),
        ('{"type": "delete", "message_id": 0}', "message_id", "input should be greater than"),
        ('{"type": "action"}', "action_id", "is required"),
        ('{"type": "send", "text": "' + "x" * 20_001 + '"}', "text", "string should have at most"),
    ],
)
def test_it_names_the_field_of_a_malformed_frame(raw, field, message):
    with pytest.raises(FrameError) as caught:
        decode_frame(raw)
    assert caught.value.field == field
    assert caught.value.message.startswith(message)


def test_it_refuses_oversized_frames():
    with pytest.raises(FrameError, match="larger than"):
        decode_frame("x" * (frames.MAX_FRAME_BYTES + 1))


def test_server_frames_encode_compactly_and_keep_unicode():
    text = frames.encode(frames.delta(7, "¡Ñandú! 你好", 3))
    assert text == ('{"type":"delta","message_id":7,"text":"¡Ñandú! 你好","seq":3,"first_seq":3}')


# --- bad input (issue 9 §6): every refusal is a FrameError naming the field ------------------


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        (
            '{"type": "send", "text": "a\\u0000b"}',
            "text",
            "contains a NUL character (U+0000), which cannot be stored",
        ),
        (
            '{"type": "checkpoint_save", "name": "\\u0000"}',
            "name",
            "contains a NUL character (U+0000), which cannot be stored",
        ),
        ('{"type": "stop", "x": ' + "[" * 60_000, "$", "is nested deeper than 64 levels"),
        (b'{"type": "send", "text": "\xff"}', "$", "is not valid UTF-8 (byte 0xff at position 26)"),
        ('{"type": "delete", "message_id": NaN}', "message_id", "must be a finite number"),
        ('{"type": "delete", "message_id": 1e400}', "message_id", "must be a finite number"),
        (
            '{"type": "delete", "message_id": 100000000000000000000000000000}',
            "message_id",
            "input should be less than or equal to 9223372036854775807",
        ),
        (
            '{"type": "switch_greeting", "index": 100000000000000000000}',
            "index",
            "input should be less than or equal to 10000",
        ),
    ],
    ids=["nul", "nul-name", "deep", "utf8", "nan", "inf", "huge-id", "huge-index"],
)
def test_it_names_the_field_of_hostile_input(raw, field, message):
    with pytest.raises(FrameError) as caught:
        decode_frame(raw)

    assert (caught.value.field, caught.value.message) == (field, message)


@pytest.mark.parametrize(
    "text", ["a", "", 'say "hi"\n', "é ✓ 😀", "\x00\x1f\\", "</script>", "\ud800", "1" * 10_000]
)
def test_a_delta_encodes_as_the_json_encoder_would(text):
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
    for frame in (frames.delta(7, text, 3), frames.delta(2**70, text, 9, 4)):
        assert frames.encode(frame) == encoder.encode(frame)
        assert json.loads(frames.encode(frame)) == frame
    merged = {**frames.delta(7, "a", 3), "text": text, "seq": 5}  # how backlogs merge
    assert frames.encode(merged) == encoder.encode(merged)
    odd = {**frames.delta(7, text, 3), "seq": True}  # not the token's shape: the encoder's way
    assert frames.encode(odd) == encoder.encode(odd)
