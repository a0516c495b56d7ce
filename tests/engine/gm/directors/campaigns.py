"""The three scripted campaigns of seed 003 (issue 12 §5), shared by ``test_campaigns.py`` and
``bench/isolation.py``: loading them, answering each director's request from the script, and
counting where planted secret strings turn up.

A campaign is a world of ``tests/fixtures/gm/isolation/`` and its script in
``tests/fixtures/gm/isolation_scripts/``: the planted strings of each secret (by the secret's
ref, ``engine.gm.directors.knowledge``), the steps (the player's input, the Game Director's
replies or its route and account, the Story Director's answer, the Scene Director's answers,
the line out of character written for the player when the Story Director asks for one, and the
revelations the step makes, for the count), and canned NPC lines for the detector.
What may appear where is worked out from the script alone, never from the engine's own record:
a Scene Director request may hold a secret once a step revealed it to an NPC of that scene; a
player may read his own secrets and those revealed to him.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.gm.directors.knowledge import secret_detector
from engine.gm.mentions import fold
from engine.gm.play import GMActionResult, ensure_gm_state, play_gm_action
from engine.llm.base import ChatRequest, Chunk, Provider, Usage
from engine.llm.scripted import request_tokens
from engine.session import SessionState, ToolCall
from engine.tokens import estimate_tokens
from engine.world import WorldDefinition, load_world

ROOT = Path(__file__).resolve().parents[4]
WORLDS = ROOT / "tests" / "fixtures" / "gm" / "isolation"
SCRIPTS = ROOT / "tests" / "fixtures" / "gm" / "isolation_scripts"
NAMES = ("vampire", "heiress", "heist")
DEFAULT_STORY = "<synopsis>The scene goes on as it was.</synopsis>"
DEFAULT_SCENE = "The moment passes."
DEFAULT_OOC = "Take your time: the scene can end whenever you like."
SEED = 7
MARKERS = {  # how a request on the wire says which director sent it (the system prompt)
    "story": "You are the Story Director of this role-playing game",
    "scene": "You are the Scene Director of this role-playing game",
    "ooc": "You talk to the player of a role-playing game out of character",
}


@dataclass
class Step:
    input: str
    game: list[dict[str, Any]]
    story: str | None
    scene: list[str]
    reveals: list[dict[str, Any]]
    ooc: str | None = None


@dataclass
class Campaign:
    name: str
    world: WorldDefinition
    character: str
    planted: dict[str, list[str]]
    steps: list[Step]
    leaks: list[tuple[str, str]]
    clean: list[str]


def _game(step: dict[str, Any]) -> list[dict[str, Any]]:
    if "game" in step:
        return list(step["game"])
    if "route" not in step:
        return []
    close = {"name": "log_event", "arguments": {"narration": step["account"]}}
    return [{"text": f"<route>{step['route']}</route>", "tool_calls": [close]}]


def load_campaign(name: str) -> Campaign:
    script = json.loads((SCRIPTS / f"{name}.json").read_text(encoding="utf-8"))
    world = load_world(json.loads((WORLDS / script["world"]).read_text(encoding="utf-8")))
    steps = [
        Step(
            s["input"],
            _game(s),
            s.get("story"),
            list(s.get("scene", [])),
            s.get("reveals", []),
            s.get("ooc"),
        )
        for s in script["steps"]
    ]
    canned = script["canned"]
    leaks = [(x["secret"], x["line"]) for x in canned["leaks"]]
    return Campaign(
        name, world, script["character"], script["planted"], steps, leaks, canned["clean"]
    )


class Script:
    """Answers each director's request from the step being played."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.step = 0
        self.used: dict[str, int] = {}

    def begin(self, index: int) -> None:
        self.step, self.used = index, {}

    def reply(self, director: str) -> dict[str, Any]:
        step = self.campaign.steps[self.step]
        n = self.used.get(director, 0)
        self.used[director] = n + 1
        if director == "story":
            return {"text": step.story or DEFAULT_STORY}
        if director == "scene":
            return {"text": step.scene[n] if n < len(step.scene) else DEFAULT_SCENE}
        if director == "ooc":
            return {"text": step.ooc or DEFAULT_OOC}
        if n < len(step.game):
            return step.game[n]
        close = {"name": "log_event", "arguments": {"narration": "Nothing else happens."}}
        return {"text": "<route>continue</route>", "tool_calls": [close]}


