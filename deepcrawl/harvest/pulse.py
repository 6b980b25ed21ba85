"""A worker's heartbeat from a thread of its own, so that a busy event loop is not a dead worker.

procrastinate beats for each engine worker from a task on the worker's event loop. deepcrawl's
jobs run on that same loop, and some of their steps hold it for seconds on end (a site job
learning prototypes from tens of thousands of URLs, a large page parsed, a slow database round
trip under load). Measured on a harvest with a 20,000-record site in it: a live worker went
silent past the stalled-job threshold, and the sweep ran its fetch job and a site's query loop
again on another worker while the first runs were still going.

:class:`Pulse` beats, from a thread, for every engine worker of this process that has run a job
(the workers whose jobs a sweep could take). It beats only while the event loop still turns: a
task on the loop notes the time every heartbeat, and a loop that has not turned for
:data:`STUCK_BEATS` heartbeats is taken for stuck, its beats stop and its jobs run again
elsewhere. So a worker is dead when its process is gone or its loop has not run for minutes —
not when a job was busy for a few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from deepcrawl._resource import AsyncResource

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["STUCK_BEATS", "Pulse"]

logger = logging.getLogger(__name__)

#: Heartbeats without a turn of the event loop after which the loop is taken for stuck and the
#: thread stops beating for it: 24 beats, two minutes at the default five seconds — far beyond
#: any one step of a job, well within what a user waits for a dead worker's jobs to come back.
STUCK_BEATS = 24


class Pulse(AsyncResource):
    """Heartbeats of this process's engine workers, sent from a thread while the loop turns.

    Enter it on the event loop the workers run on; :meth:`hold` names a worker whose heartbeat
    it keeps from then on (its job's ``worker_id``). Beating a worker that has since stopped is
    harmless: the engine's row is gone, and the update touches nothing.

    Args:
        db: the job queue's PostgreSQL engine (a connection of its pool per beat).
        heartbeat_s: seconds between two beats (``crawl.heartbeat_s``).
    """

    def __init__(self, db: Engine, *, heartbeat_s: float) -> None:
        self.db = db
        self.heartbeat_s = heartbeat_s
        self._workers: set[int] = set()
        self._turned = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ticks: asyncio.Task[None] | None = None

    @property
    def stuck_s(self) -> float:
        """Seconds without a turn of the loop after which the beats stop."""
        return STUCK_BEATS * self.heartbeat_s

    def hold(self, worker_id: int | None) -> None:
        """Keep beating for ``worker_id`` (None: a job run outside a worker, nothing to do)."""
        if worker_id is not None:
            self._workers.add(worker_id)

    async def open(self) -> None:
        self._turned = time.monotonic()
        self._ticks = asyncio.create_task(self._tick(), name="the loop's pulse")
        self._thread = threading.Thread(target=self._beat, name="deepcrawl heartbeat", daemon=True)
        self._thread.start()

    async def close(self) -> None:
        self._stop.set()
        if self._ticks is not None:
            self._ticks.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticks
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)

    async def _tick(self) -> None:
        while True:
            self._turned = time.monotonic()
            await asyncio.sleep(self.heartbeat_s)

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            if time.monotonic() - self._turned > self.stuck_s:
                continue  # a stuck loop's jobs are to run elsewhere: let its workers fall silent
            for worker_id in sorted(self._workers):
                self._send(worker_id)

    def _send(self, worker_id: int) -> None:
        from procrastinate import sql

        try:
            with self.db.begin() as conn:
                conn.exec_driver_sql(sql.queries["update_heartbeat"], {"worker_id": worker_id})
        except SQLAlchemyError as exc:  # the next beat tries again; the loop's own beats go on
            logger.debug("heartbeat of worker %s failed: %s", worker_id, exc)
