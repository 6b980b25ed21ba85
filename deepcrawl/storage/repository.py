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

:class:`Repository` is the one door; the statements live behind it in private modules by role,
functions that take an open session: ``_sites`` (sites, forms, queries), ``_pages`` (pages, their
bodies and exchanges), ``_links`` (links and the links of result pages), ``_prototypes``
(prototypes and labels) and ``_files`` (body files and thumbnails). The repository opens each
session inside the storage guard, so that every method stays one transaction and every database
error leaves as :class:`~deepcrawl.errors.StorageError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from sqlmodel import Session

from deepcrawl.errors import ConfigError
from deepcrawl.settings import StorageSettings
from deepcrawl.storage import _files, _links, _pages, _prototypes, _sites
from deepcrawl.storage import tables as t
from deepcrawl.storage._pages import PageWrite
from deepcrawl.storage.content import StoredContent, body_of
from deepcrawl.storage.engine import open_engine, safe_url
from deepcrawl.storage.guard import StorageGuard

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from types import TracebackType

    from sqlalchemy.engine import Engine

    from deepcrawl.page.fetched import Exchange, FetchedPage
    from deepcrawl.page.form import Form as FormModel

__all__ = ["PageWrite", "Repository", "StoredContent"]


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
        # a prototype's key is a digest of its regex: once read, the pair holds for good
        self._regexes: dict[tuple[int, str], str] = {}
        #: Told of every page this repository stores (its site and its row), once committed:
        #: how :meth:`CrawlState.own_pages <deepcrawl.storage.state.CrawlState.own_pages>`
        #: keeps its index of the stored pages whole.
        self.page_listeners: list[Callable[[int, Sequence[t.PageRead]], None]] = []

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

    def _guard(self, operation: str) -> StorageGuard:
        return StorageGuard.of(self.engine, operation)

    # --- sites ---------------------------------------------------------------------------------

    def site(self, start_url: str) -> t.SiteRead:
        """The site crawled from ``start_url``, created on first use."""
        with self._guard("read or create site"), self._session() as s:
            return _sites.site(s, start_url)

    def sites(self) -> list[t.SiteRead]:
        """Every readable site in the database, oldest first.

        A row that breaks the schema (a start URL longer than the column allows, written by an
        older deepcrawl that did not check it) is left out and listed by :meth:`bad_sites`, so
        that one bad row does not hide the others.
        """
        with self._guard("list sites"), self._session() as s:
            rows = _sites.site_rows(s)
        good, self._bad_sites = _sites.readable_sites(rows)
        return good

    def bad_sites(self) -> list[tuple[int, str]]:
        """``(id, problem)`` of each site row :meth:`sites` left out last time."""
        return list(self._bad_sites)

    def site_summaries(self) -> list[t.SiteSummary]:
        """Every site with counts of what is stored for it (one query per table)."""
        with self._guard("summarise sites"), self._session() as s:
            counts = _sites.site_counts(s)
        return _sites.summaries(self.sites(), counts)

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

    # --- forms and queries ---------------------------------------------------------------------

    def save_form(self, site_id: int, form: FormModel, **verdict: Any) -> t.FormRead:
        """Store a discovered form (replacing an earlier record of the same form on the page).

        ``verdict`` may set the critic's fields: ``form_type``, ``searchable``, ``score``,
        ``query_field``.
        """
        with self._guard("save form"), self._session() as s:
            return _sites.save_form(s, site_id, form, verdict)

    def forms(self, site_id: int) -> list[t.FormRead]:
        """The site's forms in discovery order."""
        with self._guard("list forms"), self._session() as s:
            return _sites.forms(s, site_id)

    def add_query(
        self, site_id: int, query: t.QueryBase, *, form_id: int | None = None
    ) -> t.QueryRead:
        """Record one submitted query and what it returned."""
        with self._guard("record query"), self._session() as s:
            return _sites.add_query(s, site_id, query, form_id)

    def queries(self, site_id: int) -> list[t.QueryRead]:
        """The site's queries in submission order."""
        with self._guard("list queries"), self._session() as s:
            return _sites.queries(s, site_id)

    # --- pages ---------------------------------------------------------------------------------

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
        write = _pages.PageWrite(
            page,
            url=url,
            kind=kind,
            prototype_id=prototype_id,
            label=label,
            with_links=with_links,
            canonical_url=canonical_url,
            fingerprint=fingerprint,
        )
        return self.save_pages(site_id, [write])[0]

    def save_pages(self, site_id: int, writes: Sequence[PageWrite]) -> list[t.PageRead]:
        """Store fetched pages (their bodies, and their links where asked) in one transaction:
        all of them or none; the rows in the order given.

        A crawl stores the pages its workers fetched a batch at a time: a transaction and a
        statement per page cost more than the inserts (issue 27).

        Raises:
            StorageError: a page is already stored under its URL (none of the batch is stored),
                or the write failed.
        """
        first = writes[0].url or writes[0].page.url if writes else ""
        what = f"save page {first}" if len(writes) == 1 else f"save {len(writes)} pages"
        # a connection, not a session: pages are stored by Core inserts alone, and a session's
        # execution and commit cost more than the inserts
        with self._guard(what), self.engine.begin() as conn:
            rows = _pages.save_pages(
                conn,
                site_id,
                writes,
                inline_max=None if self._inline_all else self.settings.bodies_inline_max,
                write_body=self._write_body,
            )
        self._saved(site_id, rows)
        return rows

    def _saved(self, site_id: int, rows: Sequence[t.PageRead]) -> None:
        for listener in self.page_listeners:
            listener(site_id, rows)

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
        with self._guard(f"record failure of {url}"), self._session() as s:
            row = _pages.save_failure(
                s,
                site_id,
                url,
                error,
                status=status,
                kind=kind,
                error_class=error_class,
                attempts=attempts,
            )
        self._saved(site_id, [row])
        return row

    def page(self, site_id: int, url: str) -> t.PageRead | None:
        """The stored page for ``url`` (the dedup key), or None."""
        with self._guard("read page"), self._session() as s:
            return _pages.page(s, site_id, url)

    def failures(self, site_id: int) -> list[t.PageRead]:
        """The site's URLs that failed for good, each with its reason, oldest first."""
        with self._guard("list failures"), self._session() as s:
            return _pages.failures(s, site_id)

    def pages(self, site_id: int, *, kind: str | None = None) -> Iterator[t.PageRead]:
        """The site's pages in fetch order, optionally of one kind (streamed in batches)."""
        for rows in self._page_batches(site_id, kind):
            yield from (t.PageRead.model_validate(r) for r in rows)

    def contents(
        self, site_id: int, *, kind: str | None = None, after: int = 0
    ) -> Iterator[StoredContent]:
        """The site's pages with their bodies and links, in fetch order (those with an id above
        ``after`` only).

        Two reads per batch of pages, whatever their number: a resumed crawl learns every
        stored record again, and a body and a link read per page would cost it a round trip
        each per page.
        """
        for rows in self._page_batches(site_id, kind, after):
            with self._guard("read links"), self._session() as s:
                found = _links.links_by_page(s, [r.id for r in rows])
            for r in rows:
                page = t.PageRead.model_validate(r)
                yield StoredContent(page, body_of(r), found.get(page.id, []))

    def _page_batches(
        self, site_id: int, kind: str | None, after: int = 0
    ) -> Iterator[Sequence[t.Page]]:
        last = after
        while True:
            with self._guard("list pages"), self._session() as s:
                rows = _pages.batch(s, site_id, kind, after=last)
            if not rows:
                return
            yield rows
            last = rows[-1].id or last

    def body(self, page_id: int) -> bytes | None:
        """The stored body of a page, wherever it is kept; None for a failed fetch."""
        with self._guard("read body"), self._session() as s:
            return _pages.body(s, page_id)

    def exchange(self, page_id: int, *, with_body: bool = True) -> Exchange | None:
        """The request and response behind a page, as they went over the wire; None for a page
        stored without them (a failed fetch, a page stored by an older deepcrawl).

        Args:
            with_body: read the payload too (without: ``body`` is empty).
        """
        with self._guard("read exchange"), self._session() as s:
            return _pages.exchange(s, page_id, with_body=with_body)

    def _write_body(self, digest: str, raw: bytes) -> str:
        return _files.write_body(self.settings.bodies_dir, digest, raw)

    # --- links and where a URL was found -------------------------------------------------------

    def found_by(self, site_id: int, url: str) -> str | None:
        """Why ``url`` (a frontier key) was first queued: its frontier entry's ``source``
        (``results of 'river'``, ``link on …``); None when it never was in the frontier."""
        with self._guard("read frontier source"), self.engine.connect() as conn:
            return _links.found_by(conn, site_id, url)  # once a page delivered: no session

    def first_query_showing(self, site_id: int, urls: Iterable[str]) -> str | None:
        """The keyword of the site's first query whose result pages showed one of ``urls``.

        A scan of the result links (they have no index by URL): for the few pages whose frontier
        entry does not name the query (those the setup phase fetched).
        """
        with self._guard("find query of URL"), self._session() as s:
            return _links.first_query_showing(s, site_id, urls)

    def links(self, page_id: int) -> list[t.LinkBase]:
        """The links found on a page, in document order."""
        with self._guard("read links"), self._session() as s:
            return _links.links(s, page_id)

    def link_urls(self, site_id: int) -> list[str]:
        """Distinct target URLs of the links found on the site's pages (the prototyper's input)."""
        with self._guard("list link URLs"), self._session() as s:
            return _links.link_urls(s, site_id)

    def query_links(self, site_id: int) -> list[tuple[int, str, str, str]]:
        """Every link the site's result pages showed: ``(query_id, url, text, role)``.

        What labelling shows next to a prototype: the link texts of its URLs, from how many
        queries they came, and whether they were result, pager or chrome links.
        """
        with self._guard("list query links"), self._session() as s:
            return _links.query_links(s, site_id)

    # --- thumbnails ----------------------------------------------------------------------------

    def thumbnail(self, site_id: int, url: str) -> bytes | None:
        """The cached screenshot of a page (PNG), or None when none was taken yet."""
        return _files.read_thumbnail(self.settings.bodies_dir, site_id, url)

    def save_thumbnail(self, site_id: int, url: str, png: bytes) -> None:
        """Cache a screenshot of a page (``deepcrawl label --web`` shows it on the kind's card).

        Kept as a file beside the large bodies: a picture for a person, never crawl state.
        """
        _files.write_thumbnail(self.settings.bodies_dir, site_id, url, png)

    # --- prototypes and labels -----------------------------------------------------------------

    def save_prototypes(
        self, site_id: int, prototypes: Iterable[t.PrototypeBase]
    ) -> list[t.PrototypeRead]:
        """Replace the site's prototypes with ``prototypes`` (labels are kept by key)."""
        with self._guard("save prototypes"), self._session() as s:
            return _prototypes.save_prototypes(s, site_id, prototypes)

    def prototypes(self, site_id: int) -> list[t.PrototypeRead]:
        """The site's prototypes, most URLs first."""
        with self._guard("list prototypes"), self._session() as s:
            return _prototypes.prototypes(s, site_id)

    def prototype_regex(self, site_id: int, key: str) -> str | None:
        """The regular expression of the site's prototype ``key``; None when there is none
        (every delivered page names its prototype's: read once a prototype)."""
        if (known := self._regexes.get((site_id, key))) is not None:
            return known
        with self._guard("read prototype"), self._session() as s:
            found = _prototypes.prototype_regex(s, site_id, key)
        if found is not None:
            self._regexes[site_id, key] = found
        return found

    def set_label(
        self, site_id: int, prototype_key: str, *, name: str, relevant: bool
    ) -> t.LabelRead:
        """Label a prototype (replacing an earlier label of it)."""
        with self._guard("save label"), self._session() as s:
            return _prototypes.set_label(s, site_id, prototype_key, name=name, relevant=relevant)

    def delete_labels(self, site_id: int, prototype_keys: Iterable[str]) -> int:
        """Delete the labels of these prototypes (merged or split away); returns how many."""
        with self._guard("delete labels"), self._session() as s:
            return _prototypes.delete_labels(s, site_id, prototype_keys)

    def labels(self, site_id: int) -> list[t.LabelRead]:
        """The site's labels, in the order they were given."""
        with self._guard("list labels"), self._session() as s:
            return _prototypes.labels(s, site_id)
