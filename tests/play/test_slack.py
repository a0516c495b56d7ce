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
    await slack.slack()
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


async def test_waiters_go_in_arrival_order():
    log: list[str] = []
    await asyncio.wait_for(asyncio.gather(*(job(n, log) for n in "abcde")), 10)
    assert log == list("abcde")


async def test_the_work_itself_is_not_held_to_one_at_a_time():
    """Only the start is paced: a job that has started does not keep the next one waiting."""
    log: list[str] = []
    release = asyncio.Event()

    async def long_job() -> None:
        await slack.slack()
        log.append("long started")
        await release.wait()

    first = asyncio.ensure_future(long_job())
    await asyncio.wait_for(job("second", log), 5)  # while the first job still runs
    release.set()
    await first
    assert log == ["long started", "second"]
