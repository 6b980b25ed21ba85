"""The pieces ``markParts`` assembles prototypes from: partial prototypes and regex helpers."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "SEGMENT_END",
    "VALUE_END",
    "Partial",
    "Record",
    "escape",
    "exclude",
    "value_shape",
]

#: One URL: its path segments, its sorted query pairs, its normal form, and its depth — the
#: number of segments, a trailing empty one (trailing slash) not counted when it is folded.
Record = tuple[tuple[str, ...], tuple[tuple[str, str | None], ...], str, int]

#: What may follow a path segment, and a query value, in a normal form.
SEGMENT_END = r"(?:[/?]|\Z)"
VALUE_END = r"(?:&|\Z)"
_META_RE = re.compile(r"[.^$*+?{}\[\]\\|()]")
#: The literal head of a value: a namespace (``records:``, ``Special:``), a word before an id,
#: joined by a separator or directly (``book-17``, ``issue17``; a single letter joined directly,
#: ``v2`` or ``a17``, is a part of the value rather than a word), or a sigil — punctuation
#: before a name (``_login``, ``@Talk``, ``~user``): an application's own pages beside its
#: users' names.
_PREFIX_RE = re.compile(
    r"([A-Za-z][A-Za-z0-9_]*[:/](?=.)|[A-Za-z]+[\-_](?=.*[0-9])|[A-Za-z]{2,}(?=[0-9])"
    r"|[_@~!$](?=[A-Za-z0-9]))"
)
_SUFFIX_RE = re.compile(r".(\.[A-Za-z][A-Za-z0-9]{0,4})\Z")
_HEX_ID_RE = re.compile(r"[0-9a-fA-F]{8,}")


@dataclass(slots=True)
class Partial:
    """A prototype under construction: the regex pieces from one tree node down to a leaf."""

    path: tuple[str, ...]
    heads: tuple[str | None, ...]
    query: str
    records: list[Record]
    how: tuple[str, ...]
    nested: bool = False
    """Its last segment may repeat (nested folders): its URLs have no fixed depth."""
    keys: tuple[str, ...] = ()
    """The query keys its regex knows."""

    def under(self, regex: str, literal: str | None, step: str) -> Partial:
        """This partial one level up: ``regex`` is the segment of the parent position."""
        return Partial(
            (regex, *self.path),
            (literal, *self.heads),
            self.query,
            self.records,
            (step, *self.how),
            self.nested,
            self.keys,
        )

    def signature(self) -> str:
        """Its path regex from here down (compares the shapes of sibling subtrees)."""
        return "/".join(self.path)


def escape(text: str) -> str:
    """Escape regex metacharacters only (``re.escape`` also escapes ``-``, less readable)."""
    return _META_RE.sub(r"\\\g<0>", text)


def exclude(earlier: list[str], end: str) -> str:
    """A negative lookahead refusing what an earlier sibling regex matches (then ``end``)."""
    if not earlier:
        return ""
    return f"(?!(?:{'|'.join(earlier)}){end})"


def value_shape(value: str) -> tuple[str, str] | None:
    """The literal head and file extension of a value (``("issue", "")`` for ``issue17``,
    ``("book-", ".html")`` for ``book-17.html``, ``("_", "")`` for ``_login``), or None when it
    has neither.

    A hash (``de4f09a1``) has no head: its leading letters are hex digits, not a word.
    """
    prefix = None if _HEX_ID_RE.fullmatch(value) else _PREFIX_RE.match(value)
    suffix = _SUFFIX_RE.search(value)
    head = prefix.group(1) if prefix else ""
    tail = suffix.group(1) if suffix and len(value) > len(head) + len(suffix.group(1)) else ""
    return (head, tail) if head or tail else None
