"""Helpers for the directors' tests: a provider that answers each director from its own queue
and keeps every request, and a few plays of the campaign worlds."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from engine.gm.play import GMAction, GMActionResult, ensure_gm_state, play_gm_action
from engine.llm.base import ChatRequest, Chunk, Usage
from engine.llm.scripted import request_tokens
from engine.session import SessionState, ToolCall
from engine.world import WorldDefinition
from tests.engine.gm.directors.campaigns import load_campaign


def close(narration: str, route: str = "continue", **more: Any) -> dict[str, Any]:
    """A Game Director reply: its route, then ``log_event``."""
    call = {"name": "log_event", "arguments": {"narration": narration, **more}}
    return {"text": f"<route>{route}</route>", "tool_calls": [call]}


def story(
    prose: str, npcs: str, location: str, *, new: bool = True, more: str = ""
) -> dict[str, str]:
    flag = "<new_scene/>" if new else ""
    tags = f"<npc_list>{npcs}</npc_list><location>{location}</location>{flag}"
    return {"text": f"<synopsis>{prose}{tags}</synopsis>{more}"}


def say(npc: str, words: str, narration: str = "") -> dict[str, str]:
    return {"text": f'{narration} <say npc="{npc}">{words}</say>'.strip()}


class Directors:
    """Answers each request from the queue of its director label; keeps every request."""

    name = "scripted"
    model = "scripted"

    def __init__(self, **queues: list[dict[str, Any]]) -> None:
        self.queues = {k: list(v) for k, v in queues.items()}
        self.requests: list[ChatRequest] = []
        self._ids = 0

    def add(self, **queues: list[dict[str, Any]]) -> None:
        for key, replies in queues.items():
            self.queues.setdefault(key, []).extend(replies)

    @property
    def labels(self) -> list[str]:
        return [r.director or "master" for r in self.requests]

    def texts(self, director: str) -> list[str]:
        return [
            json.dumps([m.to_dict() for m in r.messages], ensure_ascii=False)
            for r in self.requests
            if (r.director or "master") == director
        ]

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        queue = self.queues.get(request.director or "master") or []
        if not queue:
            raise AssertionError(f"no reply left for the {request.director} director")
        reply = queue.pop(0)
        yield Chunk(text=reply.get("text", ""))
        calls = []
        for call in reply.get("tool_calls", []):
            self._ids += 1
            calls.append(ToolCall(f"d{self._ids}", call["name"], dict(call.get("arguments", {}))))
        if calls:
            yield Chunk(tool_calls=calls)
        usage = Usage(input_tokens=request_tokens(request), output_tokens=10)
        yield Chunk(usage=usage, finish_reason="tool_calls" if calls else "stop")


def world(name: str) -> WorldDefinition:
    return load_campaign(name).world


def new_session(world_def: WorldDefinition) -> SessionState:
    state = SessionState.initial(world_def)
    ensure_gm_state(world_def, state, 7)
    return state


def play(
    world_def: WorldDefinition,
    state: SessionState,
    character: str,
    action: GMAction,
    provider: Directors,
) -> GMActionResult:
    return asyncio.run(
        play_gm_action(world_def, state, character, action, provider=provider, rng_seed=7)
    )


def report(result: GMActionResult) -> dict[str, Any]:
    return dict(result.changes.get("directors") or {})
