"""A page's links in context: what the link learners see of a link (u, v).

Both link learners judge a link from its source page alone. The apprentice (Chakrabarti et al.,
section 2.2.1) numbers the leaves of u's DOM tree from left to right
(:func:`deepcrawl.page.dom.dom_leaves`) and places every token at a *DOM offset* from the
anchor: 0 inside the anchor's subtree, ``m - l(a)`` for leaf ``m`` left of it, ``m - r(a)``
right of it. ACHE (Barbosa & Freire,
section 3.3) reads the link's URL, its anchor text and the terms *around* it in textual order.
:func:`page_links` computes both from one walk over the tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

from deepcrawl.page.dom import dom_leaves
from deepcrawl.page.html import base_url, parse_html
from deepcrawl.urls import browser_url

__all__ = ["AROUND_TERMS", "D_MAX", "LinkContext", "page_links", "words"]

#: Terms taken before and after the anchor for ACHE's "around" feature space (section 3.3 gives
#: no number): about a sentence on either side.
AROUND_TERMS = 10
#: The apprentice's DOM window: <token, offset> features with ``|d| <= D_MAX`` (Chakrabarti et
#: al., section 3.4: 5).
D_MAX = 5


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
    around_terms: int = AROUND_TERMS,
    d_max: int = D_MAX,
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
    root = parse_html(html, comments=True)
    if root is None:
        return []
    base = base_url(root, page_url)
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
