"""Peak memory of this process while a block runs, sampled in a background thread.

``resource.getrusage`` only gives the peak of the whole process lifetime, which is useless when
several strategies run one after the other in one ``deepcrawl bench``; sampling RSS every few
milliseconds gives the peak of each run.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Self

import psutil

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["PeakMemory"]


class PeakMemory:
    """Context manager recording the peak resident set size (MiB) of this process."""

    def __init__(self, interval_s: float = 0.02) -> None:
        self.interval_s = interval_s
        self.peak_mb = 0.0
        self.start_mb = 0.0
        self._process = psutil.Process()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="peak-memory", daemon=True)

    def _rss_mb(self) -> float:
        return float(self._process.memory_info().rss) / 2**20

    def _sample(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.peak_mb = max(self.peak_mb, self._rss_mb())

    def __enter__(self) -> Self:
        self.start_mb = self.peak_mb = self._rss_mb()
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_mb = max(self.peak_mb, self._rss_mb())
