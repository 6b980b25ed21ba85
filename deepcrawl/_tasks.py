"""Structured concurrency for the crawl's tasks: one failure stops them all, and says what it was.

Every task a crawl starts — fetch workers, the delivery poller, the heartbeat — runs in a
:func:`supervised` scope, an :class:`asyncio.TaskGroup`: when one of them raises (a closed output
pipe, a callback's exception, a database error), the others and the scope's own body are
cancelled at once and the scope raises. Loose tasks would end quietly instead, and whoever waits
for their work — the query loop waiting for the frontier to drain — would wait forever.

A task group raises an :class:`ExceptionGroup`; the scope raises the failure itself (the first
one, the others noted on it), so that callers catch ``DeepcrawlError`` or their own callback's
exception as they would from plain sequential code.

One task cannot sit in a scope: the one behind an async iterator fed by a callback (the pages a
crawl delivers, the pages it fetches), since a generator cannot hold a task group across its
``yield`` — a failure would cancel the reader's code between two items. :func:`stream`
supervises it by hand.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine

__all__ = ["Supervisor", "first_error", "stream", "supervised"]

T = TypeVar("T")


class Supervisor:
    """The tasks of one :func:`supervised` scope.

    Args:
        group: the scope's task group.
    """

    def __init__(self, group: asyncio.TaskGroup) -> None:
        self._group = group
        self._daemons: list[asyncio.Task[Any]] = []

    def start(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Run a task that ends on its own; the scope waits for it before it ends."""
        return self._group.create_task(coro, name=name)

    def daemon(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Run a task that serves the scope's body (a heartbeat, a poller) and is cancelled
        when the body ends; a failure of it fails the scope like any other task's."""
        task = self._group.create_task(coro, name=name)
        self._daemons.append(task)
        return task

    def stop_daemons(self) -> None:
        """Cancel the daemon tasks (the scope's body is done with them)."""
        for task in self._daemons:
            task.cancel()
        self._daemons.clear()


def first_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The failure a task group stands for: its first exception, nested groups flattened.

    An interrupt (``KeyboardInterrupt``, ``SystemExit``) wins over ordinary errors; the other
    failures are added to the chosen one as notes, so that nothing is lost from a traceback.
    """
    leaves: list[BaseException] = []

    def walk(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                walk(inner)
        elif not isinstance(exc, asyncio.CancelledError):
            leaves.append(exc)

    walk(group)
    if not leaves:
        return asyncio.CancelledError()
    chosen = next((e for e in leaves if not isinstance(e, Exception)), leaves[0])
    for other in leaves:
        if other is not chosen:
            chosen.add_note(f"also failed at the same time: {type(other).__name__}: {other}")
    return chosen


@asynccontextmanager
async def supervised() -> AsyncIterator[Supervisor]:
    """A task group whose failure is raised as itself (see the module docstring).

    The body's daemon tasks (:meth:`Supervisor.daemon`) are cancelled when the body ends; the
    scope then waits for the other tasks.

    Raises:
        The first exception of the scope's tasks or body (not an ``ExceptionGroup``).
    """
    error: BaseException | None = None
    try:
        async with asyncio.TaskGroup() as group:
            supervisor = Supervisor(group)
            try:
                yield supervisor
            finally:
                supervisor.stop_daemons()
    except BaseExceptionGroup as raised:
        error = first_error(raised)
    if error is not None:
        # raised outside the ``except``: the failure keeps its own context, not the group's
        raise error


@asynccontextmanager
async def stream(
    queue: asyncio.Queue[T | None], produce: Callable[[], Awaitable[object]]
) -> AsyncIterator[AsyncIterator[T]]:
    """Run ``produce`` as a task; the scope's value yields what it puts on ``queue``, as it
    comes: a callback API (a sink, an ``on_fetch`` hook) read as an async iterator.

    ``async with stream(queue, produce) as items: async for item in items: ...``. The task
    puts ``None`` on the queue once ``produce`` has ended, as the end mark (items are never
    None). Leaving the scope before the end (a ``break``, an error, the reader's own
    cancellation) cancels the task and waits for it to end.

    Raises:
        whatever ``produce`` raises, from the iteration, once the items it put before the
        failure were yielded.
    """

    async def drive() -> None:
        try:
            await produce()
        except asyncio.CancelledError:
            raise  # the reader stopped reading: nobody waits for the end mark
        except BaseException:
            await queue.put(None)
            raise
        await queue.put(None)

    async def items() -> AsyncIterator[T]:
        while (item := await queue.get()) is not None:
            yield item
        await task

    task = asyncio.create_task(drive())
    try:
        yield items()
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait({task})  # unlike ``await task``, keeps our own cancellation
