"""One run of the real-site bench: :class:`RealRun`, the figures of one crawler on one site."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepcrawl_fixtures.real.score import RealScore

    from deepcrawl.bench.real_prototypes import PrototypeF1
    from deepcrawl.bench.real_speed import SpeedComparison
    from deepcrawl.bench.usage import TreeUsage

__all__ = ["RealRun"]


@dataclass
class RealRun:
    """The figures of one crawler on one real site."""

    site: str
    title: str
    crawler: str
    """``deepcrawl`` (the crawl command with the site's example), ``deepcrawl-auto`` (with its
    start URL alone), ``bfs`` (the baseline) or ``reference`` (the plain HTTP client over the
    record pages)."""
    score: RealScore
    stop: str
    """How the run ended: the crawl's status and stop reason, ``killed after N s``, an exit
    status, or ``budget`` / ``exhausted`` for the baseline."""
    wall_s: float
    prototypes: PrototypeF1 | None = None
    """The baseline's: the F1 of ``prototypes --like`` over the URLs it saw."""
    usage: TreeUsage | None = None
    """The crawl's and the reference's: CPU, peak memory and load of the process tree."""
    versus_reference: SpeedComparison | None = None
    """The crawl's, on a site with a reference client: its speed and cost against it."""
    picked: dict[str, Any] | None = None
    """The no-example crawl's pick (``stats.json``'s ``picked``) and ``same_as_like``: whether
    the kinds it took hold the site's example."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        data = {
            "site": self.site,
            "title": self.title,
            "crawler": self.crawler,
            **self.score.to_dict(),
            "stop": self.stop,
            "wall_s": self.wall_s,
        }
        if self.prototypes is not None:
            data["prototypes"] = self.prototypes.to_dict()
        if self.usage is not None:
            data["usage"] = self.usage.to_dict()
        if self.versus_reference is not None:
            data["versus_reference"] = self.versus_reference.to_dict()
        if self.picked is not None:
            data["picked"] = self.picked
        return data
