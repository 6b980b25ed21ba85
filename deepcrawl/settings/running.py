"""Settings of running a crawl: the crawl itself, storage and the benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from deepcrawl.settings._base import Section, User

__all__ = ["BenchSettings", "CrawlSettings", "StorageSettings"]


class CrawlSettings(Section):
    """The crawl itself (``deepcrawl crawl``): setup phase, normal phase, delivery."""

    stop_grace_s: float = 4.0
    """Longest a clean stop after Ctrl-C / SIGTERM may take before the process ends at once
    (the store is crash-safe; a stop the user asked for comes within seconds)."""
    setup_queries: int = 8
    """Queries of the setup phase: their result links are prototyped for labelling (the
    stop-word probes count). The normal phase goes on from there to saturation."""
    like: User[tuple[str, ...]] = ()
    """Example URLs of wanted pages (``--like``); a path (``/book/1``) is resolved against the
    start URL. Empty and no labels: the crawl picks the records' kind (``auto_label``)."""
    max_start_url_length: int = 2048
    """Longest start or ``--like`` URL a crawl accepts, in characters: the store keeps start
    URLs of up to 2,048 (the sitemaps protocol's limit too)."""
    auto_label: User[bool | None] = None
    """With no ``like`` or labels, pick the records' kind from the result lists: None off a
    terminal (proposed at one), True always (``--auto``), False never (the crawl stops after the
    setup phase for labels: ``--no-auto``)."""
    record_kinds: User[Literal["one", "all"]] = "one"
    """With no example, take the one kind of most distinct records, or ``all`` the kinds that
    look like records (``--records all``: tickets and wiki pages of a site-wide search)."""
    max_pages: User[int | None] = None
    """Pages delivered at most (``--max-pages``); None: no limit."""
    scope_prefix: User[str | None] = None
    """Only URLs starting with this prefix are fetched (``--scope-prefix``); None: the start
    URL's host."""
    drop_params: User[tuple[str, ...]] = (
        "utm_*", "sid", "sessionid", "session_id", "jsessionid", "phpsessid", "sessid", "fbclid",
        "gclid", "ref", "ref_", "referrer", "sort", "order", "orderby", "dir",
    )  # fmt: skip
    """Query keys (globs) dropped from a wanted URL before it is fetched: tracking, session and
    sorting parameters make near-duplicates of one page, which is fetched once."""
    follow_record_links: bool = True
    """Classify wanted pages' own links ("related books") by URL like result links and fetch the
    wanted ones; querying waits while such pages are pending (a link costs no result page)."""
    like_result_pages: int = 10
    """Result pages read per setup-phase query at most while no result link is like the
    ``--like`` example: the wanted kind may be listed after other kinds of a site-wide search."""
    setup_new_share: float = 0.5
    """With no example: a setup-phase query reads up to ``like_result_pages`` result pages when
    less than this share of the one before's result links were new (0–1): the lists repeat one
    kind of page first, and the records may come after it."""
    like_setup_queries: int = 24
    """Setup-phase queries at most (``setup_queries`` included) while no result link is like
    the ``--like`` example, before the crawl reports what the queries showed instead."""
    learn_session_params: bool = True
    """Learn the parameters that carry a session under unlisted names (one id-like value a
    page, another on the next for the same links): they leave every URL's identity."""
    session_learn_links: int = 2
    """Links seen under two values of a parameter before it is learnt as a session's."""
    fingerprint_min_words: int = 20
    """Words a page's main text needs before its fingerprint may say it shows a record stored
    before under another URL (a stub says too little)."""
    canonical_learn_values: int = 3
    """Values of a query parameter seen added to a record's own URL (its canonical link, or a
    record stored before) before the parameter is learnt to be no part of any URL."""
    echo_learn_links: int = 3
    """Result links carrying their query's words in a parameter (to two records or more, one
    listed by two queries) before it is learnt to echo the query: no part of a record's URL."""
    setup_first_pages: int = 3
    """Result pages the setup phase reads of its queries until one list was read past its
    first page: how a list goes on (the kinds listed after those first, its pager)."""
    setup_result_pages: int = 3
    """Result pages read per setup-phase query after that, where a list reported its total: the
    later pages show records that rank low in every list, which the stop by the lists' totals
    otherwise waits for (:func:`~deepcrawl.crawler.setup.setup_pages`)."""
    setup_untotalled_pages: int = 1
    """Result pages read per setup-phase query after the first list where no list reported a
    total: the stop then needs lists read to their end, which bring what later pages of the
    setup's lists would."""
    worker_lease_s: float = 900.0
    """How long a fetch worker holds a frontier URL before another may take it (a resumed crawl
    releases every lease at once; too short, two workers fetch one URL)."""
    store_batch: int = 32
    """Pages a crawl alone on its store (SQLite) stores in one transaction; 1 stores each as it
    is fetched, as a crawl shared by processes does. A crash loses the batch not stored: its
    URLs stay leased, and the next run fetches them again."""
    store_batch_s: float = 1.0
    """Seconds after which a batch not full is stored anyway (and delivered), at the next page
    fetched or the next idle worker: on a slow site, how long a page may wait for the
    extractor."""
    heartbeat_s: float = 5.0
    """How often a process of a crawl (``deepcrawl crawl`` or ``deepcrawl worker``) records that
    it is alive and its figures; one not heard of for three heartbeats counts as dead."""
    deliver_poll_s: float = 0.5
    """In a crawl shared on PostgreSQL, how often the ``deepcrawl crawl`` process (the one
    delivery point) looks for pages the workers stored and delivers them."""
    worker_wait_s: float = 300.0
    """How long ``deepcrawl worker`` waits for the crawl it joins to have labelled prototypes
    (the setup phase of ``deepcrawl crawl`` runs meanwhile) before giving up."""
    sitemaps: User[bool] = True
    """Read the site's sitemaps (robots.txt ``Sitemap:`` lines, else ``/sitemap.xml``): their
    URLs go through the URL classifier and the wanted ones are fetched (``--no-sitemaps``)."""
    sitemap_max_files: int = 50
    """Sitemap files (indexes included) read at most per crawl."""
    sitemap_max_urls: int = 50_000
    """URLs read from one sitemap file at most (the sitemaps protocol's limit per file)."""
    sitemap_max_bytes: int = 50 * 1024 * 1024
    """Largest sitemap file read, in bytes once decompressed (the sitemaps protocol's limit); a
    larger one is not read, and its failure is recorded."""
    requery: User[bool] = False
    """Query the form again though an earlier run of the crawl ended its querying for good
    (``--requery``); off, the same crawl run again fetches and delivers what is left only."""
    navigate: User[bool] = False
    """After the form is saturated, let a link strategy (``links.navigate_strategy``) look for
    wanted records the queries did not return (``--navigate``)."""
    deliver_bodies: User[bool] = True
    """Put page bodies into delivered records (off: ``body`` is None, ``body_path`` tells)."""
    deliver_text: User[bool] = False
    """Put each page's main text (boilerplate removed, by trafilatura: the ``text`` extra) into
    delivered records as ``text`` (``--text``)."""
    progress_every_s: User[float] = 10.0
    """When stderr is not a terminal (a log file), ``deepcrawl crawl`` prints its progress line
    this often instead of redrawing it."""


class StorageSettings(Section):
    """Where the crawl's state lives."""

    url: User[str] = "sqlite:///deepcrawl.db"
    """SQLAlchemy URL (``--db``, ``DEEPCRAWL_DB``); a SQLite file by default,
    ``postgresql+psycopg://…`` to scale out."""
    bodies_inline_max: User[int] = 256 * 1024
    """Bodies up to this many bytes are stored in the database, larger ones as files (SQLite;
    on PostgreSQL every body is in the database, readable by workers on any machine)."""
    bodies_dir: User[Path] = Path("deepcrawl-bodies")
    """Folder for bodies stored as files (relative to the working directory)."""
    durable_commits: User[bool] = False
    """PostgreSQL: make each commit wait for the disk (``synchronous_commit``). Off, as SQLite in
    WAL mode: a crashed database server may lose the last commits, which a resumed crawl redoes."""


class BenchSettings(Section):
    """`deepcrawl bench` (its other defaults are constants of :mod:`deepcrawl.bench`)."""

    real_timeout_s: float = 900.0
    """Wall-time cap of one crawl of a real site (``--suite real``); a crawl still running then
    is killed and reported as such."""
