"""The judge model (engine.evals.judge): the rubric, the step it reads, a lenient verdict."""

from __future__ import annotations

from collections.abc import AsyncIterator

from engine.evals.judge import ModelJudge, OfflineJudge, judge_request, parse_verdict
from engine.evals.transcript import Finding
from engine.llm.base import ChatRequest, Chunk, Usage
from tests.engine.evals.worlds import step


class Replies:
    name = "judge"
    model = "judge-1"

    def __init__(self, text: str) -> None:
        self.text = text
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        yield Chunk(text=self.text)
        yield Chunk(usage=Usage(input_tokens=800, output_tokens=30, cost=0.0004))


def test_the_verdict_is_the_first_json_object_each_class_once():
    text = (
        'Sure. {"errors": [{"class": "Lie accepted", "why": "no check"}, '
        '{"class": "lie_accepted"}, {"class": "made-up"}, "length"]} Done.'
    )

    assert parse_verdict(text) == [
        Finding("lie-accepted", "judge", "no check"),
        Finding("other", "judge", ""),
        Finding("length", "judge", ""),
    ]


def test_a_reply_without_a_verdict_is_none_never_a_crash():
    assert parse_verdict("The turn looks fine to me.") is None
    assert parse_verdict('{"errors": "none"}') is None
    assert parse_verdict("{not json}") is None
    assert parse_verdict('{"errors": []}') == []


def test_the_request_holds_the_rubric_above_the_breakpoint_and_the_step_below():
    told = step(
        "Hilda believes you.",
        action="I say the bishop sent me.",
        tactic="lie",
        tool_calls=[{"name": "adjust_trust", "arguments": {"npc": "hilda"}, "ok": True}],
        rolls=[{"kind": "check", "check": "deception", "outcome": "failure"}],
    )

    request = judge_request(told, "Brackenford: The Wayfarer's Rest")

    assert request.breakpoint == 1
    assert "- lie-accepted: a lie is believed with no check" in request.messages[0].content
    user = request.messages[1].content
    assert "Player's tactic: lie" in user
    assert 'adjust_trust({"npc": "hilda"}) ok' in user
    assert "Rolls made by the server: deception failure" in user


async def test_the_model_judge_returns_its_findings_and_cost():
    provider = Replies('{"errors": [{"class": "lie-accepted", "why": "believed"}]}')

    verdict = await ModelJudge(provider).judge(step("Hilda believes you."), "Brackenford")

    assert verdict.findings == [Finding("lie-accepted", "judge", "believed")]
    assert verdict.usage.cost == 0.0004 and verdict.readable


async def test_an_unreadable_verdict_counts_as_no_finding():
    verdict = await ModelJudge(Replies("Looks fine.")).judge(step("x"), "")

    assert verdict.findings == [] and not verdict.readable


async def test_the_offline_judge_calls_nothing():
    verdict = await OfflineJudge().judge(step("x"), "")

    assert verdict.findings == [] and verdict.usage == Usage()
