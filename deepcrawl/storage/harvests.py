"""A harvest's sites in the database: what each was given, where it stands, what it cost.

A harvest (``deepcrawl harvest``) crawls many sites as one job. Each site has a
``harvest_site`` row, keyed by the harvest's name (its output folder) and the site: the options
the sites file gave (``like``, ``form``, ``fields``), its state and the reason of a failure, and
the figures every process adds to — the requests each job sent, the query loop's last figures.
The coordinator reads the rows for its table and ``harvest.json``; the jobs, wherever they run,
write them.

:func:`ensure_job_schema` applies the job queue's schema once (the first process of a
database, under a lock: two workers starting together do not both apply it); :func:`live_jobs`
reads the job queue's own table (procrastinate's ``procrastinate_jobs``, in the
same database): which of the fetch jobs holding frontier URLs are still to run or running.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from deepcrawl.storage import tables as t
from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sqlalchemy.engine import Engine

__all__ = ["ENDED", "HarvestStore", "ensure_job_schema", "live_jobs"]

#: Key of the PostgreSQL advisory lock under which a process applies the job queue's schema.
_JOB_SCHEMA_LOCK = 0x6463_0004

#: The states a site of a harvest ends in: nothing more is done for it.
ENDED = frozenset({"done", "needs_labels", "max_pages", "failed"})


class HarvestStore:
    """The ``harvest_site`` rows of one harvest.

    Args:
        engine: the harvest's database.
        harvest: the harvest's name (its output folder, resolved).
    """

    def __init__(self, engine: Engine, harvest: str) -> None:
        self.engine = engine
        self.harvest = harvest

    def _guard(self, operation: str) -> StorageGuard:
        return StorageGuard.of(self.engine, operation)

    def _mine(self, site_id: int) -> Any:
        c = t.HarvestSite.__table__.c  # type: ignore[attr-defined]
        return sa.and_(c.harvest == self.harvest, c.site_id == site_id)

    def enrol(
        self, site_id: int, *, name: str, start_url: str, options: dict[str, Any]
    ) -> t.HarvestSiteRead:
        """The site's row, made if it is new (a harvest resumed keeps its rows and states; the
        options are the sites file's of this run)."""
        stmt = select(t.HarvestSite).where(
            t.HarvestSite.harvest == self.harvest, t.HarvestSite.site_id == site_id
        )
        with self._guard(f"enrol site {site_id} in the harvest"), Session(self.engine) as s:
            row = s.exec(stmt).first()
            if row is None:
                row = t.HarvestSite(
                    harvest=self.harvest,
                    site_id=site_id,
                    name=name,
                    start_url=start_url,
                    options=options,
                )
            else:
                row.options = options
            s.add(row)
            s.commit()
            s.refresh(row)
            return t.HarvestSiteRead.model_validate(row)

    def sites(self) -> list[t.HarvestSiteRead]:
        """Every site of the harvest, in the order they were enrolled."""
        stmt = (
            select(t.HarvestSite)
            .where(t.HarvestSite.harvest == self.harvest)
            .order_by(col(t.HarvestSite.id))
        )
        with self._guard("list the harvest's sites"), Session(self.engine) as s:
            return [t.HarvestSiteRead.model_validate(r) for r in s.exec(stmt).all()]

    def site(self, site_id: int) -> t.HarvestSiteRead | None:
        """One site's row (None: not in this harvest)."""
        stmt = select(t.HarvestSite).where(
            t.HarvestSite.harvest == self.harvest, t.HarvestSite.site_id == site_id
        )
        with self._guard(f"read site {site_id} of the harvest"), Session(self.engine) as s:
            row = s.exec(stmt).first()
            return None if row is None else t.HarvestSiteRead.model_validate(row)

    def _update(self, site_id: int, operation: str, **values: Any) -> None:
        stmt = (
            sa.update(t.HarvestSite)
            .where(self._mine(site_id))
            .values(updated_at=datetime.now(UTC), **values)
        )
        with self._guard(operation), self.engine.begin() as conn:
            conn.execute(stmt)

    def began(self, site_id: int) -> None:
        """The site's job began a run (its query loop): ``running``, one more attempt."""
        c = t.HarvestSite.__table__.c  # type: ignore[attr-defined]
        self._update(
            site_id, f"record site {site_id}'s start", state="running", attempts=c.attempts + 1
        )

    def end(self, site_id: int, state: str, reason: str | None = None) -> None:
        """The site ended in ``state`` (one of :data:`ENDED`), with its reason."""
        self._update(site_id, f"record site {site_id}'s end", state=state, reason=reason)

    def requeue(self, site_id: int) -> None:
        """The site is to run again (a harvest resumed): ``queued``, its reason cleared."""
        self._update(site_id, f"queue site {site_id} again", state="queued", reason=None)

    def add_requests(self, site_id: int, requests: int) -> None:
        """Add the requests a job sent for the site to its count."""
        if requests <= 0:
            return
        c = t.HarvestSite.__table__.c  # type: ignore[attr-defined]
        self._update(site_id, f"count site {site_id}'s requests", requests=c.requests + requests)

    def record_figures(self, site_id: int, figures: dict[str, Any]) -> None:
        """The query loop's latest figures (records reached and estimated, queries, phase)."""
        self._update(site_id, f"record site {site_id}'s figures", figures=figures)


def live_jobs(engine: Engine, ids: Iterable[int]) -> set[int]:
    """Those of the job queue's jobs ``ids`` still to run or running (``todo``, ``doing``),
    read from procrastinate's job table in the same database: a frontier URL held by a job not
    among them is dispatched again."""
    wanted = sorted(set(ids))
    if not wanted:
        return set()
    stmt = sa.text(
        "SELECT id FROM procrastinate_jobs WHERE id = ANY(:ids) AND status IN ('todo', 'doing')"
    )
    with StorageGuard.of(engine, "read the job queue's live jobs"), engine.connect() as conn:
        return {int(i) for i in conn.execute(stmt, {"ids": wanted}).scalars()}


def ensure_job_schema(engine: Engine, schema: str) -> bool:
    """Apply the job queue's ``schema`` (procrastinate's SQL) unless its job table exists;
    whether it was applied now.

    Raises:
        StorageError: the database cannot be reached or written.
    """
    exists = sa.text("SELECT to_regclass('procrastinate_jobs') IS NOT NULL")
    with StorageGuard.of(engine, "apply the job queue's schema"), engine.begin() as conn:
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_JOB_SCHEMA_LOCK)))
        if conn.execute(exists).scalar():
            return False
        # the driver reads '%' as a placeholder even with no parameters: written '%%'
        conn.exec_driver_sql(schema.replace("%", "%%"))
        return True
