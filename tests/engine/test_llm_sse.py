"""Server-sent events decoding for the providers' raw streams."""

from __future__ import annotations

from collections.abc import AsyncIterator

from engine.llm.sse import Event, SSEDecoder, iter_events


def test_decodes_data_only_events():
    decoder = SSEDecoder()

    events = decoder.feed(b'data: {"a": 1}\n\ndata: [DONE]\n\n')

    assert events == [Event("", '{"a": 1}'), Event("", "[DONE]")]


def test_keeps_the_event_name_and_resets_it_after_dispatch():
    decoder = SSEDecoder()

    events = decoder.feed(b"event: ping\ndata: {}\n\ndata: x\n\n")

    assert events == [Event("ping", "{}"), Event("", "x")]


def test_a_line_split_across_chunks_waits_for_its_end():
    decoder = SSEDecoder()

    assert decoder.feed(b'data: {"te') == []
    assert decoder.feed(b'xt": "h\xc3') == []
    assert decoder.feed(b'\xa9"}\n') == []
    assert decoder.feed(b"\n") == [Event("", '{"text": "h\u00e9"}')]


def test_accepts_crlf_line_ends_and_joins_multi_line_data():
    decoder = SSEDecoder()

    events = decoder.feed(b"event: error\r\ndata: one\r\ndata:two\r\n\r\n")

    assert events == [Event("error", "one\ntwo")]


def test_ignores_comments_other_fields_and_blank_lines_without_data():
    decoder = SSEDecoder()

    events = decoder.feed(b": keep-alive\n\nid: 3\nretry: 10\n\nevent: ping\n\ndata: y\n\n")

    assert events == [Event("", "y")]


def test_close_dispatches_an_event_missing_its_blank_line():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: last") == []

    assert decoder.close() == [Event("", "last")]
    assert decoder.close() == []


async def test_iter_events_decodes_an_async_byte_stream():
    async def chunks() -> AsyncIterator[bytes]:
        for piece in (b"data: a\n", b"\ndata: ", b"b\n\n", b"data: c"):
            yield piece

    events = [event async for event in iter_events(chunks())]

    assert events == [Event("", "a"), Event("", "b"), Event("", "c")]
