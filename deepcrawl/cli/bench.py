"""``deepcrawl bench``: measure crawl strategies against the local fixture sites."""

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepcrawl.cli._app import app, console, err_console
from deepcrawl.cli._global import global_options
from deepcrawl.errors import ConfigError
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from collections.abc import Callable

DEFAULT_SITES = ["books", "shop", "news"]


def _progress(*, json_out: bool) -> "Callable[[str], None] | None":
    """Where the bench's progress lines go: stderr, but with --json (stdout is the result) or
    --quiet (only errors on stderr)."""
    if json_out or global_options().quiet:
        return None
    return lambda msg: err_console.print(msg, style="dim")


@app.command()
def bench(
    site: Annotated[
        list[str] | None,
        typer.Option(help="Site of the suite (repeatable; default: all of it)."),
    ] = None,
    suite: Annotated[
        str,
        typer.Option(help="fixtures: the bundled fixture sites; real: real web applications "
                     "(fixtures/real/), crawled with their start URL and one --like example, "
                     "beside a breadth-first baseline; zoo: generated search engines, one per "
                     "seed (--seeds), each crawled with one of its records as --like (with "
                     "--no-example: its start URL alone)."),
    ] = "fixtures",
    seeds: Annotated[
        str,
        typer.Option(help="With --suite zoo: the seeds, as 1-40 or 1,3,7-9."),
    ] = "1-40",
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
    job: Annotated[
        str,
        typer.Option(help="sites: strategies on the fixture sites; links: the link learners' "
                     "jobs on the 'stacks' site (form: pages until the search form is found; "
                     "navigate: the crawl with --navigate), or one of form / navigate. "
                     "With --suite real: sites (the crawl and the baseline, and on a big site "
                     "the reference client), prototypes (the baseline's URL list only, and the "
                     "--like prototype's F1 over it) or speed (the crawl and, on a big site, "
                     "plain httpx + lxml fetching the truth's record pages through the same "
                     "proxy at the same politeness: wall time, CPU per page, peak PSS, load). "
                     "harvest: every real application (or each --site) as one 'deepcrawl "
                     "harvest' on PostgreSQL, once for each --workers count: recall, harvest "
                     "rate, records delivered twice, and per host the most requests in flight "
                     "and a second, from the proxies' logs."),
    ] = "sites",
    workers: Annotated[
        list[int] | None,
        typer.Option(min=0, help="With --job harvest: worker processes of a run (repeatable; "
                     "default 1, 2 and 4; 0: the harvest with no --db, in one process on "
                     "SQLite)."),
    ] = None,
    kill_after: Annotated[
        float | None,
        typer.Option(min=1, help="With --job harvest: run each count of workers again, one "
                     "worker SIGKILLed this many seconds in; the table says how soon its jobs "
                     "ran elsewhere."),
    ] = None,
    copies: Annotated[
        int,
        typer.Option(min=1, help="With --job harvest: serve each application this many times, "
                     "each copy its own host (its own port) and its own site of the harvest: "
                     "many hosts, where politeness is not what limits the throughput."),
    ] = 1,
    no_example: Annotated[
        bool,
        typer.Option("--no-example",
                     help="With --suite real: crawl every site a second time with its start "
                     "URL alone (the crawl picks the records' kind), scored against the same "
                     "truth beside the --like run; the table says whether the pick holds the "
                     "example. With --suite zoo: crawl every seed with its start URL alone "
                     "instead of with an example."),
    ] = False,
) -> None:  # fmt: skip
    """Run strategies on fixture sites; report record recall, harvest rate, requests, time, memory.

    Requests and bytes are counted by the fixture server, not by the crawler. With --suite real:
    deepcrawl and the baseline on real web applications, counted by a proxy in front of each;
    the crawl runs with the global --set assignments (raise the politeness with --set
    politeness.requests_per_second=200 --set politeness.concurrency_per_host=8 so that the
    server is the limit), and its process tree's CPU and peak PSS are sampled.
    """
    # the bench and the browser stack load only when the command runs (--help stays quick)
    from deepcrawl.bench import run_bench, runs_table, runs_to_json, write_plot
    from deepcrawl.browser import make_fetcher

    settings = load_settings()
    if job == "harvest":
        _harvest(site, settings, workers=workers, kill_after=kill_after, copies=copies,
                 json_out=json_out, out=out)  # fmt: skip
        return
    if suite == "real":
        if job not in {"sites", "prototypes", "speed"}:
            raise ConfigError(f"--suite real --job {job}: one of sites, prototypes, speed")
        _real(site, settings, json_out=json_out, out=out, job=job, no_example=no_example)
        return
    if suite == "zoo":
        _zoo(seeds, settings, records=records, no_example=no_example, json_out=json_out, out=out)
        return
    if suite != "fixtures":
        raise ConfigError(f"--suite {suite}: one of fixtures, real, zoo")
    if job != "sites":
        _links(job, strategy, settings, records=records, json_out=json_out, out=out)
        return
    runs = asyncio.run(
        run_bench(
            site or DEFAULT_SITES,
            strategy or ["bfs"],
            settings,
            make_fetcher=make_fetcher,
            records=records,
            faults=faults,
            max_requests=max_requests,
            progress=_progress(json_out=json_out),
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


def _real(
    sites: list[str] | None,
    settings: Settings,
    *,
    json_out: bool,
    out: Path | None,
    job: str,
    no_example: bool = False,
) -> None:
    from deepcrawl.bench import (
        real_prototypes_table,
        real_runs_to_json,
        real_site_names,
        real_speed_table,
        real_table,
        run_real_bench,
    )
    from deepcrawl.browser import make_fetcher

    runs = run_real_bench(
        sites or real_site_names(),
        settings,
        make_fetcher=make_fetcher,
        out=out,
        progress=_progress(json_out=json_out),
        job=job,
        no_example=no_example,
    )
    text = real_runs_to_json(runs)
    if out is not None:
        (out / "bench-real.json").write_text(text + "\n")
        err_console.print(f"wrote {out / 'bench-real.json'}", highlight=False)
    if json_out:
        print(text)
    else:
        if job != "prototypes":
            console.print(real_table(runs))
            console.print(real_speed_table(runs))
        if job != "speed":
            console.print(real_prototypes_table(runs))


def _zoo(
    seeds: str,
    settings: Settings,
    *,
    records: int | None,
    no_example: bool,
    json_out: bool,
    out: Path | None,
) -> None:
    from deepcrawl.bench import (
        parse_seeds,
        run_zoo_bench,
        write_zoo_plot,
        zoo_runs_to_json,
        zoo_table,
    )

    runs = run_zoo_bench(
        parse_seeds(seeds),
        settings,
        example=not no_example,
        records=records,
        out=out,
        progress=_progress(json_out=json_out),
    )
    text = zoo_runs_to_json(runs)
    if out is not None:
        (out / "bench-zoo.json").write_text(text + "\n")
        plot = write_zoo_plot(runs, out / "zoo.png")
        err_console.print(f"wrote {out / 'bench-zoo.json'} and {plot}", highlight=False)
    if json_out:
        print(text)
    else:
        console.print(zoo_table(runs))


def _harvest(
    sites: list[str] | None,
    settings: Settings,
    *,
    workers: list[int] | None,
    kill_after: float | None,
    copies: int,
    json_out: bool,
    out: Path | None,
) -> None:
    from deepcrawl.bench.harvest import WORKERS, harvest_table, run_harvest_bench

    runs = run_harvest_bench(
        sites,
        settings,
        workers=WORKERS if workers is None else workers,
        kill_after=kill_after,
        copies=copies,
        out=out,
        progress=_progress(json_out=json_out),
    )
    text = json.dumps([run.to_dict() for run in runs], indent=2)
    if out is not None:
        (out / "bench-harvest.json").write_text(text + "\n")
        err_console.print(f"wrote {out / 'bench-harvest.json'}", highlight=False)
    if json_out:
        print(text)
    else:
        console.print(harvest_table(runs, settings))


def _links(
    job: str,
    strategies: list[str] | None,
    settings: Settings,
    *,
    records: int | None,
    json_out: bool,
    out: Path | None,
) -> None:
    from deepcrawl.bench.links import LINK_STRATEGIES, form_job, links_table, navigate_job
    from deepcrawl.browser import make_fetcher

    if job not in {"links", "form", "navigate"}:
        raise ConfigError(f"--job {job}: one of sites, links, form, navigate")
    chosen = strategies or list(LINK_STRATEGIES)
    progress = _progress(json_out=json_out)
    size = records or 300
    runs = []
    if job in {"links", "form"}:
        runs += asyncio.run(
            form_job(
                chosen,
                settings,
                make_fetcher=make_fetcher,
                records=size,
                progress=progress,
            )
        )
    if job in {"links", "navigate"}:
        runs += asyncio.run(
            navigate_job(
                chosen, settings, make_fetcher=make_fetcher, records=size, progress=progress
            )
        )
    text = json.dumps([run.to_dict() for run in runs], indent=2)
    if json_out:
        print(text)
    else:
        for table in links_table(runs):
            console.print(table)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "links.json").write_text(text + "\n")
