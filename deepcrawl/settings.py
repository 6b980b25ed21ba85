"""Every default of deepcrawl, in one place.

Settings are grouped in sections, one per component (``browser``, ``http``, ``politeness``,
``forms``, ``keywords``, ``prototypes``, ``links``, ``crawl``, ``storage``, ``bench``). Each
value is resolved, highest priority first, from:

1. keyword arguments given in code (the CLI passes its flags this way);
2. ``DEEPCRAWL_*`` environment variables, sections joined with a double underscore
   (``DEEPCRAWL_BROWSER__PAGE_TIMEOUT_S=10``, ``DEEPCRAWL_STORAGE__URL=postgresql+psycopg://…``);
3. a TOML file: ``deepcrawl.toml`` in the working directory, or the file named by
   ``DEEPCRAWL_CONFIG`` (sections are TOML tables: ``[browser]``, ``[politeness]`` …);
4. the defaults written below.

Thresholds taken from a paper carry the paper's value as default and name the section in their
docstring.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from deepcrawl.errors import ConfigError

__all__ = [
    "BenchSettings",
    "BrowserSettings",
    "CrawlSettings",
    "FormSettings",
    "HttpSettings",
    "KeywordSettings",
    "LinkLearningSettings",
    "PolitenessSettings",
    "PrototypeSettings",
    "Settings",
    "StorageSettings",
    "load_settings",
]

CONFIG_FILE_ENV = "DEEPCRAWL_CONFIG"
DEFAULT_CONFIG_FILE = "deepcrawl.toml"

#: Flags that stop Chromium from calling home at every start (no network here, and no need).
QUIET_CHROMIUM_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class BrowserSettings(_Section):
    """Chromium through Playwright: where to find it, how to launch it, how long pages live."""

    chromium: Path | None = None
    """Chromium binary to launch. None: Playwright's own browser if installed, else the first of
    ``/usr/bin/chromium``, ``/usr/lib/chromium/chromium``, ``chromium-browser`` on PATH.
    ``DEEPCRAWL_CHROMIUM`` sets it too."""
    headless: bool = True
    """Run without a window (the only mode on a server)."""
    launch_args: tuple[str, ...] = QUIET_CHROMIUM_ARGS
    """Extra command-line flags for Chromium."""
    page_timeout_s: float = 15.0
    """Time allowed for one navigation or one probe action."""
    pages: int = 1
    """Concurrent pages in the pool; more do not help on 2 cores (see NOTES.md)."""
    recycle_context_after: int = 200
    """Open a fresh browser context after this many pages (frees renderer memory)."""
    memory_ceiling_mb: int = 1500
    """Restart the browser when its processes use more than this (PSS, MiB)."""
    block_resources: tuple[str, ...] = ("image", "font", "media")
    """Playwright resource types never loaded."""
    allow_hosts: tuple[str, ...] = ()
    """Hosts outside the crawl's scope that pages may still load from (CDNs)."""
    render: Literal["auto", "always", "never"] = "auto"
    """Use the browser always, never, or where a sample shows JavaScript changes the page."""
    probe_depth: int = 2
    """Depth bound of the depth-first exploration of DOM states in JS link probing."""
    probe_max_elements: int = 60
    """At most this many clickable elements are probed per page."""
    recheck_share: float = 0.01
    """Auto mode re-checks a prototype served over plain HTTP in the browser (in the
    background) after ``1 / recheck_share`` of its pages, then after twice as many each time."""
    samples: int = 2
    """Pages of one URL prototype fetched both ways before auto mode trusts plain HTTP for it."""
    memory_check_every: int = 25
    """Measure the browser's memory after this many pages (0: never)."""
    probe_timeout_s: float = 30.0
    """Time allowed for probing one page; probing stops (keeping what it found) after it."""
    probe_settle_s: float = 0.5
    """Longest wait, after a probe action, for the requests it started to finish."""
    probe_max_restores: int = 15
    """Reloads allowed per page to get back to a DOM state during probing."""
    probe_refused_words: tuple[str, ...] = ("vote", "add to", "wishlist")
    """Words that keep probing away from an element or a request, on top of the request rule's
    (:mod:`deepcrawl.safety`) and ``forms.refused_words`` (clicking is riskier than following a
    link)."""
    store_documents: bool = True
    """Answer a page script's fetch/XHR of a document the crawl already stored from the store,
    not the network (a client-side search fetches every result's page to build a snippet)."""
    block_linked_documents: bool = True
    """Refuse a page script's fetch/XHR of a document the page already links to and the crawl
    has not stored: the link is on the page already, so the result list does not need it (only a
    snippet is lost); the crawl fetches the document itself if it wants it."""
    cache_mb: int = 64
    """Memory cache shared by the pool's pages for scripts, style sheets and data whose response
    allows reuse (a search index is downloaded once per crawl, not once per query); Chromium's
    own cache is off in routed contexts. 0: no cache."""
    cache_ttl_s: float = 3600.0
    """Longest a cached response is reused: a static file (one with ``Last-Modified`` or
    ``ETag``, no explicit lifetime) is reused this long; ``max-age``/``Expires`` can shorten it."""
    growth_poll_s: float = 0.05
    """How often a rendered page is measured (links, elements, text) while it may still grow."""
    growth_quiet_s: float = 0.2
    """A rendered page is read once its measure and its script requests have been still this
    long (a result list appended item by item is read whole, not after its first items)."""
    growth_max_s: float = 5.0
    """Longest wait for a rendered page to stop growing; then it is read as it is."""


