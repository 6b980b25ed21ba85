"""Settings of running a crawl: the crawl itself, storage and the benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from deepcrawl.settings._base import Section, User

__all__ = ["BenchSettings", "CrawlSettings", "StorageSettings"]


class CrawlSettings(Section):
    """The crawl itself (``deepcrawl crawl``): setup phase, normal phase, delivery. How deep
    the setup phase reads, what teaches a URL's identity and how pages are batched and sitemaps
    bounded are constants of :mod:`deepcrawl.crawler`."""

    like: User[tuple[str, ...]] = ()
    """Example URLs of wanted pages (``--like``); a path (``/book/1``) is resolved against the
    start URL. Empty and no labels: the crawl picks the records' kind (``auto_label``)."""
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
    drop_params: tuple[str, ...] = (
        "utm_*", "sid", "sessionid", "session_id", "jsessionid", "phpsessid", "sessid", "fbclid",
        "gclid", "ref", "ref_", "referrer", "sort", "order", "orderby", "dir",
    )  # fmt: skip
    """Query keys (globs) dropped from a wanted URL before it is fetched: tracking, session and
    sorting parameters make near-duplicates of one page, which is fetched once."""
    learn_session_params: bool = True
    """Learn the parameters that carry a session under unlisted names (one id-like value a
    page, another on the next for the same links): they leave every URL's identity. Off where
    one is learnt that tells records apart."""
    follow_record_links: bool = True
    """Classify wanted pages' own links ("related books") by URL like result links and fetch the
    wanted ones; querying waits while such pages are pending (a link costs no result page)."""
    worker_lease_s: float = 900.0
    """How long a crawl fetching alone (SQLite) holds a leased frontier URL before it is ready
    again (a resumed crawl releases every lease at once). Fetch jobs hold theirs until their job
    ends: the job queue says when a job's worker died."""
    heartbeat_s: float = 5.0
    """How often a crawl process records that it is alive and its figures, and a ``deepcrawl
    worker`` beats to the job queue; one not heard of for three heartbeats counts as dead (its
    jobs run again elsewhere)."""
    deliver_poll_s: float = 0.5
    """How often the one delivery point of a shared crawl (``deepcrawl crawl`` on PostgreSQL, or
    the coordinator of many sites) looks for pages the jobs stored and delivers them."""
    worker_wait_s: float = 300.0
    """How long ``deepcrawl worker`` waits with no job to run before it ends."""
    sitemaps: User[bool] = True
    """Read the site's sitemaps (robots.txt ``Sitemap:`` lines, else ``/sitemap.xml``): their
    URLs go through the URL classifier and the wanted ones are fetched (``--no-sitemaps``)."""
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
    progress_every_s: float = 10.0
    """When stderr is not a terminal (a log file), ``deepcrawl crawl`` prints its progress line
    this often instead of redrawing it."""


class StorageSettings(Section):
    """Where the crawl's state lives."""

    url: User[str] = "sqlite:///deepcrawl.db"
    """SQLAlchemy URL (``--db``, ``DEEPCRAWL_DB``); a SQLite file by default,
    ``postgresql+psycopg://…`` to scale out."""
    bodies_inline_max: int = 256 * 1024
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
    zoo_timeout_s: float = 300.0
    """Wall-time cap of one crawl of a zoo seed (``--suite zoo``); a crawl still running then is
    killed and reported as one that did not stop by itself."""
