"""A stored page as the repository hands it out with its body and links."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from deepcrawl.storage import tables as t

__all__ = ["StoredBody", "StoredContent", "body_of"]


class StoredBody(Protocol):
    """Where a stored page's body is: a ``page`` row, or the two columns read alone."""

    @property
    def body(self) -> bytes | None: ...

    @property
    def body_path(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class StoredContent:
    """A stored page with its body (None for a failed fetch) and its links in document order."""

    page: t.PageRead
    body: bytes | None
    links: list[t.LinkBase]


def body_of(row: StoredBody) -> bytes | None:
    """A stored page's body, inline or from its file; None for a failed fetch."""
    if row.body is not None:
        return row.body
    return None if row.body_path is None else Path(row.body_path).read_bytes()
