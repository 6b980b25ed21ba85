"""``deepcrawl forms``: the forms of a page with the critic's verdicts and the form a crawl
would query."""

import asyncio
import json
from typing import Annotated

import typer
from rich.markup import escape

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, console, err_console
from deepcrawl.cli._form_options import FieldOption, FormOption, form_overrides
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
    field: FieldOption = None,
    form: FormOption = None,
) -> None:
    """List the forms on a page, numbered as --form takes them: type, searchable or not, score,
    query field, settable fields; and which one a crawl would query (the critic's choice, or
    --form's), with --field's values checked against it."""
    from deepcrawl.forms.fields import describe_field, describe_settable
    from deepcrawl.forms.store import cache_path, train_critic
    from deepcrawl.search.report import inspect_forms

    settings = load_settings(forms=form_overrides(field, form), **access.overrides())
    if train:
        err_console.print("training the form critic on formasaurus's corpus …")
        train_critic(settings.forms)
        err_console.print(f"saved {cache_path(settings.forms)}", highlight=False)
    if url is None:
        if train:
            return
        raise ConfigError("give the URL of a page (or --train)")
    found = asyncio.run(inspect_forms(url, settings, browser=browser))
    rows = found.rows()
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        console.print("no form on this page")
        return
    for row, page_form in zip(rows, found.forms, strict=True):
        mark = "[green]ACCEPT[/]" if row["searchable"] else "[red]refuse[/]"
        console.print(
            f"{row['number']}. {mark} {row['type']:<17} score {row['score']:.2f}  "
            f"{row['method']} {row['action']}  [dim]{escape(page_form.locator)}[/]"
            + (f" [dim]group {escape(page_form.group)}[/]" if page_form.group else ""),
            highlight=False,
        )
        if row["query_field"]:
            extra = ", ".join(row["category_fields"] + row["sort_fields"])
            console.print(
                f"   query field: {row['query_field']}"
                + (f"; also enumerate: {extra}" if extra else ""),
                highlight=False,
            )
            settable = describe_settable(page_form, query_field=row["query_field"])
            console.print(f"   fields: {settable}", highlight=False, markup=False)
        for reason in row["reasons"]:
            console.print(f"   - {reason}", highlight=False)
    critic = found.critic
    if critic is None:
        console.print("the critic accepts no form here", highlight=False)
    else:
        best = found.verdicts[critic].score
        console.print(
            f"critic's choice: {critic + 1} (score {best:.2f}, the best of "
            f"{sum(v.searchable for v in found.verdicts)} accepted); another: --form N",
            highlight=False,
        )
    if found.chosen is not None and found.by_user:
        console.print(f"--form {form}: form {found.chosen + 1}", highlight=False, markup=False)
    if found.fields:
        fixed = " ".join(f"{k}={v}" for k, v in found.fields.items())
        console.print(f"--field values fit: {fixed}", highlight=False, markup=False)
    for missing in found.missing:
        console.print(
            f"required, no value: {describe_field(missing)} — give --field {missing.name}=VALUE",
            highlight=False,
            markup=False,
        )
