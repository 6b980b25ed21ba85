"""The tables of a crawl, as sqlmodel models layered Base → table → Read.

``XBase`` holds the fields a caller provides, ``X`` (``table=True``) adds keys and bookkeeping,
``XRead`` is what the repository hands back: plain, detached, safe to keep after the session
closes. Large or structured values (a form's model, a prototype's examples) are JSON columns.

This module must not use ``from __future__ import annotations``: sqlmodel reads the hints at run
time.
"""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = [
    "Delivery",
    "Form",
    "FormBase",
    "FormRead",
    "FrontierEntry",
    "HostClock",
    "Label",
    "LabelBase",
    "LabelRead",
    "Link",
    "LinkBase",
    "Meta",
    "Page",
    "PageBase",
    "PageExchange",
    "PageRead",
    "Prototype",
    "PrototypeBase",
    "PrototypeRead",
    "Query",
    "QueryBase",
    "QueryEnd",
    "QueryLink",
    "QueryRead",
    "QueryingEvent",
    "Site",
    "SiteBase",
    "SiteRead",
    "SiteSummary",
    "Worker",
    "WorkerRead",
]


def _now() -> datetime:
    return datetime.now(UTC)


class Meta(SQLModel, table=True):
    """Key/value facts about the database itself (the schema version)."""

    __tablename__ = "deepcrawl_meta"

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(max_length=256)


# --- sites -------------------------------------------------------------------------------------


class SiteBase(SQLModel):
    start_url: str = Field(max_length=2048)
    """The URL the user gave."""
    host: str = Field(max_length=255, index=True)
    """Host of the start URL: the crawl's default scope."""


class Site(SiteBase, table=True):
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=_now)

    __table_args__ = (UniqueConstraint("start_url", name="uq_site_start_url"),)


class SiteRead(SiteBase):
    id: int
    created_at: datetime


class SiteSummary(SiteRead):
    """A site with counts of what the database holds for it."""

    forms: int = 0
    queries: int = 0
    pages: int = 0
    failed: int = 0
    prototypes: int = 0


# --- forms -------------------------------------------------------------------------------------


class FormBase(SQLModel):
    page_url: str = Field(max_length=2048)
    """The page the form was found on."""
    action: str = Field(max_length=2048)
    method: str = Field(max_length=8)
    locator: str = Field(default="", max_length=1024)
    """Stable CSS locator of the form on its page."""
    model: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """The whole form model (``deepcrawl.page.form.Form``) as JSON."""
    form_type: str | None = Field(default=None, max_length=32)
    """Type predicted by the critic (search, login, …), once judged."""
    searchable: bool | None = None
    """Whether the critic accepts the form for filling, once judged."""
    score: float | None = None
    query_field: str | None = Field(default=None, max_length=255)


class Form(FormBase, table=True):
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)
    discovered_at: datetime = Field(default_factory=_now)

    __table_args__ = (
        UniqueConstraint("site_id", "page_url", "locator", name="uq_form_page_locator"),
    )


class FormRead(FormBase):
    id: int
    site_id: int
    discovered_at: datetime


# --- queries -----------------------------------------------------------------------------------


class QueryBase(SQLModel):
    keyword: str = Field(max_length=512)
    submitted_url: str = Field(default="", max_length=4096)
    """URL of the first result page (after submission)."""
    result_count: int = 0
    """Result links the query returned, over all its result pages."""
    results_reported: int | None = None
    """The result count its first result page reported, if it shows one: a resumed crawl
    weighs what the list lacks by it."""
    new_records: int = 0
    """Of those, records no earlier query had returned."""
    result_pages: int = 0
    """Result pages fetched for the query."""
    outcome: str = Field(default="ok", max_length=32)
    """``ok``, ``no_results``, ``error`` or ``rejected``."""
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    field_values: dict[str, str] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False)
    )
    """Values of the form's other fields the query was sent with, by name: the fixed ones
    (``--field``) and any category value; a resumed crawl sends its queries with the same."""


class Query(QueryBase, table=True):
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)
    form_id: int | None = Field(default=None, foreign_key="form.id")
    submitted_at: datetime = Field(default_factory=_now)


class QueryRead(QueryBase):
    id: int
    site_id: int
    form_id: int | None
    submitted_at: datetime


# --- pages -------------------------------------------------------------------------------------


