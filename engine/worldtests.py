"""World tests: a creator's playthroughs of a world, with what each step must show (issue 13 §3;
the format is documented in docs/WORLD_TESTS.md).

A suite is ``{"tests": [...]}``. A test plays steps from a fresh session (its ``state`` over the
defaults, its ``seed``, its clock ``now``): each step is one player input (``say``, ``start``,
``action``, ``continue``, ``roll``, ``click``) played through ``engine.turn.Turn`` exactly as in
play, the narrator being the step's scripted ``reply``/``replies`` (``engine.llm.scripted``),
the offline narrator, or a ``recording`` replayed. After the step its ``expect`` is checked: the
text shown, the state (variable paths, ``@`` paths into the whole session state), the entries
that fired, the rules that fired, the notifications, the suggestions and, in a game-master world,
the kind of action. A step that cannot be played (the narrator failed, a reply is missing, a
recording does not hold the request) is an error and the test's later steps are skipped.

``parse_suite`` refuses a bad suite with every problem and its path (``tests[0].steps[2].say``);
``run_suite`` never raises for what a world or a test does.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from engine.llm.base import Provider
from engine.llm.offline import OfflineProvider
from engine.llm.recording import Recording, ReplayProvider
from engine.llm.scripted import ScriptedProvider, ScriptedReply, parse_replies
from engine.session import Message, Persona, SessionState
from engine.turn import PlayerAction, Turn, TurnFailed, TurnResult
from engine.world import WorldDefinition
from engine.worldtests_checks import Expect, Failure, check_step

FORMAT = "fabula-world-tests"
DEFAULT_NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
INPUTS = ("say", "start", "action", "continue", "roll", "click")
Narrator = Literal["scripted", "offline", "replay"]
Status = Literal["passed", "failed", "error", "skipped"]


class SuiteError(ValueError):
    """A suite that cannot be read; ``errors`` are ``path: message`` lines."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)


class Step(_Model):
    say: str | None = None
    start: bool | str | None = None
    action: str | None = None
    text: str = ""  # what an ``action`` sends as the player's message
    continue_: bool | None = Field(default=None, alias="continue")
    roll: bool | None = None
    click: dict[str, str] | None = None
    reply: str | None = None
    replies: list[dict[str, Any]] | None = None
    expect: Expect = Field(default_factory=Expect)

    @model_validator(mode="after")
    def _one_input(self) -> Step:
        given = [name for name in INPUTS if self.input_value(name) not in (None, False)]
        if len(given) != 1:
            raise ValueError(f"give exactly one input of {', '.join(INPUTS)}")
        if self.reply is not None and self.replies is not None:
            raise ValueError("give reply or replies, not both")
        if self.replies is not None:
            parse_replies([_snake_calls(r) for r in self.replies])
        if self.click is not None and not set(self.click) & {"location", "point"}:
            raise ValueError('click is {"location": ID} or {"point": ID}')
        return self

    def input_value(self, name: str) -> Any:
        return self.continue_ if name == "continue" else getattr(self, name)

    @property
    def input(self) -> str:
        return next(n for n in INPUTS if self.input_value(n) not in (None, False))

    def scripted(self) -> list[ScriptedReply]:
        if self.reply is not None:
            return [ScriptedReply(self.reply)]
        return parse_replies([_snake_calls(r) for r in self.replies or []])

    def describe(self) -> str:
        """The step as a creator wrote it, for reports: ``say "I open the door"``."""
        name = self.input
        value = self.input_value(name)
        if name == "action" and self.text:
            return f'action {value} "{self.text}"'
        if value is True:
            return name
        return f"{name} {json.dumps(value, ensure_ascii=False)}"


class WorldTest(_Model):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    seed: int = 1
    now: datetime | None = None
    character: str | None = None
    persona: dict[str, str] | None = None
    state: dict[str, Any] = Field(default_factory=dict)
    narrator: Narrator = "scripted"
    recording: dict[str, Any] | None = None
    steps: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _recording(self) -> WorldTest:
        if self.narrator == "replay":
            if self.recording is None:
                raise ValueError("narrator replay needs a recording")
            Recording.from_dict(self.recording)
        return self


class Suite(_Model):
    format: str = FORMAT
    version: int = 1
    tests: list[WorldTest] = Field(default_factory=list)


def _snake_calls(reply: Mapping[str, Any]) -> dict[str, Any]:
    """A scripted reply with ``toolCalls`` read as ``tool_calls`` (the CLI's replies format)."""
    out = dict(reply)
    if "toolCalls" in out and "tool_calls" not in out:
        out["tool_calls"] = out.pop("toolCalls")
    return out


def parse_suite(data: Any) -> Suite:
    """Read a suite (``{"tests": [...]}`` or a bare list of tests); SuiteError lists each problem
    with its path."""
    if isinstance(data, list):
        data = {"tests": data}
    if not isinstance(data, dict):
        raise SuiteError(['$: a suite is {"tests": [...]}'])
    try:
        return Suite.model_validate(data)
    except ValidationError as exc:
        raise SuiteError([_error_line(err) for err in exc.errors()]) from None


def _error_line(err: Any) -> str:
    path = ""
    for part in err["loc"]:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    message = str(err["msg"]).removeprefix("Value error, ")
    return f"{path or '$'}: {message}"


def dump_test(test: WorldTest) -> dict[str, Any]:
    """A test as JSON, without the keys left at their defaults."""
    data: dict[str, Any] = test.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data["name"] = test.name
    data["steps"] = [
        step.model_dump(mode="json", by_alias=True, exclude_defaults=True) for step in test.steps
    ]
    return data


