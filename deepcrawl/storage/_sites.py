"""Sites, their search forms and the queries submitted to them, as the repository stores them.

Functions over a session the repository opens inside its storage guard (one transaction a
method, see :mod:`deepcrawl.storage.repository`); one that writes commits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import ValidationError
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, func, select

from deepcrawl.storage import tables as t

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sqlmodel import Session

    from deepcrawl.page.form import Form as FormModel

__all__ = [
    "add_query",
    "forms",
    "queries",
    "readable_sites",
    "save_form",
    "site",
    "site_counts",
    "site_rows",
    "summaries",
]


def site(s: Session, start_url: str) -> t.SiteRead:
    """The site crawled from ``start_url``, created on first use (here or by another worker)."""
    row = s.exec(select(t.Site).where(t.Site.start_url == start_url)).first()
    if row is None:
        row = t.Site(start_url=start_url, host=urlsplit(start_url).hostname or "")
        s.add(row)
        try:
            s.commit()
        except IntegrityError:  # created meanwhile by another worker
            s.rollback()
            row = s.exec(select(t.Site).where(t.Site.start_url == start_url)).one()
    return t.SiteRead.model_validate(row)


def site_rows(s: Session) -> Sequence[t.Site]:
    """Every site row, oldest first, not yet checked against the schema."""
    return s.exec(select(t.Site).order_by(col(t.Site.id))).all()


def readable_sites(rows: Sequence[t.Site]) -> tuple[list[t.SiteRead], list[tuple[int, str]]]:
    """The rows that pass the schema, and ``(id, problem)`` of each that does not.

    A row breaks the schema when an older deepcrawl wrote what it no longer accepts (a start URL
    longer than the column allows); it is set aside so that one bad row does not hide the others.
    """
    good: list[t.SiteRead] = []
    bad: list[tuple[int, str]] = []
    for row in rows:
        try:
            good.append(t.SiteRead.model_validate(row))
        except ValidationError as exc:
            problem = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
            bad.append((row.id or 0, problem))
    return good, bad


def site_counts(s: Session) -> dict[str, dict[int, int]]:
    """For each :class:`~deepcrawl.storage.tables.SiteSummary` count, its value by site id
    (one query per table; a site with none is missing)."""
    counts: dict[str, dict[int, int]] = {}
    for name, model, extra in (
        ("forms", t.Form, None),
        ("queries", t.Query, None),
        ("pages", t.Page, None),
        ("failed", t.Page, col(t.Page.error).is_not(None)),
        ("prototypes", t.Prototype, None),
    ):
        site_col = col(model.site_id)
        stmt = select(site_col, func.count()).group_by(site_col)
        if extra is not None:
            stmt = stmt.where(extra)
        counts[name] = dict(s.exec(stmt).all())
    return counts


def summaries(
    sites: Sequence[t.SiteRead], counts: dict[str, dict[int, int]]
) -> list[t.SiteSummary]:
    """Each site with its counts of what is stored for it (0 where :func:`site_counts` has none)."""
    return [
        t.SiteSummary.model_validate(
            {**site.model_dump(), **{name: c.get(site.id, 0) for name, c in counts.items()}}
        )
        for site in sites
    ]


def save_form(s: Session, site_id: int, form: FormModel, verdict: dict[str, Any]) -> t.FormRead:
    """Store a discovered form with the critic's ``verdict``, replacing an earlier record of the
    same form (same page, same locator)."""
    values = {
        "page_url": form.page_url,
        "action": form.action,
        "method": form.method,
        "locator": form.locator,
        "model": form.model_dump(mode="json"),
        **verdict,
    }
    row = s.exec(
        select(t.Form).where(
            t.Form.site_id == site_id,
            t.Form.page_url == form.page_url,
            t.Form.locator == form.locator,
        )
    ).first()
    if row is None:
        row = t.Form(site_id=site_id, **values)
    else:
        row.sqlmodel_update(values)
    s.add(row)
    s.commit()
    return t.FormRead.model_validate(row)


def forms(s: Session, site_id: int) -> list[t.FormRead]:
    """The site's forms in discovery order."""
    rows = s.exec(select(t.Form).where(t.Form.site_id == site_id).order_by(col(t.Form.id)))
    return [t.FormRead.model_validate(r) for r in rows.all()]


def add_query(s: Session, site_id: int, query: t.QueryBase, form_id: int | None) -> t.QueryRead:
    """Record one submitted query and what it returned."""
    row = t.Query.model_validate(query, update={"site_id": site_id, "form_id": form_id})
    s.add(row)
    s.commit()
    return t.QueryRead.model_validate(row)


def queries(s: Session, site_id: int) -> list[t.QueryRead]:
    """The site's queries in submission order."""
    rows = s.exec(select(t.Query).where(t.Query.site_id == site_id).order_by(col(t.Query.id)))
    return [t.QueryRead.model_validate(r) for r in rows.all()]
