"""``deepcrawl harvest``: crawl every site of a sites file as one job."""

from pathlib import Path
from typing import Annotated

import typer

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, err_console
from deepcrawl.cli._global import global_options
from deepcrawl.cli._harvest_table import HarvestTable, site_line
from deepcrawl.cli._signals import STOP_GRACE_S, Interrupted, exit_at_once, run_stoppable
from deepcrawl.settings import load_settings


@app.command()
@access_options
def harvest(
    sites: Annotated[
        Path,
        typer.Argument(help="The sites: one start URL a line (with its --like, --form, "
                       "--field), or a .toml / .csv file (see the README)."),
    ],
    out: Annotated[
        Path, typer.Option(help="Folder for OUT/<site>/pages.jsonl and OUT/harvest.json.")
    ] = Path("harvest-out"),
    db: Annotated[
        str | None,
        typer.Option(help="Database: a SQLite file (the default; every job in this process) "
                     "or postgresql://… (the jobs run in 'deepcrawl worker' processes)."),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(min=0, help="With PostgreSQL: worker processes to start on this machine "
                     "(0: only those started elsewhere)."),
    ] = 1,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Fetch jobs at once, a worker (each host's cap holds).")
    ] = 4,
    sites_at_once: Annotated[
        int, typer.Option("--sites", min=1, help="Sites' query loops at once, a worker.")
    ] = 2,
    warc: Annotated[
        bool, typer.Option(help="Also write OUT/<site>/pages.warc.gz.")
    ] = False,
    resume: Annotated[
        bool, typer.Option(help="Continue the harvest OUT holds (its failed sites tried again).")
    ] = False,
    access: AccessFlags = AccessFlags(),
) -> None:  # fmt: skip
    """Crawl every site of SITES behind its search form, as one harvest.

    Each site is crawled as 'deepcrawl crawl' would (with its own --like, --form and --field,
    or picking its records itself) and its pages go to OUT/<site>/pages.jsonl, each once; a
    live table and OUT/harvest.json show every site. A site that fails (no search form,
    unreachable, refused by robots.txt) is recorded with its reason; the others go on. Each
    host's request rate and concurrency hold over every site and worker.
    """
    from deepcrawl.harvest import read_sites, run_harvest

    settings = load_settings(storage={"url": db}, **access.overrides())
    specs = read_sites(sites)
    shown = HarvestTable(settings.crawl.progress_every_s, enabled=not global_options().quiet)
    try:
        with shown as table:
            status = run_stoppable(
                run_harvest(specs, settings, out=out, resume=resume, warc=warc, workers=workers,
                            sites_at_once=sites_at_once, fetches=concurrency,
                            progress=table.update),
                grace_s=STOP_GRACE_S,
            )  # fmt: skip
    except Interrupted as stop:
        err_console.print(
            "interrupted: everything so far is stored; continue with the same command and --resume",
            highlight=False,
        )
        exit_at_once(stop.exit_code)
    if not global_options().quiet and not shown.live:
        for site in status.sites:
            err_console.print(site_line(site), markup=False, highlight=False)
    failed = len(status.failed)
    err_console.print(
        f"harvest done: {status.records} records from {len(status.sites) - failed} sites"
        + (f", {failed} failed (their reasons in {out / 'harvest.json'})" if failed else "")
        + f"; pages in {out}/<site>/pages.jsonl",
        highlight=False,
    )