class HttpSettings(_Section):
    """The plain-HTTP fetcher (httpx)."""

    user_agent: str = "deepcrawl/0.1 (+https://example.invalid/deepcrawl)"
    """User-Agent header sent by both fetchers, and the agent name matched in robots.txt."""
    timeout_s: float = 10.0
    """Total time allowed for one request."""
    max_body_bytes: int = 5 * 1024 * 1024
    """Larger bodies are cut off and the page recorded as an error (BodyTooLargeError)."""
    max_redirects: int = 10
    """Redirects followed before the request fails."""
    max_connections: int = 20
    """Connections kept by the client across all hosts."""


class PolitenessSettings(_Section):
    """How deepcrawl treats the sites it visits."""

    obey_robots: bool = True
    """Honour robots.txt (rules and Crawl-delay)."""
    requests_per_second: float = 20.0
    """Per-host request rate ceiling; a robots.txt Crawl-delay lowers it."""
    concurrency_per_host: int = 4
    """Requests in flight to one host at most."""
    retries: int = 3
    """Retries of a transient failure (network error, 5xx, 429) before the URL is failed."""
    backoff_base_s: float = 0.5
    """First back-off delay; doubled at each retry unless Retry-After says otherwise."""
    backoff_max_s: float = 60.0
    """Longest back-off delay honoured (a longer Retry-After fails the URL)."""


class FormSettings(_Section):
    """The form critic (ACHE section 3.4) and the safety policy."""

    searchable_threshold: float = 0.5
    """Score (the searchable classifier's probability) at or above which the critic calls a form
    searchable."""
    domain_threshold: float = 0.5
    """Probability above which the domain classifier calls a searchable form in domain."""
    refused_words: tuple[str, ...] = (
        "login", "log in", "sign in", "signin", "sign up", "signup", "register",
        "registration", "password", "newsletter", "comment", "post", "reply", "contact",
    )  # fmt: skip
    """Words that mark a form or a clickable element as account-changing, on top of the request
    rule's (:mod:`deepcrawl.safety`: logout, delete, cart, order … in seven languages): such
    forms are never submitted, such elements never clicked. Following a link that reads so is
    harmless (a login page), so links are judged by the request rule alone. Extend with care."""
    model_cache_dir: Path | None = None
    """Where fitted critic models are cached (one file per deepcrawl, scikit-learn and corpus
    version). None: ``~/.cache/deepcrawl``."""
    settle_s: float = 0.3
    """After a submission, a click or a result-page load, the page counts as complete once no
    request has been in flight and the DOM has not changed for this long (JS-rendered results)."""
    nonsense_keyword: str = "xqzvkjwq"
    """A word no site holds: submitted once per form (first page only) to learn its "no results"
    page and the links every page of the site shows (site chrome, not results). Empty: never."""
    url_templates: bool = True
    """Issue later queries of a GET form by URL template over plain HTTP, once a check shows the
    browser and plain HTTP give the same result links (much faster)."""
    largest_page_size: bool = True
    """Set a form's "results per page" select to its largest value, and raise a page-size
    parameter of a JSON data request the results come from (checked to be honoured): each
    result page is a request, whatever it holds."""
    max_page_size: int = 50
    """Page size asked of a data request's size parameter (``limit``, ``per_page`` …)."""


