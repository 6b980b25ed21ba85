"""The supervised scope of the crawl's tasks: one failure stops the rest and surfaces as itself."""

from __future__ import annotations

import asyncio

import pytest

from deepcrawl._tasks import first_error, supervised


class Boom(Exception):
    pass


async def test_a_failing_task_cancels_the_others_and_the_body_and_is_raised_as_itself() -> None:
    cancelled: list[str] = []

    async def forever(name: str) -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(name)
            raise

    async def fail() -> None:
        await asyncio.sleep(0.01)
        raise Boom("the sink failed")

    async def crawl() -> None:
        async with asyncio.timeout(5), supervised() as tasks:
            tasks.start(forever("worker"))
            tasks.daemon(forever("heartbeat"))
            tasks.start(fail())
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancelled.append("body")
                raise

    with pytest.raises(Boom, match="the sink failed") as raised:
        await crawl()
    assert sorted(cancelled) == ["body", "heartbeat", "worker"]
    assert not isinstance(raised.value, BaseExceptionGroup)


async def test_daemons_end_with_the_body_and_tasks_are_waited_for() -> None:
    done: list[str] = []

    async def work() -> None:
        await asyncio.sleep(0.05)
        done.append("work")

    async with asyncio.timeout(5), supervised() as tasks:
        beat = tasks.daemon(asyncio.sleep(3600))
        tasks.start(work())
    assert done == ["work"]
    assert beat.cancelled()


def test_first_error_flattens_groups_prefers_interrupts_and_notes_the_rest() -> None:
    boom, other = Boom("first"), ValueError("second")
    group = BaseExceptionGroup("tasks", [ExceptionGroup("inner", [boom]), other])
    assert first_error(group) is boom
    assert boom.__notes__ == ["also failed at the same time: ValueError: second"]
    interrupt = KeyboardInterrupt()
    assert first_error(BaseExceptionGroup("tasks", [Boom("x"), interrupt])) is interrupt
