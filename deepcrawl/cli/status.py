"""``deepcrawl status``: how far a crawl has come, over all its processes."""

import json
from typing import Annotated

import typer
from rich.table import Table

from deepcrawl.cli._app import app, console, warn_bad_sites
from deepcrawl.settings import load_settings
from deepcrawl.storage import Repository


@app.command()
def status(
    db: Annotated[
        str | None, typer.Option(help="Database URL (default: settings storage.url).")
    ] = None,
    site: Annotated[str | None, typer.Option(help="Only this site: id, start URL or host.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show each crawl's queries, records, frontier, pages, errors and query-loop processes."""
    from deepcrawl.crawler.coordination import crawl_status

    settings = load_settings(storage={"url": db})
    heartbeat_s = settings.crawl.heartbeat_s
    with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
        chosen = [repo.find_site(site)] if site is not None else repo.sites()
        warn_bad_sites(repo)
        found = [crawl_status(repo, s, heartbeat_s=heartbeat_s) for s in chosen]
    if json_out:
        data = [
            {
                "site_id": st.site.id,
                "start_url": st.site.start_url,
                "state": st.state,
                "queries": st.queries,
                "records_reached": st.records_reached,
                "records_estimated": st.records_estimated,
                "frontier": {
                    "queued": st.frontier.queued,
                    "leased": st.frontier.leased,
                    "done": st.frontier.done,
                    "failed": st.frontier.failed,
                },
                "pages": st.pages,
                "delivered": st.delivered,
                "failed": st.failed,
                "workers": [
                    {**w.model_dump(mode="json", exclude={"figures"}), "alive": w.id in st.alive}
                    for w in st.workers
                ],
            }
            for st in found
        ]
        print(json.dumps(data, indent=2))
        return
    for st in found:
        estimate = f"{st.records_estimated:.0f}" if st.records_estimated else "?"
        f = st.frontier
        console.print(
            f"[bold]site {st.site.id}[/] {st.site.start_url}  [bold]{st.state}[/]"
            + _advice(st.site.id, st.state)
            + "\n"
            f"  queries {st.queries}  records {st.records_reached or 0}/{estimate}  "
            f"frontier queued {f.queued} leased {f.leased} done {f.done} failed {f.failed}  "
            f"pages {st.pages}  delivered {st.delivered}  errors {st.failed}",
            highlight=False,
        )
        if not st.workers:
            continue
        table = Table(title_justify="left")
        for column in ("id", "process", "role", "state", "pages", "errors", "last seen"):
            table.add_column(column, justify="right" if column in ("pages", "errors") else "left")
        for w in st.workers:
            state = w.state if w.state != "running" or w.id in st.alive else "dead"
            seen = w.seen_at.strftime("%H:%M:%S")
            table.add_row(str(w.id), w.name, w.role, state, str(w.pages), str(w.errors), seen)
        console.print(table)


def _advice(site_id: int, state: str) -> str:
    """What to run next, for the states that wait on the user."""
    if state == "needs labels":
        return f" (label its prototypes: deepcrawl label {site_id}, then crawl again with --resume)"
    if state in ("labelled", "dead", "stopped"):
        return " (run the same crawl again, with --resume, to continue)"
    return ""
