"""A page's DOM leaves and its links in context: what the link learners see of a link (u, v).

Both link learners judge a link from its source page alone. The apprentice (Chakrabarti et al.,
section 2.2.1) numbers the leaves of u's DOM tree from left to right — text nodes and elements
without children alike, so that empty leaves (``<br>``, ``<img>``, an empty ``<td>``) take a
number too — and places every token at a *DOM offset* from the anchor: 0 inside the anchor's
subtree, ``m - l(a)`` for leaf ``m`` left of it, ``m - r(a)`` right of it. ACHE (Barbosa & Freire,
section 3.3) reads the link's URL, its anchor text and the terms *around* it in textual order.
:func:`page_links` computes both from one walk over the tree.

Text nodes holding only white space are not leaves (HTML indentation is not content; libxml2,
the paper's parser, drops such blank nodes too); scripts, styles and comments are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.html
from lxml import etree

from deepcrawl.urls import browser_url

if TYPE_CHECKING:
    from lxml.html import HtmlElement

__all__ = ["DomLeaf", "LinkContext", "dom_leaves", "page_links", "parse_page", "words"]

_SKIPPED = frozenset({"script", "style", "noscript", "template"})


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words of ``text`` (digits-only words included)."""
    out: list[str] = []
    current: list[str] = []
    for char in text.lower():
        if char.isalnum():
            current.append(char)
        elif current:
            out.append("".join(current))
            current = []
    if current:
        out.append("".join(current))
    return out


@dataclass(frozen=True, slots=True)
class DomLeaf:
    """One leaf of the DOM tree, numbered from left to right.

    Attributes:
        text: the leaf's text (empty for an element without children).
        anchor: index of the ``<a href>`` whose subtree holds the leaf, or None.
    """

    text: str
    anchor: int | None


@dataclass(frozen=True, slots=True)
class LinkContext:
    """A link (u, v) as the learners see it from its source page u.

    Attributes:
        url: the absolute target URL v, fragment removed.
        source: the URL of u.
        anchor: the anchor text.
        around: the words before and after the anchor in textual order (ACHE's "around").
        offsets: the apprentice's ``token@d`` features (|d| within the window asked for).
    """

    url: str
    source: str
    anchor: str = ""
    around: tuple[str, ...] = ()
    offsets: tuple[str, ...] = ()


def parse_page(html: str | bytes) -> HtmlElement | None:
    """Parse HTML into an lxml tree; None when there is nothing to parse."""
    if not html or not str(html).strip():
        return None
    try:
        return lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None


def dom_leaves(root: HtmlElement) -> tuple[list[DomLeaf], list[tuple[HtmlElement, int, int]]]:
    """Number the DOM leaves of ``root`` from left to right.

    Returns:
        The leaves, and for each ``<a href>`` in document order the element and the numbers of
        its first and last leaf, ``l(a)`` and ``r(a)``.
    """
    leaves: list[DomLeaf] = []
    anchors: list[tuple[HtmlElement, int, int]] = []
    current: int | None = None
    # An explicit stack: a deeply nested page must not hit the recursion limit.
    stack: list[tuple[bool, HtmlElement]] = [(True, root)]
    while stack:
        entering, element = stack.pop()
        tag = element.tag if isinstance(element.tag, str) else None
        if not entering:
            if tag == "a" and current is not None and anchors[current][0] is element:
                first = anchors[current][1]
                anchors[current] = (element, first, max(first, len(leaves) - 1))
                current = None
            if element.tail and element.tail.strip():
                leaves.append(DomLeaf(element.tail.strip(), current))
            continue
        stack.append((False, element))
        if tag is None or tag in _SKIPPED:
            continue
        if tag == "a" and current is None and element.get("href") is not None:
            current = len(anchors)
            anchors.append((element, len(leaves), len(leaves)))
        children = [c for c in element if isinstance(c.tag, str) or c.tail]
        text = element.text.strip() if element.text else ""
        if text:
            leaves.append(DomLeaf(text, current))
        elif not children:
            leaves.append(DomLeaf("", current))
        stack.extend((True, child) for child in reversed(children))
    return leaves, anchors


def _offset(m: int, first: int, last: int) -> int:
    if m < first:
        return m - first
    if m > last:
        return m - last
    return 0


def page_links(
    html: str | bytes,
    page_url: str,
    *,
    around_terms: int = 10,
    d_max: int = 5,
) -> list[LinkContext]:
    """Every ``http(s)`` link of a page with its anchor, around words and DOM-offset features.

    Args:
        html: the page's HTML.
        page_url: its URL (relative links and ``<base href>`` resolve against it).
        around_terms: words taken before and after the anchor (ACHE's "around" space).
        d_max: the apprentice's window: tokens with ``|d| <= d_max`` become ``token@d``.

    Returns:
        One context per ``<a href>`` in document order (duplicates of a URL included).
    """
    root = parse_page(html)
    if root is None:
        return []
    base = page_url
    for href in root.xpath("//base/@href"):
        base = urljoin(page_url, str(href).strip())
        break
    leaves, anchors = dom_leaves(root)
    leaf_words = [words(leaf.text) for leaf in leaves]
    # Position of each leaf's first word in the page's word stream (ACHE's textual order).
    starts: list[int] = []
    stream: list[str] = []
    for ws in leaf_words:
        starts.append(len(stream))
        stream.extend(ws)
    starts.append(len(stream))
    links: list[LinkContext] = []
    for element, first, last in anchors:
        raw = str(element.get("href", "")).strip()
        url = browser_url(urldefrag(urljoin(base, raw)).url)
        if urlsplit(url).scheme not in {"http", "https"}:
            continue
        before = stream[max(0, starts[first] - around_terms) : starts[first]]
        after = stream[starts[last + 1] : starts[last + 1] + around_terms]
        offsets: list[str] = []
        for m in range(max(0, first - d_max), min(len(leaves), last + d_max + 1)):
            d = _offset(m, first, last)
            offsets.extend(f"{w}@{d}" for w in leaf_words[m])
        anchor_text = " ".join(" ".join(ws) for ws in leaf_words[first : last + 1] if ws)
        links.append(
            LinkContext(
                url=url,
                source=page_url,
                anchor=anchor_text,
                around=(*before, *after),
                offsets=tuple(offsets),
            )
        )
    return links
