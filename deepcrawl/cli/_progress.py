"""The crawl's progress on stderr.

On a terminal, a :mod:`rich.progress` bar: the records the search form's result lists showed
against the capture–recapture estimate of how many there are, with the time left at the recent
pace (a pulsing bar until an estimate exists), then the phase and the other figures. Elsewhere
(a pipe, a CI log) a live display cannot redraw and its last frame would run into what follows,
so plain lines are printed instead: one when the phase changes and one every
``crawl.progress_every_s`` seconds, the last at the end.

``records`` and ``delivered`` count different things: ``records`` are the distinct wanted
records the result lists showed (what the estimate estimates, so a bar can end), ``delivered``
are the pages written out, which include the wanted pages reached by following links from record
pages and by ``--navigate`` that no result list showed: ``delivered`` may pass ``records``.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Self

from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from deepcrawl.cli._app import err_console

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rich.console import Console

    from deepcrawl.crawler.context import CrawlStats

__all__ = ["CrawlProgress", "plain_line"]


def _estimate(stats: CrawlStats) -> str:
    return f"~{stats.records_estimated:.0f}" if stats.records_estimated else "?"


def _figures(stats: CrawlStats) -> str:
    return (
        f"queries {stats.queries}  delivered {stats.pages_delivered}  "
        f"requests {stats.requests}  errors {stats.errors}  {stats.rate:.1f} pages/s"
    )


def plain_line(stats: CrawlStats) -> str:
    """The figures as one line of text (what a pipe or a log file gets)."""
    return f"{stats.phase}: records {stats.records_reached}/{_estimate(stats)}  {_figures(stats)}"


class CrawlProgress:
    """The progress display of one crawl; a context manager, :meth:`update` on every change.

    Args:
        every_s: seconds between two plain lines when the console is no terminal.
        console: where to draw (default: stderr).
        enabled: False shows nothing (``--quiet``).
    """

    def __init__(
        self, every_s: float, *, console: Console | None = None, enabled: bool = True
    ) -> None:
        self.every_s = every_s
        self.console = console or err_console
        self.enabled = enabled
        self.progress: Progress | None = None
        self._task: TaskID | None = None
        if enabled and self.console.is_terminal:
            self.progress = Progress(
                TextColumn("[bold cyan]{task.fields[phase]:<14}"),
                BarColumn(bar_width=24),
                TextColumn("records {task.completed:.0f}/{task.fields[estimate]}"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[figures]}"),
                console=self.console,
                refresh_per_second=4,
                redirect_stdout=False,  # stdout carries the pages (--out -): data, not display
            )
            self._task = self.progress.add_task(
                "crawl", total=None, phase="starting", estimate="?", figures=""
            )
        self._last: CrawlStats | None = None
        self._phase = ""
        self._printed_at = time.monotonic()

    def __enter__(self) -> Self:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.progress is not None:
            self.progress.stop()
        elif self._last is not None:
            self.console.print(plain_line(self._last), markup=False, highlight=False)

    @property
    def live(self) -> bool:
        """Whether the display redraws in place (a terminal)."""
        return self.progress is not None

    def update(self, stats: CrawlStats) -> None:
        """Show the crawl's figures (called on every change)."""
        if not self.enabled:
            return
        if self.progress is not None and self._task is not None:
            estimate = stats.records_estimated
            self.progress.update(
                self._task,
                # a bar needs a total: the estimate, once there is one (never below the reached)
                total=max(estimate, stats.records_reached) if estimate else None,
                completed=stats.records_reached,
                phase=stats.phase,
                estimate=_estimate(stats),
                figures=_figures(stats),
            )
            return
        self._last = stats
        now = time.monotonic()
        if stats.phase != self._phase or now - self._printed_at >= self.every_s:
            self._phase = stats.phase
            self._printed_at = now
            self.console.print(plain_line(stats), markup=False, highlight=False)
            self._last = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Take the display off the screen for the block (an interactive prompt)."""
        if self.progress is None:
            yield
            return
        self.progress.stop()
        try:
            yield
        finally:
            self.progress.start()