# --- results -----------------------------------------------------------------------------------


class StepResult(BaseModel):
    index: int
    label: str
    status: Status
    text: str = ""
    failures: list[Failure] = Field(default_factory=list)
    error: str = ""


class TestResult(BaseModel):
    __test__ = False  # not a pytest class

    name: str
    status: Status
    steps: list[StepResult] = Field(default_factory=list)


class SuiteResult(BaseModel):
    world: str = ""
    tests: list[TestResult] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(t.status == "passed" for t in self.tests)

    def count(self, status: Status) -> int:
        return sum(t.status == status for t in self.tests)


# --- running -----------------------------------------------------------------------------------


async def run_suite(
    world: WorldDefinition,
    suite: Suite,
    *,
    on_test: Callable[[TestResult], object] | None = None,
) -> SuiteResult:
    """Play every test of ``suite`` on ``world``; ``on_test`` hears of each as it ends."""
    result = SuiteResult(world=world.name)
    for test in suite.tests:
        done = await run_test(world, test)
        result.tests.append(done)
        if on_test is not None:
            on_test(done)
    return result


async def run_test(world: WorldDefinition, test: WorldTest) -> TestResult:
    """Play one test from a fresh session, checking each step; never raises for the world."""
    run = _Run(world, test)
    steps: list[StepResult] = []
    for index, step in enumerate(test.steps):
        if any(s.status == "error" for s in steps):
            steps.append(StepResult(index=index, label=step.describe(), status="skipped"))
            continue
        steps.append(await run.step(index, step))
    statuses = {s.status for s in steps}
    status: Status = "error" if "error" in statuses else "passed"
    status = "failed" if "failed" in statuses and status == "passed" else status
    return TestResult(name=test.name, status=status, steps=steps)


class _Run:
    """One test's session: its state, history, clock, random source and narrator."""

    def __init__(self, world: WorldDefinition, test: WorldTest) -> None:
        self.world, self.test = world, test
        self.state = SessionState.initial(world, test.state)
        self.history: list[Message] = []
        self.rng = random.Random(test.seed)
        now = test.now or DEFAULT_NOW
        self.clock = lambda: now
        self.persona = Persona.from_dict(test.persona)
        self.shared: Provider | None = None
        if test.narrator == "offline":
            self.shared = OfflineProvider(world.language or "en", random.Random(test.seed))
        elif test.narrator == "replay" and test.recording is not None:
            self.shared = ReplayProvider(Recording.from_dict(test.recording))

    async def step(self, index: int, step: Step) -> StepResult:
        label = step.describe()
        scripted = ScriptedProvider(step.scripted())
        provider = self.shared or scripted
        misses = len(getattr(provider, "misses", []))
        turn = Turn(
            self.world,
            self.state,
            self.history,
            _action(step),
            provider,
            persona=self.persona,
            clock=self.clock,
            rng=self.rng,
            seed=self.test.seed,
            character_id=self.test.character,
        )
        try:
            result = await turn.run()
        except TurnFailed as exc:
            error = _missing_reply(scripted) if provider is scripted else exc.message
            return StepResult(index=index, label=label, status="error", error=error or exc.message)
        if len(getattr(provider, "misses", [])) > misses:
            error = "the recording holds no reply for this step's request (the prompt changed)"
            return StepResult(index=index, label=label, status="error", error=error)
        self._advance(step, result)
        failures = check_step(step.expect, result)
        if provider is scripted and scripted.used < len(scripted.replies):
            failures.append(_unused(scripted))
        status: Status = "failed" if failures else "passed"
        return StepResult(
            index=index, label=label, status=status, text=result.text, failures=failures
        )

    def _advance(self, step: Step, result: TurnResult) -> None:
        self.state = result.state
        if step.input == "continue" and self.history and self.history[-1].role == "assistant":
            last = self.history.pop()
            self.history.append(Message("assistant", last.content + result.text))
            return
        said = step.say if step.say is not None else step.text if step.action else ""
        if said:
            self.history.append(Message("user", said))
        if result.text:
            self.history.append(Message("assistant", result.text))


def _action(step: Step) -> PlayerAction:
    if step.say is not None:
        return PlayerAction("message", step.say)
    if step.start not in (None, False):
        return PlayerAction("start", action_id=step.start if isinstance(step.start, str) else None)
    if step.action is not None:
        return PlayerAction("action", step.text, action_id=step.action)
    if step.continue_:
        return PlayerAction("continue")
    if step.roll:
        return PlayerAction("action", action_id="roll")
    click = step.click or {}
    kind = "location" if "location" in click else "point"
    return PlayerAction("action", action_id=f"click:{kind}:{click[kind]}")


def _missing_reply(scripted: ScriptedProvider) -> str:
    if scripted.used < len(scripted.replies):
        return ""
    held = len(scripted.replies)
    return (
        f"the narrator was asked for reply {held + 1} but the step scripts {held} "
        '(add "reply", or "replies" for a game master\'s tool calls)'
    )


def _unused(scripted: ScriptedProvider) -> Failure:
    held, used = len(scripted.replies), scripted.used
    return Failure(
        field="replies",
        expected=held,
        actual=used,
        message=f"the step scripts {held} replies but the narrator was asked for {used}",
    )


__all__ = [
    "FORMAT",
    "Expect",
    "Failure",
    "Step",
    "StepResult",
    "Suite",
    "SuiteError",
    "SuiteResult",
    "TestResult",
    "WorldTest",
    "dump_test",
    "parse_suite",
    "run_suite",
    "run_test",
]
