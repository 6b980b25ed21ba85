"""The probing safety policy: which elements and requests read as destructive.

An element is never clicked or hovered, and a request made while probing is never sent, when
its words contain one of the refused phrases (``settings.forms.refused_words`` plus any the
caller adds). Words are compared whole, after splitting camelCase and punctuation, so
``btn-logOut`` reads as ``btn log out`` and matches ``log out``, while ``posting`` does not
match ``post``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["phrases", "refused_phrase", "tokens"]

_CAMEL = re.compile(r"([a-z])([A-Z])")
_SPLIT = re.compile(r"[^a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Lower-case words of ``text``, camelCase and punctuation split."""
    return [t for t in _SPLIT.split(_CAMEL.sub(r"\1 \2", text).lower()) if t]


def phrases(words: Iterable[str]) -> list[list[str]]:
    """Refused words and phrases as token lists (the form the probe script takes)."""
    return [t for w in words if (t := tokens(w))]


def refused_phrase(text: str, refused: Sequence[Sequence[str]]) -> str | None:
    """The first refused phrase found in ``text`` (joined by spaces), or None."""
    toks = tokens(text)
    for phrase in refused:
        size = len(phrase)
        for start in range(len(toks) - size + 1):
            if toks[start : start + size] == list(phrase):
                return " ".join(phrase)
    return None
