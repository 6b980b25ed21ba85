"""What the crawl knows of the records it fetched: their words, for exact paging control.

A result page reports its total ("183 results"), and the crawl holds the text of every record
page it fetched. For a one-word query ``w`` the records of its results the crawl does *not*
hold are then about ``total − (fetched records whose text has w)``; less those its pages read so
far showed, that is what its further pages can still bring. :class:`KnownTexts` keeps the
document frequencies this needs, from the main text of each fetched record page —
:func:`main_text` leaves out the page's navigation, header, footer, forms and lists of links
("Related books": other records' titles and snippets would count words the record lacks), and
its tables' header cells (column names, "Author: …", "Date" labels: a search indexes the values,
not the labels).

Under independently drawn words every page of a query holds about the same share of unknown
records, but a site ranking by id or date puts the well-known records first; the count from
texts does not care where in the list the unknown records sit.

The count is only as good as the page text matches what the search looks at: a word the pages
show outside the searched fields ("Category: history" on every history book) is held by more
fetched records than the search returns, and the difference would read as nothing lacking —
such counts are refused. The other way round, a search matching substrings ("the" in
"other"), stems or fields the page does not show returns records whose text lacks the word: the
records a list showed that the crawl has fetched say which share of its matches the fetched
words account for (:meth:`KnownTexts.match_share`), and the count is scaled by it. Each
record's words are kept for this as a small Bloom filter, not as a set.
"""

from __future__ import annotations

import copy
import functools
import zlib
from collections import Counter
from typing import TYPE_CHECKING

from deepcrawl.keywords.text import record_terms
from deepcrawl.page.html import parse_html

if TYPE_CHECKING:
    from collections.abc import Collection

    from lxml.html import HtmlElement

__all__ = ["KnownTexts", "main_text"]

#: Elements whose text is the page's frame or other records, not the record itself.
_FRAME = (
    "script", "style", "noscript", "nav", "header", "footer", "aside", "form", "template",
    "select", "button", "th",
)  # fmt: skip
#: Share of a page's text a ``<form>`` holds past which it wraps the page (one server form
#: around everything), not a form beside the content.
_PAGE_WIDE_FORM = 0.5
#: Share of fetched record pages a word may appear in before it counts as chrome.
_CHROME_SHARE = 0.9
_MIN_PAGES_FOR_CHROME = 20
#: Bits of each record's Bloom filter of its words, and hashes a word sets: about 3% false
#: positives at 200 distinct words, some 300 bytes a record.
_BLOOM_BITS = 2048
_BLOOM_HASHES = 2
#: Fetched records a list must have shown before their share of matches scales the count.
_MIN_SHARE_SAMPLE = 5


@functools.lru_cache(maxsize=1 << 16)
def _bloom_bits(word: str) -> int:
    """The bits ``word`` sets in a record's Bloom filter (kept for the words seen most: a
    site's records share most of their words)."""
    digest = zlib.crc32(word.encode())
    bits = 0
    for i in range(_BLOOM_HASHES):
        bits |= 1 << ((digest >> (11 * i)) % _BLOOM_BITS)
    return bits


def main_text(html: str | bytes | HtmlElement | None) -> str:
    """The text of a record page (its ``<main>`` when it has one) without its frame and its
    lists of links; a ``<form>`` holding most of the page's text wraps the page, and only its
    controls are frame.

    ``html`` is the page's body, or the page parsed already (:meth:`FetchedPage.root
    <deepcrawl.page.fetched.FetchedPage.root>`), which is read and left as it was.
    """
    shared = html is not None and not isinstance(html, str | bytes)
    root = parse_html(html) if isinstance(html, str | bytes) else html
    if root is None:
        return ""
    main = root.find(".//main")  # the page's own statement of where its content is
    if main is not None:
        root = main
    if shared:  # a tree others read: its frame is cut from a copy (cheaper than a parse)
        root = copy.deepcopy(root)
    whole = len(root.text_content())
    for el in list(root.iter(*_FRAME)):
        if el.tag == "form" and len(el.text_content()) > _PAGE_WIDE_FORM * whole:
            continue  # a form around the whole page is its frame and its content: kept
        parent = el.getparent()
        if parent is not None:
            parent.remove(el)
    for item in list(root.iter("li")):
        parent = item.getparent()
        if parent is not None and item.find(".//a") is not None:
            parent.remove(item)
    return " ".join(root.itertext())


