"""``deepcrawl discover``: find a site's search forms when the start page has none."""

import asyncio
import json
from typing import Annotated

import typer

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, console, err_console
from deepcrawl.errors import FormError
from deepcrawl.settings import load_settings


@app.command()
@access_options
def discover(
    url: Annotated[str, typer.Argument(help="Where to start (usually the home page).")],
    strategy: Annotated[
        str | None,
        typer.Option(help="Link strategy: ache (default), apprentice, xcrawl or bfs."),
    ] = None,
    max_requests: Annotated[
        int | None, typer.Option(min=1, help="Request budget (default: settings).")
    ] = None,
    browser: Annotated[
        bool,
        typer.Option(help="Render every page in Chromium (default: plain HTTP + lxml)."),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print a JSON object: forms (page, action, method, score) "
                     "and pages_fetched."),
    ] = False,
    access: AccessFlags = AccessFlags(),
) -> None:  # fmt: skip
    """Crawl from URL with a link learner until a page holds a form the critic accepts.

    Prints the searchable forms found (the page holding each, its action and method, the
    critic's score) and how many pages it took.
    """
    from deepcrawl.links.discover import discover_site

    settings = load_settings(**access.overrides())
    found = asyncio.run(
        discover_site(url, settings, strategy=strategy, max_requests=max_requests, browser=browser)
    )
    if as_json:
        print(json.dumps(found.as_dict(), indent=2, ensure_ascii=False))
        return
    if not found.forms:
        raise FormError(f"no searchable form in {found.pages_fetched} pages ({found.strategy})")
    for form in found.forms:
        console.print(
            f"{form['page']}  {form['method']} {form['action']}  score {form['score']:.2f}",
            highlight=False,
        )
    err_console.print(f"{found.pages_fetched} pages fetched ({found.strategy})", highlight=False)
