"""``deepcrawl forms``: the forms of a page with the critic's verdicts."""

import asyncio
import json
from typing import Annotated

import typer

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, console, err_console
from deepcrawl.errors import ConfigError
from deepcrawl.settings import load_settings


@app.command()
@access_options
def forms(
    url: Annotated[str | None, typer.Argument(help="The page whose forms to judge.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON list, one object per form.")
    ] = False,
    browser: Annotated[
        bool,
        typer.Option(help="Render the page in Chromium (--no-browser: plain HTTP + lxml)."),
    ] = True,
    train: Annotated[
        bool, typer.Option("--train", help="(Re)train the critic on formasaurus's corpus first.")
    ] = False,
    access: AccessFlags = AccessFlags(),
) -> None:
    """List the forms on a page: type, searchable or not, score, and the query field."""
    from deepcrawl.forms.report import judge_forms, page_forms, verdict_rows
    from deepcrawl.forms.store import cache_path, train_critic

    settings = load_settings(**access.overrides())
    if train:
        err_console.print("training the form critic on formasaurus's corpus …")
        train_critic(settings.forms)
        err_console.print(f"saved {cache_path(settings.forms)}", highlight=False)
    if url is None:
        if train:
            return
        raise ConfigError("give the URL of a page (or --train)")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"not an http(s) URL: {url!r}")
    found = asyncio.run(page_forms(url, settings, browser=browser))
    rows = verdict_rows(found, judge_forms(found, settings))
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        console.print("no form on this page")
        return
    for i, row in enumerate(rows, 1):
        mark = "[green]ACCEPT[/]" if row["searchable"] else "[red]refuse[/]"
        console.print(
            f"{i}. {mark} {row['type']:<17} score {row['score']:.2f}  "
            f"{row['method']} {row['action']}",
            highlight=False,
        )
        if row["query_field"]:
            extra = ", ".join(row["category_fields"] + row["sort_fields"])
            console.print(
                f"   query field: {row['query_field']}"
                + (f"; also enumerate: {extra}" if extra else ""),
                highlight=False,
            )
        for reason in row["reasons"]:
            console.print(f"   - {reason}", highlight=False)
