"""Settings of querying a search form: the form critic, the words, the query loop."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from deepcrawl.settings._base import Section, User

__all__ = ["FormSettings", "KeywordSettings", "QuerySettings"]


class FormSettings(Section):
    """The form critic (ACHE section 3.4) and the safety policy; the critic's thresholds and
    how a form is filled are constants of :mod:`deepcrawl.forms.critic` and
    :mod:`deepcrawl.search`."""

    refused_words: User[tuple[str, ...]] = (
        "login", "log in", "sign in", "signin", "sign up", "signup", "register",
        "registration", "password", "newsletter", "comment", "post", "reply", "contact",
    )  # fmt: skip
    """Words that mark a form or a clickable element as account-changing, on top of the safety
    rule's (:mod:`deepcrawl.safety`): such forms are never submitted, such elements never
    clicked (links are judged by the safety rule alone). Extend with care."""
    model_cache_dir: User[Path | None] = None
    """Where fitted critic models are cached (one file per deepcrawl, scikit-learn and corpus
    version). None: ``~/.cache/deepcrawl``."""
    fields: User[dict[str, str]] = Field(default_factory=dict)
    """Values fixed for fields of the search form on every query, by field name (``--field
    NAME=VALUE``; in TOML ``fields = {category = "history"}``), checked against the form before
    the first query. Empty: a resumed crawl keeps those its stored queries were sent with."""
    form: User[int | str | None] = None
    """The form to query where the page holds several (``--form``): its number in ``deepcrawl
    forms URL``'s list (from 1) or a CSS selector. None: the form the critic scores best."""


class KeywordSettings(Section):
    """The keyword manager (Hernández et al., "The Keyword Manager")."""

    policy: Literal["greedy", "random", "frequency"] = "greedy"
    """Query selection: Ntoulas, Zerfos & Cho's (JCDL 2005) adaptive greedy policy, or their
    random and generic-frequency baselines."""
    language: User[str] = "en"
    """Language of the bundled word lists used (``keywords/<language>-frequent.txt``)."""
    keywords_file: User[Path | None] = None
    """The user's own keyword list (``--keywords FILE``), queried before the frequent words."""
    stopword_probes: tuple[str, ...] = ("the", "a", "of")
    """Stop words submitted first to learn whether the site accepts them (Hernández et al.:
    sites differ); dropped from the word lists if not."""
    page_cost: float = 0.0
    """Cost of one further result page relative to a submission, in the greedy policy's
    new-records-per-cost estimate (0: minimise submissions, 1: minimise requests)."""
    estimator: Literal["chao1", "schnabel", "chapman"] = "chao1"
    """Capture–recapture estimator of the database size (see deepcrawl/keywords/estimate.py)."""
    min_term_length: int = 2
    """Shorter words of downloaded records are never used as queries."""
    seed: int = 0
    """Seed of the random policy."""
    example_queries: int = 5
    """xCrawl queries derived from the ``--like`` pages, sent after the user's words and before
    any learnt word (the paper sends them all: one sample's words are rare). Not from the paper."""
    records_frame_share: float = 0.9
    """A term on more than this share of the fetched record pages (twenty at least) is their
    template's, not a record's: not a word of the record pages' source (0–1; 1: off). Not from
    a paper."""
    frame_query_terms: int = 4
    """Where the site refuses stop words, the template's commonest terms (this many at most) are
    sent once as one query before the learnt words: a search indexing whole pages lists every
    record for them. 0: off. Not from a paper."""


