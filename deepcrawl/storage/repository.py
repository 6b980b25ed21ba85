"""The repository: every read and write of a crawl's state goes through here.

Callers hand in and get back plain models (``deepcrawl.page.form.Form``,
``deepcrawl.page.fetched.FetchedPage``, the ``*Read`` models of :mod:`deepcrawl.storage.tables`),
never sessions or rows, so the storage backend can change without touching the crawl. Each method
is one short transaction; a crash loses at most the write in flight.

Bodies up to ``settings.storage.bodies_inline_max`` bytes are kept in the database; larger ones
are written to ``settings.storage.bodies_dir`` under their SHA-256, so that identical bodies are
stored once. On PostgreSQL every body is kept in the database whatever its size: workers on other
machines store pages the ``deepcrawl crawl`` process delivers, and a file in one machine's folder
could not be read on another (``bytea`` holds up to 1 GB; TOAST compresses large bodies).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit

from pydantic import ValidationError
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from deepcrawl.errors import ConfigError, StorageError
from deepcrawl.settings import StorageSettings
from deepcrawl.storage import tables as t
from deepcrawl.storage.content import StoredContent, body_of
from deepcrawl.storage.engine import open_engine, safe_url
from deepcrawl.storage.exchanges import exchange_of, exchange_row, payload_of
from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from pathlib import Path
    from types import TracebackType

    from sqlalchemy.engine import Engine

    from deepcrawl.page.fetched import Exchange, FetchedPage
    from deepcrawl.page.form import Form as FormModel

__all__ = ["Repository", "StoredContent"]

#: Pages read per batch when a site's pages are listed.
_BATCH = 500


class Repository:
    """Typed access to one database.

    Use it as a context manager so the engine's connections are released::

        with Repository.open("sqlite:///crawl.db") as repo:
            site = repo.site("http://example.org/")

    Raises:
        StorageError: on any database failure (the message says which operation).
    """

    def __init__(self, engine: Engine, settings: StorageSettings | None = None) -> None:
        self.engine = engine
        self.settings = settings or StorageSettings()
        # a server database is shared by machines: no body may live in one machine's folder
        self._inline_all = engine.dialect.name == "postgresql"
        self._bad_sites: list[tuple[int, str]] = []

    @classmethod
    def open(
        cls, url: str | None = None, settings: StorageSettings | None = None, *, create: bool = True
    ) -> Self:
        """Open (creating on first use) the database at ``url`` or ``settings.url``.

        Args:
            create: False for a command that only reads: a missing SQLite file raises
                :class:`~deepcrawl.errors.NoDatabaseError` instead of being created.
        """
        settings = settings or StorageSettings()
        engine = open_engine(
            url or settings.url, durable_commits=settings.durable_commits, create=create
        )
        return cls(engine, settings)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    # --- sites ---------------------------------------------------------------------------------

    def site(self, start_url: str) -> t.SiteRead:
        """The site crawled from ``start_url``, created on first use."""
        with self._guard("read or create site"), self._session() as s:
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

    def sites(self) -> list[t.SiteRead]:
        """Every readable site in the database, oldest first.

        A row that breaks the schema (a start URL longer than the column allows, written by an
        older deepcrawl that did not check it) is left out and listed by :meth:`bad_sites`, so
        that one bad row does not hide the others.
        """
        with self._guard("list sites"), self._session() as s:
            rows = s.exec(select(t.Site).order_by(col(t.Site.id))).all()
        good, self._bad_sites = [], []
        for row in rows:
            try:
                good.append(t.SiteRead.model_validate(row))
            except ValidationError as exc:
                problem = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
                self._bad_sites.append((row.id or 0, problem))
        return good

    def bad_sites(self) -> list[tuple[int, str]]:
        """``(id, problem)`` of each site row :meth:`sites` left out last time."""
        return list(self._bad_sites)

    def site_summaries(self) -> list[t.SiteSummary]:
        """Every site with counts of what is stored for it (one query per table)."""
        counts: dict[str, dict[int, int]] = {}
        with self._guard("summarise sites"), self._session() as s:
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
        return [
            t.SiteSummary.model_validate(
                {**site.model_dump(), **{name: c.get(site.id, 0) for name, c in counts.items()}}
            )
            for site in self.sites()
        ]

    def find_site(self, ref: str) -> t.SiteRead:
        """The site named by ``ref``: its id, start URL, or host.

        Raises:
            ConfigError: no site matches; the message lists the known ones.
        """
        known = self.sites()
        for site in known:
            if ref in (str(site.id), site.start_url, site.host):
                return site
        names = ", ".join(f"{s.id} ({s.start_url})" for s in known) or "none yet"
        raise ConfigError(f"no site {ref!r} in {safe_url(str(self.engine.url))}; known: {names}")

    # --- forms ---------------------------------------------------------------------------------

    def save_form(self, site_id: int, form: FormModel, **verdict: Any) -> t.FormRead:
        """Store a discovered form (replacing an earlier record of the same form on the page).

        ``verdict`` may set the critic's fields: ``form_type``, ``searchable``, ``score``,
        ``query_field``.
        """
        values = {
            "page_url": form.page_url,
            "action": form.action,
            "method": form.method,
            "locator": form.locator,
            "model": form.model_dump(mode="json"),
            **verdict,
        }
        with self._guard("save form"), self._session() as s:
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

    def forms(self, site_id: int) -> list[t.FormRead]:
        """The site's forms in discovery order."""
        with self._guard("list forms"), self._session() as s:
            rows = s.exec(select(t.Form).where(t.Form.site_id == site_id).order_by(col(t.Form.id)))
            return [t.FormRead.model_validate(r) for r in rows.all()]

    # --- queries -------------------------------------------------------------------------------

    def add_query(
        self, site_id: int, query: t.QueryBase, *, form_id: int | None = None
    ) -> t.QueryRead:
        """Record one submitted query and what it returned."""
        with self._guard("record query"), self._session() as s:
            row = t.Query.model_validate(query, update={"site_id": site_id, "form_id": form_id})
            s.add(row)
            s.commit()
            return t.QueryRead.model_validate(row)

    def queries(self, site_id: int) -> list[t.QueryRead]:
        """The site's queries in submission order."""
        with self._guard("list queries"), self._session() as s:
            rows = s.exec(
                select(t.Query).where(t.Query.site_id == site_id).order_by(col(t.Query.id))
            )
            return [t.QueryRead.model_validate(r) for r in rows.all()]

    # --- pages and links -----------------------------------------------------------------------

    def save_page(
        self,
        site_id: int,
        page: FetchedPage,
        *,
        url: str | None = None,
        kind: str | None = None,
        prototype_id: str | None = None,
        label: str | None = None,
        with_links: bool = True,
        canonical_url: str | None = None,
        fingerprint: str | None = None,
    ) -> t.PageRead:
        """Store a fetched page, its body and (by default) its links.

        Args:
            url: the dedup key (the normalised URL); ``page.url`` when not given.
            canonical_url, fingerprint: the record's identity (:class:`~deepcrawl.storage
                .tables.PageBase`).
        Raises:
            StorageError: the page is already stored under that URL, or the write failed.
        """
        raw = page.body.encode("utf-8", errors="surrogateescape")
        digest = hashlib.sha256(raw).hexdigest()
        inline = self._inline_all or len(raw) <= self.settings.bodies_inline_max
        body_path = None if inline else self._write_body(digest, raw)
        row = t.Page(
            site_id=site_id,
            url=url or page.url,
            final_url=page.final_url,
            status=page.status,
            content_type=page.content_type,
            sha256=digest,
            size=len(raw),
            body=raw if inline else None,
            body_path=body_path,
            via=page.via,
            fetched_at=page.fetched_at,
            elapsed_s=page.elapsed_s,
            kind=kind,
            prototype_id=prototype_id,
            label=label,
            canonical_url=canonical_url,
            fingerprint=fingerprint,
        )
        with self._guard(f"save page {row.url}"), self._session() as s:
            s.add(row)
            s.flush()
            assert row.id is not None
            if page.exchange is not None:
                s.add(
                    exchange_row(
                        row.id,
                        page.exchange,
                        page_body=raw,
                        inline_max=None if self._inline_all else self.settings.bodies_inline_max,
                        write_body=self._write_body,
                    )
                )
            if with_links:
                s.add_all(
                    t.Link(
                        source_page_id=row.id,
                        target_url=link.url,
                        text=link.text,
                        dom_path=link.dom_path,
                        origin=link.origin,
                    )
                    for link in page.links
                )
            s.commit()
            return t.PageRead.model_validate(row)

    def save_failure(
        self,
        site_id: int,
        url: str,
        error: str,
        *,
        status: int = 0,
        kind: str | None = None,
        error_class: str | None = None,
        attempts: int = 1,
    ) -> t.PageRead:
        """Record that ``url`` could not be fetched, and why.

        Args:
            error: the reason, one line.
            status: the HTTP status of the last answer (0: none).
            error_class: the failure's class in :mod:`deepcrawl.errors` (``NetworkError`` …).
            attempts: fetches tried before giving up.
        """
        row = t.Page(
            site_id=site_id,
            url=url,
            status=status,
            error=error,
            kind=kind,
            error_class=error_class,
            attempts=attempts,
        )
        with self._guard(f"record failure of {url}"), self._session() as s:
            s.add(row)
            s.commit()
            return t.PageRead.model_validate(row)

    def page(self, site_id: int, url: str) -> t.PageRead | None:
        """The stored page for ``url`` (the dedup key), or None."""
        with self._guard("read page"), self._session() as s:
            row = s.exec(select(t.Page).where(t.Page.site_id == site_id, t.Page.url == url)).first()
            return None if row is None else t.PageRead.model_validate(row)

    def failures(self, site_id: int) -> list[t.PageRead]:
        """The site's URLs that failed for good, each with its reason, oldest first."""
        with self._guard("list failures"), self._session() as s:
            rows = s.exec(
                select(t.Page)
                .where(t.Page.site_id == site_id, col(t.Page.error).is_not(None))
                .order_by(col(t.Page.id))
            )
            return [t.PageRead.model_validate(r) for r in rows.all()]

    def pages(self, site_id: int, *, kind: str | None = None) -> Iterator[t.PageRead]:
        """The site's pages in fetch order, optionally of one kind (streamed in batches)."""
        for rows in self._page_batches(site_id, kind):
            yield from (t.PageRead.model_validate(r) for r in rows)

    def contents(self, site_id: int, *, kind: str | None = None) -> Iterator[StoredContent]:
        """The site's pages with their bodies and links, in fetch order.

        Two reads per batch of pages, whatever their number: a resumed crawl learns every
        stored record again, and a body and a link read per page would cost it a round trip
        each per page.
        """
        for rows in self._page_batches(site_id, kind):
            ids = [r.id for r in rows]
            found: dict[int, list[t.LinkBase]] = {i: [] for i in ids if i is not None}
            with self._guard("read links"), self._session() as s:
                links = s.exec(
                    select(t.Link)
                    .where(col(t.Link.source_page_id).in_(ids))
                    .order_by(col(t.Link.id))
                )
                for link in links.all():
                    found[link.source_page_id].append(t.LinkBase.model_validate(link))
            for r in rows:
                page = t.PageRead.model_validate(r)
                yield StoredContent(page, body_of(r), found.get(page.id, []))

    def _page_batches(self, site_id: int, kind: str | None) -> Iterator[Sequence[t.Page]]:
        last = 0
        while True:
            with self._guard("list pages"), self._session() as s:
                stmt = select(t.Page).where(t.Page.site_id == site_id, col(t.Page.id) > last)
                if kind is not None:
                    stmt = stmt.where(t.Page.kind == kind)
                rows = s.exec(stmt.order_by(col(t.Page.id)).limit(_BATCH)).all()
            if not rows:
                return
            yield rows
            last = rows[-1].id or last

    def body(self, page_id: int) -> bytes | None:
        """The stored body of a page, wherever it is kept; None for a failed fetch."""
        with self._guard("read body"), self._session() as s:
            row = s.get(t.Page, page_id)
            if row is None:
                raise StorageError(f"no page with id {page_id}")
            return body_of(row)

    def exchange(self, page_id: int, *, with_body: bool = True) -> Exchange | None:
        """The request and response behind a page, as they went over the wire; None for a page
        stored without them (a failed fetch, a page stored by an older deepcrawl).

        Args:
            with_body: read the payload too (without: ``body`` is empty).
        """
        with self._guard("read exchange"), self._session() as s:
            row = s.get(t.PageExchange, page_id)
            if row is None:
                return None
            body: bytes | None = b""
            if with_body and row.body_is_page:
                page = s.get(t.Page, page_id)
                body = body_of(page) if page is not None else None
            elif with_body:
                body = payload_of(row)
        return exchange_of(row, body or b"")

    def found_by(self, site_id: int, url: str) -> str | None:
        """Why ``url`` (a frontier key) was first queued: its frontier entry's ``source``
        (``results of 'river'``, ``link on …``); None when it never was in the frontier."""
        with self._guard("read frontier source"), self._session() as s:
            return s.exec(
                select(t.FrontierEntry.source).where(
                    t.FrontierEntry.site_id == site_id, t.FrontierEntry.url == url
                )
            ).first()

    def first_query_showing(self, site_id: int, urls: Iterable[str]) -> str | None:
        """The keyword of the site's first query whose result pages showed one of ``urls``.

        A scan of the result links (they have no index by URL): for the few pages whose frontier
        entry does not name the query (those the setup phase fetched).
        """
        with self._guard("find query of URL"), self._session() as s:
            return s.exec(
                select(t.Query.keyword)
                .join(t.QueryLink, col(t.QueryLink.query_id) == col(t.Query.id))
                .where(t.Query.site_id == site_id, col(t.QueryLink.url).in_(list(urls)))
                .order_by(col(t.Query.id))
                .limit(1)
            ).first()

    def links(self, page_id: int) -> list[t.LinkBase]:
        """The links found on a page, in document order."""
        with self._guard("read links"), self._session() as s:
            rows = s.exec(
                select(t.Link).where(t.Link.source_page_id == page_id).order_by(col(t.Link.id))
            )
            return [t.LinkBase.model_validate(r) for r in rows.all()]

    def link_urls(self, site_id: int) -> list[str]:
        """Distinct target URLs of the links found on the site's pages (the prototyper's input)."""
        with self._guard("list link URLs"), self._session() as s:
            rows = s.exec(
                select(t.Link.target_url)
                .join(t.Page, col(t.Link.source_page_id) == col(t.Page.id))
                .where(t.Page.site_id == site_id)
                .distinct()
            )
            return list(rows.all())

    def query_links(self, site_id: int) -> list[tuple[int, str, str, str]]:
        """Every link the site's result pages showed: ``(query_id, url, text, role)``.

        What labelling shows next to a prototype: the link texts of its URLs, from how many
        queries they came, and whether they were result, pager or chrome links.
        """
        with self._guard("list query links"), self._session() as s:
            rows = s.exec(
                select(t.QueryLink)
                .join(t.Query, col(t.QueryLink.query_id) == col(t.Query.id))
                .where(t.Query.site_id == site_id)
                .order_by(col(t.QueryLink.id))
            )
            return [(r.query_id, r.url, r.text, r.role) for r in rows.all()]

    def thumbnail(self, site_id: int, url: str) -> bytes | None:
        """The cached screenshot of a page (PNG), or None when none was taken yet."""
        path = self._thumbnail_path(site_id, url)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read thumbnail {path}: {exc}") from exc

    def save_thumbnail(self, site_id: int, url: str, png: bytes) -> None:
        """Cache a screenshot of a page (``deepcrawl label --web`` shows it on the kind's card).

        Kept as a file beside the large bodies: a picture for a person, never crawl state.
        """
        path = self._thumbnail_path(site_id, url)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(png)
            tmp.replace(path)
        except OSError as exc:
            raise StorageError(f"cannot write thumbnail {path}: {exc}") from exc

    def _thumbnail_path(self, site_id: int, url: str) -> Path:
        digest = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.settings.bodies_dir / "thumbnails" / str(site_id) / f"{digest}.png"

    def _write_body(self, digest: str, raw: bytes) -> str:
        path = self.settings.bodies_dir / digest[:2] / f"{digest}.body"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                tmp = path.with_suffix(".tmp")
                tmp.write_bytes(raw)
                tmp.replace(path)
        except OSError as exc:
            raise StorageError(f"cannot write body file {path}: {exc}") from exc
        return str(path)

    # --- prototypes and labels -----------------------------------------------------------------

    def save_prototypes(
        self, site_id: int, prototypes: Iterable[t.PrototypeBase]
    ) -> list[t.PrototypeRead]:
        """Replace the site's prototypes with ``prototypes`` (labels are kept by key)."""
        with self._guard("save prototypes"), self._session() as s:
            for old in s.exec(select(t.Prototype).where(t.Prototype.site_id == site_id)):
                s.delete(old)
            s.flush()
            rows = [t.Prototype.model_validate(p, update={"site_id": site_id}) for p in prototypes]
            s.add_all(rows)
            s.commit()
            return [t.PrototypeRead.model_validate(r) for r in rows]

    def prototypes(self, site_id: int) -> list[t.PrototypeRead]:
        """The site's prototypes, most URLs first."""
        with self._guard("list prototypes"), self._session() as s:
            rows = s.exec(
                select(t.Prototype)
                .where(t.Prototype.site_id == site_id)
                .order_by(col(t.Prototype.count).desc(), col(t.Prototype.key))
            )
            return [t.PrototypeRead.model_validate(r) for r in rows.all()]

    def prototype_regex(self, site_id: int, key: str) -> str | None:
        """The regular expression of the site's prototype ``key``; None when there is none."""
        with self._guard("read prototype"), self._session() as s:
            return s.exec(
                select(t.Prototype.regex).where(
                    t.Prototype.site_id == site_id, t.Prototype.key == key
                )
            ).first()

    def set_label(
        self, site_id: int, prototype_key: str, *, name: str, relevant: bool
    ) -> t.LabelRead:
        """Label a prototype (replacing an earlier label of it)."""
        with self._guard("save label"), self._session() as s:
            row = s.exec(
                select(t.Label).where(
                    t.Label.site_id == site_id, t.Label.prototype_key == prototype_key
                )
            ).first()
            if row is None:
                row = t.Label(site_id=site_id, prototype_key=prototype_key, name=name,
                              relevant=relevant)  # fmt: skip
            else:
                row.name, row.relevant = name, relevant
            s.add(row)
            s.commit()
            return t.LabelRead.model_validate(row)

    def delete_labels(self, site_id: int, prototype_keys: Iterable[str]) -> int:
        """Delete the labels of these prototypes (merged or split away); returns how many."""
        keys = list(prototype_keys)
        with self._guard("delete labels"), self._session() as s:
            rows = s.exec(
                select(t.Label).where(
                    t.Label.site_id == site_id, col(t.Label.prototype_key).in_(keys)
                )
            ).all()
            for row in rows:
                s.delete(row)
            s.commit()
            return len(rows)

    def labels(self, site_id: int) -> list[t.LabelRead]:
        """The site's labels, in the order they were given."""
        with self._guard("list labels"), self._session() as s:
            rows = s.exec(
                select(t.Label).where(t.Label.site_id == site_id).order_by(col(t.Label.id))
            )
            return [t.LabelRead.model_validate(r) for r in rows.all()]

    # --- errors --------------------------------------------------------------------------------

    def _guard(self, operation: str) -> StorageGuard:
        return StorageGuard.of(self.engine, operation)
