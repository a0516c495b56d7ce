"""A streaming reply does not keep its sent request alive (engine.llm.sdk.release_sent_request).

Both official SDKs, against the loopback model server: the prompt reaches the server whole,
and while the reply still streams the request the SDK keeps has no body left, nor do its
request options hold the prompt. A test that
fails here after an SDK or httpx upgrade means the attributes that function clears moved.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from engine.llm import ChatRequest
from engine.llm.anthropic import AnthropicProvider
from engine.llm.openai_compat import OpenAICompatProvider
from engine.session import Message
from tests.support.model_server import ModelServer, Reply

PLANTED = "lantern-" * 2000  # a 16 KB prompt: what a long session sends


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as model_server:
        yield model_server


def recording_client(sent: list[httpx2.Request]) -> httpx2.AsyncClient:
    async def record(request: httpx2.Request) -> None:
        sent.append(request)

    return httpx2.AsyncClient(event_hooks={"request": [record]})


def provider(kind: str, server: ModelServer, client: httpx2.AsyncClient) -> Any:
    if kind == "openai":
        return OpenAICompatProvider("k", model="m", base_url=server.openai_url, http_client=client)
    return AnthropicProvider("k", model="m", base_url=server.anthropic_url, http_client=client)


def sent_options() -> list[Any]:
    """The SDKs' request options alive now (each keeps the parameters it was given)."""
    return [o for o in gc.get_objects() if type(o).__name__ == "FinalRequestOptions"]


def live_options() -> int:
    """Request options alive now that are not the shared blank (other tests may leave some)."""
    gc.collect()
    return len([options for options in sent_options() if options.url])


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_the_body_is_let_go_once_sent_while_the_reply_streams(server, kind):
    server.script([Reply(text="tok " * 40, chunk_size=4, delay=0.01)])
    sent: list[httpx2.Request] = []
    client = recording_client(sent)
    model = provider(kind, server, client)
    prompt = [Message("system", "You narrate."), Message("user", PLANTED)]
    options_before = live_options()
    stream = aiter(model.stream(ChatRequest(messages=prompt)))

    first = await anext(stream)
    (request,) = sent
    assert first.text  # mid-reply
    assert request.content == b""
    assert not request.headers  # the API key with them
    assert b"".join([part async for part in request.stream]) == b""
    assert not [options for options in sent_options() if PLANTED in repr(vars(options))]
    assert live_options() <= options_before  # this request's copy is gone: a blank stands in

    rest = [chunk async for chunk in stream]
    assert "".join(c.text for c in [first, *rest] if c.text) == "tok " * 40
    body = server.requests[0].body
    assert PLANTED in str(body["messages"])  # the whole prompt was sent before
    await client.aclose()
