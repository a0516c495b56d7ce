"""A talk input in the master's turn (seed 001 "NPC que conversan", "NPC con memoria"; decisions
18 and 19): what ``engine.gm.play`` calls when the player's words go to an NPC.

``start_talk`` finds the NPC spoken to, builds the five-slot script and writes on the action
event what the conversation needs later (``engine.gm.conversation``). Offline, ``offline_talk``
speaks the script from templates, logs the NPC's bubble where everyone present perceives it,
records the names it delivered, applies the trust moves of his words, puts an errand it offers in
his journal (``offer_quest``, as the live master would) and, when the talk closes, writes the
NPC's memory sentence. Live, the script goes to the master beside the scene, and
``settle_live`` runs the free checks on the NPC's bubble in the closing ``log_event``: one
rewrite request, kept only if it passes. ``rule_moves`` applies the trust rules of the turn's
events either way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from engine.gm import conversation as talks
from engine.gm.actor_turn import Acted, play_actor
from engine.gm.memory import remember
from engine.gm.scene import Scene
from engine.gm.state import GMEvent, log_event
from engine.gm.suggest import learn_names
from engine.gm.talk import TalkScript, build_script, talk_target
from engine.gm.talk_checks import Settled, reasons, settle_reply
from engine.gm.talk_voice import offline_line, reply_narration, script_prompt
from engine.gm.talkbook import talkbook
from engine.gm.tools.base import ToolError, label
from engine.gm.tools.progress import offer_quest
from engine.gm.trust_rules import Move, apply_moves, apply_turn_rules
from engine.gm.world import Npc
from engine.llm.base import ChatRequest, Provider, Usage
from engine.session import Message

MEMORY_ORDER = ("threat", "insult", "apology", "flattery", "ask_work", "trade", "question")
WEIGHTY = ("threat", "insult")  # a memory of importance 2; the rest 1


@dataclass
class TalkTurn:
    npc: Npc
    script: TalkScript
    event: GMEvent  # the player's action event

    def prompt(self, scene: Scene) -> str:
        return script_prompt(self.script, label(scene, self.npc))


@dataclass
class TalkReply:
    narration: str
    events: list[GMEvent] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    settled: Settled | None = None
    acted: Acted | None = None  # the actor's part, when the world plays one


def start_talk(scene: Scene, text: str, event: GMEvent) -> TalkTurn | None:
    """The talk this action is, or None when it speaks to no NPC."""
    npc = talk_target(scene, text, event.id)
    if npc is None:
        return None
    script = build_script(scene, npc, text, event.id)
    event.data.update(
        {
            talks.TALK: npc.id,
            "said": list(script.said),
            "escalation": script.escalation,
            "errand": script.kind("D"),
        }
    )
    return TalkTurn(npc, script, event)


def word_moves(scene: Scene, turn: TalkTurn) -> dict[str, int]:
    """Apply the trust moves of his words; the action event keeps which (chat_again once a day)."""
    moves: list[Move] = [(turn.npc, m) for m in turn.script.moves]
    shifts = apply_moves(scene, moves)
    turn.event.data["moves"] = list(turn.script.moves)
    return shifts


def rule_moves(scene: Scene, changes: dict[str, Any], turn: TalkTurn | None = None) -> None:
    """Apply the turn's trust rules (and his words' moves), adding the shifts to ``changes``."""
    shifts = apply_turn_rules(scene)
    if turn is not None:
        for npc_id, shift in word_moves(scene, turn).items():
            shifts[npc_id] = shifts.get(npc_id, 0) + shift
    if shifts:
        merged = dict(changes.get("trust") or {})
        for npc_id, shift in shifts.items():
            merged[npc_id] = merged.get(npc_id, 0) + shift
        changes["trust"] = merged


def offline_talk(scene: Scene, turn: TalkTurn) -> TalkReply:
    """The NPC answers from the templates of its script (no model call)."""
    npc, script = turn.npc, turn.script
    words = offline_line(script)
    witnesses = scene.witnesses()
    speaker = label(scene, npc)
    narration = reply_narration(script, speaker, words)
    bubble = {"speaker": npc.id, "name": speaker, "text": words}
    event = log_event(
        scene.state,
        "talk",
        npc.id,
        scene.me.location,
        narration,
        seen_by=witnesses,
        data={"bubbles": [bubble], "script": {k: s.kind for k, s in script.spoken()}},
        at=scene.at,
    )
    reply = TalkReply(narration, [event])
    learnt = learn_names(scene, words, witnesses)
    if learnt:
        reply.changes["knownNames"] = learnt
    rule_moves(scene, reply.changes, turn)
    if script.kind("D") == "offer":
        hand_over(scene, turn, reply)
    if script.closing:
        reply.changes["memories"] = [closing_memory(scene, turn)]
    return reply


def hand_over(scene: Scene, turn: TalkTurn, reply: TalkReply) -> None:
    """Offline, the errand it offers goes into his journal, as the live master's
    ``offer_quest`` puts it there (a refusal of the tool leaves the words alone)."""
    quest = turn.script.slots["D"].values.get("id", "")
    try:
        done = offer_quest(scene, {"npc": turn.npc.id, "quest": quest})
    except ToolError:
        return
    reply.events.extend(done.events)
    reply.changes.update(done.changes)


def closing_memory(scene: Scene, turn: TalkTurn) -> dict[str, Any]:
    """The NPC's one sentence about the talk that ends (offline; live, the master writes it)."""
    said = set(turn.script.said)
    last = talks.ongoing(scene.state, scene.character_id, turn.npc.id, turn.event.id)
    while last is not None:
        said.update(talks.said(last))
        last = talks.ongoing(scene.state, scene.character_id, turn.npc.id, last.id)
    kind = next((k for k in MEMORY_ORDER if k in said), "talk")
    book = talkbook(scene.world_lex.language)
    who = scene.name if turn.script.knows_name else book.t("mem_stranger")
    text = book.tidy(book.t(f"mem_{kind}", pc=who))
    importance = 2 if kind in WEIGHTY else 1
    remember(scene.gm, scene.state, turn.npc.id, scene.character_id, text, importance)
    return {"npc": turn.npc.id, "importance": importance}