class PageBase(SQLModel):
    url: str = Field(max_length=4096)
    """Normalised URL that was asked for (the dedup key within a site)."""
    final_url: str = Field(default="", max_length=4096)
    status: int = 0
    """HTTP status of the final response; 0 when there was none (see ``error``)."""
    content_type: str = Field(default="", max_length=128)
    sha256: str | None = Field(default=None, max_length=64, index=True)
    """Hash of the body, for dedup of identical content under different URLs."""
    size: int = 0
    """Body size in bytes."""
    body_path: str | None = Field(default=None, max_length=1024)
    """Where the body is stored when it is too large to keep inline."""
    via: str = Field(default="http", max_length=8)
    """``browser`` or ``http``."""
    fetched_at: datetime = Field(default_factory=_now)
    elapsed_s: float = 0.0
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    """Why the fetch failed, when it did."""
    error_class: str | None = Field(default=None, max_length=64)
    """The class of that failure in deepcrawl's error tree (``NetworkError``,
    ``FetchTimeoutError``, ``HTTPStatusError``, ``BlockedError`` …); None for a page fetched."""
    attempts: int = 0
    """Fetches tried before a failure was given up (0: not recorded)."""
    kind: str | None = Field(default=None, max_length=32)
    """What the page is to the crawl: ``results``, ``record``, ``duplicate`` (a record stored
    before under another URL), ``probe`` …"""
    prototype_id: str | None = Field(default=None, max_length=32)
    label: str | None = Field(default=None, max_length=128)
    canonical_url: str | None = Field(default=None, max_length=4096, index=True)
    """The record's one URL, by the evidence of its page (``rel=canonical`` in scope, the
    parameters learnt to be no part of it); None when no better URL than ``url`` is known."""
    fingerprint: str | None = Field(default=None, max_length=32, index=True)
    """A hash of the page's main text (its words, case-folded): one record under two URLs."""


class Page(PageBase, table=True):
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id")
    body: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    """The body, when small enough to keep inline."""

    __table_args__ = (UniqueConstraint("site_id", "url", name="uq_page_site_url"),)


class PageRead(PageBase):
    id: int
    site_id: int


class PageExchange(SQLModel, table=True):
    """The HTTP request and response behind a stored page, as they went over the wire.

    What a WARC's ``request`` and ``response`` records are written from (see
    ``deepcrawl.page.fetched.Exchange``). A table of its own, one row a page, so that databases
    made before it keep working (``create_all`` adds it; their pages simply have no row) and a
    page's row stays small for the crawl's many reads. The payload is stored only when it differs
    from the page's body (a page rendered in the browser, a page not in UTF-8), with the body's
    rule for large payloads (a file under ``storage.bodies_dir`` on SQLite).
    """

    __tablename__ = "page_exchange"

    page_id: int = Field(foreign_key="page.id", primary_key=True)
    method: str = Field(default="GET", max_length=16)
    url: str = Field(max_length=4096)
    """URL of the request that got the response (the last hop of a redirect chain)."""
    request_headers: list[list[str]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    """``[name, value]`` pairs, as sent."""
    protocol: str = Field(default="HTTP/1.1", max_length=16)
    status: int = 0
    reason: str = Field(default="", max_length=256)
    headers: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """``[name, value]`` pairs, as received."""
    body_is_page: bool = True
    """The payload is byte for byte the page's stored body (not stored twice)."""
    body: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    """The payload, when it differs from the page's body and is small enough to keep inline."""
    body_path: str | None = Field(default=None, max_length=1024)
    """Where the payload is stored when it is too large to keep inline."""
    redirects: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    """The redirects that led to the response, first first: each with the fields above (its
    payload in base64 as ``body``)."""


# --- links -------------------------------------------------------------------------------------


class LinkBase(SQLModel):
    target_url: str = Field(max_length=4096)
    text: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    dom_path: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    origin: str = Field(default="html", max_length=8)
    """``html``, ``probe`` or ``iframe``."""


class Link(LinkBase, table=True):
    id: int | None = Field(default=None, primary_key=True)
    source_page_id: int = Field(foreign_key="page.id")

    __table_args__ = (
        Index("ix_link_source", "source_page_id"),
        Index("ix_link_target", "target_url"),
    )


# --- prototypes and labels ---------------------------------------------------------------------


class PrototypeBase(SQLModel):
    key: str = Field(max_length=32)
    """Stable id of the prototype (derived from its regex)."""
    regex: str = Field(sa_column=Column(Text, nullable=False))
    """Python ``re`` pattern that fullmatches the normalised URLs of the prototype."""
    count: int = 0
    coverage: float = 0.0
    examples: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    found_by: str = Field(default="", max_length=256)


class Prototype(PrototypeBase, table=True):
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)
    created_at: datetime = Field(default_factory=_now)

    __table_args__ = (UniqueConstraint("site_id", "key", name="uq_prototype_site_key"),)


