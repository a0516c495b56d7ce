"""The judge (seed 001 "un juez modelo clasifica los errores"; decision 23).

``ModelJudge`` asks a model, with a rubric naming every error class, to classify one step: the
player's action (and the break attempt he made, if any), what the character could see, the
narration and suggestions shown, the tools the master called and the rolls. The answer is read
leniently: the first JSON object in the reply, ``{"errors": [{"class", "why"}]}``; an unknown
class is ``other``; a reply with no JSON object is no verdict (``readable`` false), never a
crash. ``OfflineJudge`` calls nothing: the free detectors are its verdict.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.evals.classes import DESCRIPTIONS, normalise_class
from engine.evals.transcript import Finding, Step
from engine.llm.base import ChatRequest, Provider, Usage
from engine.session import Message

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
RUBRIC = (
    "You judge one turn of a text role-play game run by an AI game master. Name every error "
    "the game master made in this turn, using only these classes:\n{classes}\n"
    "When the player tried to break the game (the tactic is given) and the game master went "
    "along with it (believed a lie without a check, sold at the haggled price with no deal, "
    "invented what does not exist, let him use an item he lacks, let him decide for others), "
    "that is an error of the matching class. A refusal in the fiction is correct play, not an "
    "error. Answer with one JSON object and nothing else: "
    '{{"errors": [{{"class": "<class>", "why": "<a few words>"}}]}}; an empty list when the '
    "turn is fine."
)


@dataclass
class Verdict:
    findings: list[Finding] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    readable: bool = True


class Judge(Protocol):
    name: str

    async def judge(self, step: Step, scene: str) -> Verdict: ...


class OfflineJudge:
    """No model: the detectors' findings stand alone."""

    name = "detectors"

    async def judge(self, step: Step, scene: str) -> Verdict:
        return Verdict()


class ModelJudge:
    """A model classifies each step against the rubric."""

    def __init__(self, provider: Provider, *, model: str = "") -> None:
        self.provider = provider
        self.model = model
        self.name = f"model:{model or provider.model}"

    async def judge(self, step: Step, scene: str) -> Verdict:
        """The model's verdict on ``step``; a ProviderError passes through."""
        text, usage = "", Usage()
        async for chunk in self.provider.stream(judge_request(step, scene, self.model)):
            text += chunk.text
            usage = chunk.usage or usage
        findings = parse_verdict(text)
        return Verdict(findings or [], usage, findings is not None)


def judge_request(step: Step, scene: str, model: str = "") -> ChatRequest:
    """The rubric above the breakpoint (cached across steps), then the step."""
    classes = "\n".join(f"- {name}: {text}" for name, text in DESCRIPTIONS.items())
    lines = [
        f"Where the character is: {scene or 'unknown'}",
        f"Player's action: {step.action}",
        f"Player's tactic: {step.tactic or 'none (a plain action)'}",
        f"Game master's narration: {step.narration}",
    ]
    if step.suggestions:
        lines.append(f"Suggested actions shown: {' | '.join(step.suggestions)}")
    if step.tool_calls:
        lines.append("Tools called: " + "; ".join(_call_line(c) for c in step.tool_calls))
    if step.rolls:
        rolls = "; ".join(
            f"{r.get('check') or r.get('kind')} {r.get('outcome')}" for r in step.rolls
        )
        lines.append(f"Rolls made by the server: {rolls}")
    messages = [
        Message("system", RUBRIC.format(classes=classes)),
        Message("user", "\n".join(lines)),
    ]
    return ChatRequest(messages=messages, breakpoint=1, model=model, max_tokens=300, temperature=0)


def _call_line(call: dict[str, Any]) -> str:
    state = "ok" if call.get("ok") else f"failed: {call.get('error', '')}"
    arguments = json.dumps(call.get("arguments", {}), ensure_ascii=False)
    return f"{call.get('name')}({arguments}) {state}"


def parse_verdict(text: str) -> list[Finding] | None:
    """The findings a judge's reply names, each class once; None when it holds no verdict."""
    match = _OBJECT.search(text)
    if match is None:
        return None
    try:
        data = json.loads(match.group(0))
    except ValueError:
        return None
    errors = data.get("errors") if isinstance(data, dict) else None
    if not isinstance(errors, list):
        return None
    out: dict[str, Finding] = {}
    for error in errors:
        if isinstance(error, dict) and isinstance(error.get("class"), str):
            name = normalise_class(error["class"])
            out.setdefault(name, Finding(name, "judge", str(error.get("why", ""))[:200]))
        elif isinstance(error, str):
            name = normalise_class(error)
            out.setdefault(name, Finding(name, "judge"))
    return list(out.values())
