"""``deepcrawl doctor``: is this machine ready to crawl? ``deepcrawl install-browser``: get it a
browser."""

from typing import Annotated

import typer
from rich.markup import escape

from deepcrawl.cli._app import app, console, err_console
from deepcrawl.doctor import install_browser, run_checks
from deepcrawl.settings import load_settings


@app.command()
def doctor(
    db: Annotated[
        str | None, typer.Option(help="Database URL to check (default: the configured one).")
    ] = None,
    browser: Annotated[bool, typer.Option(help="Check that Chromium launches.")] = True,
) -> None:
    """Check Python, packages, the browser, the database and the extras; print a fix for each
    problem."""
    settings = load_settings(storage={"url": db})
    checks = run_checks(settings, browser=browser)
    for check in checks:
        if check.ok:
            mark = "[green]ok[/]  "
        elif check.required:
            mark = "[red]FAIL[/]"
        else:
            mark = "[yellow]opt[/] "
        # a fix names an extra in brackets ('deepcrawl[postgres]'): not rich markup
        console.print(f"{mark} {escape(check.name)}: {escape(check.detail)}", highlight=False)
    failed = [c.name for c in checks if c.required and not c.ok]
    if failed:
        err_console.print(
            f"[bold red]error:[/] {len(failed)} required check(s) failed: "
            f"{escape(', '.join(failed))}",
            highlight=False,
        )
        raise typer.Exit(code=1)


@app.command("install-browser")
def install_browser_command() -> None:
    """Make a Chromium available: keep one already installed, else Playwright's download where
    the machine can download, else the distribution's chromium package (apt-get)."""
    settings = load_settings()
    found = install_browser(settings, say=lambda line: err_console.print(line, markup=False))
    console.print(f"browser: {found}", markup=False, highlight=False)
