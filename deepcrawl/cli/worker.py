"""``deepcrawl worker``: join a crawl shared on PostgreSQL as one more fetch process."""

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
    db: Annotated[str, typer.Option(help="The crawl's database (postgresql://user@host/db).")],
    site: Annotated[
        str | None,
        typer.Option(help="Site to work on: id, start URL or host (default: the only one)."),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Fetch tasks in this process (the host's cap is shared)."),
    ] = None,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print this worker's figures as JSON on stdout.")
    ] = False,
    access: AccessFlags = AccessFlags(),
) -> None:
    """Fetch and store pages of a crawl that 'deepcrawl crawl --db postgresql://…' runs.

    Start any number, on any machines that reach the database: they share the frontier, each
    host's request rate and concurrency, and the page store. Workers deliver nothing: the
    'deepcrawl crawl' process delivers every stored page, once, to its --out. A worker waits for
    the crawl's setup phase and labels, and stops when the frontier is drained and no process is
    querying the form.
    """
    from deepcrawl.crawler.worker import run_worker

    settings = load_settings(storage={"url": db}, **access.overrides())
    try:
        report = run_stoppable(run_worker(settings, site=site, concurrency=concurrency))
    except Interrupted as stop:
        err_console.print("interrupted: its leased URLs went back to the frontier")
        exit_at_once(stop.exit_code)
    stats = report.stats
    if json_out:
        print(json.dumps({"site_id": report.site_id, **stats.to_dict()}, indent=2))
    err_console.print(
        f"done: {stats.pages_fetched} pages fetched and stored by this worker (the crawl process "
        f"delivers them), {stats.requests} requests, {stats.errors} failed URLs",
        highlight=False,
    )
