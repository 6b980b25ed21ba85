"""``deepcrawl render``: what the browser layer sees of one page."""

import asyncio
import json
from typing import Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Table

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, console
from deepcrawl.settings import load_settings


def page_json(page: object) -> dict[str, object]:
    """The JSON object ``render --json`` prints for a fetched page."""
    from deepcrawl.page.fetched import FetchedPage

    assert isinstance(page, FetchedPage)
    return {
        "url": page.url,
        "final_url": page.final_url,
        "status": page.status,
        "content_type": page.content_type,
        "via": page.via,
        "elapsed_s": round(page.elapsed_s, 3),
        "links": [
            {
                "url": link.url,
                "text": link.text,
                "origin": link.origin,
                "dom_path": link.dom_path,
                "rel": link.rel,
            }
            for link in page.links
        ],
        "forms": [form.model_dump(mode="json") for form in page.forms],
    }


@app.command()
@access_options
def render(
    url: Annotated[str, typer.Argument(help="The page to render (http or https).")],
    probe: Annotated[
        bool, typer.Option("--probe", help="Also click and hover scripted elements (JS links).")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
    render_mode: Annotated[
        str,
        typer.Option("--render", help="always: Chromium; never: plain HTTP + lxml; auto: decide."),
    ] = "always",
    access: AccessFlags = AccessFlags(),
) -> None:
    """Show what deepcrawl sees of one page: final URL, status, links (html / probe / iframe)
    and forms with their fields. The first command to run on a new site."""
    from deepcrawl.browser.adaptive import fetch_one
    from deepcrawl.errors import ConfigError

    if render_mode not in {"always", "never", "auto"}:
        raise ConfigError(f"--render must be always, never or auto, not {render_mode!r}")
    mode: Literal["always", "never", "auto"] = render_mode  # type: ignore[assignment]
    settings = load_settings(**access.overrides())
    page = asyncio.run(fetch_one(settings, url, render=mode, probe=probe))
    data = page_json(page)
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    console.print(
        f"[bold]{escape(page.final_url)}[/]  status {page.status}  via {page.via}  "
        f"{page.elapsed_s:.2f} s  {len(page.links)} links  {len(page.forms)} forms",
        highlight=False,
    )
    links = Table(title="Links", show_lines=False)
    for column in ("origin", "text", "url", "dom path"):
        links.add_column(column, overflow="fold")
    for link in page.links:
        links.add_row(link.origin, escape(link.text[:60]), escape(link.url), escape(link.dom_path))
    console.print(links)
    for number, form in enumerate(page.forms, 1):
        kind = "formless group" if form.formless else "form"
        extra = " (built by script)" if form.built_by_script else ""
        table = Table(
            title=escape(f"{kind} {number}: {form.method} {form.action}{extra}")
            + f"\nlocator {escape(form.locator)}",
            title_justify="left",
        )
        for column in ("field", "type", "label", "value / options", "visible"):
            table.add_column(column, overflow="fold")
        for field in form.fields:
            options = ", ".join(o.text or o.value for o in field.options[:8])
            table.add_row(
                field.name or field.id or "-",
                field.type,
                field.label,
                options or field.value,
                "yes" if field.visible else "no",
            )
        for submit in form.submits:
            table.add_row(
                submit.name or "-", f"submit:{submit.kind}", submit.text, submit.value, ""
            )
        console.print(table)
