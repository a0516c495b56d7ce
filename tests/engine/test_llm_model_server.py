"""The loopback model server itself: both wire protocols without streaming, routing, records."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import httpx
import openai
import pytest

from tests.support.model_server import Fault, ModelServer, Reply, count_tokens


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer(default=Reply(text="Plain answer.")) as running:
        yield running


async def test_answers_an_openai_request_without_streaming(server):
    async with openai.AsyncOpenAI(api_key="k", base_url=server.openai_url, max_retries=0) as sdk:
        reply = await sdk.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Hello there"}]
        )

    assert reply.choices[0].message.content == "Plain answer."
    assert reply.usage is not None
    assert reply.usage.prompt_tokens == count_tokens("Hello there")
    assert server.requests[0].headers["authorization"] == "Bearer k"


async def test_answers_an_anthropic_request_without_streaming(server):
    async with anthropic.AsyncAnthropic(
        api_key="k", base_url=server.anthropic_url, max_retries=0
    ) as sdk:
        reply = await sdk.messages.create(
            model="c", max_tokens=50, messages=[{"role": "user", "content": "Hello there"}]
        )

    assert reply.content[0].text == "Plain answer."  # type: ignore[union-attr]
    assert reply.usage.input_tokens == count_tokens("Hello there")
    assert server.requests[0].headers["authorization"] == "Bearer k"


async def test_echo_replies_with_the_last_user_message(server):
    server.script([Reply(echo=True)])
    async with openai.AsyncOpenAI(api_key="k", base_url=server.openai_url, max_retries=0) as sdk:
        reply = await sdk.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "first"}, {"role": "user", "content": "echo me"}],
        )

    assert reply.choices[0].message.content == "echo me"


async def test_scripted_faults_apply_in_order_then_the_default_reply(server):
    server.script([Fault("503"), Reply(text="Scripted.")])
    async with httpx.AsyncClient(base_url=server.url) as client:
        statuses = []
        for _ in range(3):
            response = await client.post("/v1/chat/completions", json={"messages": []})
            statuses.append((response.status_code, response.json().get("choices")))

    assert [s for s, _ in statuses] == [503, 200, 200]
    assert statuses[1][1][0]["message"]["content"] == "Scripted."
    assert statuses[2][1][0]["message"]["content"] == "Plain answer."
    assert server.pending == 0


async def test_an_unknown_path_is_not_found_and_not_recorded(server):
    async with httpx.AsyncClient(base_url=server.url) as client:
        response = await client.get("/v1/embeddings")  # /v1/models answers: both SDKs list them

    assert response.status_code == 404
    assert server.requests == []