class KeywordSettings(_Section):
    """The keyword manager (Hernández et al., "The Keyword Manager")."""

    max_queries: int = 500
    """Query budget of one crawl."""
    saturation_window: int = 20
    """Saturation is judged over this many most recent queries (10 stopped at 97% of the
    fixture sites' records when only result titles were known; 20 reached >= 98%:
    benchmarks/keywords_sim.py)."""
    saturation_min_new: int = 1
    """Fewer new records than this over the window means the source is exhausted."""
    saturation_records: int | None = 200
    """Saturation counted in results too: the most recent queries showed this many results
    between them and fewer than ``saturation_min_new`` new ones (sooner than the window when
    result pages are big; 200 is the window's 20 queries of a 10-result page). None: off."""
    saturation_fraction: float = 0.05
    """Saturation's evidence grows with the site: the window's queries, and the results
    ``saturation_records`` counts, must have shown at least this share of the records known
    (by queries and links) without a new record, unless the window showed none. Past a
    few thousand records the tail is read one result page a query, and twenty pages without a
    new record happen by chance while 2% are missing: the books site at 10,000 records
    stopped so at recall 0.976. At 500 records 200 results are more. 0: off. Not from a
    paper."""
    max_result_pages: int = 50
    """Result pages followed per query at most."""
    policy: Literal["greedy", "random", "frequency"] = "greedy"
    """Query selection: Ntoulas, Zerfos & Cho's (JCDL 2005) adaptive greedy policy, or their
    random and generic-frequency baselines."""
    language: str = "en"
    """Language of the bundled lists used (``keywords/<language>-frequent.txt``)."""
    keywords_file: Path | None = None
    """The user's own keyword list (``--keywords FILE``), queried before the frequent words."""
    stopword_probes: tuple[str, ...] = ("the", "a", "of")
    """Stop words submitted first to learn whether the site accepts them (Hernández et al.:
    Wordpress returns nothing for "a", YouTube millions); dropped from the lists if not."""
    max_cost: int | None = None
    """Request budget (submissions plus result pages) of one crawl; None: no limit."""
    page_cost: float = 0.0
    """Cost of one further result page relative to a submission, in the greedy policy's
    new-records-per-cost estimate (0: minimise submissions, 1: minimise requests)."""
    identical_window: int = 5
    """This many successive queries returning the same non-empty results end the crawl (the
    form ignores its keyword)."""
    max_consecutive_errors: int = 5
    """This many successive failed queries (error page, timeout) end the crawl."""
    estimator: Literal["chao1", "schnabel", "chapman"] = "chao1"
    """Capture–recapture estimator of the database size (see deepcrawl/keywords/estimate.py)."""
    min_term_length: int = 2
    """Shorter words of downloaded records are never used as queries."""
    seed: int = 0
    """Seed of the random policy."""
    sample_query_terms: int = 1
    """Words per query derived from sample documents (xCrawl section 4 used 3 with a web search
    engine; site search forms usually AND their words, so one reaches most)."""
    sample_max_tokens: int = 50
    """Tokens of the sample documents kept for query generation (highest TF-IDF first)."""
    example_queries: int = 5
    """xCrawl queries derived from the ``--like`` pages, sent after the user's words and
    before any learnt word (the example is evidence of the wanted kind's words). Not from the
    paper, which sends them all: one sample's words are rare, and once results arrive the
    learnt words reach more records a query (fixture shop, 60 records: ten of them cost recall
    0.87 against 0.98)."""
    source_empty_run: int = 5
    """A source of words (the examples' words, the result texts', the record pages') is left
    once this many of its queries in a row found nothing: a full-text index over a few columns
    matches none of a record page's column names and codes. 0: never. Not from a paper."""
    saturation_max_missing: float = 0.5
    """Saturation is not declared while the capture–recapture estimate says more than this
    share of the records is missing and a source of words is left untried: the saturated
    source is left instead. 1: off. Not from a paper ("most records missing")."""
    paging_min_new: float = 1.0
    """A query's paging stops once the records it is expected to bring per further result page
    fall below this (the share of records new to the crawl on its pages so far times the page
    size). Paper-free: 0.5–1 needed the fewest result pages for 98% of the records in a
    simulation of the fixture sites; 0 reads every page."""
    deepen_min_new: float = 0.2
    """Once the keyword manager's words are spent or bring nothing new, the lists already
    asked are read again, deeper (:meth:`QueryLoop.next_deepening
    <deepcrawl.crawler.queries.QueryLoop.next_deepening>`), while a re-read is expected to
    bring this many records the crawl lacks per request (its first pages, read before, paid
    again) and each further page this many. A large site's words run out before its lists are
    read: the books site at 100,000 records has 4,679 words, and its crawl stopped at recall
    0.949 with most lists read one page deep. 0: off (stop when the words are spent). Not
    from a paper: with 10 results a page, 0.2 reads on while a list lacks about 2%."""


