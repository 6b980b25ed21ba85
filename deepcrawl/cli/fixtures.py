"""``deepcrawl serve-fixture``: serve one of the local test sites."""

from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from deepcrawl.cli._app import app, err_console
from deepcrawl.errors import FixtureError


def _site_names() -> str:
    """The fixture sites' names, from their registry (a site added there is listed here)."""
    try:
        from deepcrawl_fixtures.sites import SITES
    except ImportError:  # a wheel install without the test sites: the command says so when run
        return "The fixture sites are not installed (pip install -e fixtures)."
    return "Sites: " + ", ".join(SITES) + "."


class _ListingSites(TyperCommand):
    """A command whose help lists the fixture sites, read from their registry only when the help
    is shown: importing every site is no part of starting the other commands."""

    def format_help(self, *args: Any, **kwargs: Any) -> None:  # typer's own click's types
        self.epilog = _site_names()
        super().format_help(*args, **kwargs)


@app.command("serve-fixture", cls=_ListingSites)
def serve_fixture(
    name: Annotated[
        str, typer.Argument(help="The fixture site's name (the end of --help lists them).")
    ],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port).")] = 8000,
    records: Annotated[
        int | None,
        typer.Option(min=1, help="Records in the site's database (default: the site's own "
                     "size: 500, or what the zoo's seed draws)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generated data.")] = 0,
    faults: Annotated[bool, typer.Option(help="Inject faults (5xx, 429, timeouts …).")] = False,
    gate: Annotated[
        str | None,
        typer.Option(
            help="Serve behind an access gate: cookie (members' login) or header (a key)."
        ),
    ] = None,
    describe: Annotated[
        bool,
        typer.Option(help="With zoo: print the seed's drawn configuration, one dimension a "
                     "line, and serve nothing."),
    ] = False,
) -> None:  # fmt: skip
    """Serve a local deep-web test site on 127.0.0.1 until interrupted."""
    try:
        from deepcrawl_fixtures import serve_forever
    except ImportError as exc:
        raise FixtureError(
            "the fixture sites are not installed: pip install -e fixtures (from a source checkout)"
        ) from exc

    if describe:
        _describe(name, seed, records)
        return

    def ready(url: str) -> None:
        err_console.print(f"serving [bold]{name}[/] at {url} (Ctrl-C to stop)", highlight=False)

    serve_forever(
        name, port=port, records=records, seed=seed, faults=faults, gate=gate, ready=ready
    )


def _describe(name: str, seed: int, records: int | None) -> None:
    """Print a zoo seed's configuration (``--describe``)."""
    if name != "zoo":
        raise FixtureError(f"--describe: only the zoo draws its configuration, not {name!r}")
    from deepcrawl_fixtures.zoo import ZooConfig

    config = ZooConfig.draw(seed) if records is None else ZooConfig.draw(seed, records=records)
    for line in config.describe():
        print(line)