@dataclass
class Sent:
    """One request a director made, at a step: its label and its whole text."""

    director: str
    step: int
    text: str


class ScriptedDirectors:
    """An in-process provider: each request answered by ``Script`` for its director label."""

    name = "scripted"
    model = "scripted"

    def __init__(self, script: Script) -> None:
        self.script = script
        self.sent: list[Sent] = []
        self._ids = 0

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        director = request.director or "master"
        text = json.dumps([m.to_dict() for m in request.messages], ensure_ascii=False)
        self.sent.append(Sent(director, self.script.step, text))
        reply = self.script.reply(director)
        yield Chunk(text=reply.get("text", ""))
        calls = []
        for call in reply.get("tool_calls", []):
            self._ids += 1
            calls.append(ToolCall(f"c{self._ids}", call["name"], dict(call.get("arguments", {}))))
        if calls:
            yield Chunk(tool_calls=calls)
        out = reply.get("text", "") + json.dumps(reply.get("tool_calls", []))
        usage = Usage(input_tokens=request_tokens(request), output_tokens=estimate_tokens(out))
        yield Chunk(usage=usage, finish_reason="tool_calls" if calls else "stop")


@dataclass
class Played:
    """A campaign played: each step's result (None for an engine move's… never: every step
    has one) and the requests the directors made."""

    campaign: Campaign
    results: list[GMActionResult] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)

    @property
    def usage(self) -> Usage:
        total = Usage()
        for result in self.results:
            total = total.plus(result.usage)
        return total

    @property
    def calls(self) -> int:
        return sum(r.model_calls for r in self.results)


async def play_campaign(
    campaign: Campaign,
    provider: Provider,
    script: Script,
    *,
    story_every_turn: bool = False,
) -> Played:
    """Play every step of ``campaign`` with ``provider`` (answering from ``script``)."""
    state = SessionState.initial(campaign.world)
    ensure_gm_state(campaign.world, state, SEED).directors.story_every_turn = story_every_turn
    played = Played(campaign)
    for index, step in enumerate(campaign.steps):
        script.begin(index)
        result = await play_gm_action(
            campaign.world, state, campaign.character, step.input, provider=provider, rng_seed=SEED
        )
        state = result.state
        played.results.append(result)
    return played


def play_in_process(campaign: Campaign, *, story_every_turn: bool = False) -> Played:
    script = Script(campaign)
    provider = ScriptedDirectors(script)
    played = asyncio.run(
        play_campaign(campaign, provider, script, story_every_turn=story_every_turn)
    )
    played.sent = provider.sent
    return played


# --- counting -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    step: int
    where: str  # "scene request", "story request", "shown to <character>"
    ref: str
    string: str


def planted_in(
    text: str, planted: dict[str, list[str]], allowed: Iterable[str]
) -> list[tuple[str, str]]:
    """The planted strings of secrets not ``allowed`` found in ``text`` (case, accents aside)."""
    folded, open_refs = fold(text), set(allowed)
    return [
        (ref, string)
        for ref, strings in planted.items()
        if ref not in open_refs
        for string in strings
        if fold(string) in folded
    ]


def revealed_by(campaign: Campaign, step: int) -> list[dict[str, Any]]:
    return [r for s in campaign.steps[: step + 1] for r in s.reveals]


def scene_allowed(campaign: Campaign, step: int, npcs: Iterable[str]) -> set[str]:
    """What a Scene Director request at ``step`` with these NPCs may hold (from the script)."""
    here = set(npcs)
    return {r["secret"] for r in revealed_by(campaign, step) if here & set(r["witnesses"])}


