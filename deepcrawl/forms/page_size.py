"""Bigger result pages: a site's "results per page" control, set to its largest value.

Every result page costs a request whatever it holds, so a crawl that reads ten results a page
spends five times the requests of one that reads fifty. Sites say how many they show in two
ways, and both are recognised here:

* a form ``<select>`` whose name or label reads as a page size (``per_page``, ``limit``,
  "Results per page", "Show") and whose options are numbers: :func:`page_size_choice` picks its
  largest option for the form filler;
* a page-size query parameter in a results URL or a JSON data URL (``limit``, ``per_page``,
  ``rows`` …): :func:`with_page_size` sets it. Whether the site honours the value is for the
  caller to check (it lists more results, or it does not), since many clamp it silently.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from deepcrawl.forms.model import Form

__all__ = ["PAGE_SIZE_PARAMS", "page_size_choice", "page_size_param", "with_page_size"]

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
#: The largest page size ever asked for: a site offering "all" (or 10,000) is not taken up on
#: it, a page that large is slow to serve and to read.
MAX_PAGE_SIZE = 200


def _number(text: str) -> int | None:
    digits = text.strip()
    return int(digits) if digits.isdigit() else None


def page_size_choice(form: Form) -> dict[str, str]:
    """The largest value of each page-size select of ``form``, by field name.

    A select counts when its name or label reads as a page size and at least two of its
    options are numbers; values above :data:`MAX_PAGE_SIZE` are left out.
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
            if (n := _number(o.value)) is not None and 0 < n <= MAX_PAGE_SIZE
        ]
        if len(sizes) >= 2:
            chosen[field.name] = max(sizes)[1]
    return chosen


def page_size_param(url: str) -> str | None:
    """The page-size parameter ``url`` already carries (with a number), or None."""
    params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
    for name in PAGE_SIZE_PARAMS:
        if _number(params.get(name, "")) is not None:
            return name
    return None


def with_page_size(url: str, name: str, size: int) -> str:
    """``url`` with its parameter ``name`` set to ``size`` (added when missing)."""
    parts = urlsplit(url)
    params = parse_qsl(parts.query, keep_blank_values=True)
    if any(k == name for k, _v in params):
        params = [(k, str(size) if k == name else v) for k, v in params]
    else:
        params.append((name, str(size)))
    return urlunsplit(parts._replace(query=urlencode(params)))
