"""``deepcrawl sites``: the sites a database holds, with what is stored for each."""

import json
from typing import Annotated

import typer
from rich.table import Table

from deepcrawl.cli._app import app, console, err_console, warn_bad_sites
from deepcrawl.errors import NoDatabaseError
from deepcrawl.settings import load_settings
from deepcrawl.storage import Repository


@app.command()
def sites(
    db: Annotated[
        str | None, typer.Option(help="Database URL (default: sqlite:///deepcrawl.db).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the sites in the database with their forms, queries, pages and prototypes."""
    settings = load_settings(storage={"url": db})
    try:
        with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
            summaries = repo.site_summaries()
            warn_bad_sites(repo)
    except NoDatabaseError as exc:  # no database, no site: listing must not create one
        err_console.print(f"note: {exc}", highlight=False, markup=False)
        summaries = []
    if json_out:
        print(json.dumps([s.model_dump(mode="json") for s in summaries], indent=2))
        return
    table = Table(title="sites", title_justify="left")
    for column in ("id", "start URL", "forms", "queries", "pages", "failed", "prototypes"):
        table.add_column(column, justify="left" if column == "start URL" else "right")
    for s in summaries:
        table.add_row(
            str(s.id),
            s.start_url,
            str(s.forms),
            str(s.queries),
            str(s.pages),
            str(s.failed),
            str(s.prototypes),
        )
    console.print(table)
