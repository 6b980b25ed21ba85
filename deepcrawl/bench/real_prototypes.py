"""The ``--like`` prototype's F1 on a real site: :func:`prototype_f1`.

Issue 14 asks that ``deepcrawl prototypes --from-file URLS --like U --json`` pick, over a
breadth-first URL list of each real site, a prototype whose URLs are the site's record pages.
The list is every same-site URL the breadth-first baseline saw — the pages it fetched and the
links it found on them, fetched or not, in discovery order — and the example is the site's own
``--like`` URL. The application's ``record_of`` says which listed URLs are record pages:

* **precision** — the prototype's listed URLs that are record pages ÷ its listed URLs (every
  URL it holds would be downloaded);
* **recall** — records reached by the prototype's URLs ÷ records the list holds a page of (a
  record listed under two URL forms counts once: one form suffices to crawl it);
* **F1** — their harmonic mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from deepcrawl.prototypes import like_prototype

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl_fixtures.real import RealApp

    from deepcrawl.settings import PrototypeSettings

__all__ = ["PrototypeF1", "prototype_f1"]


@dataclass(frozen=True)
class PrototypeF1:
    """How well the example's prototype picks a URL list's record pages."""

    urls: int
    """Distinct URLs in the list."""
    record_urls: int
    """Listed URLs that are record pages."""
    records: int
    """Distinct records the list holds a page of."""
    members: int
    """Listed URLs the example's prototype holds."""
    members_wanted: int
    """Of those, record pages."""
    records_matched: int
    """Distinct records among the prototype's URLs."""
    regex: str
    """The prototype's regex; empty when no prototype matches the example."""

    @property
    def precision(self) -> float:
        """The prototype's URLs that are record pages ÷ its URLs."""
        return self.members_wanted / self.members if self.members else 0.0

    @property
    def recall(self) -> float:
        """Records reached by the prototype ÷ records in the list."""
        return self.records_matched / self.records if self.records else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures, derived ones included."""
        return {
            "urls": self.urls,
            "record_urls": self.record_urls,
            "records": self.records,
            "members": self.members,
            "members_wanted": self.members_wanted,
            "records_matched": self.records_matched,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "regex": self.regex,
        }


def prototype_f1(
    app: RealApp, urls: Sequence[str], like: str, settings: PrototypeSettings | None = None
) -> PrototypeF1:
    """Prototype ``urls`` as ``deepcrawl prototypes --from-file URLS --like LIKE`` does and score
    the example's prototype against the record pages ``app.record_of`` finds in the list.

    Args:
        app: the real application (``truth()`` and ``record_of``).
        urls: the URL list (absolute URLs of the site).
        like: the example URL.
        settings: the prototyper's settings.
    """
    from deepcrawl_fixtures.real.score import path_of

    truth = app.truth().records
    listed = list(dict.fromkeys(urls))

    def record(url: str) -> str | None:
        key = app.record_of(path_of(url))
        return key if key in truth else None

    keys = {url: record(url) for url in listed}
    found = like_prototype(listed, like, settings)
    matched = [keys[url] for url in found.members]
    return PrototypeF1(
        urls=len(listed),
        record_urls=sum(k is not None for k in keys.values()),
        records=len({k for k in keys.values() if k is not None}),
        members=len(matched),
        members_wanted=sum(k is not None for k in matched),
        records_matched=len({k for k in matched if k is not None}),
        regex=found.prototype.regex if found.prototype is not None else "",
    )