class PrototypeRead(PrototypeBase):
    id: int
    site_id: int
    created_at: datetime


class LabelBase(SQLModel):
    prototype_key: str = Field(max_length=32)
    name: str = Field(max_length=128)
    """The user's name for the page kind (``record``, ``author`` …)."""
    relevant: bool
    """Whether pages of this prototype are to be downloaded and delivered."""


class Label(LabelBase, table=True):
    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)
    created_at: datetime = Field(default_factory=_now)

    __table_args__ = (UniqueConstraint("site_id", "prototype_key", name="uq_label_prototype"),)


class LabelRead(LabelBase):
    id: int
    site_id: int
    created_at: datetime


# --- frontier ----------------------------------------------------------------------------------


class FrontierEntry(SQLModel, table=True):
    """One URL of a site's frontier (see :mod:`deepcrawl.storage.frontier`)."""

    __tablename__ = "frontier"

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id")
    url: str = Field(max_length=4096)
    """Normalised URL: the dedup key."""
    host: str = Field(max_length=255)
    priority: float = 0.0
    depth: int = 0
    source: str = Field(default="", max_length=512)
    state: str = Field(default="queued", max_length=8)
    """``queued``, ``leased``, ``done`` or ``failed``."""
    ready_at: datetime = Field(default_factory=_now)
    """Queued: when it may be leased (back-off). Leased: when the lease expires."""
    attempts: int = 0
    error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    added_at: datetime = Field(default_factory=_now)
    holder: int | None = None
    """Leased to a fetch job: the job queue's id of that job (None: leased by a process
    fetching alone). A pending URL whose job is no longer live is dispatched again."""

    __table_args__ = (UniqueConstraint("site_id", "url", name="uq_frontier_site_url"),)


_frontier = FrontierEntry.__table__  # type: ignore[attr-defined]
#: The lease order (priority descending, then first added) as an index: a lease reads the first
#: ready rows of one site and state, whatever the frontier's size (ascending ``priority`` would
#: make the database sort every queued row of equal priority).
LEASE_INDEX = Index(
    "ix_frontier_lease",
    _frontier.c.site_id,
    _frontier.c.state,
    _frontier.c.priority.desc(),
    _frontier.c.id,
)


class HostClock(SQLModel, table=True):
    """When a host of a site may get its next request: the politeness clock every worker shares.

    ``next_at`` is in seconds since the epoch *of the database's clock*, so workers on machines
    with skewed clocks still space their requests correctly (see
    :class:`deepcrawl.storage.hosts.SqlHostSchedule`).
    """

    __tablename__ = "frontier_host"

    site_id: int = Field(foreign_key="site.id", primary_key=True)
    host: str = Field(max_length=255, primary_key=True)
    next_at: float = 0.0


class SharedHostClock(SQLModel, table=True):
    """When a host may get its next request, whatever the site: the clock every site and
    process of a harvest shares (two sites may share a host). ``next_at`` as in
    :class:`HostClock`."""

    __tablename__ = "host_clock"

    host: str = Field(max_length=255, primary_key=True)
    next_at: float = 0.0


# --- harvests ----------------------------------------------------------------------------------


class HarvestSiteBase(SQLModel):
    harvest: str = Field(max_length=1024)
    """The harvest's name: its output folder, resolved."""
    name: str = Field(max_length=255)
    """The site's folder in the output (``OUT/<name>/``)."""
    start_url: str = Field(max_length=4096)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """What the sites file gives beside the start URL: ``like``, ``form``, ``fields``."""
    state: str = Field(default="queued", max_length=16)
    """``queued``, ``running`` (its query loop), ``done``, ``needs_labels``, ``max_pages``
    or ``failed``."""
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    """Why it failed, or how its querying ended."""
    requests: int = 0
    """Requests sent for the site, by every process and job (each adds its own)."""
    figures: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """The query loop's last figures (records reached and estimated, queries, phase)."""
    attempts: int = 0
    """Runs of the site's job that began (a job retried after its process died runs again)."""
    updated_at: datetime = Field(default_factory=_now)


