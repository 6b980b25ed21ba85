"""The crawl's stored pages, as the browser asks for them (a ``DocumentStore``).

A result page's script may fetch the pages of its results (a client-side search building
snippets); those the crawl already stored are answered from the repository, not the site
(:mod:`deepcrawl.browser.subrequests`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.browser.subrequests import StoredDocument
from deepcrawl.urls import normalise_or_none

if TYPE_CHECKING:
    from deepcrawl.storage import Repository

__all__ = ["StoredPages"]


class StoredPages:
    """One site's stored pages, looked up by URL (its normal form, the pages' key).

    Args:
        repo: the crawl's repository.
        site_id: the site whose pages answer.
    """

    def __init__(self, repo: Repository, site_id: int) -> None:
        self.repo = repo
        self.site_id = site_id

    def document(self, url: str) -> StoredDocument | None:
        """The stored page for ``url`` with its body; None when not stored, failed or empty."""
        key = normalise_or_none(url)
        row = self.repo.page(self.site_id, key) if key is not None else None
        if row is None or row.error is not None or not row.size:
            return None
        body = self.repo.body(row.id)
        if body is None:
            return None
        return StoredDocument(body=body, status=row.status, content_type=row.content_type)
