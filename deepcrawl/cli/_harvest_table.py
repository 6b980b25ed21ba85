"""A harvest's live table on stderr: one row a site (state, records, estimate, requests, rate,
errors).

On a terminal a :class:`rich.live.Live` table redrawn in place; elsewhere (a pipe, a log file)
one line a site whose state changed, and every site's line each ``crawl.progress_every_s``
seconds, as the crawl's progress display does (:mod:`deepcrawl.cli._progress`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Self

from rich.live import Live
from rich.table import Table

from deepcrawl.cli._app import err_console

if TYPE_CHECKING:
    from rich.console import Console

    from deepcrawl.harvest import HarvestStatus, SiteStatus

__all__ = ["HarvestTable", "site_line"]

_STYLES = {"failed": "red", "done": "green", "running": "cyan", "finishing": "cyan"}


def _estimate(site: SiteStatus) -> str:
    return f"~{site.estimate:.0f}" if site.estimate else "?"


def site_line(site: SiteStatus) -> str:
    """One site's figures as a line of text."""
    line = (
        f"{site.name}: {site.state}  records {site.records}/{_estimate(site)}  "
        f"requests {site.requests}  {site.rate:.1f}/s  errors {site.errors}"
    )
    return line + (f"  ({site.reason})" if site.reason else "")


def render(status: HarvestStatus) -> Table:
    """The harvest's table."""
    table = Table(title=f"harvest: {status.records} records, {status.elapsed_s:.0f} s",
                  title_justify="left", expand=False)  # fmt: skip
    for column in ("site", "state", "records", "estimate", "requests", "rate", "errors"):
        table.add_column(column, justify="left" if column in ("site", "state") else "right")
    table.add_column("reason", overflow="fold", max_width=48)
    for site in status.sites:
        table.add_row(
            site.name,
            f"[{_STYLES.get(site.state, 'white')}]{site.state}[/]",
            str(site.records),
            _estimate(site),
            str(site.requests),
            f"{site.rate:.1f}/s",
            str(site.errors),
            site.reason or "",
        )
    return table


class HarvestTable:
    """The live table of one harvest; a context manager, :meth:`update` with every status.

    Args:
        every_s: seconds between two rounds of plain lines when the console is no terminal.
        console: where to draw (default: stderr).
        enabled: False shows nothing (``--quiet``).
    """

    def __init__(
        self, every_s: float, *, console: Console | None = None, enabled: bool = True
    ) -> None:
        self.every_s = every_s
        self.console = console or err_console
        self.enabled = enabled
        self.live = (
            Live(console=self.console, refresh_per_second=2, redirect_stdout=False)
            if enabled and self.console.is_terminal
            else None
        )
        self._states: dict[str, str] = {}
        self._printed_at = time.monotonic()

    def __enter__(self) -> Self:
        if self.live is not None:
            self.live.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.live is not None:
            self.live.stop()

    def update(self, status: HarvestStatus) -> None:
        """Show the harvest's status."""
        if not self.enabled:
            return
        if self.live is not None:
            self.live.update(render(status))
            return
        now = time.monotonic()
        every = now - self._printed_at >= self.every_s
        for site in status.sites:
            if every or self._states.get(site.name) != site.state:
                self.console.print(site_line(site), markup=False, highlight=False)
            self._states[site.name] = site.state
        if every:
            self._printed_at = now
