"""The prototype: a regular expression standing for one kind of URL of a site."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from deepcrawl.urls import with_ampersands

__all__ = ["Prototype", "prototype_id"]


def prototype_id(regex: str) -> str:
    """Stable id of a prototype: a short hash of its regex (same regex, same id, any run)."""
    return "p" + hashlib.sha1(regex.encode("utf-8")).hexdigest()[:10]


@dataclass(frozen=True, slots=True)
class Prototype:
    """One prototype (Hernández et al., Table 1): a regex with its coverage and examples.

    Attributes:
        regex: a Python ``re`` pattern that ``re.fullmatch``-es the *normalised* URLs
            (:func:`deepcrawl.urls.normalise_url`) of this kind.
        count: URLs of the training set it matches.
        coverage: ``count`` as a share of all valid training URLs.
        examples: a few of those URLs, normalised.
        how: how the prototyper found it (the decisions of ``markParts`` and of the refinement).
        origin: ``scheme://host`` every URL of it has, or None if it is not fixed (used to
            dispatch URLs quickly to the few prototypes that may match).
        depth: the number of path segments of its URLs (a trailing slash not counted: ``/a/``
            has depth 1, like ``/a``), or None if it is not fixed.
        head: the literal first path segment, or None if that segment is variable.
        keys: the query keys its regex knows (lets the matcher ignore unseen tracking keys).
        id: stable id derived from the regex (:func:`prototype_id`).
    """

    regex: str
    count: int = 0
    coverage: float = 0.0
    examples: tuple[str, ...] = ()
    how: str = ""
    origin: str | None = None
    depth: int | None = None
    head: str | None = None
    keys: tuple[str, ...] = ()
    id: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", prototype_id(self.regex))

    def matches(self, normal_url: str) -> bool:
        """Whether the regex fullmatches a normalised URL (its query's ``;`` separators read as
        ``&``, as prototypes are written: :func:`~deepcrawl.urls.with_ampersands`)."""
        return _compiled(self.regex).fullmatch(with_ampersands(normal_url)) is not None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the ``--json`` output of ``deepcrawl prototypes``)."""
        return {
            "id": self.id,
            "regex": self.regex,
            "count": self.count,
            "coverage": round(self.coverage, 6),
            "examples": list(self.examples),
            "how": self.how,
            "origin": self.origin,
            "depth": self.depth,
            "head": self.head,
            "keys": list(self.keys),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Prototype:
        """Rebuild a prototype from :meth:`to_dict`'s output (unknown keys are ignored)."""
        return cls(
            regex=str(data["regex"]),
            count=int(data.get("count", 0)),
            coverage=float(data.get("coverage", 0.0)),
            examples=tuple(data.get("examples", ())),
            how=str(data.get("how", "")),
            origin=data.get("origin"),
            depth=data.get("depth"),
            head=data.get("head"),
            keys=tuple(data.get("keys", ())),
        )


_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(regex: str) -> re.Pattern[str]:
    pattern = _CACHE.get(regex)
    if pattern is None:
        pattern = _CACHE[regex] = re.compile(regex)
    return pattern