class PrototypeSettings(_Section):
    """The URL tokeniser and the probabilistic string prototyper (Hernández et al., "Tokeniser",
    "The String Prototyper"). The paper gives no numeric thresholds; the defaults below were tuned
    on the fixture sites and the synthetic benchmark (``benchmarks/prototypes_bench.py``)."""

    max_url_length: int = 4096
    """Longer URLs are refused by the tokeniser (InvalidURLError)."""
    allowed_schemes: tuple[str, ...] = ("http", "https")
    """Schemes the tokeniser accepts; ``mailto:``, ``javascript:`` … are refused."""
    literal_threshold: float = 0.1
    """A token seen at a position in at least this share of the URLs below its tree node stays
    literal; rarer tokens merge into a typed wildcard (``markParts``)."""
    min_support: int = 3
    """A literal needs at least this many URLs behind it."""
    numeric_literals: bool = False
    """Let frequent path values holding digits stay literal (off: ids, years, page numbers and
    ``section-2`` are variable unless they belong to a closed vocabulary)."""
    max_query_literals: int = 4
    """A query key whose values may split prototypes (``condition=new`` / ``condition=used``, as
    in the paper's Table 1) has at most this many distinct values; a key with more is variable."""
    query_split_max_values: int = 12
    """An optional query key with at most this many literal values splits a prototype, one
    prototype per value: a mode switch (``view=print`` makes print pages, not item pages) or the
    actions on a page (``do=edit|revisions|backlink``, ``action=history``), each another kind of
    page than the page itself. 0: optional keys never split."""
    split_required_query_keys: bool = False
    """Let a key present in every URL split on its frequent values (at most
    ``max_query_literals`` of them). The paper's Table 1 splits ``condition=new`` /
    ``condition=used`` so; off by default, as on the fixture sites such keys are variants of one
    kind (``/export?format=json|csv``)."""
    variant_params: tuple[str, ...] = (
        "utm_*", "sid", "sessionid", "session_id", "jsessionid", "phpsessid", "sessid", "fbclid",
        "gclid", "ref", "ref_", "referrer", "source", "page", "p", "pg", "offset", "start",
        "limit", "per_page", "sort", "order", "orderby", "dir",
    )  # fmt: skip
    """Query keys (globs, any case) that never split a prototype and never stay literal:
    tracking, session, paging and sorting parameters give variants of one kind of page."""
    closed_vocabulary_share: float = 0.1
    """When the distinct values at a path position number at most this share of the URLs there
    (a small closed vocabulary: site sections), every value stays literal, however rare."""
    closed_vocabulary_max: int = 12
    """At most this many distinct values make a small closed vocabulary whose every value stays
    literal however rare, given ``min_support`` URLs each: the heads of a path position's ids
    (``issue17``, ``msg1006``, ``user3``: three kinds of record), and the values of a query key
    (``do=edit|revisions|backlink``: actions, each its own kind of page)."""
    twin_share: float = 0.5
    """An optional query key splits a prototype when at least this share of the URLs holding it
    are twins of URLs without it (``title=X&oldid=7`` beside ``title=X``: another view of the
    same page), each URL having at most ``closed_vocabulary_max`` such twins."""
    nested_folders: bool = True
    """``/admin/``, ``/admin/a-1/`` and ``/admin/a-1/a-2/`` fall in one prototype when the deeper
    URLs are chains of one repeated variable segment (at least two deep somewhere)."""
    fold_trailing_slash: bool = True
    """``/book/17/`` and ``/book/17`` fall in one prototype (a trailing slash is optional)."""
    merge_min_siblings: int = 5
    """Refinement: at least this many literal siblings (below the first path segment) whose
    subtrees have the same shape are merged back into one wildcard (categories, languages)."""
    max_examples: int = 5
    """Sample URLs kept per prototype."""
    label_port: int = 8765
    """Port of the ``deepcrawl label --web`` page (always on 127.0.0.1); 0: any free port."""
    thumbnails: bool = True
    """Show a screenshot of one example page per kind on the ``deepcrawl label --web`` page
    (taken with the crawl's Chromium under the probing rules: GET only, no navigation away)."""
    thumbnail_viewport: tuple[int, int] = (1024, 768)
    """Width and height (CSS pixels) of the browser window a thumbnail is taken in."""
    thumbnail_load_s: float = 5.0
    """Longest wait for a thumbnail page's ``load`` event (a refused navigation may stop it for
    good); the screenshot then shows what has rendered."""
    layout_samples: int = 4
    """Member pages of the ``--like`` example's prototype fetched to compare with the example
    (:mod:`deepcrawl.classify.layout`) before the normal phase; 0: no check."""
    layout_min_similarity: float = 0.65
    """A sampled page looks like the example when the mean of the Jaccard indices of their
    tag-path shingles and of their template text reaches this; otherwise the prototype is split.
    Chosen on pages saved from real applications (``tests/data/real``): pages of the example's
    kind score 0.84-0.95, the edit, history, message or listing pages of the same site
    0.09-0.49 (a wiki's namespace index, a wiki page too, 0.62)."""
    layout_max_splits: int = 3
    """At most this many splits of the example's prototype by the layout check."""
    layout_widen_max: int = 16
    """At most this many sibling prototypes of the ``--like`` example's (the same URL shape with
    other literals: ``/community/<slug>/`` beside ``/guides/<slug>/``, ``/user3`` beside
    ``/issue17``) are sampled, largest first; those whose pages look like the example get its
    label. Not from a paper: a site's sections are a closed vocabulary of at most
    ``closed_vocabulary_max`` values, and a few more leave room for shapes
    (``layout_widen_max × layout_widen_samples`` requests at most). 0: no widening."""
    layout_widen_samples: int = 2
    """Pages of each sibling prototype fetched to compare with the example; all must reach
    ``layout_min_similarity``. Chosen on pages saved from real applications: the sections of a
    MkDocs site score 0.86-0.90 against each other, a tracker's user and message pages
    0.45-0.49 against an issue page."""
    layout_shingle: int = 4
    """Consecutive tag paths per shingle of a page's structure."""
    layout_template_words: int = 4
    """Text leaves of at most this many words are template text (labels, headings, menus)."""


