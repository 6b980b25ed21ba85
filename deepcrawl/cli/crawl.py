"""``deepcrawl crawl``: crawl a site behind its search form and deliver the wanted pages."""

import contextlib
import importlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, err_console
from deepcrawl.cli._form_options import FieldOption, FormOption, form_overrides
from deepcrawl.cli._global import global_options
from deepcrawl.cli._progress import CrawlProgress
from deepcrawl.cli._signals import STOP_GRACE_S, Interrupted, exit_at_once, run_stoppable
from deepcrawl.errors import ConfigError, DeepcrawlError, OutputClosedError, OutputError
from deepcrawl.search.causes import describe_causes
from deepcrawl.settings import Settings, load_settings
from deepcrawl.storage.engine import safe_url

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl.crawler.context import CrawlStats
    from deepcrawl.crawler.deliver import Sink
    from deepcrawl.crawler.engine import CrawlReport
    from deepcrawl.crawler.inputs import StartPage
    from deepcrawl.prototypes import LabelSession
    from deepcrawl.records.pick import Pick


#: The crawl machinery the engine imports on first use; seconds of loading (scikit-learn, the form
#: code) on a busy machine.
_CRAWL_MODULES = (
    "deepcrawl.crawler.engine",
    "deepcrawl.crawler.normal",
    "deepcrawl.crawler.setup",
    "deepcrawl.browser.pool",
    "deepcrawl.search.form_search",
)


def _load_crawler() -> None:
    """Import the crawl machinery before the event loop runs. Inside it, an import holds the
    loop for seconds, and a stop request waits; before it, Ctrl-C simply ends the command."""
    for module in _CRAWL_MODULES:
        importlib.import_module(module)


def _sink(out: str | None, warc: Path | None, *, gzip: bool, info: dict[str, str]) -> "Sink":
    """Where the crawl delivers: the WARC file first (so that a crawl killed between the two
    writes leaves no page in pages.jsonl that the WARC lacks), then JSON lines. The folders of
    both are made as needed."""
    from deepcrawl.crawler.deliver import JsonlSink, NullSink, TeeSink, WarcSink
    from deepcrawl.errors import StorageError

    sinks: list[Sink] = []
    if warc is not None:
        try:
            warc.parent.mkdir(parents=True, exist_ok=True)
            sinks.append(WarcSink(warc, gzip=gzip or None, info=info))
        except OSError as exc:
            raise ConfigError(f"--warc {warc}: {exc.strerror or exc}") from exc
        except StorageError as exc:
            raise ConfigError(f"--warc {warc}: {exc}") from exc
    if out == "-":
        sinks.append(JsonlSink(sys.stdout))
    elif out is not None:
        folder = Path(out)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"--out {out}: {exc}") from exc
        sinks.append(JsonlSink(folder / "pages.jsonl"))
    if not sinks:
        return NullSink()
    return sinks[0] if len(sinks) == 1 else TeeSink(*sinks)


