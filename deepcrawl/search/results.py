"""What a query returned: the result pages, their links, and whether they hold any results.

The form filler (browser) and the URL-template path (plain HTTP) both reduce every result page to
a :class:`ResultPage` — its URL, status, title, short text blocks, links and clickable "more"
controls — and judge it here, with the same rules whoever fetched it:

* an *error page*: an error status, or an error title or heading ("Internal server error");
* a *no results page*: a short message that says so ("No results for …", "Sorry, no products
  match …"), or no link that is not site chrome;
* *site chrome*: the links every page of the site shows (menus, footers). Hernández et al.'s
  prototyper should see record links, so :class:`ChromeFilter` learns chrome from the page a
  nonsense keyword gives (the site's "no results" page) and from links that recur on the result
  pages of every query, keyed by DOM path and text (a session id in a menu link's URL changes
  from query to query; its place and text do not).

:class:`QueryResult` is what one query gave; the keyword manager and the crawl consume it, and
:meth:`QueryResult.to_query_row` maps it onto the ``Query`` table.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from deepcrawl.page.form_turns import FormTurn, form_turns
from deepcrawl.page.html import parse_html
from deepcrawl.safety import SafetyRule
from deepcrawl.search.causes import QueryCause
from deepcrawl.settings import FormSettings

if TYPE_CHECKING:
    from collections.abc import Iterator

    from deepcrawl.page.fetched import FetchedPage, Link
    from deepcrawl.page.form import Form
    from deepcrawl.storage.tables import QueryBase

__all__ = [
    "PAGE_CAP_NOTE",
    "ChromeFilter",
    "Clickable",
    "LinkRole",
    "Outcome",
    "QueryResult",
    "ResultLink",
    "ResultPage",
    "error_marker",
    "no_results_marker",
    "page_from_fetched",
    "page_signature",
    "safe_turns",
    "shown_range",
    "total_results",
]

Outcome = Literal["ok", "no_results", "error", "rejected"]
#: How a query's ``error`` begins when the page cap, not the results, ended its paging.
PAGE_CAP_NOTE = "stopped at the page cap"
LinkRole = Literal["result", "pager", "chrome"]

_NOUNS = (
    r"(?:results?|matches|hits|products|items|records|entries|documents|articles|books|stories"
    r"|pages|posts|listings|titles|rows)"
)
_NO_RESULTS = re.compile(
    r"^\W*(?:sorry\W+)?(?:(?:there\s+(?:are|were)\s+)?(?:no|0|zero)\s+(?:\w+\s+){0,2}"
    + _NOUNS
    + r"\b"
    r"|(?:no|0)\s+\w+\s+(?:match|matched|found)"
    r"|nothing\s+(?:was\s+)?(?:found|matche[sd])"
    r"|(?:your\s+)?search\s+.{0,60}?(?:did\s+not|didn't|does\s+not)\s+match"
    r"|we\s+(?:could\s*n[o']t|did\s*n[o']t|were\s+unable\s+to)\s+find"
    r"|keine\s+treffer|aucun\s+r[ée]sultat|sin\s+resultados|nessun\s+risultato)",
    re.IGNORECASE,
)
_ERROR = re.compile(
    r"\b(?:internal\s+server\s+error|service\s+(?:temporarily\s+)?unavailable|bad\s+gateway"
    r"|gateway\s+time-?out|server\s+error|an\s+error\s+(?:has\s+)?occurred|something\s+went\s+wrong"
    r"|too\s+many\s+requests|request\s+failed|search\s+(?:is\s+)?(?:temporarily\s+)?unavailable"
    r"|try\s+again\s+later|database\s+error|^error\b)",
    re.IGNORECASE,
)
_TOTAL = re.compile(
    r"(?:^|\D)(\d{1,3}(?:[,.\u202f ]\d{3})+|\d+)\s+(?:\w+\s+){0,1}" + _NOUNS + r"\b", re.IGNORECASE
)
_NUMBER = r"(\d{1,3}(?:[,.]\d{3})+|\d+)"
_PLAIN_COUNT = re.compile(_NUMBER)
_OF_TOTAL = re.compile(r"\bof\s+(?:about\s+)?" + _NUMBER + r"\b", re.IGNORECASE)
#: "Documents 91 - 100 of 241", "Results 1–10 of about 1,204": where the page sits in the list.
_RANGE = re.compile(_NUMBER + r"\s*[-–—]\s*" + _NUMBER + r"\s+of\s+(?:about\s+)?" + _NUMBER)
_BLOCK_TAGS = ("p", "div", "span", "li", "td", "h1", "h2", "h3", "h4", "strong", "em", "section")
_BLOCK_CHARS = 240
#: Short texts of a page, from the top, where an error message is looked for.
_ERROR_BLOCKS = 3
#: The same on a page with an error status.
_STATUS_ERROR_BLOCKS = 12


def _collapse(text: str | None) -> str:
    # str.split's whitespace is the regex's \s, code point for code point, at a third its cost
    return " ".join(text.split()) if text else ""


@dataclass(frozen=True, slots=True)
class Clickable:
    """A scripted control on a result page that may bring more results.

    Attributes:
        locator: a CSS selector that finds it.
        text: its visible text.
        kind: ``more`` (appends results: "Load more"), ``next`` (replaces them: a "Next" button
            without an ``href``) or ``number`` (a numbered button of a pager that fetches the
            page it names by script).
    """

    locator: str
    text: str
    kind: Literal["more", "next", "number"]


@dataclass(slots=True)
class ResultPage:
    """One result page, reduced to what the rules of this module read.

    Attributes:
        url: where the page is (after redirects).
        status: the HTTP status of the page (or of the data request that filled it).
        title: the document title.
        blocks: short texts of the page (messages, headings, counts), in document order.
        links: its links.
        clickables: scripted controls that may bring more results (browser only).
        fetched_url: what to record as "submitted" for this page (the data request of a
            "load more", or ``url``).
        scrolls: a live list typed into, which renders more results as it is scrolled: its
            way on is scrolling, not a next link, so a missing next link does not end it.
        turns: controls that turn the page by submitting its form (the result form's own
            buttons, links whose script submits it: :mod:`deepcrawl.page.form_turns`).
    """

    url: str
    status: int = 200
    title: str = ""
    blocks: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    clickables: list[Clickable] = field(default_factory=list)
    fetched_url: str = ""
    scrolls: bool = False
    turns: list[FormTurn] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.fetched_url:
            self.fetched_url = self.url


def page_from_fetched(
    page: FetchedPage, *, form: Form | None = None, rule: SafetyRule | None = None
) -> ResultPage:
    """A :class:`ResultPage` from a page fetched over plain HTTP (title and blocks from lxml).

    Args:
        page: the fetched page.
        form: the search form (or group) whose results it shows: its ``<form>``'s other
            buttons may turn the page (:attr:`ResultPage.turns`).
        rule: the safety rule; a turn it refuses is left out (another group's button);
            default: the rule with the default ``forms.refused_words``.
    """
    title = ""
    blocks: list[str] = []
    turns: list[FormTurn] = []
    # an HTML page's tree is parsed once, for its links and here (FetchedPage.root)
    root = page.root() if page.is_html else parse_html(page.body) if page.body else None
    if root is not None:
        turns = safe_turns(form_turns(root, form), rule or _form_rule())
        title = _collapse(root.findtext(".//title"))
        # the parser keeps a script's or a style's content as text: an element inside one is
        # rare enough to be looked for once a page rather than once an element
        scripted = any(len(el) for el in root.iter("script", "style"))
        for el in root.iter(*_BLOCK_TAGS):
            if scripted and el.xpath("ancestor::script|ancestor::style"):
                continue
            text = _collapse(el.text_content())
            if text and len(text) <= _BLOCK_CHARS:
                blocks.append(text)
    return ResultPage(
        url=page.final_url or page.url,
        status=page.status,
        title=title,
        blocks=list(dict.fromkeys(blocks)),
        links=list(page.links),
        turns=turns,
    )


@functools.cache
def _form_rule() -> SafetyRule:
    return SafetyRule(FormSettings().refused_words)


def safe_turns(turns: list[FormTurn], rule: SafetyRule) -> list[FormTurn]:
    """The ``turns`` whose text and fields the safety rule does not refuse."""
    return [
        turn
        for turn in turns
        if not rule.text_reason(" ".join([turn.text, *(f"{n} {v}" for n, v in turn.trigger)]))
    ]


def no_results_marker(page: ResultPage) -> str | None:
    """The message by which the page says it found nothing, or None."""
    for text in (page.title, *page.blocks):
        if _NO_RESULTS.search(text):
            return text[:200]
    return None


def error_marker(page: ResultPage) -> str | None:
    """Why the page is an error page (status, error title or heading), or None.

    An error status comes with what the page says, when it says why ("HTTP status 400: Error:
    a postcode is required"): the user learns what the server wants.
    """
    # an error status says the page is one: its message may come further down than a heading
    depth = _STATUS_ERROR_BLOCKS if page.status >= 400 else _ERROR_BLOCKS
    heads = [page.title, *page.blocks[:depth]]
    said = [text for text in heads if text and len(text) <= 120 and _ERROR.search(text)]
    if page.status >= 400:
        why = max(said, key=len, default="")
        return f"HTTP status {page.status}" + (f": {why}" if why else "")
    return f"error page: {said[0][:120]}" if said else None


def _count_blocks(page: ResultPage) -> Iterator[str]:
    """The page's blocks short enough to be a count ("1 - 10 of 241"), not a text quoting one."""
    return (text for text in page.blocks if len(text) <= 160)


def total_results(page: ResultPage) -> int | None:
    """The result count the page reports ("37 results for …", "1–10 of 1,204"), or None."""
    for text in _count_blocks(page):
        if (count := reported_count(text)) is not None:
            return count
    return None


def reported_count(text: str) -> int | None:
    """The result count a short text reports ("37 results", "1–10 of 1,204", "1,204"), or
    None: what a page's count block and a data response's count written as text say alike."""
    if _PLAIN_COUNT.fullmatch(text.strip()):
        return int(re.sub(r"\D", "", text))
    match = _TOTAL.search(text) or _OF_TOTAL.search(text)
    digits = re.sub(r"\D", "", match.group(1)) if match else ""
    return int(digits) if digits else None


def shown_range(page: ResultPage) -> tuple[int, int, int] | None:
    """The page's place in its list as it reports it: (first, last, total) of "91 - 100 of
    241"; None when it reports none (or a range that makes no sense)."""
    for text in _count_blocks(page):
        if match := _RANGE.search(text):
            first, last, total = (int(re.sub(r"\D", "", g)) for g in match.groups())
            if 0 < first <= last <= total:
                return first, last, total
    return None


def _neutral(text: str, keyword: str) -> str:
    text = text.casefold()
    return text.replace(keyword.casefold(), "\x00") if keyword.strip() else text


def page_signature(page: ResultPage, keyword: str) -> frozenset[tuple[str, str]]:
    """The page's links as (DOM path, text) with the keyword blanked out of the texts.

    Two queries that got "the same page" (the form ignored its keyword, or both found nothing)
    have equal signatures even when the page echoes the keyword.
    """
    return frozenset((link.dom_path, _neutral(link.text, keyword)) for link in page.links)


class ResultLink(BaseModel):
    """One link found on a result page.

    Attributes:
        url: absolute URL.
        text: anchor text.
        dom_path: where it sits in the page (``html/body/main/ol/li[3]/a``).
        page: the number of the result page it was first found on (1-based).
        role: ``result`` (in the results area), ``pager`` (next, previous, page numbers) or
            ``chrome`` (menus and footers every page shows).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    text: str = ""
    dom_path: str = ""
    page: int = 1
    role: LinkRole = "result"


class QueryResult(BaseModel):
    """What one query gave: the pages fetched, their links, and the outcome.

    Attributes:
        keyword: the keyword typed into the query field.
        values: the other field values chosen (category selects), by field name.
        form_locator: the locator of the form used.
        form_action: where the form submits.
        method: how (``GET`` / ``POST``; ``GET`` for a URL template).
        via: ``browser`` (the form filled in Chromium) or ``http`` (a URL template).
        submitted: URLs of the result pages fetched, in order (a "load more" records the URL of
            the data request it triggered).
        links: every link of those pages, once per URL, with its role.
        pages: result pages fetched (1 for the submission, plus one per further page or click).
        first_page: the number in the list of the first page fetched: 1, or the page a
            resumed list started from (``QueryBackend.query``'s ``resume``).
        requests: HTTP requests the query cost, as a gate counted them (sub-resources included
            for the browser); 0 when no gate counted them for the query alone (in a crawl,
            the crawl's gate counts every request in the crawl's figures).
        outcome: ``ok``, ``no_results``, ``error`` or ``rejected`` (the safety policy refused the
            form: nothing was submitted).
        error: what went wrong (error and rejected outcomes), or a note (page cap reached).
        cause: why a query failed or brought nothing (:mod:`deepcrawl.search.causes`: a
            timeout, out of scope, robots.txt, throttled, blocked, an error page, no results);
            None for an ``ok`` outcome.
        total_results: the result count the site reported, if it shows one.
        elapsed_s: seconds the query took.
        data_urls: the script requests (XHR / fetch) of the browser that carried the keyword:
            where a scripted results page gets its data (:mod:`deepcrawl.search.data_api`).
    """

    model_config = ConfigDict(extra="forbid")

    keyword: str
    values: dict[str, str] = {}
    form_locator: str = ""
    form_action: str = ""
    method: str = "GET"
    via: Literal["browser", "http"] = "browser"
    submitted: list[str] = []
    links: list[ResultLink] = []
    pages: int = 0
    first_page: int = 1
    requests: int = 0
    outcome: Outcome = "ok"
    error: str | None = None
    cause: QueryCause | None = None
    total_results: int | None = None
    elapsed_s: float = 0.0
    data_urls: list[str] = []

    @property
    def result_links(self) -> list[ResultLink]:
        """Links of the results area only (no chrome, no pager links)."""
        return [link for link in self.links if link.role == "result"]

    @property
    def result_urls(self) -> list[str]:
        """URLs of :attr:`result_links`, in order."""
        return [link.url for link in self.result_links]

    def result_texts(self) -> dict[str, str]:
        """Anchor text of each result link, by URL (what the keyword manager learns terms from)."""
        return {link.url: link.text for link in self.result_links}

    def to_query_row(self, *, new_records: int = 0) -> QueryBase:
        """The row the ``Query`` table keeps for this query.

        Args:
            new_records: how many of its records no earlier query returned (the caller knows).
        """
        from deepcrawl.storage.tables import QueryBase

        return QueryBase(
            keyword=self.keyword[:512],
            submitted_url=(self.submitted[0] if self.submitted else "")[:4096],
            result_count=len(self.result_links),
            results_reported=self.total_results,
            new_records=new_records,
            result_pages=self.pages,
            outcome=self.outcome,
            error=self.error,
            field_values=dict(self.values),
        )


class ChromeFilter:
    """Tells site chrome from result links, keyed by (DOM path, text).

    Chrome is learnt two ways: :meth:`learn_baseline` takes the links of a page that holds no
    results (the answer to a nonsense keyword); :meth:`observe` counts, per query, which keys its
    result pages showed — a key seen in the results of at least ``min_queries`` queries and in
    at least ``share`` of all queries observed is chrome too.

    Args:
        min_queries: queries observed before recurrence can mark a key as chrome.
        share: share of the observed queries a key must appear in.
    """

    def __init__(self, min_queries: int = 10, share: float = 0.9) -> None:
        self.min_queries = min_queries
        self.share = share
        self.baseline: set[tuple[str, str]] = set()
        self._seen: Counter[tuple[str, str]] = Counter()
        self._queries = 0

    @staticmethod
    def key(link: Link | ResultLink) -> tuple[str, str]:
        """The identity of a link for chrome purposes."""
        return (link.dom_path, _collapse(link.text).casefold())

    def learn_baseline(self, links: list[Link]) -> None:
        """Every link of ``links`` (a page without results) is chrome."""
        self.baseline.update(self.key(link) for link in links)

    def observe(self, keys: set[tuple[str, str]]) -> None:
        """Count the link keys the result pages of one query showed."""
        self._queries += 1
        self._seen.update(keys)

    def is_chrome(self, link: Link | ResultLink) -> bool:
        """True when ``link`` is part of the site's chrome (as far as learnt so far)."""
        key = self.key(link)
        if key in self.baseline:
            return True
        if self._queries < self.min_queries:
            return False
        return self._seen[key] >= self.share * self._queries
