"""Turn start and end work waits for the loop's slack (play.slack), in order, never for ever."""

from __future__ import annotations

import asyncio
import time

from play import slack


async def hog(passes: int, log: list[str]) -> None:
    """Keeps the loop busy: each pass holds it 20 ms, as a backlog of token frames would."""
    for _ in range(passes):
        time.sleep(0.02)
        await asyncio.sleep(0)
    log.append("hog done")


async def job(name: str, log: list[str]) -> None:
    async with slack.slack():
        log.append(name)


async def test_a_job_on_an_idle_loop_goes_on_the_next_pass():
    log: list[str] = []
    await asyncio.wait_for(job("a", log), 5)
    assert log == ["a"]


async def test_a_job_waits_while_the_loop_is_behind(monkeypatch):
    monkeypatch.setattr(slack, "MAX_WAIT", 60.0)
    log: list[str] = []
    busy = asyncio.ensure_future(hog(10, log))
    await asyncio.sleep(0)  # the hog is under way
    await asyncio.wait_for(job("start", log), 30)
    await busy
    assert log == ["hog done", "start"]


async def test_a_job_goes_anyway_once_it_has_waited_max_wait(monkeypatch):
    monkeypatch.setattr(slack, "MAX_WAIT", 0.0)
    log: list[str] = []
    busy = asyncio.ensure_future(hog(10, log))
    await asyncio.sleep(0)
    await asyncio.wait_for(job("start", log), 30)
    await busy
    assert log == ["start", "hog done"]


async def test_jobs_go_one_at_a_time_in_arrival_order():
    log: list[str] = []
    inside: list[int] = []

    async def counted(name: str) -> None:
        async with slack.slack():
            inside.append(1)
            assert len(inside) == 1  # nobody else holds the slot meanwhile
            await asyncio.sleep(0.001)
            log.append(name)
            inside.pop()

    await asyncio.wait_for(asyncio.gather(*(counted(n) for n in "abcde")), 10)
    assert log == list("abcde")


async def test_a_job_that_fails_frees_the_slot():
    log: list[str] = []

    async def failing() -> None:
        async with slack.slack():
            raise ValueError("the database said no")

    results = await asyncio.gather(failing(), job("next", log), return_exceptions=True)
    assert isinstance(results[0], ValueError)
    assert log == ["next"]
