"""Where a harvest stands: one row a site (the live table's, ``harvest.json``'s)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["HarvestStatus", "SiteStatus"]


@dataclass(frozen=True, slots=True)
class SiteStatus:
    """One site of a harvest.

    Attributes:
        name: its folder in the output (``OUT/<name>/``).
        url: its start URL.
        state: ``queued``, ``running``, ``finishing`` (its query loop ended, its last pages are
            delivered), ``done``, ``needs_labels``, ``max_pages`` or ``failed``.
        reason: why it failed, or how its querying ended.
        records: pages delivered to its ``pages.jsonl``.
        estimate: the query loop's estimate of the records the site holds (None: none yet).
        requests: requests sent for it, by every process.
        rate: records delivered a second since it began.
        errors: its URLs failed for good.
        queries: its queries submitted.
        pending: its URLs not fetched yet.
    """

    name: str
    url: str
    state: str
    reason: str | None
    records: int
    estimate: float | None
    requests: int
    rate: float
    errors: int
    queries: int
    pending: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        data = asdict(self)
        data["rate"] = round(self.rate, 2)
        if self.estimate is not None:
            data["estimate"] = round(self.estimate, 1)
        return data


@dataclass(frozen=True, slots=True)
class HarvestStatus:
    """Every site of a harvest, and the harvest's own figures.

    Attributes:
        sites: one row a site, in the sites file's order.
        elapsed_s: seconds since this run of the harvest began.
        workers: where its jobs run (``in-process``, or the worker processes this command
            started on PostgreSQL; others may join).
        ended: whether every site has ended.
    """

    sites: list[SiteStatus]
    elapsed_s: float
    workers: str
    ended: bool = False

    @property
    def records(self) -> int:
        """Records delivered, every site's."""
        return sum(site.records for site in self.sites)

    @property
    def failed(self) -> list[SiteStatus]:
        """The sites that failed."""
        return [site for site in self.sites if site.state == "failed"]

    def to_dict(self) -> dict[str, Any]:
        """What ``harvest.json`` holds."""
        return {
            "ended": self.ended,
            "elapsed_s": round(self.elapsed_s, 1),
            "workers": self.workers,
            "records": self.records,
            "sites": [site.to_dict() for site in self.sites],
        }
