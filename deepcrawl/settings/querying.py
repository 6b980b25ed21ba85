"""Settings of querying a search form: the form critic and the keyword manager."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from deepcrawl.settings._base import Section

__all__ = ["FormSettings", "KeywordSettings"]


class FormSettings(Section):
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
    typing_wait_s: float = 10.0
    """A form that submits to its own page (a search box over a client-side index) is first
    tried by typing alone: this long at most for the typed keyword to show results on the same
    live page — then no submission (no page load) is needed, for this query or the next. Not
    from a paper: a search-as-you-type answers within a few hundred milliseconds once its index
    is loaded; loading an 800 KB index on a busy machine took seconds."""
    typing_tries: int = 3
    """Queries whose submission showed results that typing had not shown before typing is
    given up for the form (the first ones may come before its script has loaded its index)."""
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
    fields: dict[str, str] = Field(default_factory=dict)
    """Values fixed for fields of the search form on every query, by field name
    (``--field NAME=VALUE``; in TOML ``fields = {category = "history", postcode = "AB1 2CD"}``):
    a select's option (by value or text), a radio or checkbox value, a required text field the
    keywords do not go into. Checked against the form before the first query
    (:mod:`deepcrawl.forms.fields`). Empty: a resumed crawl keeps the values its stored
    queries were sent with."""
    form: int | str | None = None
    """The form to query when the page holds several (``--form``): its number in ``deepcrawl
    forms URL``'s list (from 1), or a CSS selector of the form (or of an element holding it).
    None: the form the critic scores best. A stored crawl keeps the form it found."""


class KeywordSettings(Section):
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
    empty_query: bool = True
    """Submit the empty query once, before any word: many searches answer it with every record
    (an issue tracker's or a data table's whole index), a few result pages where words take
    hundreds of queries. Not where the query field is required or typing searches."""
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
    records_frame_share: float = 0.9
    """A term on more than this share of the fetched record pages (twenty at least) is their
    template's ("History", "Author", "Date" on every issue page of a tracker), not a record's:
    the search does not index it, and the greedy policy, picking the commonest term once the
    estimate sees nothing missing, would send those first. 1: off. Not from a paper."""
    frame_query_terms: int = 4
    """Where the site refuses stop words, the template's commonest terms (this many at most)
    are sent once as one query, before the learnt words: most searches do not index a page's
    frame, and the query costs a request; a search engine that indexes whole pages (ht://Dig,
    a site's crawler-fed index) lists every record for them, where each word alone also lists
    other pages holding it (a twin linked as "Plain text"). The stop words a site accepts are
    that query already. 0: off. Not from a paper."""
    source_trial_queries: int = 5
    """Below ``saturation_max_missing`` too, a saturated source of words is left for the next
    untried one (the result-page entries', then the fetched record pages' words), which gets
    this many queries to bring a new record; saturation is declared once every untried
    source failed its trial. The estimate under-counts what one source never reaches: its
    words' queries re-catch the same records (Roundup's issue titles saturated at 228 of 240
    issues, the estimate saying ~3 missing; the rest are found by words of their messages).
    0: off (switch only while most records are missing). Not from a paper: five queries
    cost a site at saturation five requests or so."""
    source_trial_share: float = 0.0
    """A source's trial is this share of the queries made, if more than
    ``source_trial_queries``: a crawl that needed many words to saturate one source may need
    more to judge the next (Roundup after 165 queries: five record-page words found none of
    the 11 issues missing, ten found 7). Off by default: with 0.06 a trial on ht://Dig grew to
    ~25 queries, succeeded, and the crawl then ran past its 600 s cap instead of stopping —
    a crawl that stops by itself comes first. Not from a paper."""
    paging_min_new: float = 1.0
    """A query's paging stops once the records it is expected to bring per further result page
    fall below this (the share of records new to the crawl on its pages so far times the page
    size). Paper-free: 0.5–1 needed the fewest result pages for 98% of the records in a
    simulation of the fixture sites; 0 reads every page."""
    paging_min_new_whole: float = 0.3
    """``paging_min_new`` for a list without a total that holds ``crawl.stop_complete_share``
    of the records known or more (a word nearly every record holds), where less: read to its
    end, it is evidence for ``crawl.stop_complete_coverage``, the only stop evidence of a
    search reporting no total but the run of fruitless queries. Wagtail: at 1.0 "a" ended
    eight pages short of its end (~0.9 new records a page, new words' first pages bringing
    ~0.17) and 58 one-page queries followed; at 0.3 it was read to its end (23 pages, 19 new)
    and querying stopped there: harvest 0.672 → 0.79. Not from a paper."""
    paging_window: int = 0
    """Without a usable total (or once its estimate is refuted) a query's next page is expected
    to bring the mean of the records new to the crawl on its latest this-many pages (0: every
    page read, since the estimate's refutation if it was). A small window leaves a list whose
    pages stopped bringing new records at once, but a search that ranks in a fixed order puts
    the records the crawl lacks in runs late in its lists: a window of 2 cost Wagtail 4 of
    its 240 records (recall 0.971 against 0.988). Not from a paper."""
    paging_prior_pages: float = 1.0
    """Where the search reports no total, a list's next page is expected to bring the mean of
    the records new to the crawl on its pages read and, where it is more, of the crawl's own
    estimate of a page's unknown records (the page size times the share of records the
    capture–recapture estimate says are lacking), the estimate counting as this many pages:
    the records a crawl lacks sit spread through the lists of a search ranking in a fixed
    order, and one page bringing none of them ends no list while many are lacking (Wagtail:
    search pages 129 → 114). Never the other way: pages that brought more than the estimate
    are the list's own evidence (ht://Dig lost a record and 14 requests when the estimate cut
    its lists short), nor for a list whose total its pages refuted (ht://Dig again: 11
    requests for nothing). 0: the pages read alone decide. Not from a paper."""
    paging_check_pages: int = 1
    """The estimate from a list's total is put to the test by its next pages: once this many
    pages read after it brought less than ``paging_check_share`` of what it predicted, it is
    refuted for the list and the novelty of the pages since decides. 0: never tested. Not from
    a paper: one page, since the novelty rule then still reads on while that page brought
    ``paging_min_new`` records."""
    paging_check_share: float = 0.5
    """See ``paging_check_pages``: the share of the predicted new records under which the pages
    read refute the estimate from the total."""
    paging_distrust_after: int = 3
    """Once this many lists, and half of those put to the test or more, refuted their total's
    estimate, the search's totals are no longer used (paging, the result-list stop rule,
    deepening): it matches substrings or stems, or counts other kinds of content, so the
    fetched pages' words do not measure what its lists lack. 0: totals always used."""
    deepen_min_new: float = 0.2
    """Once the keyword manager's words are spent or bring nothing new, the lists already
    asked are read again, deeper (:meth:`QueryLoop.next_deepening
    <deepcrawl.crawler.queries.QueryLoop.next_deepening>`), while a re-read is expected to
    bring this many records the crawl lacks per request (its first pages, read before, paid
    again) and each further page this many. A large site's words run out before its lists are
    read: the books site at 100,000 records has 4,679 words, and its crawl stopped at recall
    0.949 with most lists read one page deep. 0: off (stop when the words are spent). Not
    from a paper: with 10 results a page, 0.2 reads on while a list lacks about 2%."""
