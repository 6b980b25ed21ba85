"""A worker's heartbeats from a thread, on a real PostgreSQL server: a job holding the event loop
for many heartbeats does not make its worker look dead, a loop stuck for good does."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from deepcrawl.harvest import pulse
from deepcrawl.harvest.engine import JobEngine
from deepcrawl.storage import Repository
from deepcrawl.storage.coordination import SILENT_BEATS

if TYPE_CHECKING:
    from collections.abc import Callable

#: Seconds between two beats: short, so that a test holds the loop for many of them in a second.
BEAT_S = 0.1


def _silent_s(db: sa.Engine, worker_id: int) -> float:
    """Seconds since the engine last heard of ``worker_id``, on the database's clock."""
    with db.connect() as conn:
        return float(
            conn.execute(
                sa.text(
                    "SELECT EXTRACT(EPOCH FROM now() - last_heartbeat) "
                    "FROM procrastinate_workers WHERE id = :id"
                ),
                {"id": worker_id},
            ).scalar_one()
        )


async def _hold_the_loop(jobs: JobEngine, seconds: float) -> float:
    """Register a worker, let the pulse keep it, block the loop ``seconds`` as a busy job step
    would, then how long the engine has not heard of the worker."""
    worker_id = await jobs.app.job_manager.register_worker()
    jobs.pulse.hold(worker_id)
    await asyncio.sleep(2 * BEAT_S)  # the loop turns: the pulse has seen it alive
    time.sleep(seconds)  # the point: a step that holds the loop
    return _silent_s(jobs.db, worker_id)


def test_a_busy_loop_keeps_its_workers_alive(make_db: Callable[[str], str]) -> None:
    with Repository.open(make_db("postgres")) as repo:

        async def run() -> float:
            async with JobEngine(repo.engine.url.render_as_string(hide_password=False),
                                 repo.engine, heartbeat_s=BEAT_S) as jobs:  # fmt: skip
                return await _hold_the_loop(jobs, 12 * BEAT_S)

        silent = asyncio.run(run())
    # held for 12 beats, four times the silence after which a worker's jobs are run again
    assert silent < SILENT_BEATS * BEAT_S, silent


def test_a_stuck_loop_lets_its_workers_fall_silent(
    make_db: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pulse, "STUCK_BEATS", 5)
    with Repository.open(make_db("postgres")) as repo:

        async def run() -> float:
            async with JobEngine(repo.engine.url.render_as_string(hide_password=False),
                                 repo.engine, heartbeat_s=BEAT_S) as jobs:  # fmt: skip
                return await _hold_the_loop(jobs, 15 * BEAT_S)

        silent = asyncio.run(run())
    # stuck past 5 beats: the pulse stopped about 10 beats before the end of the hold
    assert silent > SILENT_BEATS * BEAT_S, silent
