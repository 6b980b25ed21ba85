"""Typed wildcards: the classes of tokens a variable part of a URL is abstracted into.

When ``markParts`` decides that a position of the URLs is variable, the values seen there are
replaced by the narrowest wildcard that accepts all of them. The types form a small lattice::

    digits ⊂ hex ⊂ alnum ⊂ slug ⊂ any        date ⊂ slug

so that the union of two types is their least upper bound (``digits`` ∪ ``date`` = ``slug``).
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection

__all__ = ["Wildcard", "classify", "classify_all", "union", "wildcard_regex"]


class Wildcard(IntEnum):
    """A typed wildcard; the integer order is the order of generality (date aside)."""

    DIGITS = 0
    HEX = 1
    DATE = 2
    ALNUM = 3
    SLUG = 4
    ANY = 5


_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_HEX_RE = re.compile(r"[0-9a-fA-F]{8,}")
_ALNUM_RE = re.compile(r"[A-Za-z0-9]+")
_SLUG_RE = re.compile(r"[A-Za-z0-9\-._~%+]+")

#: Regex of each type inside a path segment (no ``/``, ``?``) and inside a query value (no ``&``).
_SEGMENT = {
    Wildcard.DIGITS: "[0-9]",
    Wildcard.HEX: "[0-9a-fA-F]",
    Wildcard.ALNUM: "[A-Za-z0-9]",
    Wildcard.SLUG: r"[A-Za-z0-9\-._~%+]",
    Wildcard.ANY: "[^/?]",
}
_QUERY_ANY = "[^&]"


def classify(value: str) -> Wildcard:
    """The narrowest wildcard type accepting ``value``."""
    if value.isdigit() and value.isascii():
        return Wildcard.DIGITS
    if _HEX_RE.fullmatch(value) and not value.isalpha():
        return Wildcard.HEX
    if _DATE_RE.fullmatch(value):
        return Wildcard.DATE
    if _ALNUM_RE.fullmatch(value):
        return Wildcard.ALNUM
    if _SLUG_RE.fullmatch(value):
        return Wildcard.SLUG
    return Wildcard.ANY


def union(a: Wildcard, b: Wildcard) -> Wildcard:
    """The least upper bound of two types."""
    if a == b:
        return a
    if Wildcard.DATE in (a, b):
        return max(a, b, Wildcard.SLUG)
    return max(a, b)


def classify_all(values: Collection[str]) -> tuple[Wildcard, bool]:
    """The union type of ``values`` and whether the empty string is among them.

    Decided on the values joined into one string where that gives the answer (all digits, a
    character outside the slug class, a separator), so a million ids cost one C-level pass.
    """
    empty = "" in values
    present = [v for v in values if v]
    joined = "".join(present)
    if not joined or (joined.isdigit() and joined.isascii()):
        return Wildcard.DIGITS, empty
    if not _SLUG_RE.fullmatch(joined):
        return Wildcard.ANY, empty
    if not _ALNUM_RE.fullmatch(joined):  # a separator somewhere: a date or a slug
        all_dates = all(len(v) == 10 for v in present) and all(map(_DATE_RE.fullmatch, present))
        return (Wildcard.DATE if all_dates else Wildcard.SLUG), empty
    kind = Wildcard.DIGITS
    for value in present:  # digits, hex or alnum: per value
        kind = union(kind, classify(value))
        if kind == Wildcard.ALNUM:
            break
    return kind, empty


def wildcard_regex(kind: Wildcard, *, empty: bool = False, in_query: bool = False) -> str:
    """The regex of a wildcard of type ``kind``.

    Args:
        kind: the type.
        empty: accept the empty string too.
        in_query: for a query value (may hold ``/`` and ``?``, never ``&``) rather than a segment.
    """
    if kind == Wildcard.DATE:
        body = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
        return f"(?:{body})?" if empty else body
    cls = _QUERY_ANY if in_query and kind == Wildcard.ANY else _SEGMENT[kind]
    return cls + ("*" if empty else "+")
