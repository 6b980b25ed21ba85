"""``deepcrawl crawl``: crawl a site behind its search form and deliver the wanted pages."""

import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Self

import typer
from rich.live import Live
from rich.text import Text

from deepcrawl.cli._app import app, err_console
from deepcrawl.cli._signals import Interrupted, exit_at_once, run_stoppable
from deepcrawl.crawler.context import CrawlStats
from deepcrawl.errors import ConfigError, OutputClosedError, OutputError
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl.crawler.deliver import Sink
    from deepcrawl.crawler.engine import Crawl, CrawlReport
    from deepcrawl.prototypes import LabelSession


def _line(stats: CrawlStats) -> Text:
    estimate = f"{stats.records_estimated:.0f}" if stats.records_estimated else "?"
    return Text.assemble(
        (f"{stats.phase:<8} ", "bold cyan"),
        f"queries {stats.queries}  ",
        f"records {stats.records_reached}/{estimate}  ",
        (f"delivered {stats.pages_delivered}  ", "green"),
        f"requests {stats.requests}  ",
        (f"errors {stats.errors}  ", "red" if stats.errors else ""),
        f"{stats.rate:.1f} pages/s",
    )


class _Progress:
    """The crawl's progress on stderr: one live line on a terminal; elsewhere (a log file, a
    pipe) a plain line every ``crawl.progress_every_s`` seconds and the last one at the end,
    since a live display cannot redraw there and its last frame would run into what follows."""

    def __init__(self, every_s: float) -> None:
        self.every_s = every_s
        self.live = (
            Live(_line(CrawlStats()), console=err_console, refresh_per_second=4)
            if err_console.is_terminal
            else None
        )
        self._last: Text | None = None
        self._printed_at = time.monotonic()

    def __enter__(self) -> Self:
        if self.live is not None:
            self.live.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.live is not None:
            self.live.stop()
        elif self._last is not None:
            err_console.print(self._last, highlight=False)

    def update(self, stats: CrawlStats) -> None:
        """Show the crawl's figures (called on every change)."""
        line = _line(stats)
        if self.live is not None:
            self.live.update(line)
            return
        self._last = line
        now = time.monotonic()
        if now - self._printed_at >= self.every_s:
            self._printed_at = now
            err_console.print(line, highlight=False)
            self._last = None


#: The crawl machinery the engine imports on first use; seconds of loading (scikit-learn, the form
#: code) on a busy machine.
_CRAWL_MODULES = (
    "deepcrawl.crawler.engine",
    "deepcrawl.crawler.normal",
    "deepcrawl.crawler.setup",
    "deepcrawl.browser.pool",
    "deepcrawl.forms.search",
)


def _load_crawler() -> None:
    """Import the crawl machinery before the event loop runs. Inside it, an import holds the
    loop for seconds, and a stop request waits; before it, Ctrl-C simply ends the command."""
    for module in _CRAWL_MODULES:
        importlib.import_module(module)


def _sink(out: str | None) -> "Sink":
    from deepcrawl.crawler.deliver import JsonlSink, NullSink

    if out is None:
        return NullSink()
    if out == "-":
        return JsonlSink(sys.stdout)
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {out}: {exc}") from exc
    return JsonlSink(folder / "pages.jsonl")


def _labeller(live: Live | None) -> "Callable[[LabelSession], None] | None":
    if live is None or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from deepcrawl.cli.prototypes import _interactive

    def ask(session: "LabelSession") -> None:
        live.stop()
        err_console.print(
            "[bold]Label the kinds of URL the search results link to[/] (or quit with q and "
            f"label them on a web page: deepcrawl label {session.site_id} --web)"
        )
        _interactive(session, session.repo)
        live.start()

    return ask


async def _run(
    start_url: str,
    settings: Settings,
    *,
    like: list[str],
    labels: Path | None,
    resume: bool,
    out: str | None,
    warc: Path | None,
) -> "CrawlReport":
    from deepcrawl.crawler.engine import Crawl

    sink = _sink(out)
    with _Progress(settings.crawl.progress_every_s) as progress:
        try:
            async with Crawl(
                start_url,
                settings=settings,
                like=like,
                labels_file=labels,
                resume=resume,
                labeller=None if like or labels else _labeller(progress.live),
                progress=progress.update,
            ) as crawl:
                report = await crawl.run(sink)
                if warc is not None and report.status != "needs_labels":
                    _write_warc(crawl, warc)
        finally:
            sink.close()
    if out not in (None, "-"):
        stats = {"start_url": start_url, "status": report.status, **report.stats.to_dict()}
        (Path(out) / "stats.json").write_text(json.dumps(stats, indent=2) + "\n")
    return report


