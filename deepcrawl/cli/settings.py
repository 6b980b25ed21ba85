"""``deepcrawl settings``: the effective settings, where each value came from, which are users'."""

import json
from typing import Annotated

import typer
from rich.table import Table

from deepcrawl.cli._app import app, console
from deepcrawl.settings import explain_settings


@app.command()
def settings(
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    changed: Annotated[
        bool, typer.Option("--changed", help="Only the settings that are not at their default.")
    ] = False,
    user: Annotated[
        bool,
        typer.Option(
            "--user",
            help="Only the settings a user sets (politeness, access, budgets, storage, output), "
            "with what each does; the others are tuning knobs.",
        ),
    ] = False,
) -> None:
    """Print every effective setting and its source: default, the TOML file, environment, --set.

    Highest priority first: a command's own flag, --set, DEEPCRAWL_* variables, deepcrawl.toml
    (or the file DEEPCRAWL_CONFIG names), the default. A password in a URL is shown as ***.
    The settings a user sets are marked "user"; the README's Settings section documents them.
    """
    found = [
        s
        for s in explain_settings()
        if (not changed or s.source != "default") and (not user or s.user)
    ]
    if json_out:
        data = {
            s.key: {"value": s.value, "source": s.source, "detail": s.detail, "user": s.user}
            for s in found
        }
        print(json.dumps(data, indent=2))
        return
    table = Table(title="settings", title_justify="left")
    columns = (
        ("setting", "value", "source", "what it does")
        if user
        else ("setting", "value", "source", "for")
    )
    for column in columns:
        table.add_column(column, overflow="fold")
    for s in found:
        source = f"{s.source} ({s.detail})" if s.detail else s.source
        last = s.description if user else ("user" if s.user else "")
        table.add_row(s.key, json.dumps(s.value), source, last)
    console.print(table, markup=False, highlight=False)
