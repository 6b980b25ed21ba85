"""Settings of running a crawl: the crawl itself, storage and the benchmarks."""

from __future__ import annotations

from pathlib import Path

from deepcrawl.settings._base import Section

__all__ = ["BenchSettings", "CrawlSettings", "StorageSettings"]


class CrawlSettings(Section):
    """The crawl itself (``deepcrawl crawl``): setup phase, normal phase, delivery."""

    stop_grace_s: float = 4.0
    """Longest a clean stop after Ctrl-C / SIGTERM may take before the process ends at once
    (the store is crash-safe; a stop the user asked for comes within seconds)."""
    setup_queries: int = 8
    """Queries of the setup phase: their result links are prototyped for labelling (the
    stop-word probes count). The normal phase goes on from there to saturation."""
    like: tuple[str, ...] = ()
    """Example URLs of wanted pages (``--like``); a path (``/book/1``) is resolved against the
    start URL. Empty and no labels: ask the user (or, with ``auto_label``, guess)."""
    max_url_length: int = 2048
    """Longest start or ``--like`` URL a crawl accepts (the store keeps start URLs up to this
    length; 2,048 is also the sitemaps protocol's limit and what every browser handles)."""
    auto_label: bool = False
    """Without labels, mark as relevant the prototype holding most result links (what
    ``deepcrawl bench --strategy deepcrawl`` does, as it cannot ask anyone)."""
    max_pages: int | None = None
    """Pages delivered at most (``--max-pages``); None: no limit."""
    scope_prefix: str | None = None
    """Only URLs starting with this prefix are fetched (``--scope-prefix``); None: the start
    URL's host."""
    drop_params: tuple[str, ...] = (
        "utm_*", "sid", "sessionid", "session_id", "jsessionid", "phpsessid", "sessid", "fbclid",
        "gclid", "ref", "ref_", "referrer", "sort", "order", "orderby", "dir",
    )  # fmt: skip
    """Query keys (globs) dropped from a wanted URL before it is fetched: tracking, session and
    sorting parameters make near-duplicates of one page, which is fetched once."""
    stop_coverage: float = 1.0
    """Stop querying once the capture–recapture estimate says this share of the wanted records
    is reached and the last ``stop_patience`` queries brought none new, sooner than the keyword
    manager's saturation window (1.0 or more: never). Off by default: at 0.99 with a patience of
    5 it saved 10% of the requests on the books site but stopped at 97% recall (500 records) and
    82% (60 records) — the estimate underrates the rare-word records of the tail."""
    stop_patience: int = 5
    """Queries in a row without a new wanted record before ``stop_coverage`` may stop the crawl."""
    stop_checked_records: int | None = 300
    """Stop querying once the latest queries' result lists held this many records between them
    (by the totals their pages report) and, by the words of the fetched record pages, fewer
    than ``stop_checked_share`` of them are records the crawl lacks; ``stop_checked_fraction``
    raises it on large sites. None: off. Issue 7, 500 records a site: 150 stopped the shop at
    recall 0.956; 300 kept >= 0.98 on all three."""
    stop_checked_fraction: float = 0.2
    """The records ``stop_checked_records`` asks for at least, as a share of the records the
    crawl knows (by queries and links). The check runs after every query, so over a long tail
    a small window meets a lucky run of lists sooner or later. Books site, 10,000 records: 300
    records stopped the crawl at recall 0.975 (3 lacking in 300 while 2.5% were missing), 0.1
    of the records known at 0.980 (9 in 1,000 while 2.0% were), 0.2 at 0.987 (1,816 queries
    and 12,541 requests against 1,075 and 11,663). At 500 records the 300 are more (bench:
    books and shop unchanged, news one result page more). Not from a paper."""
    stop_checked_lists: int = 5
    """The lists ``stop_checked_records`` asks for at least, however many records fewer hold:
    the lists of the words nearly every page holds are nearly the same records, and two such
    lists of 200 are no evidence of 400 (MkDocs: two lists lacking 2 of 207 stopped the crawl
    with 16 of 240 pages missing; the 207 were its sidebar's links, before the paging control
    was shown pages without their chrome). Not from a paper."""
    stop_checked_share: float = 0.01
    """The share of lacking records under which ``stop_checked_records`` stops the crawl: an
    estimate of the share of the site's records missed (1% for a recall >= 0.98 with margin)."""
    stop_checked_scaled: bool = True
    """Whether a list's count scaled by its match share (a search matching stems or substrings:
    :meth:`KnownTexts.match_share <deepcrawl.keywords.known.KnownTexts.match_share>`) is
    evidence for ``stop_checked_records``. The share is measured on one result page's records,
    so the count carries an error the few lacking records the rule looks for drown in (about
    held × √((1 − s) / (s·n)) / s: MkDocs' lunr, "high", 148 results, share 8/14: −36 ± 43;
    WordPress, "of", 132 results, share 2/10: −233 ± 231), and a count below zero reads as
    nothing lacking. Off, such lists are no evidence: MkDocs 239/240 instead of 236, but
    WordPress (every count scaled) no longer stops early: harvest 0.72 instead of 0.85."""
    stop_complete_coverage: float = 0.99
    """Stop querying once the records the crawl knows reach this share of the database's size
    as estimated from the result lists read to their end (``stop_complete_lists`` of them at
    least: :func:`~deepcrawl.keywords.estimate.lists_estimate`), and are not above it by more
    than that share (a crawl knowing more than the estimate refutes it: the lists' words go
    together). A search reporting no total leaves ``stop_checked_records`` without evidence,
    and a fixed ranking fills every word's first page with the same records, so the saturation
    window's twenty fruitless queries were the only stop (Wagtail: "the" and "a" read to their
    ends, 218 and 228 of 240 records, 208 in both: ~239, the crawl knowing 238). 1.0 or more:
    off. Not from a paper."""
    stop_complete_lists: int = 2
    """Result lists read to their end that ``stop_complete_coverage`` needs at least."""
    stop_complete_share: float = 0.5
    """The share of the records known a list read to its end must hold to count for
    ``stop_complete_coverage``: only the words most records hold occur nearly independently of
    each other; the short lists of a topic's words hold the same records, and their overlap
    puts the size at what the crawl knows."""
    stop_complete_overlap: int = 50
    """Records that the lists counting for ``stop_complete_coverage`` hold again (the
    recaptures) at least: fewer make the estimate too coarse to stop on (its relative error is
    about 1/√recaptures: 14% at 50)."""
    follow_record_links: bool = True
    """Wanted pages' own links ("related books", "more from this section") are classified by URL
    like result links, and the wanted ones fetched; querying waits while such pages are pending,
    since a link costs no result page and a query then counts them as known."""
    like_result_pages: int = 10
    """Result pages read per setup-phase query at most while no result link is like the
    ``--like`` example: the wanted kind may be listed after other kinds of a site-wide search."""
    like_setup_queries: int = 24
    """Setup-phase queries at most (``setup_queries`` included) while no result link is like
    the ``--like`` example, before the crawl reports what the queries showed instead."""
    stop_fruitless_queries: int = 20
    """Querying ends after this many queries in a row brought no new record, whatever the
    estimate or the totals say: a search that reports no total, or an estimate that never
    reaches the count, must not query on until killed. ``stop_fruitless_share`` raises it on
    long crawls. 0: off. Not from a paper (the keyword manager's saturation window)."""
    runaway_window: int = 40
    """The latest record pages fetched that the repeat rule judges (:mod:`deepcrawl.crawler
    .runaway`): once ``runaway_repeat_share`` of them repeat the main text of a page fetched
    before, the crawl has run away — the same records under new URLs, whatever identity says —
    and its querying and link following stop. 0: off."""
    runaway_repeat_share: float = 0.5
    """The share of repeats among the latest ``runaway_window`` pages at which the crawl stops."""
    runaway_factor: float = 4.0
    """The crawl has run away, and its querying and link following stop, once it delivered more
    than this many times the records its capture–recapture estimate and its result lists'
    largest total say exist, plus ``runaway_slack``. 0: off."""
    runaway_slack: int = 200
    """Records delivered past ``runaway_factor`` times the records known to exist before that
    rule holds: records reached by links and sitemaps, which no query counts."""
    learn_session_params: bool = True
    """Learn the parameters that carry a session under names nobody listed: one whose value,
    id-like (``prototypes.session_value_min_length`` characters or more, not a number), is the
    same in every link of a page and another on another page for the same links (a new session
    a response), ``session_learn_links`` links over, leaves the identity of every URL for the
    rest of the crawl: the frontier's keys and what the classifier sees."""
    session_learn_links: int = 2
    """Links seen under two values of a parameter before it is learnt as a session's."""
    stop_fruitless_share: float = 0.1
    """The run of fruitless queries that ends querying is at least this share of the queries
    made: a long crawl's tail meets twenty fruitless queries by chance while records are still
    missing. The run grows by one a query and the bound by this share, so it always ends."""
    setup_result_pages: int = 3
    """Result pages read per setup-phase query at most: enough links to prototype (before labels,
    every link is new and any paging rule reads on). The normal phase asks such queries again
    first, its paging control (``keywords.paging_min_new``) deciding how far to read."""
    lease_s: float = 900.0
    """How long a fetch worker holds a frontier URL before another may take it (a resumed crawl
    releases every lease at once, so a long lease costs nothing after a crash; a short one lets
    a second worker fetch a URL the first is still waiting on)."""
    heartbeat_s: float = 5.0
    """How often a process of a crawl (``deepcrawl crawl`` or ``deepcrawl worker``) records that
    it is alive and its figures; one not heard of for three heartbeats counts as dead."""
    deliver_poll_s: float = 0.5
    """In a crawl shared on PostgreSQL, how often the ``deepcrawl crawl`` process (the one
    delivery point) looks for pages the workers stored and delivers them."""
    worker_wait_s: float = 300.0
    """How long ``deepcrawl worker`` waits for the crawl it joins to have labelled prototypes
    (the setup phase of ``deepcrawl crawl`` runs meanwhile) before giving up."""
    sitemaps: bool = True
    """Read the site's sitemaps (the robots.txt ``Sitemap:`` lines, else ``/sitemap.xml``): the
    URLs they list go through the URL classifier like a record page's links, and the wanted
    ones are fetched (``--no-sitemaps`` turns it off)."""
    sitemap_max_files: int = 50
    """Sitemap files (indexes included) read at most per crawl."""
    sitemap_max_urls: int = 50_000
    """URLs read from one sitemap file at most (the sitemaps protocol's limit per file)."""
    sitemap_max_bytes: int = 50 * 1024 * 1024
    """Largest sitemap file read, in bytes once decompressed (the sitemaps protocol's limit); a
    larger one is not read, and its failure is recorded."""
    requery: bool = False
    """Query the form again though an earlier run of the crawl ended its querying for good
    (``--requery``); off, the same crawl run again fetches and delivers what is left only."""
    navigate: bool = False
    """After the form is saturated, let a link strategy (``links.navigate_strategy``) look for
    wanted records the queries did not return (``--navigate``; issue 8)."""
    deliver_bodies: bool = True
    """Put page bodies into delivered records (off: ``body`` is None, ``body_path`` tells)."""
    deliver_text: bool = False
    """Put each page's main text (boilerplate removed, by trafilatura: the ``text`` extra) into
    delivered records as ``text`` (``--text``)."""
    progress_every_s: float = 10.0
    """When stderr is not a terminal (a log file), ``deepcrawl crawl`` prints its progress line
    this often instead of redrawing it."""