class QuerySettings(Section):
    """The query loop and its rules (:mod:`deepcrawl.querying`): budgets, the words' saturation
    and the schedule of their sources, paging, deepening, and when the querying stops."""

    max_queries: User[int] = 500
    """Query budget of one crawl (form submissions)."""
    max_cost: User[int | None] = None
    """Request budget of one crawl's querying (submissions plus result pages); None: no limit."""
    max_result_pages: int = 50
    """Result pages followed per query at most, or as many as the list's reported total fills
    if more (:func:`~deepcrawl.querying.paging.page_cap`), up to ``max_list_pages``."""
    max_list_pages: int = 5000
    """Result pages of one list at most, whatever total it reports: a guard against a total
    that lies (a pager that goes on past it is a trap)."""
    identical_window: int = 5
    """This many successive queries returning the same non-empty results end the crawl (the
    form ignores its keyword)."""
    max_consecutive_errors: int = 5
    """This many successive failed queries (error page, timeout) end the crawl."""
    saturation_window: int = 20
    """Saturation is judged over this many most recent queries."""
    saturation_min_new: int = 1
    """Fewer new records than this over the window means the source is exhausted."""
    saturation_records: int | None = 200
    """Saturation counted in results too: the latest queries showed this many results between
    them and fewer than ``saturation_min_new`` new records (sooner than the window when result
    pages are big). None: off."""
    saturation_fraction: float = 0.05
    """The window's queries, and the results ``saturation_records`` counts, must also have shown
    this share of the records known (by queries and links) without a new record, unless the
    window showed none: the evidence grows with the site (0–1; 0: off)."""
    saturation_max_missing: float = 0.5
    """Saturation is not declared while the capture–recapture estimate says more than this share
    of the records is missing and a source of words is untried: the saturated source is left
    instead (0–1; 1: off). Not from a paper."""
    source_empty_run: int = 5
    """A source of words (the examples', the result texts', the record pages') is left once this
    many of its queries in a row found nothing. 0: never. Not from a paper."""
    source_trial_queries: int = 5
    """A saturated source of words is left for the next untried one, which gets this many
    queries to bring a new record; saturation is declared once every untried source failed its
    trial. 0: off (switch only while most records are missing). Not from a paper."""
    source_trial_share: float = 0.0
    """A source's trial is this share of the queries made, where that is more than
    ``source_trial_queries`` (0–1; 0: off). Not from a paper."""
    paging_min_new: float = 1.0
    """A query's paging stops once a further result page is expected to bring fewer records new
    to the crawl than this (their share on its pages so far times the page size; 0: read every
    page). Not from a paper."""
    paging_min_new_whole: float = 0.3
    """``paging_min_new`` for a list without a total holding ``stop_complete_share`` of the
    records known or more: read to its end, such a list is evidence for
    ``stop_complete_coverage``. Not from a paper."""
    paging_window: int = 0
    """Without a usable total, a query's next page is expected to bring the mean of the records
    new to the crawl on its latest this-many pages (0: every page read since the total was
    refuted, or since the first). Not from a paper."""
    paging_prior_pages: float = 1.0
    """Without a total, a list's next page is expected to bring at least the crawl's estimate of
    a page's missing records, counted as this many pages beside the pages read (not for a list
    whose total its pages refuted; 0: the pages read alone decide). Not from a paper."""
    paging_lead_pages: int = 3
    """Result pages a list may show before its first wanted record and still be read on, when
    the setup phase's lists showed that lead (``paging_lead_lists`` of them or more): a
    site-wide search lists the same help pages first for every word. 0: none."""
    paging_lead_lists: int = 2
    """Setup-phase lists that must show a lead before the records for it to be read past."""
    paging_check_pages: int = 1
    """The estimate from a list's total is refuted for the list once this many pages read after
    it brought less than ``paging_check_share`` of what it predicted. 0: never tested."""
    paging_check_share: float = 0.5
    """See ``paging_check_pages``: the share of the predicted new records (0–1) under which the
    pages read refute the estimate from the total."""
    paging_distrust_after: int = 3
    """Once this many lists, and half of those tested or more, refuted their total's estimate,
    the search's totals are no longer used (it matches substrings or stems, or counts other
    content). 0: totals always used."""
    fixed_order_share: float = 0.9
    """A result list is in a fixed order (by key or name, not relevance) when this share of
    the steps between neighbouring records go one way (0.5–1): its first pages do not test its
    total (:mod:`~deepcrawl.querying.order`). Not from a paper."""
    fixed_order_lists: int = 2
    """Lists in a fixed order that make the search's order fixed (and more than in none; 0:
    never judged fixed)."""
    partition_min_new: float = 1.0
    """A list the search cuts short is split by the form's fields (one value a query), a field
    kept while its sub-lists bring this many new records a request (0: no splitting;
    :mod:`~deepcrawl.querying.partition`). Madhavan et al. 2008's templates."""
    partition_trial: int = 3
    """Sub-lists of one field read before ``partition_min_new`` judges the field."""
    deepen_min_new: float = 0.2
    """Once the words are spent or bring nothing new, the lists asked are read again, deeper,
    while a re-read is expected to bring this many missing records per request (and each further
    page this many). 0: off. Not from a paper."""
    stop_fruitless_queries: int = 20
    """Querying ends after this many queries in a row brought no new record, whatever the
    estimate or the totals say; ``stop_fruitless_share`` raises it on long crawls. 0: off."""
    stop_fruitless_share: float = 0.1
    """The run of fruitless queries that ends querying is at least this share of the queries
    made (0–1): a long crawl's tail meets twenty fruitless queries by chance."""
    stop_checked_records: int | None = 300
    """Stop querying once the latest queries' lists held this many records (by their totals)
    and, by the fetched record pages' words, fewer than ``stop_checked_share`` of them are
    missing; ``stop_checked_fraction`` raises it on large sites. None: off."""
    stop_checked_fraction: float = 0.2
    """The records ``stop_checked_records`` asks for at least, as a share of the records known
    (by queries and links, 0–1): over a long tail a small window meets a lucky run of lists
    sooner or later. Not from a paper."""
    stop_checked_lists: int = 5
    """The lists ``stop_checked_records`` asks for at least, however many records fewer lists
    hold: the lists of the commonest words hold nearly the same records. Not from a paper."""
    stop_checked_share: float = 0.01
    """The share of missing records (0–1) under which ``stop_checked_records`` stops the crawl:
    an estimate of the share of the site's records missed."""
    stop_checked_scaled: bool = True
    """Whether a list's count scaled by its match share (a search matching stems or substrings:
    :meth:`~deepcrawl.keywords.known.KnownTexts.match_share`) is evidence for
    ``stop_checked_records``; off, such lists are none."""
    stop_keys_lists: int = 5
    """Lists in a row showing records, none new, that end the querying once the records' keys
    (their URLs' last numbers) run from 1 to the highest with none missing, where the search
    lists the highest key first (:func:`~deepcrawl.querying.stops.keys_complete`). 0: off."""
    stop_whole_lists: int = 3
    """Lists asked after a list read to its end that showed every match it reported and holds
    every record known, each showing records and none outside it, that end the querying
    (:func:`~deepcrawl.querying.stops.whole_listed`). 0: off."""
    stop_complete_coverage: float = 0.99
    """Stop querying once the records known reach this share of the database's size as
    estimated from the lists read to their end (:func:`~deepcrawl.keywords.estimate.lists_estimate`)
    and exceed it by no more than that share. 1.0 or more: off. Not from a paper."""
    stop_complete_lists: int = 2
    """Result lists read to their end that ``stop_complete_coverage`` needs at least."""
    stop_complete_share: float = 0.5
    """The share of the records known (0–1) a list read to its end must hold to count for
    ``stop_complete_coverage``: only the words most records hold occur nearly independently."""
    stop_complete_overlap: int = 50
    """Records the lists counting for ``stop_complete_coverage`` hold again (the recaptures) at
    least: the estimate's relative error is about 1/√recaptures."""
    stop_coverage: float = 1.0
    """Stop querying once the capture–recapture estimate says this share of the wanted records
    is reached and the last ``stop_patience`` queries brought none new (1.0 or more: never; the
    estimate underrates the rare-word records of the tail)."""
    stop_patience: int = 5
    """Queries in a row without a new wanted record before ``stop_coverage`` may stop the crawl."""
    runaway_window: int = 40
    """The latest record pages the repeat rule judges (:mod:`deepcrawl.querying.runaway`): once
    ``runaway_repeat_share`` of them repeat a main text fetched before, querying and link
    following stop. 0: off."""
    runaway_repeat_share: float = 0.5
    """The share of repeats (0–1) among the latest ``runaway_window`` pages that stops a crawl."""
    runaway_factor: float = 4.0
    """Querying and link following stop once the records delivered pass this many times those
    the estimate and the lists' largest total say exist, plus ``runaway_slack``. 0: off."""
    runaway_slack: int = 200
    """Records delivered past ``runaway_factor`` times those known to exist before that rule
    holds: records of links and sitemaps, which no query counts."""