class KnownTexts:
    """How many fetched records hold each word, and which records were counted.

    Only counts are kept (word → records holding it), not each record's words: a crawl of
    100,000 records would otherwise hold millions of (word, record) pairs.

    Args:
        min_length: shorter words are not indexed (they are never queried either).
    """

    def __init__(self, min_length: int = 2) -> None:
        self.min_length = min_length
        self._ids: set[str] = set()
        self._df: Counter[str] = Counter()
        self._words: dict[str, int] = {}  # record id -> Bloom filter of its words

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._ids

    def add(self, record_id: str, text: str, terms: frozenset[str] | None = None) -> frozenset[str]:
        """Count one fetched record's words (a second text of the same record is ignored);
        returns the words counted (:func:`~deepcrawl.keywords.text.record_terms`, or ``terms``
        where the caller counted them already at this index's ``min_length``). Empty for a
        record counted before."""
        if record_id in self._ids:
            return frozenset()
        self._ids.add(record_id)
        if terms is None:
            terms = record_terms(text, min_length=self.min_length)
        self._df.update(terms)
        bloom = 0
        for term in terms:
            bloom |= _bloom_bits(term)
        self._words[record_id] = bloom
        return terms

    def match_share(self, word: str, shown: Collection[str]) -> float | None:
        """The share of the fetched records among ``shown`` (a list's results) whose text
        holds ``word``; None while fewer than a handful were fetched, or for a phrase."""
        terms = record_terms(word, min_length=1)
        fetched = [self._words[rid] for rid in shown if rid in self._words]
        if len(terms) != 1 or len(fetched) < _MIN_SHARE_SAMPLE:
            return None
        bits = _bloom_bits(next(iter(terms)))
        return sum(1 for bloom in fetched if bloom & bits == bits) / len(fetched)

    def share_holding(self, word: str) -> float | None:
        """The share of the fetched records that hold ``word``, a word of every page included;
        None for a phrase, a word shorter than ``min_length``, or while fewer than twenty
        records were fetched."""
        terms = record_terms(word, min_length=1)
        if len(terms) != 1 or len(self._ids) < _MIN_PAGES_FOR_CHROME:
            return None
        term = next(iter(terms))
        return None if len(term) < self.min_length else self._df[term] / len(self._ids)

    def holding(self, word: str) -> int | None:
        """How many fetched records hold ``word``; None when the count means nothing (a phrase,
        a word shorter than ``min_length``, which is never counted, a word of every page —
        site chrome the text filter missed — or no text yet)."""
        terms = record_terms(word, min_length=1)
        if len(terms) != 1 or not self._ids or len(next(iter(terms))) < self.min_length:
            return None  # a phrase, no text yet, or a word too short to have been counted
        count = self._df[next(iter(terms))]
        if len(self._ids) >= _MIN_PAGES_FOR_CHROME and count >= _CHROME_SHARE * len(self._ids):
            return None
        return count

    def unknown_left(
        self,
        word: str,
        total: int | None,
        shown: Collection[str],
        sample: Collection[str] | None = None,
        *,
        scaled: bool = True,
    ) -> int | None:
        """Records of ``word``'s results the crawl does not hold and has not been shown yet.

        Args:
            word: the query.
            total: the result count its first page reported.
            shown: record ids its pages read so far showed (not counted as unknown twice).
            sample: record ids of its results whose share of matches is measured (default:
                ``shown``).
            scaled: whether a count scaled by that share is an answer; False: None instead.

        Returns:
            The estimate (never negative), or None when there is no total or no usable count —
            also when more fetched records hold the word than the search returns: the pages
            then show it where the search does not look (a category label beside every
            record, say), and the count says nothing of the results. When only a share of
            the fetched records of ``sample`` hold the word (:meth:`match_share`), the search
            matches more than the words, and the count is scaled up by it.
        """
        held = self.holding(word)
        if total is None or held is None or held > total:
            return None
        share = self.match_share(word, shown if sample is None else sample)
        if not scaled and share is not None and share < 1:
            return None
        if share is not None:
            held = round(held / share) if share > 0 else total
        unheld_shown = sum(1 for rid in shown if rid not in self._ids)
        return max(0, total - held - unheld_shown)
