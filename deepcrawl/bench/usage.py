"""What a child process and all its descendants cost: CPU seconds, peak memory, machine load.

A crawl is a tree of processes — Python, Playwright's driver, Chromium's browser, GPU, network
and renderer processes — that come and go while it runs, so :class:`TreeSampler` watches the
tree from outside, in a thread of the process that started it:

* **CPU seconds** (user + system) are the growth of this process's ``RUSAGE_CHILDREN`` across
  the block: the kernel adds a child's time there when the child is reaped, together with the
  time of every descendant that child reaped in turn, so once the root has been waited for it
  holds the whole tree — short-lived renderers included — exactly. A descendant that outlives
  its parent is reaped by init and lost to that count, so the sum of the last CPU reading of
  every process seen in the samples is kept as a floor, and the larger figure is reported.
  Only the root may be reaped in the block: the started process's other children (servers)
  must keep running until it ends.
* **Peak PSS** is the largest sum, over one sample, of the proportional set size of every
  process of the tree (``/proc/PID/smaps_rollup``): shared pages — Chromium's processes share
  most of theirs — are divided among the processes that map them, so the sum is what the tree
  really occupies, where a sum of resident sizes would count shared pages once per process.
  Sampled every ``interval_s``: a peak shorter than that can be missed.
* **Load**: the machine's one-minute load average, its mean and maximum over the samples — what
  else the machine was doing while the figures were taken.
"""

from __future__ import annotations

import os
import resource
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import psutil

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["SAMPLE_INTERVAL_S", "TreeSampler", "TreeUsage"]

_MIB = 2**20


@dataclass(frozen=True)
class TreeUsage:
    """The cost of one process tree over one run."""

    cpu_s: float
    """User + system CPU seconds of the tree."""
    peak_pss_mib: float
    """The largest sum of the tree's proportional set sizes at one sample, in MiB."""
    peak_processes: int
    """The most processes the tree had at one sample."""
    samples: int
    """How many samples were taken."""
    load_mean: float
    """The mean of the machine's one-minute load average over the samples."""
    load_max: float
    """The largest one-minute load average sampled."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "cpu_s": round(self.cpu_s, 2),
            "peak_pss_mib": round(self.peak_pss_mib, 1),
            "peak_processes": self.peak_processes,
            "samples": self.samples,
            "load_mean": round(self.load_mean, 2),
            "load_max": round(self.load_max, 2),
        }


#: Seconds between two samples of a crawl's process tree (its memory, the machine's load): a
#: shorter peak can be missed, but each sample reads the memory map summary of every process of
#: the tree, a few milliseconds of CPU each for a browser's processes.
SAMPLE_INTERVAL_S = 2.0


class TreeSampler:
    """Samples the tree of processes rooted at ``pid`` while the ``with`` block runs.

    The block must wait for the root (``proc.wait()``) before it ends: :attr:`usage` reads the
    reaped children's CPU time on exit.

    Args:
        pid: the root of the tree: a child of this process.
        interval_s: seconds between two samples.
    """

    def __init__(self, pid: int, interval_s: float = SAMPLE_INTERVAL_S) -> None:
        self.pid = pid
        self.interval_s = interval_s
        self._cpu_seen: dict[tuple[int, float], float] = {}
        self._peak_pss = 0.0
        self._peak_processes = 0
        self._loads: list[float] = []
        self._children_start = 0.0
        self._children_end = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-sampler", daemon=True)

    def __enter__(self) -> Self:
        self._children_start = _children_cpu()
        self.sample()
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
        self._children_end = _children_cpu()

    @property
    def usage(self) -> TreeUsage:
        """The figures (complete once the block has ended)."""
        reaped = self._children_end - self._children_start
        loads = self._loads or [0.0]
        return TreeUsage(
            cpu_s=max(reaped, sum(self._cpu_seen.values())),
            peak_pss_mib=self._peak_pss,
            peak_processes=self._peak_processes,
            samples=len(self._loads),
            load_mean=sum(loads) / len(loads),
            load_max=max(loads),
        )

    def sample(self) -> None:
        """Take one sample of the tree (the thread calls it every ``interval_s``)."""
        self._loads.append(os.getloadavg()[0])
        pss = 0.0
        processes = 0
        for proc in _tree(self.pid):
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    key = (proc.pid, proc.create_time())
                    memory = proc.memory_full_info()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue  # it ended between the listing and the reading
            self._cpu_seen[key] = times.user + times.system
            pss += memory.pss / _MIB
            processes += 1
        self._peak_pss = max(self._peak_pss, pss)
        self._peak_processes = max(self._peak_processes, processes)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()


def _tree(pid: int) -> list[psutil.Process]:
    """The process ``pid`` and its descendants now; empty once it has ended."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return []


def _children_cpu() -> float:
    """User + system CPU seconds of this process's reaped children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
