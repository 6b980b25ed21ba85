"""``deepcrawl query``: submit one keyword to a page's search form and list the result links."""

import asyncio
import json
from typing import Annotated

import typer

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, console
from deepcrawl.cli._form_options import FieldOption, FormOption, form_overrides
from deepcrawl.errors import ConfigError
from deepcrawl.settings import load_settings


@app.command()
@access_options
def query(
    url: Annotated[str, typer.Argument(help="The page holding the search form.")],
    keyword: Annotated[str, typer.Argument(help="What to type into the form's query field.")],
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print one JSON object: form, verdict, submitted pages, links, outcome."
        ),
    ] = False,
    max_pages: Annotated[
        int | None,
        typer.Option(help="Result pages to follow at most (default: querying.max_result_pages)."),
    ] = None,
    access: AccessFlags = AccessFlags(),
    field: FieldOption = None,
    form: FormOption = None,
) -> None:
    """Find the search form on a page, submit one keyword, follow every result page, print the
    links found (results first; menus and pagers marked)."""
    from deepcrawl.search.form_search import query_page

    if max_pages is not None and max_pages < 1:
        raise ConfigError("--max-pages must be at least 1")
    settings = load_settings(
        querying={"max_result_pages": max_pages},
        forms=form_overrides(field, form),
        **access.overrides(),
    )
    found, verdict, result = asyncio.run(query_page(url, keyword, settings))
    if as_json:
        data = {
            "form": found.model_dump(mode="json"),
            "verdict": verdict.as_dict(),
            **result.model_dump(mode="json"),
            "result_links": [{"url": u, "text": t} for u, t in result.result_texts().items()],
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    fixed = " ".join(f"{k}={v}" for k, v in result.values.items())
    console.print(
        f"form {found.locator} ({found.method} {found.action}), query field "
        f"{verdict.query_field or '-'}" + (f", fields {fixed}" if fixed else "") + ": "
        f"{result.outcome}" + (f" — {result.error}" if result.error else ""),
        highlight=False,
        markup=False,
    )
    console.print(
        f"{result.pages} result page(s), {len(result.result_links)} result link(s), "
        f"{result.requests} request(s)"
        + (f", the site reports {result.total_results}" if result.total_results else ""),
        highlight=False,
        markup=False,
    )
    for page_url in result.submitted:
        console.print(f"  fetched {page_url}", highlight=False, markup=False)
    for link in sorted(result.links, key=lambda item: item.role != "result"):
        mark = "" if link.role == "result" else f"[{link.role}] "
        console.print(f"{mark}{link.url}  {link.text}", highlight=False, markup=False)
