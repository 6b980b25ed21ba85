"""Settings of learning: the URL prototyper and the link learners."""

from __future__ import annotations

from deepcrawl.settings._base import Section, User

__all__ = ["LinkLearningSettings", "PrototypeSettings"]


class PrototypeSettings(Section):
    """The URL tokeniser and the probabilistic string prototyper (Hernández et al., "Tokeniser",
    "The String Prototyper"). The paper gives no numeric thresholds; the defaults below were tuned
    on the fixture sites and the synthetic benchmark (``benchmarks/prototypes_bench.py``)."""

    max_url_length: int = 4096
    """Longer URLs are refused by the URL normaliser and tokeniser (InvalidURLError); the store
    keeps URLs of up to 4,096 characters."""
    allowed_schemes: tuple[str, ...] = ("http", "https")
    """Schemes the tokeniser accepts; ``mailto:``, ``javascript:`` … are refused."""
    session_params: tuple[str, ...] = (
        "jsessionid", "phpsessid", "aspsessionid", "sid", "sessid", "sessionid", "session_id",
    )  # fmt: skip
    """Names (any case) of session id parameters, path (``;jsessionid=``) or query, dropped
    from the URL normal form when their value looks like an id (``?sid=17`` stays)."""
    session_value_min_length: int = 8
    """The shortest value of a ``session_params`` parameter taken for a session id (not a
    number)."""
    literal_threshold: float = 0.1
    """A token seen at a position in at least this share of the URLs below its tree node stays
    literal; rarer tokens merge into a typed wildcard (``markParts``; 0–1)."""
    min_support: int = 3
    """A literal needs at least this many URLs behind it."""
    numeric_literals: bool = False
    """Let frequent path values holding digits stay literal (off: ids, years, page numbers and
    ``section-2`` are variable unless they belong to a closed vocabulary)."""
    max_query_literals: int = 4
    """A query key whose values may split prototypes (``condition=new`` / ``condition=used``, as
    in the paper's Table 1) has at most this many distinct values; a key with more is variable."""
    query_split_max_values: int = 12
    """An optional query key with at most this many literal values splits a prototype, one per
    value: a mode (``view=print``) or an action on a page (``do=edit|revisions``), each another
    kind of page. 0: optional keys never split."""
    split_required_query_keys: bool = False
    """Let a key present in every URL split on its frequent values (``max_query_literals`` at
    most), as the paper's Table 1 splits ``condition=new|used``; off, such keys are variants of
    one kind (``/export?format=json|csv``)."""
    variant_params: tuple[str, ...] = (
        "utm_*", "sid", "sessionid", "session_id", "jsessionid", "phpsessid", "sessid", "fbclid",
        "gclid", "ref", "ref_", "referrer", "source", "page", "p", "pg", "offset", "start",
        "limit", "per_page", "sort", "order", "orderby", "dir",
    )  # fmt: skip
    """Query keys (globs, any case) that never split a prototype and never stay literal:
    tracking, session, paging and sorting parameters give variants of one kind of page."""
    closed_vocabulary_share: float = 0.1
    """When the distinct values at a path position number at most this share of the URLs there
    (a small closed vocabulary: site sections), every value stays literal, however rare (0–1)."""
    closed_vocabulary_max: int = 12
    """At most this many distinct values make a closed vocabulary whose every value (given
    ``min_support`` URLs) stays literal: the heads of a position's ids (``issue17``, ``user3``)
    and the values of a query key (``do=edit|revisions``)."""
    twin_share: float = 0.5
    """An optional query key splits a prototype when at least this share of the URLs holding it
    are twins of URLs without it (``title=X&oldid=7`` beside ``title=X``), each URL having at
    most ``closed_vocabulary_max`` twins (0–1)."""
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
    label_port: User[int] = 8765
    """Port of the ``deepcrawl label --web`` page (always on 127.0.0.1); 0: any free port."""
    thumbnails: User[bool] = True
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
    tag-path shingles and of their template text reaches this (0–1); otherwise the prototype is
    split."""
    layout_max_splits: int = 3
    """At most this many splits of the example's prototype by the layout check."""
    layout_widen_max: int = 16
    """Sibling prototypes of the ``--like`` example's (``/guides/<slug>/`` beside
    ``/community/<slug>/``) sampled at most, largest first; those whose pages look like the
    example get its label. 0: no widening. Not from a paper."""
    layout_widen_samples: int = 2
    """Pages of each sibling prototype fetched to compare with the example; all must reach
    ``layout_min_similarity`` (or be like a page of the example's own kind that is not)."""
    pick_min_records: int = 3
    """With no example, a kind of result link looks like records only with this many distinct
    URLs in the setup queries' result lists, shown by two queries or more."""
    pick_min_titled: float = 0.5
    """Distinct link texts per distinct URL a kind of records has at least (0–1): entries name
    their records by title, where sort, facet and pager links repeat a few words."""
    pick_recurrence: float = 2.0
    """A kind whose URLs come back this many times more often per URL than a kind with more
    records beside it is navigation (tag, category pages linked from every entry), not records."""
    pick_twin_share: float = 0.5
    """A kind whose URLs twin at least this share as many URLs of another kind (the record's
    URL with a path segment or query items added: edit, history, export) is no kind of records
    (0–1)."""
    pick_tie: float = 0.9
    """Two kinds of records tie when the second has at least this share of the first's distinct
    records (0–1); the crawl then names both."""
    layout_shingle: int = 4
    """Consecutive tag paths per shingle of a page's structure."""
    layout_template_words: int = 4
    """Text leaves of at most this many words are template text (labels, headings, menus)."""


class LinkLearningSettings(Section):
    """The link-learning strategies: ACHE's adaptive link learner (Barbosa & Freire, sections
    2-3), the apprentice (Chakrabarti et al.) and xCrawl (Shchekotykhin et al., sections 3-4).
    The papers' thresholds are constants of the strategies' modules (:mod:`deepcrawl.links`)."""

    prior: str = "builtin"
    """Prior of the link learners for finding search forms (ACHE's *Offline-Online*):
    ``"builtin"`` (paths to the forms of training sites, shipped with deepcrawl), the path of
    such a JSON file, or ``"none"`` (ACHE's *Online*: nothing known before the first form)."""
    hub_max_kinds: int = 2
    """Kinds of non-wanted pages (prototypes, else URL shapes) the normal phase tries at most as
    hubs beside the queries (:mod:`deepcrawl.links.hubs`); each try costs a request on every
    site. 0: no hub. Not from a paper."""
    discovery_strategy: User[str] = "ache"
    """Strategy of entry-point discovery (``deepcrawl discover``, and the setup phase when the
    start page has no searchable form): ACHE, the paper written for finding forms."""
    discovery_max_requests: User[int] = 1000
    """Request budget of entry-point discovery. Not from a paper."""
    navigate_strategy: User[str] = "ache"
    """Strategy of ``deepcrawl crawl --navigate``, which looks for the wanted records the
    queries did not return once the form is saturated."""
    navigate_max_requests: User[int] = 2000
    """Request budget of the ``--navigate`` phase. Not from a paper."""
