"""The pages the fetch workers fetched and have not stored yet: :class:`StoreBatch`.

Storing a page alone costs a transaction and several statements, settling its frontier URL and
remembering its delivery one more each: on a big site that was a third of the crawl's CPU a page
(issue 27). The workers put each page they fetched in the batch, with what they judged of it,
and store the batch in one transaction when it is full (:data:`STORE_BATCH`), when its oldest
page waited :data:`STORE_BATCH_S`, when they are idle, and when they stop
(:meth:`FetchWorkers.flush <deepcrawl.crawler.fetching.FetchWorkers.flush>`).

A page in the batch is in no table yet, so what a worker asks the store about the pages fetched
before (is a URL stored, does a record show the same text) could miss it. The batch answers for
its own pages: :meth:`StoreBatch.holds` and :meth:`StoreBatch.shows` tell the worker to store the
batch before it asks. A crawl killed loses the batch: its URLs stay leased in the frontier, and
the next run (which releases every lease) fetches them again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.storage.state import StoredIndex

if TYPE_CHECKING:
    from deepcrawl.export import Held
    from deepcrawl.storage import PageWrite
    from deepcrawl.storage.frontier import Lease

__all__ = ["STORE_BATCH", "STORE_BATCH_S", "StoreBatch", "Unsaved"]

#: Pages a crawl alone on its store (SQLite) stores in one transaction (a crawl shared by
#: processes stores each as it is fetched): a transaction's cost paid once in this many pages,
#: and a crash loses at most this many, fetched again by the next run.
STORE_BATCH = 32
#: Seconds after which a batch not full is stored anyway (and delivered), at the next page
#: fetched or the next idle worker: on a slow site, how long a page may wait for the extractor.
STORE_BATCH_S = 1.0


@dataclass(frozen=True, slots=True)
class Unsaved:
    """A page fetched for a lease and not stored yet.

    Attributes:
        lease: the frontier entry it was fetched for (settled once the page is stored).
        write: the page and what the crawl judged of it, as it will be stored.
        held: the page as fetched and its source, for its delivery; None: not delivered (a
            record stored before under another URL).
    """

    lease: Lease
    write: PageWrite
    held: Held | None


class StoreBatch:
    """Fetched pages waiting to be stored together (see the module docstring).

    Args:
        size: pages that fill the batch (at least 1).
        max_age_s: seconds the oldest page may wait before the batch is due.
    """

    def __init__(self, size: int, max_age_s: float) -> None:
        self.size = max(1, size)
        self.max_age_s = max_age_s
        self._items: list[Unsaved] = []
        self._since = 0.0
        #: The batch's pages as the store's probes will see them once stored (by hashes: a
        #: collision says yes, and the batch is only stored early).
        self._index = StoredIndex()

    def __len__(self) -> int:
        return len(self._items)

    def add(self, item: Unsaved) -> None:
        """Put a fetched page in the batch."""
        if not self._items:
            self._since = time.monotonic()
        self._items.append(item)
        write = item.write
        key = write.url or write.page.url
        self._index.add(key, write.kind, None, write.canonical_url, write.fingerprint)

    @property
    def ready(self) -> bool:
        """Whether the batch should be stored now: full, or its oldest page waited long enough."""
        if not self._items:
            return False
        return len(self._items) >= self.size or time.monotonic() - self._since >= self.max_age_s

    def holds(self, url: str) -> bool:
        """Whether a page of the batch is under the key ``url``, or a record of it names
        ``url`` as its canonical URL: what the store will say of ``url`` once it is stored."""
        return self._index.may_hold(url)

    def shows(self, canonical_url: str | None, fingerprint: str | None) -> bool:
        """Whether a record of the batch is under (or names) the canonical URL
        ``canonical_url``, or has the main text ``fingerprint``: a page that says so shows a
        record the store does not hold yet."""
        return self._index.may_show(canonical_url, fingerprint)

    def take(self) -> list[Unsaved]:
        """Empty the batch; its pages in the order they were put in."""
        items, self._items = self._items, []
        self._index = StoredIndex()
        return items