def _labeller(progress: CrawlProgress) -> "Callable[[LabelSession, Pick | None], None] | None":
    # a terminal to ask at, whether or not the progress is shown there (--quiet)
    if not (err_console.is_terminal and sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from deepcrawl.cli._propose import propose
    from deepcrawl.cli.prototypes import _interactive

    def ask(session: "LabelSession", pick: "Pick | None") -> None:
        with progress.paused():
            if pick is not None:
                propose(session, pick)
                return
            err_console.print(
                "[bold]Label the kinds of URL the search results link to[/] (or quit with q and "
                f"label them on a web page: deepcrawl label {session.site_id} --web)"
            )
            _interactive(session, session.repo)

    return ask


def _say_pick(pick: "Pick") -> None:
    """Tell the user which kind of records the crawl picked itself (not with --quiet)."""
    err_console.print(pick.message(), markup=False, highlight=False)


async def _run(
    start_url: str,
    settings: Settings,
    *,
    like: list[str],
    labels: Path | None,
    resume: bool,
    start: "StartPage | None",
    out: str | None,
    warc: Path | None,
    warc_gzip: bool,
) -> "CrawlReport":
    from deepcrawl.crawler.engine import Crawl
    from deepcrawl.harvest import shared_fetching

    info = {"isPartOf": start_url, "http-header-user-agent": settings.http.user_agent}
    quiet = global_options().quiet  # --quiet: nothing on stderr but errors
    shown = CrawlProgress(settings.crawl.progress_every_s, enabled=not quiet)
    with shown as progress:
        # on PostgreSQL the pages are fetched by fetch jobs, which this process and any
        # 'deepcrawl worker' run (None elsewhere: the crawl fetches in its own tasks)
        async with (
            shared_fetching(settings) as dispatch,
            Crawl(
                start_url,
                settings=settings,
                like=like,
                labels_file=labels,
                resume=resume,
                start=start,
                labeller=None if like or labels else _labeller(progress),
                on_pick=None if quiet else _say_pick,
                progress=progress.update,
                dispatch=dispatch,
            ) as crawl,
        ):
            # the outputs once the database opened: a store that fails leaves no empty file
            sink = _sink(out, warc, gzip=warc_gzip, info=info)
            try:
                report = await crawl.run(sink)
            except DeepcrawlError as exc:  # the figures say what the crawl met before it
                if crawl.ctx is not None:
                    # the crawl's error is the one to tell: a full disk must not hide it
                    with contextlib.suppress(OSError):
                        _write_stats(out, start_url, "failed", crawl.ctx.stats, error=str(exc))
                raise
            finally:
                sink.close()
    _write_stats(out, start_url, report.status, report.stats)
    return report


def _write_stats(
    out: str | None, start_url: str, status: str, figures: "CrawlStats", *, error: str = ""
) -> None:
    """``stats.json`` in the output folder (none for stdout): the status, the error that ended
    a failed crawl, and the figures."""
    if out in (None, "-"):
        return
    stats = {"start_url": start_url, "status": status, **figures.to_dict()}
    if error:
        stats["error"] = error
    (Path(out) / "stats.json").write_text(json.dumps(stats, indent=2) + "\n")


def _silence_stdout() -> None:
    """Point stdout at the null device once writing to it failed: the interpreter's last flush
    of what is left in its buffer would fail again, with a traceback."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # no real file descriptor (a test's captured stdout)
        return


@app.command()
@access_options
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
    warc: Annotated[
        Path | None,
        typer.Option(
            help="Also write the delivered pages to this WARC file as they come (request, "
            "response and rendered-DOM records; compressed when the name ends in .gz)."
        ),
    ] = None,
    warc_gzip: Annotated[
        bool, typer.Option(help="Compress the --warc file whatever its name.")
    ] = False,
    text: Annotated[
        bool,
        typer.Option(help="Add each page's main text to pages.jsonl ('text'; needs the "
                     "'text' extra: pip install 'deepcrawl\\[text]')."),
    ] = False,
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
    auto: Annotated[
        bool | None,
        typer.Option("--auto/--no-auto",
                     help="With no --like or --labels: pick the records' kind from the result "
                     "lists without asking (the default off a terminal; at one, the pick is "
                     "proposed), or --no-auto: never pick, stop after the setup queries for "
                     "labels."),
    ] = None,
    records: Annotated[
        str | None,
        typer.Option(help="With no example: 'one' kind of records (the one of most distinct "
                     "records in the result lists; the default) or 'all' the kinds that look "
                     "like records."),
    ] = None,
    access: AccessFlags = AccessFlags(),
    field: FieldOption = None,
    form: FormOption = None,
) -> None:  # fmt: skip
    """Crawl START_URL's site behind its search form; deliver only the pages you want.

    Finds the search form, queries it, prototypes the result links, takes your labels (--like,
    --labels) or, with neither, picks the records' kind from the result lists itself (proposing
    it first at a terminal), then queries to saturation and fetches only wanted pages.
    Everything is stored: run the same command again (or with --resume) after a crash.
    Progress goes to stderr: "records" are the wanted records the result lists showed, against
    the estimate of how many there are; "delivered" are the pages written out, which include
    pages reached by links the result lists did not show, so it may pass "records".
    """
    settings = load_settings(
        storage={"url": db},
        keywords={"keywords_file": keywords},
        querying={"max_queries": max_queries},
        crawl={
            "max_pages": max_pages,
            "scope_prefix": scope_prefix,
            "navigate": navigate or None,
            "deliver_text": text or None,
            "requery": requery or None,
            "sitemaps": sitemaps,
            "auto_label": auto,
            "record_kinds": records,
        },
        links={"navigate_strategy": strategy, "discovery_strategy": strategy},
        **access.overrides(),
        forms=form_overrides(field, form),
    )
    # Every input is checked before the store is opened, the browser started or a query sent.
    from deepcrawl.crawler.inputs import check_inputs, check_start_page

    checked = check_inputs(start_url, settings, like=like or [], labels=labels, out=out, warc=warc)
    # the URLs without their credentials; the settings send them to their origins
    start_url, settings = checked.start_url, checked.settings
    _load_crawler()
    try:
        start = None
        if not resume:  # a stored crawl's start page was looked at when it began
            start = run_stoppable(
                check_start_page(start_url, settings, like=checked.like), grace_s=STOP_GRACE_S
            )
        report = run_stoppable(
            _run(start_url, settings, like=list(checked.like), labels=labels, resume=resume,
                 start=start, out=out, warc=warc, warc_gzip=warc_gzip),
            grace_s=STOP_GRACE_S,
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
            err_console.print(stats.stop_reason, markup=False, highlight=False)
        err_console.print(
            f"Setup done: {stats.queries} queries, prototypes stored. Label them, then resume:\n"
            f"  deepcrawl label {report.site_id} --db {settings.storage.url} --web   "
            f"(or no --web: at the terminal; --like URL / --labels FILE)\n"
            f"  deepcrawl crawl {start_url} --db {settings.storage.url} --resume",
            highlight=False,
        )
        return
    if global_options().quiet:
        return
    err_console.print(
        f"{report.status}: {stats.pages_delivered} pages delivered, {stats.queries} queries, "
        f"{stats.requests} requests, {stats.errors} failed URLs"
        + (f" (queries: {causes})" if (causes := describe_causes(stats.query_failures)) else "")
        + (
            f"; navigate: {stats.nav_records} records in {stats.nav_requests} navigation requests"
            if navigate
            else ""
        )
        + (f" ({stats.stop_reason})" if stats.stop_reason else "")
        + _holding(stats),
        highlight=False,
    )
    err_console.print(_outputs(settings, out=out, warc=warc), markup=False, highlight=False)


def _holding(stats: "CrawlStats") -> str:
    """What the crawl believes of the records it holds, in plain words: that it holds every
    record only where the querying's evidence proves it, else what its best estimate (the
    progress line's) says is missing; empty when it has no evidence either way."""
    held = stats.pages_delivered
    if stats.complete:
        return f"; it believes it holds every record ({held})"
    estimate = stats.records_estimated
    if stats.complete is False and estimate is not None:
        size = max(round(estimate), held)
        missing = f", ~{size - held} missing" if size > held else ""
        return (
            f"; it does not know that it holds every record: {held} held of about {size} "
            f"estimated{missing}"
        )
    return ""


def _outputs(settings: Settings, *, out: str | None, warc: Path | None) -> str:
    """The line naming where the crawl's output went."""
    where = []
    if out == "-":
        where.append("pages as JSON lines on stdout")
    elif out is not None:
        folder = Path(out)
        where += [str(folder / "pages.jsonl"), str(folder / "stats.json")]
    if warc is not None:
        where.append(str(warc))
    stored = f"everything stored in {safe_url(settings.storage.url)}"
    if not where:
        return f"output: none asked for (--out, --warc); {stored} (deepcrawl export)"
    return f"output: {', '.join(where)}; {stored}"
