"""What robots.txt still allows when it forbids the search: the crawl's one line names it.

A site may forbid its search to crawlers (``Disallow: /search``) and still let them read its
lists and its records. The crawl then sends no query — robots.txt is honoured — and stops
with one line that says where a crawl may still go: the start page's links robots.txt allows
(its lists of records, by the folder they lead to), the sitemaps robots.txt names, and the
``--like`` examples it allows; and that ``--navigate`` follows the allowed links from the start
page to the records. It is a pure function of the facts the crawl holds (the rules, the start
page's links), tested alone.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from deepcrawl.safety import SafetyRule

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl.page.fetched import Link

__all__ = ["allowed_links", "still_allowed"]

#: The folders of the start page's links named in the line, at most.
_SHOWN = 4


def still_allowed(
    allowed: Callable[[str], bool],
    start_url: str,
    *,
    links: Sequence[Link] = (),
    sitemaps: Sequence[str] = (),
    examples: Sequence[str] = (),
) -> str:
    """The clause that says what robots.txt still allows that leads to records.

    Args:
        allowed: robots.txt's answer for a URL (the crawl's rules, loaded).
        start_url: the crawl's start URL (its host is the one the links must keep to).
        links: the start page's links (none when robots.txt forbids the start page too).
        sitemaps: the sitemaps robots.txt names.
        examples: the ``--like`` examples.

    Returns:
        ``"robots.txt still allows 12 of the start page's links (/category/… 10 …): crawl with
        --navigate to reach the records through them"`` (with no ``--like`` example the
        records' kind is picked from the lists it reads), or a clause that says it allows
        none.
    """
    open_links = allowed_links(allowed, start_url, links)
    ways = []
    if open_links:
        folders = Counter(_folder(url) for url in open_links)
        # the lists: folders of several links (``/category/…``) before single pages
        named = [f for f, n in folders.most_common() if n > 1] or list(folders)
        shown = ", ".join(
            f"{folder} {folders[folder]}" if folders[folder] > 1 else folder
            for folder in named[:_SHOWN]
        )
        more = " …" if len(folders) > len(named[:_SHOWN]) else ""
        ways.append(f"{len(open_links)} of the start page's links ({shown}{more})")
    open_maps = [url for url in sitemaps if allowed(url)]
    if open_maps:
        ways.append(
            f"the sitemap{'s' if len(open_maps) > 1 else ''} it names ({', '.join(open_maps)})"
        )
    open_examples = [url for url in examples if allowed(url)]
    if open_examples:
        ways.append(f"the record pages given ({', '.join(open_examples)})")
    if not ways:
        return "robots.txt allows nothing else that leads to records"
    return (
        f"robots.txt still allows {_join(ways)}: crawl with --navigate to reach the records "
        "through them"
    )


def allowed_links(
    allowed: Callable[[str], bool], start_url: str, links: Sequence[Link]
) -> list[str]:
    """The start page's links robots.txt allows, on its host, the start page and those the
    safety rule refuses left out, in order, each once."""
    host = urlsplit(start_url).netloc
    rule = SafetyRule()
    start = start_url.split("#")[0]
    return list(
        dict.fromkeys(
            link.url
            for link in links
            if urlsplit(link.url).netloc == host
            and link.url.split("#")[0] != start
            and allowed(link.url)
            and rule.reason(link.url, link.text) is None
        )
    )


def _folder(url: str) -> str:
    """A link by the folder it leads to: ``/category/…`` for ``/category/art``."""
    path = urlsplit(url).path or "/"
    head, sep, rest = path.lstrip("/").partition("/")
    return f"/{head}/…" if sep and rest else path


def _join(ways: Sequence[str]) -> str:
    return ways[0] if len(ways) == 1 else f"{', '.join(ways[:-1])} and {ways[-1]}"
