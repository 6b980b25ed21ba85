"""``deepcrawl bench``: measure crawl strategies against the local fixture sites."""

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from deepcrawl.bench import run_bench, runs_table, runs_to_json, write_plot
from deepcrawl.cli._app import app, console, err_console
from deepcrawl.settings import load_settings

DEFAULT_SITES = ["books", "shop", "news"]


@app.command()
def bench(
    site: Annotated[
        list[str] | None, typer.Option(help="Fixture site (repeatable; default: all).")
    ] = None,
    strategy: Annotated[
        list[str] | None, typer.Option(help="Strategy to run (repeatable; default: bfs).")
    ] = None,
    records: Annotated[int | None, typer.Option(min=1, help="Records per site.")] = None,
    max_requests: Annotated[
        int | None, typer.Option(min=1, help="Request budget of each run.")
    ] = None,
    faults: Annotated[bool, typer.Option(help="Serve the sites in fault mode.")] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print JSON instead of a table.")
    ] = False,
    out: Annotated[Path | None, typer.Option(help="Folder for bench.json and recall.png.")] = None,
) -> None:
    """Run strategies on fixture sites; report record recall, harvest rate, requests, time, memory.

    Requests and bytes are counted by the fixture server, not by the crawler.
    """
    from deepcrawl.browser import make_fetcher  # the browser stack loads only when needed

    settings = load_settings(bench={"records": records, "max_requests": max_requests})
    runs = asyncio.run(
        run_bench(
            site or DEFAULT_SITES,
            strategy or ["bfs"],
            settings,
            make_fetcher=make_fetcher,
            faults=faults,
            progress=None if json_out else lambda msg: err_console.print(msg, style="dim"),
        )
    )
    if json_out:
        print(runs_to_json(runs))
    else:
        console.print(runs_table(runs))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "bench.json").write_text(runs_to_json(runs) + "\n")
        plot = write_plot(runs, out / "recall.png")
        err_console.print(f"wrote {out / 'bench.json'} and {plot}", highlight=False)
