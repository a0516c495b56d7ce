"""Every server frame within the socket's limit (play.framing): paged, shortened or split."""

from __future__ import annotations

import json
from typing import Any

from play import frames, framing

LIMIT = 256 * 1024


def message(message_id: int, content: str = "A short reply.", **extra: Any) -> dict[str, Any]:
    return {
        "id": message_id,
        "position": message_id,
        "role": "assistant",
        "content": content,
        "status": "complete",
        "error": None,
        "changes": [],
        "swipes": [{"content": content, "status": "complete"}],
        "active_swipe": 0,
        "choices": [],
        **extra,
    }


def history(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    state = frames.state({"gold": 1}, 3)
    frame = frames.history({"id": "s"}, messages, state, [], None, [], has_more=False)
    return {**frame, "since": None, **extra}


def sizes(pieces: list[dict[str, Any]]) -> list[int]:
    return [len(text.encode()) for text in map(frames.encode, pieces)]


def test_small_frames_pass_untouched():
    frame = frames.message_done(message(1))
    assert framing.fit(frame) == [frame]
    assert framing.texts(frame) == [frames.encode(frame)]


def test_a_message_of_escaped_characters_is_cut_within_the_limit():
    text = '\x01"\\' * 200_000  # 14 bytes each once escaped
    [done] = framing.fit(frames.message_done(message(4, text)))
    shortened = done["message"]
    assert shortened["truncated"] is True
    assert text.startswith(shortened["content"]) and shortened["content"]
    assert [s["content"] for s in shortened["swipes"]] == [""]
    assert sizes([done])[0] <= LIMIT


def test_huge_changes_keep_only_which_variable_moved():
    change = {"variableId": "bag", "path": [], "old": "x" * 300_000, "new": "y" * 300_000}
    [done] = framing.fit(frames.message_done(message(4, changes=[change])))
    assert done["message"]["changes"] == [{"variableId": "bag", "path": [], "truncated": True}]
    assert done["message"]["content"] == "A short reply."


def test_a_history_keeps_the_newest_messages_that_fit():
    page = [message(i, f"Reply {i}. " + "words " * 1_000) for i in range(1, 51)]
    [fitted] = framing.fit(history(page))
    kept = [m["id"] for m in fitted["messages"]]
    assert kept == list(range(51 - len(kept), 51))
    assert 10 < len(kept) < 50
    assert fitted["has_more"] is True
    assert sizes([fitted])[0] <= LIMIT


def test_a_since_history_that_cannot_carry_every_new_message_starts_afresh():
    page = [message(i, "words " * 5_000) for i in range(1, 21)]
    [fitted] = framing.fit(history(page, since=7))
    assert fitted["since"] is None
    assert fitted["messages"][-1]["id"] == 20


def test_a_long_running_text_keeps_its_end():
    running = {"message_id": 9, "text": "start " + "middle " * 100_000 + "the end", "seq": 400}
    [fitted] = framing.fit(history([message(9, "", status="streaming")], running=running))
    assert fitted["running"]["seq"] == 400
    assert fitted["running"]["truncated"] is True
    assert fitted["running"]["text"].startswith("…")
    assert fitted["running"]["text"].endswith("middle the end")
    assert sizes([fitted])[0] <= LIMIT


def test_many_checkpoints_leave_room_for_the_messages():
    checkpoints = [
        {"id": i, "name": "c" * 200, "message_count": i, "created_at": "2026"} for i in range(3000)
    ]
    [fitted] = framing.fit(history([message(1)], checkpoints=checkpoints))
    assert fitted["messages"][0]["id"] == 1
    assert fitted["checkpoints"][-1]["id"] == 2999
    assert sizes([fitted])[0] <= LIMIT


def test_a_state_that_fits_stays_one_frame():
    frame = frames.state({"gold": 1, "journal": "x" * 5_000}, 2, [])
    assert framing.fit(frame) == [frame]


def test_a_large_state_is_split_and_its_changes_follow():
    values = {f"v{i}": "x" * 60_000 for i in range(10)}
    changes = [{"variableId": "v1", "path": [], "old": "a", "new": "x" * 60_000}] * 3
    pieces = framing.fit(frames.state(values, 4, changes))
    assert len(pieces) > 2
    assert all(p["partial"] is True and p["turn"] == 4 for p in pieces)
    merged = {k: v for p in pieces for k, v in p["values"].items()}
    assert merged == values
    assert [c for p in pieces for c in p["changes"]] == changes
    assert max(sizes(pieces)) <= LIMIT


def test_a_frame_that_cannot_be_shaped_becomes_an_error():
    frame, text = framing.encoded(frames.notification("!" * 300_000, "info"))
    assert frame == {
        "type": "error",
        "error": "An update was too large to send; reload the page to see it.",
        "field": None,
        "frame": {"type": "notification"},
    }
    assert json.loads(text) == frame