class HarvestSite(HarvestSiteBase, table=True):
    """One site of a harvest (``deepcrawl harvest``): its options, state and figures."""

    __tablename__ = "harvest_site"

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)

    __table_args__ = (UniqueConstraint("harvest", "site_id", name="uq_harvest_site"),)


class HarvestSiteRead(HarvestSiteBase):
    id: int
    site_id: int


# --- workers -----------------------------------------------------------------------------------


class WorkerBase(SQLModel):
    name: str = Field(max_length=255)
    """``hostname:pid`` of the process."""
    role: str = Field(default="worker", max_length=16)
    """``crawl`` (holds the query loop) or ``worker`` (fetches only)."""
    state: str = Field(default="running", max_length=16)
    """``running``, ``done`` (drained the frontier), ``stopped`` (interrupted or failed); a
    crawl process ends ``needs_labels`` (no prototype labelled yet) or ``max_pages``."""
    pages: int = 0
    """Pages this process fetched and stored."""
    errors: int = 0
    """URLs this process failed for good."""
    figures: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """The process's last :class:`~deepcrawl.crawler.context.CrawlStats` (the crawl process's
    hold the query figures: queries, records reached and estimated)."""
    started_at: datetime = Field(default_factory=_now)
    seen_at: datetime = Field(default_factory=_now)
    """Last heartbeat: a running worker not seen for a few heartbeats is dead."""


class Worker(WorkerBase, table=True):
    """One process working on a site's crawl (``deepcrawl crawl`` or ``deepcrawl worker``)."""

    __tablename__ = "crawl_worker"

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)


class WorkerRead(WorkerBase):
    id: int
    site_id: int


# --- crawl state -------------------------------------------------------------------------------


class QueryLink(SQLModel, table=True):
    """A link one query's result pages showed: what a resumed crawl replays into the keyword
    manager, and where the normal phase finds the links to classify."""

    __tablename__ = "query_link"

    id: int | None = Field(default=None, primary_key=True)
    query_id: int = Field(foreign_key="query.id", index=True)
    url: str = Field(max_length=4096)
    text: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    role: str = Field(default="result", max_length=8)
    """``result``, ``pager`` or ``chrome`` (see ``deepcrawl.search.results``)."""


class QueryEnd(SQLModel, table=True):
    """Why a site's querying ended for good (saturation, not a budget): the same crawl run again
    delivers what is left without sending a query, unless asked to query again."""

    __tablename__ = "query_end"

    site_id: int = Field(foreign_key="site.id", primary_key=True)
    queries: int = 0
    """Queries stored when it ended: a query stored since (another run's) makes it stale."""
    reason: str = Field(sa_column=Column(Text, nullable=False))
    """The stop reason, as ``stats.json`` gave it."""
    ended_at: datetime = Field(default_factory=_now)


class SessionParam(SQLModel, table=True):
    """A parameter name the crawl of a site learnt to carry a session (a new value on every
    response): dropped from every URL's identity for the rest of the crawl, by every process."""

    __tablename__ = "session_param"

    site_id: int = Field(foreign_key="site.id", primary_key=True)
    name: str = Field(max_length=255, primary_key=True)
    """The parameter's name, in lower case."""
    anyway: bool = False
    """Dropped whatever its value (it echoes the query, canonical links drop it); else only an
    id-like value is."""
    learnt_at: datetime = Field(default_factory=_now)


class QueryingEvent(SQLModel, table=True):
    """One event of a site's querying, in order (``deepcrawl.querying.events``): what a
    resumed crawl folds back into its ledger. One log a phase (``setup``, ``normal``): the
    normal phase reads the setup's queries with its own idea of a record."""

    __tablename__ = "querying_event"

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)
    phase: str = Field(max_length=16)
    kind: str = Field(max_length=32)
    body: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    """The event as JSON, compressed (a list of every record holds tens of thousands of
    links)."""


class Delivery(SQLModel, table=True):
    """A page handed to the extractor: each page is delivered once, across resumed runs."""

    __tablename__ = "delivery"

    id: int | None = Field(default=None, primary_key=True)
    site_id: int = Field(foreign_key="site.id", index=True)
    page_id: int = Field(foreign_key="page.id")
    delivered_at: datetime = Field(default_factory=_now)

    __table_args__ = (UniqueConstraint("page_id", name="uq_delivery_page"),)
