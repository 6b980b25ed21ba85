"""``deepcrawl doctor``: is this machine ready to crawl?"""

from typing import Annotated

import typer

from deepcrawl.cli._app import app, console, err_console
from deepcrawl.doctor import run_checks
from deepcrawl.settings import load_settings


@app.command()
def doctor(
    db: Annotated[
        str | None, typer.Option(help="Database URL to check (default: the configured one).")
    ] = None,
    browser: Annotated[bool, typer.Option(help="Check that Chromium launches.")] = True,
) -> None:
    """Check Python, packages, the browser and the database; print a fix for each problem."""
    settings = load_settings(storage={"url": db})
    checks = run_checks(settings, browser=browser)
    for check in checks:
        if check.ok:
            mark = "[green]ok[/]  "
        elif check.required:
            mark = "[red]FAIL[/]"
        else:
            mark = "[yellow]opt[/] "
        console.print(f"{mark} {check.name}: {check.detail}", highlight=False)
    failed = [c.name for c in checks if c.required and not c.ok]
    if failed:
        err_console.print(
            f"[bold red]error:[/] {len(failed)} required check(s) failed: {', '.join(failed)}",
            highlight=False,
        )
        raise typer.Exit(code=1)