class LinkLearningSettings(_Section):
    """The link-learning strategies: ACHE's adaptive link learner (Barbosa & Freire, sections
    2-3), the apprentice (Chakrabarti et al.) and xCrawl (Shchekotykhin et al., sections 3-4).
    Paper values are the defaults where the paper gives one; the others say so."""

    levels: int = 3
    """Levels of ACHE's multi-level link classifier (distance to a target; section 4.1: three).
    Links on no path of that length form one more, lowest-priority level."""
    learning_threshold: int = 100
    """ACHE learns again after this many new targets (section 3.2: 100 new relevant forms)."""
    features_per_space: int = 10
    """Terms kept per feature space (URL, anchor, around) and level by ACHE's automatic feature
    selection, highest document frequency first (the paper says only "a small number")."""
    url_top_k: int = 10
    """k of ACHE's URL sub-term merging: the k most frequent stemmed URL terms absorb the
    frequency of the terms that contain them (Algorithm 2, lines 8-13; no value given)."""
    around_terms: int = 10
    """Terms taken before and after the anchor for ACHE's "around" space (no value given)."""
    link_model: Literal["nb", "svm"] = "nb"
    """ACHE's link classifier: naive Bayes as the paper, or a linear SVM."""
    frontier_batch: int = 10
    """ACHE's crawling frontier is refilled from the persistent frontier with this many best
    links when it runs empty (section 2.2 refills in batches; no size given). A batch is
    crawled to its end before the links of its pages are ranked, so its size is a floor on the
    pages spent per step of a path: chosen on stacks seeds 112-115 (neither the prior's nor the
    bench's), pages to the form 12 / 22 with 10, 27 / 52 with 25, 49 / 99 with 50."""
    max_targets: int = 0
    """Per-site stopping criterion (ACHE section 2): stop after this many distinct targets
    (0: only the request budget stops the crawl)."""
    d_max: int = 5
    """The apprentice's DOM window: <token, offset> features with |d| <= d_max (section 3.4)."""
    apprentice_alpha: float = 0.01
    """Smoothing of the apprentice's naive Bayes. Its <token, offset> features are hashed into
    2**18 columns, so Laplace smoothing (1) would add 262,144 pseudo-counts per class to a few
    thousand real ones and flatten the evidence of every feature (not from the paper)."""
    apprentice_batch: int = 200
    """Pages per batch after which the apprentice trains on the verdicts of the batch (section
    2.3: "a few hundred to a few thousand")."""
    restart_probability: float = 0.15
    """xCrawl's random restart probability of the focused walk (section 5: 0.15 was best)."""
    max_iterations: int = 50
    """xCrawl stops when no new hub appeared within this many restarts (section 5: ~50)."""
    damping: float = 0.85
    """Damping c of xCrawl's topic-sensitive PageRank (1 - c is the jump back to authorities)."""
    weight_iterations: int = 50
    """Iterations bound of the HITS and PageRank computations."""
    weight_tolerance: float = 1e-6
    """HITS and PageRank stop when no weight moves more than this."""
    hub_min_authorities: int = 1
    """A page is an xCrawl hub when it links to at least this many known authorities and has a
    hub weight (the paper says "many" and names no number; 1 finds the later pages of a paged
    list, which link to few known records, and did best on the fixture sites)."""
    record_pattern: str | None = None
    """Regular expression on a URL's path and query (full match) that makes a page a target
    record; None: the target is a page with a form the critic accepts as searchable."""
    seed: int = 0
    """Seed of the random choices (xCrawl's walk and restarts)."""
    prior: str = "builtin"
    """Prior of the link learners for finding search forms (ACHE's *Offline-Online*, the
    apprentice's "fixed prior obtained from a baseline crawl"): ``"builtin"`` (paths to the
    forms of training sites, shipped with deepcrawl; ``scripts/train_link_prior.py``), the path
    of such a JSON file, or ``"none"`` (ACHE's *Online*: no knowledge before the first form)."""
    path_discount: float = 0.5
    """Reward of a link ``k`` levels from a target: ``path_discount ** (k - 1)`` (1 for a link
    to a target, 0 beyond ``levels``). The apprentice learns it, so that the links on the way
    to a form are learnt too (its paper rewards the link to a relevant page only), and it is
    xCrawl's topic weight of a link before any authority is known. Not from a paper."""
    discovery_strategy: str = "ache"
    """Strategy of entry-point discovery (``deepcrawl discover``, and the setup phase when the
    start page has no searchable form): ACHE, the paper written for finding forms."""
    discovery_max_requests: int = 1000
    """Request budget of entry-point discovery (not from a paper: breadth-first needs some 600
    pages to reach a form three clicks deep on the "stacks" fixture site)."""
    navigate_strategy: str = "ache"
    """Strategy of ``deepcrawl crawl --navigate``, which looks for the wanted records the
    queries did not return once the form is saturated."""
    navigate_max_requests: int = 2000
    """Request budget of the ``--navigate`` phase (not from a paper)."""


