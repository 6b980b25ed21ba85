"""How to reach the next page of a query's results, whatever style the site uses.

Three styles are common, and each is recognised from a :class:`~deepcrawl.search.results.ResultPage`
alone, so the browser and the plain-HTTP path share the rules:

1. *next links*: ``rel="next"`` (on an ``<a>`` or a ``<link>``), or an anchor whose whole text
   says "Next", "»", "More results" …;
2. *page parameters*: numbered links (``1 2 3 …``) whose target differs from the current page
   only in a page-like parameter (``page``, ``p``, ``start``, ``offset`` …); the link numbered
   one more than the current page is the next one — or, where the pager links no page that far
   while the page reports results beyond it ("91 - 100 of 241"), the current URL with the
   number after its own;
3. *form turns*: the result form's own submit buttons, and links whose script fills its hidden
   fields and submits it (:mod:`deepcrawl.page.form_turns`): "Next", or the number after the
   current page's — replayed without the browser where the form's submission can be;
4. *scripted controls*: a "Load more" / "Show more" button that appends results, a "Next"
   button without an ``href``, or the numbered button after the current page's, where a
   script fetches the page it names (browser only).

:func:`pager_urls` names the links that belong to the pager, so they are not taken for results;
:func:`brings_new_links` is where paging stops whatever the pager offers: a page that shows no
link the earlier ones did not (a site repeating its last page, a list that stopped growing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

from deepcrawl.search.results import shown_range
from deepcrawl.urls import query_pairs, query_separator

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from deepcrawl.page.fetched import Link
    from deepcrawl.page.form_turns import FormTurn
    from deepcrawl.search.results import ResultPage

__all__ = [
    "MORE_TEXT",
    "NEXT_TEXT",
    "PAGE_PARAMS",
    "PageTurn",
    "brings_new_links",
    "header_next",
    "next_page",
    "page_number_of",
    "pager_urls",
]

#: Whole anchor texts that mean "the next page of results".
NEXT_TEXT = re.compile(
    r"^(?:next(?:\s+page)?|more\s+results|older(?:\s+\w+)?|suivant|weiter|siguiente|nächste"
    r"|[›»>→]+|next\s*[›»>→]+|[›»>→]+\s*next)$",
    re.IGNORECASE,
)
_PREV_TEXT = re.compile(
    r"^(?:prev(?:ious)?(?:\s+page)?|newer(?:\s+\w+)?|[‹«<←]+|[‹«<←]+\s*prev(?:ious)?"
    r"|prev(?:ious)?\s*[‹«<←]+|first|last|first\s*[‹«<←]+|last\s*[›»>→]+|[‹«<←]+\s*first"
    r"|last\s*[›»>→]+)$",
    re.IGNORECASE,
)
#: Texts of scripted controls that append results.
MORE_TEXT = re.compile(
    r"^(?:load|show|see|view|get)\s+more(?:\s+\w+){0,2}$|^more(?:\s+\w+)?$", re.IGNORECASE
)
#: Query parameters that number result pages (or offsets into the result list).
PAGE_PARAMS = frozenset(
    {"page", "p", "pg", "pagenum", "page_no", "pageno", "pagenumber", "paged", "start", "offset"}
    | {"from", "skip", "pn", "pos", "seite"}
)
_SPACE = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"^(?:\.{2,}|…)$")
#: Query parameters that number result pages (not offsets), as ``page_number_of`` reads them.
_NUMBER_PARAMS = ("page", "p", "pg", "pagenum", "page_no", "pageno", "pagenumber", "paged", "pn")
#: One of them in a URL's query, ``&`` or ``;`` separated (some CGI searches use ``;``).
_PAGE_NUMBER = re.compile(r"[?;&](?:" + "|".join(_NUMBER_PARAMS) + r")=(\d+)(?=$|[;&#])")


@dataclass(frozen=True, slots=True)
class PageTurn:
    """How to get the next page.

    Attributes:
        kind: ``link`` (load ``url``), ``click`` (click ``locator``; the results are replaced),
            ``more`` (click ``locator``; results are appended) or ``submit`` (submit the page's
            form with ``trigger``'s fields, or click ``locator``; the results are replaced).
        url: the next page's URL (``link``).
        locator: the control to click (``click``, ``more``).
        text: the link's or control's text.
        how: which rule found it (``rel``, ``text``, ``number``, ``button``, ``form``).
        trigger: the fields a ``submit`` turn sets (a button's name and value, the fields a
            pager link's script fills).
    """

    kind: Literal["link", "click", "more", "submit"]
    url: str = ""
    locator: str = ""
    text: str = ""
    how: str = ""
    trigger: tuple[tuple[str, str], ...] = ()


def _text(link: Link) -> str:
    return _SPACE.sub(" ", link.text).strip()


def _query(url: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(url)
    return parts.path or "/", dict(query_pairs(parts.query))


def page_number_of(url: str) -> int | None:
    """The page number a URL's page parameter names (``page=3`` → 3), or None."""
    _path, params = _query(url)
    for name in _NUMBER_PARAMS:
        value = params.get(name, "")
        if value.isdigit():
            return int(value)
    return None


def _is_page_link(link: Link, current: str) -> bool:
    """Numbered link to another page of the same results (only page-like parameters differ)."""
    if not _text(link).isdigit():
        return False
    here_path, here = _query(current)
    path, params = _query(link.url)
    if path != here_path:
        return False
    differing = {k for k in here.keys() | params.keys() if here.get(k) != params.get(k)}
    return bool(differing & PAGE_PARAMS) or not differing - {"sid", "session", "sessionid"}


def pager_urls(page: ResultPage) -> set[str]:
    """URLs of the page's pager links: next / previous / first / last, page numbers."""
    found: set[str] = set()
    for link in page.links:
        rel = set(link.rel.split())
        text = _text(link)
        by_rel = bool(rel & {"next", "prev", "previous", "first", "last"})
        by_text = bool(text) and bool(NEXT_TEXT.match(text) or _PREV_TEXT.match(text))
        if by_rel or by_text or _is_page_link(link, page.url):
            found.add(link.url)
    return found


def next_page(page: ResultPage, number: int, visited: Collection[str]) -> PageTurn | None:
    """How to reach the page after ``page``, or None when it is the last one.

    Args:
        page: the current result page.
        number: its 1-based number among the query's result pages.
        visited: URLs already fetched for this query (never turned to again).

    Returns:
        The first rule that applies, in the order of the module docstring.
    """
    seen = set(visited) | {page.url}
    for link in page.links:
        if "next" in link.rel.split() and link.url not in seen:
            return PageTurn("link", url=link.url, text=_text(link), how="rel")
    for link in page.links:
        text = _text(link)
        if text and NEXT_TEXT.match(text) and link.url not in seen:
            return PageTurn("link", url=link.url, text=text, how="text")
    wanted = str(number + 1)
    for link in page.links:
        if _text(link) == wanted and link.url not in seen and _is_page_link(link, page.url):
            return PageTurn("link", url=link.url, text=wanted, how="number")
    if (url := _past_the_pager(page, number)) is not None and url not in seen:
        return PageTurn("link", url=url, text=str(number + 1), how="past pager")
    if (turn := _form_turn(page, wanted)) is not None:
        return PageTurn(
            "submit", locator=turn.locator, text=turn.text, how="form", trigger=turn.trigger
        )
    for control in page.clickables:
        if control.kind == "more":
            return PageTurn("more", locator=control.locator, text=control.text, how="button")
    for control in page.clickables:
        if control.kind == "next":
            return PageTurn("click", locator=control.locator, text=control.text, how="button")
    for control in page.clickables:
        if control.kind == "number" and control.text == wanted:
            return PageTurn("click", locator=control.locator, text=wanted, how="number button")
    return None


def _form_turn(page: ResultPage, wanted: str) -> FormTurn | None:
    """The form turn to the next page: "Next", else the page numbered ``wanted``, else an
    ellipsis after the last page number shown (a pager showing ten numbers at a time links the
    next ten so)."""
    turns = page.turns
    found = [t for t in turns if NEXT_TEXT.match(t.text)] + [t for t in turns if t.text == wanted]
    if found:
        return found[0]
    numbers = [i for i, t in enumerate(turns) if t.text.isdigit()]
    after = numbers[-1] if numbers else len(turns)
    return next((t for t in turns[after + 1 :] if _ELLIPSIS.match(t.text)), None)


def _past_the_pager(page: ResultPage, number: int) -> str | None:
    """The next page's URL where the pager stops linking pages before the list ends.

    Some pagers link a fixed number of pages only (ten numbered buttons, no "next" on the
    last), while the page says results lie beyond ("Documents 91 - 100 of 241"). Where the
    page's own URL numbers it by a page parameter (``page=10``) and a link of the pager
    differs from it in that number alone, the next page is that URL with the number after it;
    a site that does keep results past its buttons answers it, one that does not costs a
    request and shows no new link (:func:`brings_new_links`).
    """
    found = shown_range(page)
    if found is None or found[1] >= found[2]:
        return None
    query_at = page.url.find("?")
    match = _PAGE_NUMBER.search(page.url, query_at) if query_at >= 0 else None
    if match is None or int(match.group(1)) != number:
        return None
    head, tail = page.url[: match.start(1)], page.url[match.end(1) :]
    numbered = (
        link.url[len(head) : len(link.url) - len(tail)]
        for link in page.links
        if link.url.startswith(head) and link.url.endswith(tail)
    )
    if not any(n.isdigit() and int(n) != number for n in numbered):
        return None  # no pager link numbers its pages this way
    return f"{head}{number + 1}{tail}"


def brings_new_links(pages: Sequence[ResultPage]) -> bool:
    """Whether the last of a query's result pages shows a link the earlier ones did not."""
    before = {link.url for page in pages[:-1] for link in page.links}
    return any(link.url not in before for link in pages[-1].links)


#: A ``Link`` header's target with ``rel=next`` among its relations (RFC 8288).
_LINK_NEXT = re.compile(r"<([^>]*)>\s*;[^,]*?\brel\s*=\s*\"?[^\",]*\bnext\b", re.IGNORECASE)


def header_next(headers: Mapping[str, str], url: str) -> str:
    """The next page a response names in its headers, absolute; empty when none.

    A list fetched by a script (a "load more" feed, an API) often names its next page outside
    its body: ``Link: <…?page=2>; rel="next"`` (RFC 8288, as REST APIs page), or
    ``X-Next-Page`` with the next page's number (``2``: set as the URL's page-number
    parameter, ``page`` where it has none) or its URL. ``headers`` have lower-cased names.
    """
    if (found := _LINK_NEXT.search(headers.get("link", ""))) is not None:
        return urljoin(url, str(found[1]).strip())
    value = headers.get("x-next-page", "").strip()
    if not value.isdigit():
        return urljoin(url, value) if value else ""
    parts = urlsplit(url)
    params = query_pairs(parts.query)
    name = next((k for k, _v in params if k in _NUMBER_PARAMS), "page")
    params = [(k, v) for k, v in params if k != name] + [(name, value)]
    encoded = urlencode(params)
    if query_separator(parts.query) == ";":  # as the site writes its parameters
        encoded = encoded.replace("&", ";")
    return urlunsplit(parts._replace(query=encoded))
