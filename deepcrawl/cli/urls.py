"""``deepcrawl urls normalise``: print the normal form of URLs, as the prototyper sees them."""

import io
import sys
from typing import Annotated

import typer
from rich.markup import escape

from deepcrawl.cli._app import app, err_console
from deepcrawl.errors import InvalidURLError
from deepcrawl.urls import URLNormaliser

urls_app = typer.Typer(
    help="Work with URLs as deepcrawl sees them.", no_args_is_help=True, add_completion=False
)
app.add_typer(urls_app, name="urls")


@urls_app.command("normalise")
def normalise(
    base: Annotated[
        str | None, typer.Option(help="Resolve relative URLs against this absolute URL.")
    ] = None,
) -> None:
    """Read URLs on stdin, one a line; print each one's normal form (host in IDNA, escapes
    normalised, dot segments and fragment removed, query sorted: README "URL normal form").

    A line that cannot be normalised gets one error line on stderr naming the line; the other
    lines are still printed, and the exit code is 1 at the end. Blank lines are skipped.
    """
    normaliser = URLNormaliser()
    if isinstance(sys.stdin, io.TextIOWrapper):  # undecodable bytes: an error line, no traceback
        sys.stdin.reconfigure(errors="replace")
    out = sys.stdout
    bad = 0
    for number, line in enumerate(sys.stdin, 1):
        url = line.rstrip("\r\n")
        if not url.strip():
            continue
        try:
            out.write(normaliser(url, base) + "\n")
        except InvalidURLError as exc:
            bad += 1
            err_console.print(
                f"[bold red]error:[/] line {number}: {escape(str(exc))}",
                highlight=False,
                soft_wrap=True,
            )
    out.flush()
    if bad:
        err_console.print(f"[bold red]error:[/] {bad} line(s) could not be normalised")
        raise typer.Exit(code=1)