class CrawlSettings(_Section):
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
    stop_checked_share: float = 0.01
    """The share of lacking records under which ``stop_checked_records`` stops the crawl: an
    estimate of the share of the site's records missed (1% for a recall >= 0.98 with margin)."""
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
    navigate: bool = False
    """After the form is saturated, let a link strategy (``links.navigate_strategy``) look for
    wanted records the queries did not return (``--navigate``; issue 8)."""
    deliver_bodies: bool = True
    """Put page bodies into delivered records (off: ``body`` is None, ``body_path`` tells)."""
    progress_every_s: float = 10.0
    """When stderr is not a terminal (a log file), ``deepcrawl crawl`` prints its progress line
    this often instead of redrawing it."""


class StorageSettings(_Section):
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


class BenchSettings(_Section):
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


class Settings(BaseSettings):
    """All of deepcrawl's settings; see the module docstring for where values come from."""

    model_config = SettingsConfigDict(
        env_prefix="DEEPCRAWL_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
    )

    browser: BrowserSettings = BrowserSettings()
    http: HttpSettings = HttpSettings()
    politeness: PolitenessSettings = PolitenessSettings()
    forms: FormSettings = FormSettings()
    keywords: KeywordSettings = KeywordSettings()
    prototypes: PrototypeSettings = PrototypeSettings()
    links: LinkLearningSettings = LinkLearningSettings()
    crawl: CrawlSettings = CrawlSettings()
    storage: StorageSettings = StorageSettings()
    bench: BenchSettings = BenchSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file = Path(os.environ.get(CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE))
        return (
            init_settings,
            _ShortcutSource(settings_cls),
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_file),
        )

    def with_overrides(self, **sections: dict[str, Any]) -> Settings:
        """Return a copy with some section fields replaced, validated like any other source.

        ``settings.with_overrides(storage={"url": "sqlite:///x.db"})``; ``None`` values are
        skipped, so CLI flags that were not given leave the setting alone.
        """
        data = self.model_dump()
        for section, values in sections.items():
            data[section].update({k: v for k, v in values.items() if v is not None})
        try:
            return Settings.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from exc


class _ShortcutSource(PydanticBaseSettingsSource):
    """Single-word environment variables users expect: ``DEEPCRAWL_CHROMIUM``, ``DEEPCRAWL_DB``."""

    _SHORTCUTS: ClassVar[dict[str, tuple[str, str]]] = {
        "DEEPCRAWL_CHROMIUM": ("browser", "chromium"),
        "DEEPCRAWL_DB": ("storage", "url"),
    }

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for env, (section, key) in self._SHORTCUTS.items():
            if value := os.environ.get(env):
                found.setdefault(section, {})[key] = value
        return found


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        parts.append(f"setting {where}: {error['msg']}")
    return "; ".join(parts)


def load_settings(**sections: dict[str, Any]) -> Settings:
    """Load settings from every source, with ``sections`` as the highest-priority overrides.

    Raises:
        ConfigError: a value from any source is invalid; the message names the setting.
    """
    try:
        base = Settings()
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from exc
    except (OSError, ValueError) as exc:  # unreadable or malformed TOML file
        raise ConfigError(f"cannot read settings: {exc}") from exc
    return base.with_overrides(**sections) if sections else base
