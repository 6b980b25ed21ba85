"""Turning record texts into query terms: tokenise, lower-case, drop stop words.

The keyword manager learns its next queries from the words of the records already reached
(Ntoulas, Zerfos & Cho 2005), and xCrawl derives queries from sample documents; both need the
same notion of a term, defined once here. A term is a run of letters (digits and underscores
split words; an inner apostrophe is kept, so "don't" stays one token), case-folded, at least
``min_length`` characters, not a stop word.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = ["record_terms", "tokenize"]

_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def tokenize(text: str) -> list[str]:
    """All letter tokens of ``text``, case-folded, in order (apostrophes normalised to ')."""
    return [match.group().casefold().replace("’", "'") for match in _TOKEN.finditer(text)]


def record_terms(
    text: str, stopwords: Collection[str] = (), *, min_length: int = 2
) -> frozenset[str]:
    """The distinct query terms of one record's text.

    Args:
        text: the record's text (title, snippet or whole page text).
        stopwords: case-folded words to leave out.
        min_length: shorter tokens are left out (single letters make poor queries).

    Returns:
        The set of terms, for document-frequency counting.
    """
    return frozenset(
        token for token in tokenize(text) if len(token) >= min_length and token not in stopwords
    )
