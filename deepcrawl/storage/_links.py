"""Links as the repository stores them: those found on fetched pages, those the result pages of
queries showed, and what these say of how a URL was found.

Functions over a session the repository opens inside its storage guard (one transaction a
method, see :mod:`deepcrawl.storage.repository`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlmodel import col, select

from deepcrawl.storage import tables as t

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from sqlmodel import Session

    from deepcrawl.page.fetched import Link as FoundLink

__all__ = [
    "first_query_showing",
    "found_by",
    "link_urls",
    "link_values",
    "links",
    "links_by_page",
    "query_links",
]

_FRONTIER: sa.Table = t.FrontierEntry.__table__  # type: ignore[attr-defined]
#: Read for every page delivered: built once (building it cost more than running it).
_SOURCE = sa.select(_FRONTIER.c.source).where(
    _FRONTIER.c.site_id == sa.bindparam("site_id"), _FRONTIER.c.url == sa.bindparam("url")
)


def link_values(page_id: int, found: Iterable[FoundLink]) -> list[dict[str, Any]]:
    """The column values of the links ``found`` on the page ``page_id``, in document order
    (for one Core ``executemany``)."""
    return [
        {
            "source_page_id": page_id,
            "target_url": link.url,
            "text": link.text,
            "dom_path": link.dom_path,
            "origin": link.origin,
        }
        for link in found
    ]


def links(s: Session, page_id: int) -> list[t.LinkBase]:
    """The links found on a page, in document order."""
    rows = s.exec(select(t.Link).where(t.Link.source_page_id == page_id).order_by(col(t.Link.id)))
    return [t.LinkBase.model_validate(r) for r in rows.all()]


def links_by_page(s: Session, page_ids: Sequence[int | None]) -> dict[int, list[t.LinkBase]]:
    """The links found on each of these pages, in document order, in one read (a page without
    links maps to an empty list)."""
    found: dict[int, list[t.LinkBase]] = {i: [] for i in page_ids if i is not None}
    rows = s.exec(
        select(t.Link).where(col(t.Link.source_page_id).in_(page_ids)).order_by(col(t.Link.id))
    )
    for link in rows.all():
        found[link.source_page_id].append(t.LinkBase.model_validate(link))
    return found


def link_urls(s: Session, site_id: int) -> list[str]:
    """Distinct target URLs of the links found on the site's pages."""
    rows = s.exec(
        select(t.Link.target_url)
        .join(t.Page, col(t.Link.source_page_id) == col(t.Page.id))
        .where(t.Page.site_id == site_id)
        .distinct()
    )
    return list(rows.all())


def query_links(s: Session, site_id: int) -> list[tuple[int, str, str, str]]:
    """Every link the site's result pages showed: ``(query_id, url, text, role)``."""
    rows = s.exec(
        select(t.QueryLink)
        .join(t.Query, col(t.QueryLink.query_id) == col(t.Query.id))
        .where(t.Query.site_id == site_id)
        .order_by(col(t.QueryLink.id))
    )
    return [(r.query_id, r.url, r.text, r.role) for r in rows.all()]


def found_by(conn: sa.Connection, site_id: int, url: str) -> str | None:
    """The ``source`` of the frontier entry of ``url``; None when it never was in the frontier."""
    found = conn.execute(_SOURCE, {"site_id": site_id, "url": url}).scalar()
    return None if found is None else str(found)


def first_query_showing(s: Session, site_id: int, urls: Iterable[str]) -> str | None:
    """The keyword of the site's first query whose result pages showed one of ``urls``."""
    return s.exec(
        select(t.Query.keyword)
        .join(t.QueryLink, col(t.QueryLink.query_id) == col(t.Query.id))
        .where(t.Query.site_id == site_id, col(t.QueryLink.url).in_(list(urls)))
        .order_by(col(t.Query.id))
        .limit(1)
    ).first()
