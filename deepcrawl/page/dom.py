"""A page's DOM leaves, numbered from left to right.

The apprentice (Chakrabarti et al., section 2.2.1) and the layout classifier both read a page as
the sequence of its DOM leaves: text nodes and elements without children alike, so that empty
leaves (``<br>``, ``<img>``, an empty ``<td>``) take a number too. Text nodes holding only white
space are not leaves (HTML indentation is not content; libxml2, the paper's parser, drops such
blank nodes too); scripts, styles and comments are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.html import HtmlElement

__all__ = ["DomLeaf", "dom_leaves"]

_SKIPPED = frozenset({"script", "style", "noscript", "template"})


@dataclass(frozen=True, slots=True)
class DomLeaf:
    """One leaf of the DOM tree, numbered from left to right.

    Attributes:
        text: the leaf's text (empty for an element without children).
        anchor: index of the ``<a href>`` whose subtree holds the leaf, or None.
    """

    text: str
    anchor: int | None


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
