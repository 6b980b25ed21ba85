"""The supervised scope of the crawl's tasks: one failure stops the rest and surfaces as itself."""

from __future__ import annotations

import asyncio

import pytest

from deepcrawl._tasks import first_error, stream, supervised


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


async def test_stream_yields_what_a_callback_hands_over_then_raises_its_failure() -> None:
    queue: asyncio.Queue[int | None] = asyncio.Queue(2)  # bounded: the producer waits

    async def produce() -> None:
        for n in range(5):
            await queue.put(n)
        raise Boom("the crawl failed")

    got: list[int] = []

    async def read() -> None:
        async with asyncio.timeout(5), stream(queue, produce) as items:
            async for item in items:
                got.append(item)

    with pytest.raises(Boom, match="the crawl failed"):
        await read()
    assert got == [0, 1, 2, 3, 4]


async def test_leaving_a_stream_early_cancels_its_producer_and_waits_for_it() -> None:
    queue: asyncio.Queue[int | None] = asyncio.Queue()
    ended: list[str] = []

    async def produce() -> None:
        try:
            for n in range(1000):
                queue.put_nowait(n)
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            await asyncio.sleep(0.01)  # its clean-up runs before the scope is left
            ended.append("cancelled")
            raise

    async with asyncio.timeout(5), stream(queue, produce) as items:
        async for item in items:
            if item == 2:
                break
    assert ended == ["cancelled"]
