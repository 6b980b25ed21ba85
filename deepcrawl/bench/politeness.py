"""Politeness as the server saw it: requests in flight at once and starts a second, per host.

The real-site bed's counting proxy logs every request with when it came and when its answer was
out (``start``, ``end``: epoch seconds, :mod:`deepcrawl_fixtures.real.proxy`). From one host's
log, :func:`measure` takes what a harvest's many workers must hold to the politeness settings
(``politeness.concurrency_per_host`` and ``requests_per_second``, over every process and site):

* ``max_in_flight`` — the most document requests between their start and end at one moment;
* ``max_per_s`` — the most document requests started within any one second, and
  ``max_per_10s`` — within any ten seconds, divided by ten (the rate held, jitter averaged).

Assets (scripts, styles, images: what a rendered page loads with it) ride on the page's own
request and take no turn of their own, so only documents are counted.
"""

from __future__ import annotations

import bisect
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["HostPoliteness", "measure"]


@dataclass(frozen=True, slots=True)
class HostPoliteness:
    """The politeness one host saw (see the module docstring)."""

    requests: int
    max_in_flight: int
    max_per_s: int
    max_per_10s: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return asdict(self)


def _most_in(starts: list[float], window_s: float) -> int:
    """The most of ``starts`` (sorted) within any half-open window ``[t, t + window_s)``."""
    return max(
        (bisect.bisect_left(starts, t + window_s) - i for i, t in enumerate(starts)), default=0
    )


def measure(log: Iterable[Mapping[str, Any]]) -> HostPoliteness:
    """The politeness of one host's proxy log (entries without times are left out)."""
    spans = sorted(
        (float(e["start"]), float(e["end"]))
        for e in log
        if not e.get("asset") and "start" in e and "end" in e
    )
    events = sorted([(s, 1) for s, _e in spans] + [(e, -1) for _s, e in spans])
    in_flight = most = 0
    for _at, step in events:  # at one instant an answer out comes before a request in
        in_flight += step
        most = max(most, in_flight)
    starts = [s for s, _e in spans]
    return HostPoliteness(
        requests=len(spans),
        max_in_flight=most,
        max_per_s=_most_in(starts, 1.0),
        max_per_10s=round(_most_in(starts, 10.0) / 10.0, 2),
    )
