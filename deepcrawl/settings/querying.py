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
    """The query loop and its rules (:mod:`deepcrawl.querying`): budgets, the words' saturation,
    paging, deepening, and when the querying stops. The rules' finer thresholds are named
    constants beside the rule or measure each tunes, in the modules of :mod:`deepcrawl.querying`."""

    max_queries: User[int] = 500
    """Query budget of one crawl (form submissions)."""
    rules: tuple[str, ...] = (
        "runaway",
        "empty-query",
        "stopword-probe",
        "source-schedule",
        "fruitless-run",
        "list-of-everything",
        "whole-lists",
        "frame-first",
        "complete-a-list",
        "read-on-cut-lists",
        "split-cut-lists",
        "coverage-estimate",
        "totals-covered",
        "numbered-keys",
        "next-word",
        "deepen-lists",
        "words-spent",
    )
    """The querying's rules by name, in the order the loop asks them after every query (a proof
    before an estimate): the first that decides names the next list to read or stops the
    querying (:mod:`deepcrawl.querying.registry`). Leave one out to switch it off."""
    max_cost: User[int | None] = None
    """Request budget of one crawl's querying (submissions plus result pages); None: no limit."""
    max_result_pages: int = 50
    """Result pages followed per query at most, or as many as the list's reported total fills
    if more (:func:`~deepcrawl.querying.totals.page_cap`), up to ``max_list_pages``."""
    max_list_pages: int = 5000
    """Result pages of one list at most, whatever total it reports: a guard against a total
    that lies (a pager that goes on past it is a trap)."""
    saturation_window: int = 20
    """Saturation is judged over this many most recent queries."""
    paging_min_new: float = 1.0
    """A query's paging stops once a further result page is expected to bring fewer records new
    to the crawl than this (their share on its pages so far times the page size; 0: read every
    page). Not from a paper."""
    partition_min_new: float = 1.0
    """A list the search cuts short is split by the form's fields (one value a query), a field
    kept while its sub-lists bring this many new records a request (0: no splitting;
    :mod:`~deepcrawl.querying.partition`). Madhavan et al. 2008's templates."""
    deepen_min_new: float = 0.2
    """Once the words are spent or bring nothing new, the lists asked are read again, deeper,
    while a re-read is expected to bring this many missing records per request (and each further
    page this many). 0: off. Not from a paper."""
    stop_fruitless_queries: int = 20
    """Querying ends after this many queries in a row brought no new record, whatever the
    estimate or the totals say; a share of the queries made raises it on long crawls
    (:data:`~deepcrawl.querying.stops.STOP_FRUITLESS_SHARE`). 0: off."""
    stop_checked_records: int | None = 300
    """Stop querying once the latest queries' lists held this many records (by their totals)
    and, by the fetched record pages' words, almost none of them are missing; a share of the
    records known raises it on large sites (:mod:`~deepcrawl.querying.stops`). None: off."""
    stop_whole_lists: int = 3
    """Lists asked after a list read to its end that showed every match it reported and holds
    every record known, each showing records and none outside it, that end the querying
    (:func:`~deepcrawl.querying.stops.whole_listed`). 0: off."""
