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
from typing import TYPE_CHECKING

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

__all__ = ["batch", "body", "exchange", "failures", "page", "save_failure", "save_page"]

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
_INSERT_PAGE = sa.insert(_PAGE).returning(_PAGE.c.id)
_INSERT_EXCHANGE = sa.insert(_EXCHANGE)
_INSERT_LINK = sa.insert(t.Link.__table__)  # type: ignore[attr-defined]


def save_page(
    conn: sa.Connection,
    site_id: int,
    page: FetchedPage,
    *,
    url: str,
    kind: str | None,
    prototype_id: str | None,
    label: str | None,
    with_links: bool,
    canonical_url: str | None,
    fingerprint: str | None,
    inline_max: int | None,
    write_body: Callable[[str, bytes], str],
) -> t.PageRead:
    """Store a fetched page under ``url``, its body, its exchange if it has one and (if
    ``with_links``) its links, in the transaction of ``conn`` (the caller commits).

    Core inserts of plain values (the links in one ``executemany``): ORM objects, their
    flush and their unit of work cost several times the inserts for a page a crawl stores
    once and never updates.

    Args:
        inline_max: the largest body kept in the row; None: every body.
        write_body: stores a larger body as a file (by its SHA-256) and returns the path.
    """
    raw = page.stored_body()
    digest = hashlib.sha256(raw).hexdigest()
    inline = inline_max is None or len(raw) <= inline_max
    fields = t.PageBase.model_construct(  # the defaults filled in; checked as it is read back
        url=url,
        final_url=page.final_url,
        status=page.status,
        content_type=page.content_type,
        sha256=digest,
        size=len(raw),
        body_path=None if inline else write_body(digest, raw),
        via=page.via,
        fetched_at=page.fetched_at,
        elapsed_s=page.elapsed_s,
        kind=kind,
        prototype_id=prototype_id,
        label=label,
        canonical_url=canonical_url,
        fingerprint=fingerprint,
    ).model_dump()
    values = {**fields, "site_id": site_id, "body": raw if inline else None}
    page_id = conn.execute(_INSERT_PAGE, values).scalar_one()
    if page.exchange is not None:
        conn.execute(
            _INSERT_EXCHANGE,
            exchange_values(
                page_id,
                page.exchange,
                page_body=raw,
                inline_max=inline_max,
                write_body=write_body,
            ),
        )
    if with_links and page.links:
        conn.execute(_INSERT_LINK, link_values(page_id, page.links))
    return t.PageRead.model_validate({**fields, "id": page_id, "site_id": site_id})


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
