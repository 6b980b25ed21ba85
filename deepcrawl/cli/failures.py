"""``deepcrawl failures``: the URLs a crawl gave up, each with its reason."""

import json
from typing import Annotated

import typer
from rich.table import Table

from deepcrawl.cli._app import app, console
from deepcrawl.export import FAILURE_FIELDS, failure_records
from deepcrawl.settings import load_settings
from deepcrawl.storage import Repository


@app.command()
def failures(
    site: Annotated[str, typer.Argument(help="Site (id, start URL or host) of the crawl.")],
    db: Annotated[
        str | None, typer.Option(help="Database URL (default: settings storage.url).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
) -> None:
    """List the URLs the crawl failed for good: status, error class, attempts, when, reason.

    A URL fails for good when it is out of scope or disallowed by robots.txt (not fetched), when
    it answers with an error status, or when a transient failure (a timeout, a reset
    connection, 429/5xx) outlasts the retries. Sitemaps that could not be read are listed too,
    and the queries that failed (kind ``query``, their cause in the reason: a timeout, out of
    scope, robots.txt, throttled, blocked, an error page).
    """
    settings = load_settings(storage={"url": db})
    with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
        found = list(failure_records(repo.failures(repo.find_site(site).id)))
    if json_out:
        print(json.dumps(found, indent=2))
        return
    table = Table(title=f"{len(found)} failed URLs", title_justify="left")
    for column in FAILURE_FIELDS:
        table.add_column(column.replace("_", " "), overflow="fold")
    for row in found:
        table.add_row(*("-" if row[f] is None else str(row[f]) for f in FAILURE_FIELDS))
    console.print(table)
