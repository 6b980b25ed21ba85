"""``deepcrawl worker``: join a crawl shared on PostgreSQL as one more fetch process."""

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from deepcrawl.cli._app import app, err_console
from deepcrawl.cli.crawl import _sink
from deepcrawl.settings import load_settings


@app.command()
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
    out: Annotated[
        str | None,
        typer.Option(help="Folder for this worker's pages.jsonl and stats.json, or '-' (stdout)."),
    ] = None,
) -> None:
    """Fetch, store and deliver pages of a crawl that 'deepcrawl crawl --db postgresql://…' runs.

    Start any number, on any machines that reach the database: they share the frontier, each
    host's request rate and concurrency, and the page store. Each worker delivers the pages it
    fetches to its own --out. A worker waits for the crawl's setup phase and labels, and stops
    when the frontier is drained and no process is querying the form.
    """
    from deepcrawl.crawler.worker import run_worker

    settings = load_settings(storage={"url": db})
    sink = _sink(out)
    try:
        report = asyncio.run(run_worker(settings, sink, site=site, concurrency=concurrency))
    except KeyboardInterrupt:
        err_console.print("interrupted: its leased URLs return to the others when they expire")
        raise typer.Exit(130) from None
    finally:
        sink.close()
    stats = report.stats
    if out not in (None, "-"):
        figures = {"site_id": report.site_id, **stats.to_dict()}
        (Path(out) / "stats.json").write_text(json.dumps(figures, indent=2) + "\n")
    err_console.print(
        f"done: {stats.pages_fetched} pages fetched and {stats.pages_delivered} delivered by this "
        f"worker, {stats.requests} requests, {stats.errors} failed URLs",
        highlight=False,
    )
