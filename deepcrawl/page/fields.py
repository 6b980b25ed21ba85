"""The fields a kind of page shows: labels its template writes beside values each page has.

A database's record page shows the record's attributes as label–value pairs (``Number 17``,
``Category maps``, ``Reported by alice``) — a definition list, a table of header and data cells,
or a short label ending in a colon — while a site's prose (news, a change note, a wiki page) shows
paragraphs. The template writes the labels and the record the values, so across two pages of one
kind a *field* is a label both show with values that differ; the page chrome's pairs (``Powered
by: X``, a form's ``Search:``) repeat their value everywhere and are not fields. The no-example
pick (:mod:`deepcrawl.records.pick`) reads this where a site-wide search lists the records
beside other kinds that outnumber them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from deepcrawl.page.html import SKIP_TEXT, collapse, parse_html

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from lxml.html import HtmlElement

__all__ = ["LABEL_WORDS", "label_values", "page_fields"]

#: A label is a few words at most (``Date of birth``); longer text ending in a colon is prose.
LABEL_WORDS = 4
#: Elements a page's own search or navigation lives in: their pairs are no record's fields.
_OUTSIDE = frozenset({"form", "nav", "header", "footer", "select", "button"})
#: Inline elements a ``Label:`` is written in, its value the text after it.
_INLINE_LABELS = frozenset({"b", "strong", "span", "label", "em", "th", "td", "dt"})
#: An element and its next sibling that write a label and its value.
_PAIRS = frozenset({("dt", "dd"), ("th", "td")})
_DIGITS_RE = re.compile(r"[0-9]+")


def label_values(root: HtmlElement) -> Iterator[tuple[str, str]]:
    """The label–value pairs a parsed page shows outside its forms and navigation.

    Three ways of writing a pair are read: a ``<dt>`` and the ``<dd>`` after it; a ``<th>`` and
    the ``<td>`` after it in one row; and an inline element whose whole text is a short label
    ending in a colon, with the text after it (its tail, or the next element's text) as the
    value. Labels are folded (case, digits, the colon); values are collapsed text.
    """
    for element in root.iter("dt", "th", *_INLINE_LABELS):
        if _outside(element):
            continue
        text = collapse(element.text_content())
        value: str | None = None
        following = element.getnext()
        if following is not None and (element.tag, following.tag) in _PAIRS:
            value = collapse(following.text_content())
        elif text.endswith(":") and element.tag not in ("dt", "th"):
            value = collapse(element.tail) or (
                collapse(following.text_content()) if following is not None else ""
            )
        label = _label(text)
        if value is not None and label and value:
            yield label, value


def page_fields(pages: Sequence[str | bytes]) -> frozenset[str]:
    """The labels every one of ``pages`` (two or more of one kind) shows with values that are
    not all the same: the kind's fields. Fewer than two pages: none (one page cannot tell a
    record's value from the template's)."""
    if len(pages) < 2:
        return frozenset()
    shown: list[dict[str, str]] = []
    for html in pages:
        root = parse_html(html)
        shown.append({} if root is None else dict(label_values(root)))
    common = set(shown[0]).intersection(*shown[1:])
    return frozenset(label for label in common if len({values[label] for values in shown}) > 1)


def _label(text: str) -> str:
    """A label's folded form, or empty when the text is no label (none, or too many words)."""
    folded = _DIGITS_RE.sub("0", text.rstrip(":").strip().casefold())
    return folded if folded and len(folded.split()) <= LABEL_WORDS else ""


def _outside(element: HtmlElement) -> bool:
    """Whether the element sits in a form, navigation or script-like element."""
    for ancestor in element.iterancestors():
        if ancestor.tag in _OUTSIDE or ancestor.tag in SKIP_TEXT:
            return True
    return False
