"""Ctrl-C and SIGTERM for the long-running commands: the first stops cleanly, the second at once.

:func:`run_stoppable` runs a command's coroutine with SIGINT and SIGTERM handlers installed on
the event loop (``loop.add_signal_handler``) before anything else happens. The first signal
cancels the coroutine: the crawl's supervised tasks are cancelled, each fetch in flight gives its
lease back, the browser and the database are closed in order, and :class:`Interrupted` is
raised. A second signal, while that clean stop runs, ends the process at once — everything a
crawl stores is crash-safe, so nothing is lost but the stop's own tidying. So does a clean stop
that outlasts its grace period (:data:`STOP_GRACE_S` for a crawl): a watchdog thread ends it,
since a stop the user asked for must come within seconds whatever the browser is doing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    from collections.abc import Coroutine

__all__ = ["STOP_GRACE_S", "Interrupted", "exit_at_once", "run_stoppable"]

T = TypeVar("T")

#: The signals that stop a command: Ctrl-C, and ``kill`` / a service manager.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Longest a crawl's clean stop after Ctrl-C / SIGTERM may take before the process ends at once
#: (the store is crash-safe; a stop the user asked for comes within seconds).
STOP_GRACE_S = 4.0


class Interrupted(Exception):
    """The command was stopped by a signal (after its clean stop).

    Attributes:
        signum: the signal received.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's code for a process ended by the signal (130 for SIGINT)."""
        return 128 + self.signum


def exit_at_once(code: int) -> NoReturn:
    """End a stopped command's process without the interpreter's teardown.

    The command has closed what it holds (browser, database, output); freeing every module a
    crawl loaded (scikit-learn, Playwright, SQLAlchemy …) takes seconds on a busy machine —
    longer than the whole clean stop.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def run_stoppable(main: Coroutine[Any, Any, T], *, grace_s: float | None = None) -> T:
    """Run ``main`` in a new event loop until it ends or a signal stops it.

    Args:
        main: the command's coroutine.
        grace_s: the longest a clean stop may take before the process is ended at once
            (None: no bound).

    Raises:
        Interrupted: SIGINT or SIGTERM stopped it (cleanly).
        whatever ``main`` raises.
    """
    return asyncio.run(_guarded(main, grace_s))


async def _guarded(main: Coroutine[Any, Any, T], grace_s: float | None) -> T:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received: list[int] = []

    def on_signal(signum: int) -> None:
        if received:
            os.write(2, b"interrupted again: stopping at once\n")
            os._exit(128 + signum)
        received.append(signum)
        task.cancel(f"stopped by {signal.Signals(signum).name}")
        if grace_s is not None:  # a thread: it fires even while the loop is busy closing
            timer = threading.Timer(grace_s, _overdue, args=(signum,))
            timer.daemon = True
            timer.start()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        return await main
    except asyncio.CancelledError:
        if not received:
            raise
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
    raise Interrupted(received[0])


def _overdue(signum: int) -> None:
    os.write(
        2,
        b"interrupted: the clean stop took too long, ended at once; everything so far is "
        b"stored; run the same command again (or add --resume) to continue\n",
    )
    os._exit(128 + signum)
