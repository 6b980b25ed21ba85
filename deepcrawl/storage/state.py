"""The crawl's own state in the database: query links, deliveries, leases of a resumed crawl.

Everything a crawl needs to continue after a crash lives in the database (issue 7, "Resume"):
the queries and every link their result pages showed (:class:`~deepcrawl.storage.tables
.QueryLink`), the frontier, the pages fetched, and which pages the extractor already received
(:class:`~deepcrawl.storage.tables.Delivery`). The :class:`~deepcrawl.storage.Repository` keeps
the shared tables; this module adds the few reads and writes only the crawl needs, each one short
transaction, so that a SIGKILL loses at most the write in flight.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from deepcrawl.storage import tables as t
from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from sqlalchemy.orm import QueryableAttribute
    from sqlmodel.sql.expression import SelectOfScalar

    from deepcrawl.storage.repository import Repository

__all__ = ["CrawlState", "ResultLinkLike", "StoredIndex", "StoredQuery", "stored_record_stmt"]

#: The page table, for Core statements.
_PAGE: sa.Table = t.Page.__table__  # type: ignore[attr-defined]
_DELIVERY: sa.Table = t.Delivery.__table__  # type: ignore[attr-defined]
_QUERY: sa.Table = t.Query.__table__  # type: ignore[attr-defined]
_LINK: sa.Table = t.QueryLink.__table__  # type: ignore[attr-defined]
_INSERT_LINK = sa.insert(_LINK)
# Once per page delivered: built once (building a statement cost more than running it).
_DELIVERED = sa.select(_DELIVERY.c.id).where(_DELIVERY.c.page_id == sa.bindparam("page_id"))
#: A delivery remembered once: one already there (a resumed run offered its page again) is kept.
_MARK_DELIVERED = {
    "sqlite": sqlite.insert(_DELIVERY).on_conflict_do_nothing(index_elements=["page_id"]),
    "postgresql": postgresql.insert(_DELIVERY).on_conflict_do_nothing(index_elements=["page_id"]),
}
# Once per URL leased: the key its page is stored under, if any (:meth:`CrawlState.stored_key`)
# — a page under the URL itself first, then a record naming it as its canonical URL; two index
# probes, each a subquery (SQLite refuses a LIMIT on a compound's own members).
_STORED_KEY = sa.union_all(
    *(
        sa.select(sub.c.url)
        for sub in (
            sa.select(_PAGE.c.url)
            .where(_PAGE.c.site_id == sa.bindparam("site_id"), _PAGE.c.url == sa.bindparam("url"))
            .limit(1)
            .subquery("own"),
            sa.select(_PAGE.c.url)
            .where(
                _PAGE.c.site_id == sa.bindparam("site_id"),
                _PAGE.c.canonical_url == sa.bindparam("url"),
                _PAGE.c.kind == "record",
                _PAGE.c.error.is_(None),
            )
            .limit(1)
            .subquery("named"),
        )
    )
).limit(1)


class ResultLinkLike(Protocol):
    """What is stored of a link a query's result pages showed (a ``search.results.ResultLink``)."""

    @property
    def url(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def role(self) -> str: ...


@dataclass(frozen=True, slots=True)
class StoredQuery:
    """A query as stored, with its links (``(url, text, role)``), for replay."""

    row: t.QueryRead
    links: tuple[tuple[str, str, str], ...]

    def result_links(self) -> list[tuple[str, str]]:
        """``(url, text)`` of the links in the results area."""
        return [(url, text) for url, text, role in self.links if role == "result"]


class CrawlState:
    """Reads and writes of one site's crawl state.

    Args:
        repo: the crawl's repository (its engine is used directly).
        site_id: the site.
    """

    def __init__(self, repo: Repository, site_id: int) -> None:
        self.repo = repo
        self.engine = repo.engine
        self.site_id = site_id
        #: What the site's stored pages answer the two probes by, where this process alone
        #: writes them (:meth:`own_pages`); None: the probes ask the database every time.
        self._owned: StoredIndex | None = None

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def _guard(self, operation: str) -> StorageGuard:
        return StorageGuard.of(self.engine, operation)

    def save_query(
        self, query: t.QueryBase, links: Iterable[ResultLinkLike], *, form_id: int | None
    ) -> t.QueryRead:
        """Store a query and every link of its result pages in one transaction.

        The links go in as plain rows, one ``executemany``: a list of everything holds tens of
        thousands, and an ORM object each costs a hundred times the insert.
        """
        with self._guard(f"record query {query.keyword!r}"), self._session() as s:
            row = t.Query.model_validate(
                query, update={"site_id": self.site_id, "form_id": form_id}
            )
            s.add(row)
            s.flush()
            assert row.id is not None
            rows = [
                {"query_id": row.id, "url": link.url[:4096], "text": link.text, "role": link.role}
                for link in links
            ]
            if rows:
                s.connection().execute(_INSERT_LINK, rows)
            s.commit()
            return t.QueryRead.model_validate(row)

    def queries(self) -> list[StoredQuery]:
        """The site's queries in submission order, with their links."""
        with self._guard(f"read the queries of site {self.site_id}"), self._session() as s:
            rows = s.exec(
                select(t.Query).where(t.Query.site_id == self.site_id).order_by(col(t.Query.id))
            ).all()
            links: dict[int, list[tuple[str, str, str]]] = {}
            # plain rows, not ORM objects: the links of a list of everything are tens of
            # thousands, and a resumed crawl reads them all
            stmt = (
                sa.select(_LINK.c.query_id, _LINK.c.url, _LINK.c.text, _LINK.c.role)
                .join(_QUERY, _LINK.c.query_id == _QUERY.c.id)
                .where(_QUERY.c.site_id == self.site_id)
                .order_by(_LINK.c.id)
            )
            for query_id, url, text, role in s.execute(stmt):
                links.setdefault(query_id, []).append((url, text, role))
        return [
            StoredQuery(t.QueryRead.model_validate(r), tuple(links.get(r.id or 0, ())))
            for r in rows
        ]

    def field_values(self) -> dict[str, str] | None:
        """The field values the latest stored query was sent with (None: no query stored)."""
        stmt = (
            select(t.Query.field_values)
            .where(t.Query.site_id == self.site_id)
            .order_by(col(t.Query.id).desc())
            .limit(1)
        )
        with self._guard(f"read the queries of site {self.site_id}"), self._session() as s:
            found = s.exec(stmt).first()
        return None if found is None else dict(found)

    def link_urls(self) -> list[str]:
        """Every distinct URL the result pages showed (the prototyper's input)."""
        stmt = (
            select(t.QueryLink.url)
            .join(t.Query, col(t.QueryLink.query_id) == col(t.Query.id))
            .where(t.Query.site_id == self.site_id)
            .distinct()
        )
        with self._guard(f"read the links of site {self.site_id}"), self._session() as s:
            return list(s.exec(stmt).all())

    def _undelivered(self, kind: str) -> SelectOfScalar[t.Page]:
        """The site's pages of ``kind`` fetched without error and without a delivery.

        ``NOT EXISTS`` on the delivery's unique ``page_id``: one index probe per page read, where
        PostgreSQL's ``NOT IN (subquery)`` would hash (or, past ``work_mem``, rescan) every
        delivery of the site on each call.
        """
        delivered = select(t.Delivery.id).where(col(t.Delivery.page_id) == col(t.Page.id)).exists()
        return (
            select(t.Page)
            .where(
                t.Page.site_id == self.site_id,
                t.Page.kind == kind,
                col(t.Page.error).is_(None),
                ~delivered,
            )
            .order_by(col(t.Page.id))
            # the body is read when the record is built (or not, with ``deliver_bodies`` off)
            .options(defer(cast("QueryableAttribute[bytes | None]", t.Page.body)))
        )

    def _read_pages(self, stmt: SelectOfScalar[t.Page]) -> list[t.PageRead]:
        with self._guard("list undelivered pages"), self._session() as s:
            return [t.PageRead.model_validate(r) for r in s.exec(stmt).all()]

    def undelivered(self, kind: str = "record", *, batch: int = 200) -> Iterator[t.PageRead]:
        """Pages of ``kind`` fetched without error and not yet delivered, in fetch order.

        A page whose frontier URL is still pending is left out: whoever holds (or next takes)
        that lease delivers it (one process crawling; in a shared crawl this is the final sweep,
        run once nothing is pending). Read ``batch`` pages at a time (a resumed crawl may have a
        whole site undelivered).
        """
        f = t.FrontierEntry
        pending = (
            select(f.id)
            .where(
                f.site_id == self.site_id,
                col(f.url) == col(t.Page.url),
                col(f.state).in_(("queued", "leased")),
            )
            .exists()
        )
        stmt = self._undelivered(kind).where(~pending).limit(batch)
        after = 0
        while True:
            found = self._read_pages(stmt.where(col(t.Page.id) > after))
            yield from found
            if len(found) < batch:
                return
            after = found[-1].id

    def undelivered_after(
        self, after: int, kind: str = "record", *, batch: int = 200
    ) -> Iterator[t.PageRead]:
        """Pages of ``kind`` above id ``after`` fetched without error and not yet delivered.

        What the delivery point of a shared crawl polls (the crawler's ``DeliveryPoller``): the
        page table's primary key is walked from ``after`` up, so a poll reads the pages stored
        since its watermark, not the whole site. Pages still leased are included: a stored page
        is complete whoever settles its lease.
        """
        stmt = self._undelivered(kind).limit(batch)
        while True:
            found = self._read_pages(stmt.where(col(t.Page.id) > after))
            yield from found
            if len(found) < batch:
                return
            after = found[-1].id

    def own_pages(self) -> None:
        """This process alone writes the site's pages (one crawl process on SQLite): the probes
        :meth:`stored_key` and :meth:`stored_record` answer "not stored" without the database.

        An index of the stored pages' keys, canonical URLs and fingerprints is read once and
        kept whole from then on by the repository (:attr:`Repository.page_listeners
        <deepcrawl.storage.repository.Repository.page_listeners>`): nearly every URL a crawl
        leases and every record it fetches is new, and each probe was a read a page (issue 27).
        A probe the index answers "maybe" still asks the database. Idempotent.
        """
        if self._owned is not None:
            return
        owned = StoredIndex()
        c = _PAGE.c
        stmt = sa.select(c.url, c.kind, c.error, c.canonical_url, c.fingerprint).where(
            c.site_id == self.site_id
        )
        with (
            self._guard(f"read the stored pages of site {self.site_id}"),
            self.engine.connect() as conn,
        ):
            for row in conn.execute(stmt):
                owned.add(row.url, row.kind, row.error, row.canonical_url, row.fingerprint)
        self._owned = owned
        self.repo.page_listeners.append(self._saved)

    def _saved(self, site_id: int, rows: Sequence[t.PageRead]) -> None:
        if self._owned is not None and site_id == self.site_id:
            for row in rows:
                self._owned.add(row.url, row.kind, row.error, row.canonical_url, row.fingerprint)

    def stored_key(self, url: str) -> str | None:
        """The key the page for ``url`` (a dedup key) is stored under: ``url`` itself where a
        page is stored under it, else that of a record stored under another URL that names
        ``url`` as its canonical URL; None where neither (nearly every URL a crawl leases).

        One statement of two index probes, asked once for every URL leased (unless the
        process owns the pages, :meth:`own_pages`, and no page names ``url``).
        """
        if self._owned is not None and not self._owned.may_hold(url):
            return None
        args = {"site_id": self.site_id, "url": url}
        with self._guard(f"look for the stored page of {url}"), self.engine.connect() as conn:
            found = conn.execute(_STORED_KEY, args).scalar()
        return None if found is None else str(found)

    def delivered(self, page_id: int) -> bool:
        """Whether the extractor already received this page (from any process)."""
        with self._guard(f"read the delivery of page {page_id}"), self.engine.connect() as conn:
            return conn.execute(_DELIVERED, {"page_id": page_id}).first() is not None

    def mark_delivered(self, page_id: int) -> None:
        """Remember that the extractor received this page."""
        self.mark_delivered_many([page_id])

    def mark_delivered_many(self, page_ids: Sequence[int]) -> None:
        """Remember that the extractor received these pages: one transaction, one Core
        ``executemany`` (a crawl delivers its pages a batch at a time). A page remembered
        already (a resumed run offered it again) is left as it is."""
        if not page_ids:
            return
        now = datetime.now(UTC)
        rows = [{"site_id": self.site_id, "page_id": i, "delivered_at": now} for i in page_ids]
        what = f"record the delivery of {len(rows)} pages"
        with self._guard(what), self.engine.begin() as conn:
            conn.execute(_MARK_DELIVERED[conn.dialect.name], rows)

    def count(self, what: str) -> int:
        """``delivered`` pages, ``records`` fetched, ``failed`` fetches, or ``queries`` stored
        of the site."""
        if what == "delivered":
            stmt = select(sa.func.count()).where(t.Delivery.site_id == self.site_id)
        elif what == "records":
            stmt = select(sa.func.count()).where(
                t.Page.site_id == self.site_id, t.Page.kind == "record", col(t.Page.error).is_(None)
            )
        elif what == "failed":
            stmt = select(sa.func.count()).where(
                t.Page.site_id == self.site_id, col(t.Page.error).is_not(None)
            )
        elif what == "queries":
            stmt = select(sa.func.count()).where(t.Query.site_id == self.site_id)
        else:
            raise ValueError(what)
        with self._guard(f"count the {what} of site {self.site_id}"), self._session() as s:
            return int(s.exec(stmt).one())

    def query_end(self) -> t.QueryEnd | None:
        """Why the site's querying ended for good, if it did and no query was stored since."""
        with self._guard(f"read how site {self.site_id}'s querying ended"), self._session() as s:
            end = s.get(t.QueryEnd, self.site_id)
            if end is None:
                return None
            stored = s.exec(select(sa.func.count()).where(t.Query.site_id == self.site_id)).one()
        return end if end.queries >= int(stored) else None

    def end_queries(self, reason: str, queries: int) -> None:
        """Remember that the site's querying ended for good after ``queries`` queries."""
        with self._guard(f"record the end of site {self.site_id}'s querying"), self._session() as s:
            end = s.get(t.QueryEnd, self.site_id) or t.QueryEnd(site_id=self.site_id, reason="")
            end.reason, end.queries, end.ended_at = reason, queries, datetime.now(UTC)
            s.add(end)
            s.commit()

    def session_params(self, *, anyway: bool = False) -> set[str]:
        """The parameter names the crawl learnt to carry a session (:class:`~deepcrawl.storage
        .tables.SessionParam`); ``anyway``: those dropped whatever their value instead."""
        stmt = select(t.SessionParam.name).where(
            t.SessionParam.site_id == self.site_id, t.SessionParam.anyway == anyway
        )
        with (
            self._guard(f"read the session parameters of site {self.site_id}"),
            self._session() as s,
        ):
            return set(s.exec(stmt).all())

    def add_session_params(self, names: Iterable[str], *, anyway: bool = False) -> None:
        """Remember parameter names learnt to carry a session, or (``anyway``) to be no part
        of a URL whatever their value (known ones are left alone)."""
        with self._guard(f"store session parameters of site {self.site_id}"), self._session() as s:
            known = set(
                s.exec(select(t.SessionParam.name).where(t.SessionParam.site_id == self.site_id))
            )
            for name in sorted(set(names) - known):
                s.add(t.SessionParam(site_id=self.site_id, name=name, anyway=anyway))
            try:
                s.commit()
            except IntegrityError:  # another process stored one of them meanwhile
                s.rollback()

    def stored_record(self, canonical_url: str | None, fingerprint: str | None) -> str | None:
        """The URL of a record page stored before under the canonical URL ``canonical_url``
        (its key or its canonical URL), or with the main text ``fingerprint``; None if none.

        Looked up in that order, the first found wins (:func:`stored_record_stmt`).
        """
        if not canonical_url and not fingerprint:
            return None
        if self._owned is not None and not self._owned.may_show(canonical_url, fingerprint):
            return None
        stmt = stored_record_stmt(by_url=bool(canonical_url), by_fingerprint=bool(fingerprint))
        args = {"site_id": self.site_id, "url": canonical_url, "fingerprint": fingerprint}
        with (
            self._guard(f"look for a stored record of site {self.site_id}"),
            self.engine.connect() as conn,
        ):
            found = conn.execute(stmt, args).scalar()
        return None if found is None else str(found)

    def release_leases(self) -> int:
        """Make the site's URLs leased by a process fetching alone ready again (the run that
        held them is dead): at the start of a crawl that fetches alone, every such lease is
        stale. URLs held by fetch jobs stay held (their jobs are the job queue's)."""
        stmt = (
            sa.update(t.FrontierEntry)
            .where(
                col(t.FrontierEntry.site_id) == self.site_id,
                col(t.FrontierEntry.state) == "leased",
                col(t.FrontierEntry.holder).is_(None),
            )
            .values(state="queued", ready_at=datetime.now(UTC))
        )
        with self._guard("release the frontier's leases"), self.engine.begin() as conn:
            return int(conn.execute(stmt).rowcount or 0)


class StoredIndex:
    """Pages as the probes of :class:`CrawlState` ask for them, held as string hashes: a page
    under a key, a record under (or naming) a canonical URL, a record with a fingerprint. A
    "no" is sure; a "maybe" may be a collision, and the probe then asks the database. The
    fetch workers' batch answers for its pages not stored yet by one too."""

    __slots__ = ("_fingerprints", "_keys", "_records")

    def __init__(self) -> None:
        #: Every page's key, and every record's canonical URL (:meth:`CrawlState.stored_key`).
        self._keys: set[int] = set()
        #: Every record's key and canonical URL; its fingerprint (:meth:`CrawlState
        #: .stored_record`).
        self._records: set[int] = set()
        self._fingerprints: set[int] = set()

    def add(
        self,
        url: str,
        kind: str | None,
        error: str | None,
        canonical_url: str | None,
        fingerprint: str | None,
    ) -> None:
        """Count a page: its key, and a record's (no failure's) canonical URL and text."""
        self._keys.add(hash(url))
        if kind != "record" or error is not None:
            return
        self._records.add(hash(url))
        if canonical_url:
            self._keys.add(hash(canonical_url))
            self._records.add(hash(canonical_url))
        if fingerprint:
            self._fingerprints.add(hash(fingerprint))

    def may_hold(self, url: str) -> bool:
        """Whether a page may be under the key ``url``, or a record may name it (:meth:`CrawlState
        .stored_key`)."""
        return hash(url) in self._keys

    def may_show(self, canonical_url: str | None, fingerprint: str | None) -> bool:
        """Whether a record may be under (or name) ``canonical_url``, or have the text
        ``fingerprint`` (:meth:`CrawlState.stored_record`)."""
        return bool(
            (canonical_url and hash(canonical_url) in self._records)
            or (fingerprint and hash(fingerprint) in self._fingerprints)
        )


@functools.cache
def stored_record_stmt(*, by_url: bool, by_fingerprint: bool) -> sa.CompoundSelect[tuple[str]]:
    """The statement behind :meth:`CrawlState.stored_record`: one index probe per test (the
    page's key, its canonical URL — both the ``url`` parameter —, its ``fingerprint``), joined by
    ``UNION ALL`` and cut at the first row; its parameters are ``site_id``, ``url`` and
    ``fingerprint``.

    Asked for every page fetched, so each test must be an index probe: the tests ``OR``-ed in one
    ``WHERE`` plan (SQLite) as a walk of every page of the site, a crawl quadratic in its pages.
    Built once per pair of flags: building a statement costs ten times running it.
    """
    c = _PAGE.c
    tests = []
    if by_url:
        tests += [c.url == sa.bindparam("url"), c.canonical_url == sa.bindparam("url")]
    if by_fingerprint:
        tests.append(c.fingerprint == sa.bindparam("fingerprint"))
    record = (c.site_id == sa.bindparam("site_id"), c.kind == "record", c.error.is_(None))
    # each member a subquery: SQLite refuses a LIMIT on a compound's own members
    found = [
        sa.select(c.url).where(*record, test).limit(1).subquery(f"by_{n}")
        for n, test in enumerate(tests)
    ]
    return sa.union_all(*(sa.select(sub.c.url) for sub in found)).limit(1)