# --- live ---------------------------------------------------------------------------------------


def _bubble(events: list[GMEvent], npc_id: str) -> tuple[GMEvent, int] | None:
    """The closing event and the index of the NPC's bubble in it."""
    for event in reversed(events):
        for index, bubble in enumerate(event.data.get("bubbles") or []):
            if isinstance(bubble, dict) and bubble.get("speaker") == npc_id:
                return event, index
    return None


async def settle_live(
    scene: Scene,
    turn: TalkTurn,
    events: list[GMEvent],
    provider: Provider,
    request: ChatRequest,
) -> TalkReply | None:
    """The free checks on the NPC's bubble of this turn, with one rewrite request; None when the
    master gave the NPC no bubble (its narration went through the closure check)."""
    found = _bubble(events, turn.npc.id)
    if found is None:
        return None
    event, index = found
    original = str(event.data["bubbles"][index].get("text") or "")
    reply = TalkReply(narration="")

    async def rewrite(failed: list[str]) -> str:
        why = reasons(scene, turn.script, original, failed)
        return await _ask(provider, request, turn, scene, original, why, reply)

    reply.settled = await settle_reply(scene, turn.script, original, rewrite)
    if reply.settled.rewritten:
        _replace_bubble(scene, events, event, index, reply.settled.text)
    if scene.gm.settings.actor_model:
        await _act(scene, turn, events, provider, request, reply)
    return reply


async def _act(
    scene: Scene,
    turn: TalkTurn,
    events: list[GMEvent],
    provider: Provider,
    request: ChatRequest,
    reply: TalkReply,
) -> None:
    """The actor plays the NPC's settled lines (``engine.gm.actor_turn``); its lines replace
    them only when they pass."""
    assert reply.settled is not None
    acted = await play_actor(scene, turn.script, turn.event, reply.settled.text, provider, request)
    if acted is None:
        return
    reply.acted = acted
    reply.model_calls += acted.model_calls
    reply.usage = reply.usage.plus(acted.usage)
    found = _bubble(events, turn.npc.id)
    if acted.text is not None and found is not None:
        _replace_bubble(scene, events, found[0], found[1], acted.text)


async def _ask(
    provider: Provider,
    request: ChatRequest,
    turn: TalkTurn,
    scene: Scene,
    original: str,
    why: str,
    reply: TalkReply,
) -> str:
    book = talkbook(turn.script.language)
    user = book.t("rewrite_user", script=turn.prompt(scene), reply=original, reasons=why)
    ask = replace(
        request,
        messages=[Message("system", book.t("rewrite_system")), Message("user", user)],
        breakpoint=None,
        tools=None,
        tool_choice=None,
        cache_tail=False,
        structured_output=False,
        player_text=turn.script.text,
    )
    text, usage = "", Usage()
    async for chunk in provider.stream(ask):
        text += chunk.text
        usage = chunk.usage or usage
    reply.model_calls += 1
    reply.usage = reply.usage.plus(usage)
    return _unquoted(text)


def _unquoted(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > 1 and text[0] in '"“«「' and text[-1] in '"”»」':
        return text[1:-1].strip()
    return text


def _replace_bubble(
    scene: Scene, events: list[GMEvent], event: GMEvent, index: int, text: str
) -> None:
    """Swap the checked bubble into a copy of the event (logged events are never changed in
    place: an older state may share them), in the log and in the turn's list."""
    bubbles = [dict(b) for b in event.data["bubbles"]]
    bubbles[index]["text"] = text
    data = json.loads(json.dumps(event.data))
    data["bubbles"] = bubbles
    fresh = event.model_copy(update={"data": data})
    log = scene.state.events
    for i in range(len(log) - 1, -1, -1):
        if log[i] is event:
            log[i] = fresh
            break
    events[:] = [fresh if e is event else e for e in events]
