"""Bigger result pages: a site's "results per page" control, set to its largest value.

Every result page costs a request whatever it holds, so a crawl that reads ten results a page
spends five times the requests of one that reads fifty. Sites say how many they show in two
ways, and both are recognised here:

* a form ``<select>`` whose name or label reads as a page size (``per_page``, ``limit``,
  "Results per page", "Show") and whose options are numbers: :func:`page_size_choice` picks its
  largest option for the form filler;
* a page-size query parameter in a results URL or a JSON data URL (``limit``, ``per_page``,
  ``rows`` …): :func:`with_page_size` sets it. Whether the site honours the value is for the
  caller to check (it lists more results, or it does not), since many clamp it silently;
* links of a result page that offer the same results at other sizes ("show 20 | 50 | 100"):
  :func:`offered_page_size` picks the largest sensible one; a GET form's URL template is then
  made from it (:meth:`FormSearch <deepcrawl.search.form_search.FormSearch>` checks it first).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit, urlunsplit

from deepcrawl.search.pagination import PAGE_PARAMS
from deepcrawl.urls import query_pairs, query_separator

if TYPE_CHECKING:
    from collections.abc import Iterable

    from deepcrawl.page.form import Form

__all__ = [
    "DATA_PAGE_SIZE",
    "PAGE_SIZE_CEILING",
    "PAGE_SIZE_PARAMS",
    "offered_page_size",
    "page_size_choice",
    "page_size_param",
    "with_page_size",
]

#: Query parameters that set how many results one page (or one data request) holds.
PAGE_SIZE_PARAMS = (
    "limit", "per_page", "perpage", "page_size", "pagesize", "size", "rows", "count", "num",
    "max", "hits", "n",
)  # fmt: skip
_SIZE_WORDS = re.compile(
    r"per[\s_-]?page|page[\s_-]?size|\blimit\b|\brows\b|results?\s+(?:per|on\s+each)|\bshow\b"
    r"|items?\s+per|\bdisplay\b|^(?:" + "|".join(PAGE_SIZE_PARAMS) + r")$",
    re.IGNORECASE,
)
#: Page size asked of a JSON data request's size parameter (``limit``, ``per_page`` …): each
#: result page costs a request, and the size is kept only where the response then holds more.
DATA_PAGE_SIZE = 50
#: The largest page size chosen from a form's select or a page's size links (a data request is
#: asked :data:`DATA_PAGE_SIZE`): a site offering "all" (or 10,000) is not taken up on it, a
#: page that large is slow to serve and to read.
PAGE_SIZE_CEILING = 200


def _number(text: str) -> int | None:
    digits = text.strip()
    return int(digits) if digits.isdigit() else None


def page_size_choice(form: Form) -> dict[str, str]:
    """The largest value of each page-size select of ``form``, by field name.

    A select counts when its name or label reads as a page size and at least two of its
    options are numbers; values above :data:`PAGE_SIZE_CEILING` are left out.
    """
    chosen: dict[str, str] = {}
    for field in form.fields:
        if field.tag != "select" or not field.name:
            continue
        if not (_SIZE_WORDS.search(field.name) or _SIZE_WORDS.search(field.label)):
            continue
        sizes = [
            (n, o.value)
            for o in field.options
            if (n := _number(o.value)) is not None and 0 < n <= PAGE_SIZE_CEILING
        ]
        if len(sizes) >= 2:
            chosen[field.name] = max(sizes)[1]
    return chosen


def page_size_param(url: str) -> str | None:
    """The page-size parameter ``url`` already carries (with a number), or None."""
    params = dict(query_pairs(urlsplit(url).query))
    for name in PAGE_SIZE_PARAMS:
        if _number(params.get(name, "")) is not None:
            return name
    return None


def with_page_size(url: str, name: str, size: int) -> str:
    """``url`` with its parameter ``name`` set to ``size`` (added when missing)."""
    parts = urlsplit(url)
    params = query_pairs(parts.query)
    if any(k == name for k, _v in params):
        params = [(k, str(size) if k == name else v) for k, v in params]
    else:
        params.append((name, str(size)))
    encoded = urlencode(params)
    if query_separator(parts.query) == ";":  # as the site writes its parameters
        encoded = encoded.replace("&", ";")
    return urlunsplit(parts._replace(query=encoded))


def offered_page_size(urls: Iterable[str], keyword: str) -> tuple[int, str] | None:
    """The largest page size a result page's links offer for the same query, and its link.

    A size link carries the query's keyword and a numeric page-size parameter, and starts the
    list at its beginning (no page parameter, or one of 0 or 1 — "next 20" links carry the
    size too, further on). It is an offer only when the links name at least two sizes, so a
    next link's size is never taken for a choice; sizes above :data:`PAGE_SIZE_CEILING` are left
    out, as in :func:`page_size_choice`.

    Args:
        urls: the links of the query's first result page.
        keyword: the query (the links must carry it, or they belong to another list).

    Returns:
        (size, URL) of the largest offer, or None when the page offers no choice.
    """
    wanted = keyword.strip().casefold()
    offers: dict[int, str] = {}
    for url in urls:
        params = dict(query_pairs(urlsplit(url).query))
        if not wanted or wanted not in {v.strip().casefold() for v in params.values()}:
            continue
        if any(params.get(name, "0") not in {"", "0", "1"} for name in PAGE_PARAMS):
            continue
        name = page_size_param(url)
        if name is None:
            continue
        size = int(params[name])
        if 0 < size <= PAGE_SIZE_CEILING:
            offers.setdefault(size, url)
    if len(offers) < 2:
        return None
    size = max(offers)
    return size, offers[size]
