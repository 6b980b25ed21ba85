"""Pages as the repository stores them: a fetched page's row with its body, the HTTP exchange
behind it and its links; a fetch that failed for good; and the reads back.

A body is kept in the row up to ``inline_max`` bytes (None: whatever its size) and otherwise in a
file named by its SHA-256 (:func:`deepcrawl.storage._files.write_body`); the repository's
docstring says why PostgreSQL keeps every body inline.

Functions over a session the repository opens inside its storage guard (one transaction a
method, see :mod:`deepcrawl.storage.repository`); one that writes commits.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlmodel import col, select

from deepcrawl.errors import StorageError
from deepcrawl.storage import tables as t
from deepcrawl.storage._links import link_values
from deepcrawl.storage.content import body_of
from deepcrawl.storage.exchanges import exchange_of, exchange_values, payload_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sqlmodel import Session

    from deepcrawl.page.fetched import Exchange, FetchedPage

__all__ = [
    "PageWrite",
    "batch",
    "body",
    "exchange",
    "failures",
    "page",
    "save_failure",
    "save_pages",
]

#: Pages read per batch when a site's pages are listed.
_BATCH = 500

# The statements a crawl runs for every page it fetches or delivers are built once, with bound
# parameters, and run as Core statements: building a statement and loading ORM rows cost
# several times running the statement (issue 27).
_PAGE: sa.Table = t.Page.__table__  # type: ignore[attr-defined]
_EXCHANGE: sa.Table = t.PageExchange.__table__  # type: ignore[attr-defined]
#: A page as :class:`~deepcrawl.storage.tables.PageRead` holds it (no body), by its key.
_PAGE_BY_URL = sa.select(*(_PAGE.c[name] for name in t.PageRead.model_fields)).where(
    _PAGE.c.site_id == sa.bindparam("site_id"), _PAGE.c.url == sa.bindparam("url")
)
_BODY = sa.select(_PAGE.c.body, _PAGE.c.body_path).where(_PAGE.c.id == sa.bindparam("id"))
_EXCHANGE_BY_PAGE = sa.select(_EXCHANGE).where(_EXCHANGE.c.page_id == sa.bindparam("id"))
#: The page rows of a batch, their ids in the order of the rows given.
_INSERT_PAGES = sa.insert(_PAGE).returning(_PAGE.c.id, sort_by_parameter_order=True)
_INSERT_EXCHANGE = sa.insert(_EXCHANGE)
_INSERT_LINK = sa.insert(t.Link.__table__)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class PageWrite:
    """One fetched page to store (:meth:`Repository.save_pages
    <deepcrawl.storage.repository.Repository.save_pages>`): the page and what the crawl knows of
    it.

    Attributes:
        page: the page as fetched.
        url: the dedup key (the normalised URL); ``page.url`` when None.
        kind, prototype_id, label: the page's kind and its URL's prototype and label.
        with_links: whether its links are stored too.
        canonical_url, fingerprint: the record's identity (:class:`~deepcrawl.storage.tables
            .PageBase`).
    """

    page: FetchedPage
    url: str | None = None
    kind: str | None = None
    prototype_id: str | None = None
    label: str | None = None
    with_links: bool = True
    canonical_url: str | None = None
    fingerprint: str | None = None


def save_pages(
    conn: sa.Connection,
    site_id: int,
    writes: Sequence[PageWrite],
    *,
    inline_max: int | None,
    write_body: Callable[[str, bytes], str],
) -> list[t.PageRead]:
    """Store fetched pages, their bodies, their exchanges and (where asked) their links, in the
    transaction of ``conn`` (the caller commits); the rows in the order of ``writes``.

    Core ``executemany`` inserts of plain values, one per table whatever the number of pages:
    ORM objects, their flush and their unit of work, and a statement per page, cost several
    times the inserts for pages a crawl stores once and never updates (issue 27).

    Args:
        inline_max: the largest body kept in the row; None: every body.
        write_body: stores a larger body as a file (by its SHA-256) and returns the path.
    """
    if not writes:
        return []
    raws = [w.page.stored_body() for w in writes]
    fields = [
        _page_fields(w, raw, inline_max, write_body) for w, raw in zip(writes, raws, strict=True)
    ]
    values = [
        {**f, "site_id": site_id, "body": raw if f["body_path"] is None else None}
        for f, raw in zip(fields, raws, strict=True)
    ]
    ids = list(conn.execute(_INSERT_PAGES, values).scalars())
    exchanges = [
        exchange_values(
            page_id, w.page.exchange, page_body=raw, inline_max=inline_max, write_body=write_body
        )
        for page_id, w, raw in zip(ids, writes, raws, strict=True)
        if w.page.exchange is not None
    ]
    if exchanges:
        conn.execute(_INSERT_EXCHANGE, exchanges)
    links = [
        value
        for page_id, w in zip(ids, writes, strict=True)
        if w.with_links
        for value in link_values(page_id, w.page.links)
    ]
    if links:
        conn.execute(_INSERT_LINK, links)
    return [
        t.PageRead.model_validate({**f, "id": page_id, "site_id": site_id})
        for f, page_id in zip(fields, ids, strict=True)
    ]


def _page_fields(
    write: PageWrite, raw: bytes, inline_max: int | None, write_body: Callable[[str, bytes], str]
) -> dict[str, Any]:
    """The page row's own columns (the defaults filled in; checked as it is read back)."""
    page = write.page
    digest = hashlib.sha256(raw).hexdigest()
    inline = inline_max is None or len(raw) <= inline_max
    return t.PageBase.model_construct(
        url=write.url or page.url,
        final_url=page.final_url,
        status=page.status,
        content_type=page.content_type,
        sha256=digest,
        size=len(raw),
        body_path=None if inline else write_body(digest, raw),
        via=page.via,
        fetched_at=page.fetched_at,
        elapsed_s=page.elapsed_s,
        kind=write.kind,
        prototype_id=write.prototype_id,
        label=write.label,
        canonical_url=write.canonical_url,
        fingerprint=write.fingerprint,
    ).model_dump()


def save_failure(
    s: Session,
    site_id: int,
    url: str,
    error: str,
    *,
    status: int,
    kind: str | None,
    error_class: str | None,
    attempts: int,
) -> t.PageRead:
    """Record that ``url`` could not be fetched, and why (a page row without a body)."""
    row = t.Page(
        site_id=site_id,
        url=url,
        status=status,
        error=error,
        kind=kind,
        error_class=error_class,
        attempts=attempts,
    )
    s.add(row)
    s.commit()
    return t.PageRead.model_validate(row)


def page(s: Session, site_id: int, url: str) -> t.PageRead | None:
    """The stored page for ``url`` (the dedup key), or None."""
    row = s.execute(_PAGE_BY_URL, {"site_id": site_id, "url": url}).first()
    return None if row is None else t.PageRead.model_validate(row._mapping)


def failures(s: Session, site_id: int) -> list[t.PageRead]:
    """The site's URLs that failed for good, oldest first."""
    rows = s.exec(
        select(t.Page)
        .where(t.Page.site_id == site_id, col(t.Page.error).is_not(None))
        .order_by(col(t.Page.id))
    )
    return [t.PageRead.model_validate(r) for r in rows.all()]


def batch(s: Session, site_id: int, kind: str | None, *, after: int) -> Sequence[t.Page]:
    """The next batch (``_BATCH``) of the site's page rows (of one kind, if given) in fetch order:
    those whose id is above ``after``. Rows rather than models, so that their bodies can be read."""
    stmt = select(t.Page).where(t.Page.site_id == site_id, col(t.Page.id) > after)
    if kind is not None:
        stmt = stmt.where(t.Page.kind == kind)
    return s.exec(stmt.order_by(col(t.Page.id)).limit(_BATCH)).all()


def body(s: Session, page_id: int) -> bytes | None:
    """The stored body of a page, inline or from its file; None for a failed fetch.

    Raises:
        StorageError: there is no page ``page_id``.
    """
    row = s.execute(_BODY, {"id": page_id}).first()
    if row is None:
        raise StorageError(f"no page with id {page_id}")
    return body_of(row)


def exchange(s: Session, page_id: int, *, with_body: bool) -> Exchange | None:
    """The request and response behind a page; None for a page stored without them.

    Args:
        with_body: read the payload too (without: ``body`` is empty).
    """
    found = s.execute(_EXCHANGE_BY_PAGE, {"id": page_id}).first()
    if found is None:
        return None
    row = t.PageExchange.model_construct(**found._mapping)  # as stored: nothing to validate
    payload: bytes | None = b""
    if with_body and row.body_is_page:
        stored = s.execute(_BODY, {"id": page_id}).first()
        payload = body_of(stored) if stored is not None else None
    elif with_body:
        payload = payload_of(row)
    return exchange_of(row, payload or b"")