def _silence_stdout() -> None:
    """Point stdout at the null device once writing to it failed: the interpreter's last flush
    of what is left in its buffer would fail again, with a traceback."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # no real file descriptor (a test's captured stdout)
        return


def _write_warc(crawl: "Crawl", path: Path) -> None:
    from deepcrawl.export import page_records, write_warc

    ctx = crawl.ctx
    assert ctx is not None
    try:
        with path.open("wb") as fh:
            write_warc(page_records(ctx.repo, ctx.repo.pages(ctx.site.id, kind="record")), fh)
    except OSError as exc:
        raise ConfigError(f"--warc {path}: {exc}") from exc


@app.command()
def crawl(
    start_url: Annotated[str, typer.Argument(help="Page with the site's search form.")],
    like: Annotated[
        list[str] | None,
        typer.Option(
            help="Example URL of the pages wanted (repeatable); a path is resolved "
            "against START_URL."
        ),
    ] = None,
    labels: Annotated[
        Path | None, typer.Option(help="YAML labels file (see 'deepcrawl label --labels').")
    ] = None,
    keywords: Annotated[
        Path | None, typer.Option(help="Your own keywords, one a line, queried first.")
    ] = None,
    max_queries: Annotated[int | None, typer.Option(min=1, help="Query budget.")] = None,
    max_pages: Annotated[
        int | None, typer.Option(min=1, help="Stop after delivering N pages.")
    ] = None,
    db: Annotated[
        str | None, typer.Option(help="Database URL (default: settings storage.url).")
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(
            help="Folder for pages.jsonl and stats.json, or '-' for JSON lines on stdout "
            "(on PostgreSQL: every page of the crawl, the workers' too)."
        ),
    ] = None,
    warc: Annotated[Path | None, typer.Option(help="Also write the pages as a WARC file.")] = None,
    scope_prefix: Annotated[
        str | None, typer.Option(help="Fetch only URLs starting with this prefix.")
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Continue the stored crawl of START_URL (fail if there is none).")
    ] = False,
    sitemaps: Annotated[
        bool | None,
        typer.Option("--sitemaps/--no-sitemaps",
                     help="Read the site's sitemaps (robots.txt Sitemap lines, else "
                     "/sitemap.xml) for wanted URLs (default: on; setting crawl.sitemaps)."),
    ] = None,
    requery: Annotated[
        bool,
        typer.Option(help="Query the form again although an earlier run of this crawl "
                     "saturated it (by default a finished crawl run again sends no query)."),
    ] = False,
    navigate: Annotated[
        bool,
        typer.Option(help="After the form is saturated, follow links to wanted records the "
                     "queries did not return."),
    ] = False,
    strategy: Annotated[
        str | None,
        typer.Option(help="Link strategy of --navigate (and of discovering the search form): "
                     "ache (default), apprentice, xcrawl, bfs."),
    ] = None,
) -> None:  # fmt: skip
    """Crawl START_URL's site behind its search form; deliver only the pages you want.

    Finds the search form, queries it, prototypes the result links, takes your labels (--like,
    --labels, or prompts on a terminal), then queries to saturation and fetches only wanted
    pages. Everything is stored: run the same command again (or with --resume) after a crash.
    Progress goes to stderr.
    """
    settings = load_settings(
        storage={"url": db},
        keywords={"keywords_file": keywords, "max_queries": max_queries},
        crawl={
            "max_pages": max_pages,
            "scope_prefix": scope_prefix,
            "navigate": navigate or None,
            "requery": requery or None,
            "sitemaps": sitemaps,
        },
        links={"navigate_strategy": strategy, "discovery_strategy": strategy},
    )
    # Every input is checked before the store is opened, the browser started or a query sent.
    from deepcrawl.crawler.inputs import check_inputs, check_start_page

    checked = check_inputs(start_url, settings, like=like or [], labels=labels)
    start_url = checked.start_url
    _load_crawler()
    try:
        if not resume:  # a stored crawl's start page was looked at when it began
            run_stoppable(
                check_start_page(start_url, settings), grace_s=settings.crawl.stop_grace_s
            )
        report = run_stoppable(
            _run(start_url, settings, like=list(checked.like), labels=labels, resume=resume,
                 out=out, warc=warc),
            grace_s=settings.crawl.stop_grace_s,
        )  # fmt: skip
    except Interrupted as stop:
        err_console.print(
            "interrupted: everything so far is stored; run the same command again "
            "(or add --resume) to continue",
            highlight=False,
        )
        exit_at_once(stop.exit_code)
    except OutputError as exc:
        if out == "-":
            _silence_stdout()
        advice = "run the same command with --resume to continue"
        if isinstance(exc, OutputClosedError):  # ``| head``: the reader had what it wanted
            err_console.print(f"stopped: {exc}; {advice}", markup=False, highlight=False)
            exit_at_once(0)
        raise OutputError(f"{exc}; {advice}", written=exc.written) from exc
    stats = report.stats
    if report.status == "needs_labels":
        if stats.stop_reason:
            err_console.print(stats.stop_reason, highlight=False)
        err_console.print(
            f"Setup done: {stats.queries} queries, prototypes stored. Label them, then resume:\n"
            f"  deepcrawl label {report.site_id} --db {settings.storage.url} --web   "
            f"(or no --web: at the terminal; --like URL / --labels FILE)\n"
            f"  deepcrawl crawl {start_url} --db {settings.storage.url} --resume",
            highlight=False,
        )
        return
    err_console.print(
        f"{report.status}: {stats.pages_delivered} pages delivered, {stats.queries} queries, "
        f"{stats.requests} requests, {stats.errors} failed URLs"
        + (
            f"; navigate: {stats.nav_records} records in {stats.nav_requests} navigation requests"
            if navigate
            else ""
        )
        + (f" ({stats.stop_reason})" if stats.stop_reason else ""),
        highlight=False,
    )