def player_allowed(campaign: Campaign, step: int, character: str) -> set[str]:
    """What the player of ``character`` may read at ``step``: his own sheet, what he was told."""
    own = {ref for ref in campaign.planted if ref.startswith(f"character:{character}:")}
    told = {r["secret"] for r in revealed_by(campaign, step) if character in r.get("players", [])}
    return own | told


def shown_texts(result: GMActionResult, character: str, acting: str) -> list[str]:
    """What ``character``'s player reads of one action: what the engine delivered to him
    (engine.gm.delivery, what a shared table shows), and every event he perceived."""
    out = [result.delivered_to.get(character, "")]
    for event in result.events:
        if character in (event.actor, *event.seen_by, *event.heard_by):
            out.append(event.text)
            out += [str(b.get("text", "")) for b in event.data.get("bubbles") or []]
    if character == acting:
        out += [result.narration, *result.suggestions]
        out.append(str((result.changes.get("directors") or {}).get("ooc", "")))
    return [t for t in out if t]


def scene_leaks(played: Played) -> list[Found]:
    """Planted strings in Scene Director requests that no NPC of the scene may know."""
    found = []
    for sent in played.sent:
        if sent.director != "scene":
            continue
        result = played.results[sent.step]
        npcs = (result.changes.get("directors") or {}).get("npcs", [])
        allowed = scene_allowed(played.campaign, sent.step, npcs)
        hits = planted_in(sent.text, played.campaign.planted, allowed)
        found += [Found(sent.step, "scene request", ref, s) for ref, s in hits]
    return found


def shown_leaks(played: Played) -> list[Found]:
    """Planted strings in what a player read that his character may not know."""
    campaign, found = played.campaign, []
    characters = [c.id for c in campaign.world.game_master.characters]  # type: ignore[union-attr]
    for step, result in enumerate(played.results):
        for character in characters:
            allowed = player_allowed(campaign, step, character)
            for text in shown_texts(result, character, campaign.character):
                hits = planted_in(text, campaign.planted, allowed)
                found += [Found(step, f"shown to {character}", r, s) for r, s in hits]
    return found


def ooc_leaks(played: Played) -> list[Found]:
    """Planted strings in the requests for a line out of character that the player may not
    read (the request is built from his view alone, so none at all)."""
    found = []
    for sent in played.sent:
        if sent.director != "ooc":
            continue
        allowed = player_allowed(played.campaign, sent.step, played.campaign.character)
        hits = planted_in(sent.text, played.campaign.planted, allowed)
        found += [Found(sent.step, "ooc request", ref, s) for ref, s in hits]
    return found


def story_sightings(played: Played) -> set[str]:
    """The secrets whose planted strings the Story Director's requests held (it sees all)."""
    refs = set()
    for sent in played.sent:
        if sent.director == "story":
            refs |= {ref for ref, _ in planted_in(sent.text, played.campaign.planted, ())}
    return refs


@dataclass(frozen=True)
class DetectorScore:
    caught: int
    leaks: int
    false_alarms: int
    clean: int
    missed: tuple[str, ...]
    alarms: tuple[str, ...]


def variants(string: str) -> list[str]:
    """A planted string as a careless line might carry it."""
    out = [string.upper(), string.title(), f"{string}!", f"«{string}»"]
    if " " not in string and len(string) >= 7:
        out.append("-".join([string[: len(string) // 2], string[len(string) // 2 :]]))
    return out


def detector_score(campaign: Campaign) -> DetectorScore:
    """The engine's detector (``secret_detector``) on the canned lines: every planted leak,
    each planted string in a few surface forms, and the clean lines."""
    detector = secret_detector(campaign.world.game_master)  # type: ignore[arg-type]
    leaky = list(campaign.leaks)
    leaky += [
        (ref, v) for ref, strings in campaign.planted.items() for s in strings for v in variants(s)
    ]
    planted = set(campaign.planted)  # lower disclosures are what NPCs tell anyone
    missed = tuple(line for ref, line in leaky if ref not in detector.scan(line))
    alarms = tuple(line for line in campaign.clean if planted & set(detector.scan(line)))
    return DetectorScore(
        len(leaky) - len(missed), len(leaky), len(alarms), len(campaign.clean), missed, alarms
    )
