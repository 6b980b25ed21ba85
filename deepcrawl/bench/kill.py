"""A worker SIGKILLed in the middle of a harvest bench's run, and its jobs followed.

``deepcrawl bench --job harvest --kill-after S`` runs each count of workers a second time and,
``S`` seconds into that run, :class:`WorkerKill` SIGKILLs the process group of the harvest's
first live ``deepcrawl worker`` (the worker, its Playwright driver and its browser: a machine
that died). Which of the job queue's workers were that process's is read from their heartbeats
(``procrastinate_workers.last_heartbeat``): those alive before the kill whose beat stops.
The jobs they held (``doing`` at the kill: the site jobs are query loops, the fetch jobs batches
of record URLs) are then followed until each has been taken up — running on another worker, or
done — and the seconds that took are the figure the bench reports beside the run's wall time,
to set against the uninterrupted run of the same count.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psutil
import sqlalchemy as sa

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["KillReport", "WorkerKill"]

#: Seconds between two reads of the job queue's tables while the jobs are followed.
_POLL_S = 0.5
#: Seconds after which jobs not yet taken up are reported as such (the bench's bar is 60).
_FOLLOW_S = 180.0

_DOING = sa.text(
    "SELECT id, task_name, worker_id FROM procrastinate_jobs WHERE status = 'doing'"
    " AND task_name IN ('deepcrawl.site', 'deepcrawl.fetch')"
)
_BEATS = sa.text("SELECT id, last_heartbeat FROM procrastinate_workers")
_STATES = sa.text("SELECT id, status, worker_id FROM procrastinate_jobs WHERE id = ANY(:ids)")
_NOW = sa.text("SELECT now()")


@dataclass
class KillReport:
    """What one kill did: when, whose jobs, and how soon another worker had each."""

    after_s: float
    """Seconds into the harvest the worker was killed (0: it never was; see ``note``)."""
    pid: int = 0
    site_jobs: int = 0
    """Site jobs (query loops) the killed worker was running."""
    fetch_jobs: int = 0
    """Fetch jobs (batches of record URLs) the killed worker was running."""
    taken_up_s: float | None = None
    """Seconds from the kill until every one of its jobs ran elsewhere or was done (None: not
    within the follow-up time)."""
    note: str = ""
    jobs: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "after_s": self.after_s,
            "pid": self.pid,
            "site_jobs": self.site_jobs,
            "fetch_jobs": self.fetch_jobs,
            "taken_up_s": None if self.taken_up_s is None else round(self.taken_up_s, 1),
            "note": self.note,
        }


class WorkerKill:
    """Kills one worker of the harvest ``harvest_pid`` after ``after_s`` seconds, in a thread,
    while the ``with`` block runs; :attr:`report` says what it did.

    Args:
        harvest_pid: the ``deepcrawl harvest`` process whose ``deepcrawl worker`` children are
            the candidates.
        db: the harvest's PostgreSQL URL (SQLAlchemy form), where the job queue's tables are.
        after_s: seconds from entering the block to the kill.
        heartbeat_s: the workers' heartbeat interval (``crawl.heartbeat_s``): a worker whose
            beat has not come 1.5 of them after the kill is the killed process's.
    """

    def __init__(self, harvest_pid: int, db: str, *, after_s: float, heartbeat_s: float) -> None:
        self.harvest_pid = harvest_pid
        self.db = db
        self.after_s = after_s
        self.heartbeat_s = heartbeat_s
        self.report = KillReport(after_s=0.0, note="not killed: the harvest ended first")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-kill", daemon=True)

    def __enter__(self) -> WorkerKill:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        if self._stop.wait(self.after_s):
            return
        engine = sa.create_engine(self.db, poolclass=sa.pool.NullPool)
        try:
            self._kill(engine)
        except (sa.exc.SQLAlchemyError, psutil.Error, OSError) as exc:
            self.report.note = f"the kill failed: {exc}"
        finally:
            engine.dispose()

    def _kill(self, engine: sa.Engine) -> None:
        victim = _first_worker(self.harvest_pid)
        if victim is None:
            self.report.note = "not killed: the harvest had no live worker"
            return
        with engine.connect() as conn:
            beats = {int(r.id): r.last_heartbeat for r in conn.execute(_BEATS)}
            doing = list(conn.execute(_DOING))
            killed_at_db = conn.execute(_NOW).scalar_one()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(victim.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        report = self.report = KillReport(after_s=round(killed_at - self._started, 1),
                                          pid=victim.pid)  # fmt: skip
        # the victim's engine workers: alive just before the kill, silent since
        alive = {wid for wid, beat in beats.items()
                 if (killed_at_db - beat).total_seconds() < 2 * self.heartbeat_s}  # fmt: skip
        if self._stop.wait(1.5 * self.heartbeat_s):
            report.note = "the harvest ended before the killed worker was told apart"
            return
        with engine.connect() as conn:
            now = {int(r.id): r.last_heartbeat for r in conn.execute(_BEATS)}
        # a silent worker's row may be pruned already (gone): it is the victim's too
        mine = {wid for wid in alive if now.get(wid, beats[wid]) == beats[wid]}
        held = [r for r in doing if r.worker_id in mine]
        report.jobs = [int(r.id) for r in held]
        report.site_jobs = sum(1 for r in held if r.task_name == "deepcrawl.site")
        report.fetch_jobs = len(held) - report.site_jobs
        if not held:
            report.taken_up_s = 0.0
            report.note = "the killed worker held no job"
            return
        while time.monotonic() - killed_at < _FOLLOW_S:
            with engine.connect() as conn:
                rows = list(conn.execute(_STATES, {"ids": report.jobs}))
            if all(r.status == "succeeded" or (r.status == "doing" and r.worker_id is not None
                                                and r.worker_id not in mine)
                   for r in rows):  # fmt: skip
                report.taken_up_s = time.monotonic() - killed_at
                return
            if self._stop.wait(_POLL_S):
                report.note = "the harvest ended before every job was taken up"
                return
        report.note = f"not every job taken up within {_FOLLOW_S:.0f} s"


def _first_worker(harvest_pid: int) -> psutil.Process | None:
    """The oldest live ``deepcrawl worker`` child of the harvest (None: none)."""
    try:
        children = psutil.Process(harvest_pid).children()
    except psutil.NoSuchProcess:
        return None
    workers = []
    for child in children:
        with contextlib.suppress(psutil.Error):
            if "worker" in child.cmdline() and child.status() != psutil.STATUS_ZOMBIE:
                workers.append(child)
    return min(workers, key=lambda p: p.create_time(), default=None)
