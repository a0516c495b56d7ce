"""Record the llama.cpp server's answers Fabula must survive, as wire fixtures (issue 37 §6).

Each case sends the request the engine sends (built by the engine's own code: the master's
request of ``engine.gm.loop.master_request``, a plain world's prompt of ``engine.prompt``) to a
real ``llama-server --jinja`` serving SmolLM2-135M, and keeps the raw SSE events as they came,
with llama.cpp's log lines about the request. ``tests/engine/llm/test_llama_cpp_transcripts.py``
replays them through the loopback model server in ``make test``, so CI covers the quirks
without building anything.

    .venv/bin/python -m tests.real.record      # rewrites tests/fixtures/llama_cpp/*.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from engine.gm.loop import master_request
from engine.gm.perception import perceive, scene_context
from engine.llm.base import ChatRequest
from engine.llm.openai_compat import _tool_options
from engine.llm.tools import openai_message
from engine.prompt import assemble_prompt
from engine.session import Message, SessionState
from engine.world import load_world
from tests.real.serve import MODEL_NAME, LlamaServer

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "llama_cpp"
CUT_PROMPT = "Write exactly this and nothing else: The goblin hits you. [health: -1]"


def body(request: ChatRequest, max_tokens: int) -> dict[str, Any]:
    """The JSON the engine's OpenAI-compatible provider sends for ``request``."""
    data: dict[str, Any] = {
        "model": MODEL_NAME,
        "messages": [openai_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": max_tokens,
        "temperature": 0,
    }
    data.update(_tool_options(request))
    return data


def master(tool_choice: Any) -> ChatRequest:
    """The demo master's first request for "I ask Hilda for a room", as the loop builds it."""
    from engine.gm.play import ensure_gm_state
    from engine.gm.scene import Scene
    from engine.gm.words import lexicon

    world = load_world(ROOT / "studio" / "fixtures" / "gm_demo_world.json")
    assert world.game_master is not None
    state = ensure_gm_state(world, SessionState.initial(world), 1)
    who = world.game_master.characters[0].id
    scene = Scene(world.game_master, state, who, lexicon("en"), lexicon("en"))
    context = scene_context(perceive(world.game_master, state, who))
    request = master_request(scene, "I ask Hilda for a room", context, 8)
    return ChatRequest(messages=request.messages, tools=request.tools, tool_choice=tool_choice)


def plain(text: str) -> ChatRequest:
    """A plain world's prompt (its ``<current-state>`` block included) and the player's words."""
    world = load_world(ROOT / "studio" / "fixtures" / "demo_world.json")
    prompt = assemble_prompt(world, [Message("user", text)], SessionState.initial(world))
    return ChatRequest(messages=prompt.messages)


def record(url: str, data: dict[str, Any]) -> dict[str, Any]:
    with httpx.stream("POST", f"{url}/chat/completions", json=data, timeout=600) as response:
        events = list(_events(response.iter_bytes()))
        return {
            "status": response.status_code,
            "content_type": response.headers.get("content-type", ""),
            "events": events,
        }


def _events(stream: Iterator[bytes]) -> Iterator[str]:
    buffer = b""
    for piece in stream:
        buffer += piece
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            yield event.decode() + "\n\n"
    if buffer:
        yield buffer.decode()


def text_of(events: list[str]) -> str:
    out = ""
    for event in events:
        payload = event.removeprefix("data: ").strip()
        if not payload.startswith("{"):
            continue
        for choice in json.loads(payload).get("choices") or ():
            out += (choice.get("delta") or {}).get("content") or ""
    return out


def cut_directive(url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The shortest output cap at which the reply ends inside ``[health: …``."""
    for cap in range(4, 48):
        data = body(plain(CUT_PROMPT), cap)
        answer = record(url, data)
        text = text_of(answer["events"])
        opened = text.rfind("[")
        if opened >= 0 and "]" not in text[opened:] and ":" in text[opened:]:
            return data, answer
    return data, answer  # the last try, whatever it shows


def save(name: str, note: str, data: dict[str, Any], answer: dict[str, Any], log: str) -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    sent = {k: v for k, v in data.items() if k not in ("messages", "tools")}
    sent["tools"] = [t["function"]["name"] for t in data.get("tools", [])]
    lines = [line for line in log.splitlines() if "tool_choice" in line or "Wrong type" in line]
    fixture = {"case": name, "note": note, "server": server_version(), "request": sent,
               "server_log": lines[-3:], **answer, "text": text_of(answer["events"])}  # fmt: skip
    path = FIXTURES / f"{name}.json"
    path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {answer['status']}, {fixture['text'][:80]!r}")


def server_version() -> str:
    from tests.real.build import llama_tree

    return f"llama.cpp {llama_tree().parent.name} llama-server --jinja, SmolLM2-135M-Instruct Q4_1"


def main() -> int:
    with LlamaServer() as server:
        url = server.openai_url
        seen = len(server.log())  # each fixture keeps only the log lines of its own request
        named = body(master({"name": "log_event"}), 256)
        save("named_tool_choice", "a master call forcing log_event by name", named,
             record(url, named), server.log()[seen:])  # fmt: skip
        seen = len(server.log())
        auto = body(master("auto"), 256)
        save("master_text_only", "a master call with tools offered, tool_choice auto", auto,
             record(url, auto), server.log()[seen:])  # fmt: skip
        seen = len(server.log())
        data, answer = cut_directive(url)
        save("cut_off_directive", "a plain reply cut by max_tokens inside a directive", data,
             answer, server.log()[seen:])  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