class StorageSettings(Section):
    """Where the crawl's state lives."""

    url: str = "sqlite:///deepcrawl.db"
    """SQLAlchemy URL; SQLite file by default, ``postgresql+psycopg://…`` to scale out."""
    bodies_inline_max: int = 256 * 1024
    """Bodies up to this size are stored in the database, larger ones as files (SQLite; on
    PostgreSQL every body is in the database, readable by workers on any machine)."""
    bodies_dir: Path = Path("deepcrawl-bodies")
    """Folder for bodies stored as files (relative to the working directory)."""
    durable_commits: bool = False
    """PostgreSQL: make each commit wait for the disk (``synchronous_commit``). Off, the crawl has
    the durability SQLite has in WAL mode with ``synchronous=NORMAL``: a crashed crawler or worker
    loses nothing, a crashed database server or machine may lose the last fraction of a second
    of commits, which a resumed crawl does again. On, every write waits for a flush (1–10 ms on a
    busy disk) while the fetch tasks of the process wait on it."""


class BenchSettings(Section):
    """`deepcrawl bench`."""

    records: int = 500
    """Records of the fixture site."""
    max_requests: int = 5000
    """Request budget of one strategy run."""
    seed: int = 0
    """Seed of the fixture site's data."""
    requests_per_second: float = 0.0
    """Per-host rate used against the local fixture sites (0: unlimited — they are ours, and
    the bench measures the strategies, not the rate limit)."""
    concurrency_per_host: int = 8
    """Requests in flight to a fixture site."""
    real_timeout_s: float = 900.0
    """Wall-time cap of one crawl of a real site (``--suite real``); a crawl still running then
    is killed and reported as such."""
    real_baseline_factor: int = 5
    """The breadth-first baseline's request budget on a real site, in records of its truth."""
