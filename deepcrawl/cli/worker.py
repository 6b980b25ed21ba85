"""``deepcrawl worker``: run deepcrawl's jobs (crawls, harvests) from a PostgreSQL database."""

import json
from typing import Annotated

import typer

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, err_console
from deepcrawl.cli._signals import Interrupted, exit_at_once, run_stoppable
from deepcrawl.settings import load_settings


@app.command()
@access_options
def worker(
    db: Annotated[str, typer.Option(help="The jobs' database (postgresql://user@host/db).")],
    concurrency: Annotated[
        int, typer.Option(min=1, help="Fetch jobs at once (each host's cap is shared).")
    ] = 4,
    sites: Annotated[
        int, typer.Option(min=1, help="Sites' query loops at once (a browser each).")
    ] = 2,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print this worker's figures as JSON on stdout.")
    ] = False,
    access: AccessFlags = AccessFlags(),
) -> None:
    """Run the jobs of every crawl and harvest that a PostgreSQL database holds.

    Start any number, on any machines that reach the database: they run the sites' query loops
    of 'deepcrawl harvest --db …' and the fetch jobs of it and of 'deepcrawl crawl --db …',
    sharing each host's request rate and concurrency. Workers deliver nothing: the harvest (or
    crawl) command delivers every stored page, once. A worker killed outright has its jobs run
    again by the others; it ends once it has had no job for crawl.worker_wait_s seconds.
    """
    from deepcrawl.harvest import run_worker

    settings = load_settings(storage={"url": db}, **access.overrides())
    try:
        report = run_stoppable(run_worker(settings, sites=sites, concurrency=concurrency))
    except Interrupted as stop:
        err_console.print("interrupted: its jobs went back to the queue")
        exit_at_once(stop.exit_code)
    if json_out:
        figures = {"pages": report.pages, "requests": report.requests, "errors": report.errors}
        print(json.dumps({**figures, "sites": report.sites}, indent=2))
    err_console.print(
        f"done: {report.pages} pages fetched and stored by this worker for {report.sites} sites "
        f"(the harvest or crawl delivers them), {report.requests} requests, {report.errors} "
        "failed URLs",
        highlight=False,
    )
