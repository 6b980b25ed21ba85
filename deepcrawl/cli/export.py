"""``deepcrawl export``: hand a crawled site's pages to an extractor as JSONL, CSV or WARC."""

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from deepcrawl.cli._app import app, err_console
from deepcrawl.errors import ConfigError
from deepcrawl.settings import load_settings


@app.command()
def export(
    site: Annotated[str, typer.Argument(help="Site (id, start URL or host) to export.")],
    format: Annotated[
        Literal["jsonl", "csv", "warc"], typer.Option(help="Output format.")
    ] = "jsonl",
    db: Annotated[
        str | None, typer.Option(help="Database URL (default: settings storage.url).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Output file (default: stdout).")] = None,
    kind: Annotated[
        str | None,
        typer.Option(
            help="Page kind to export: 'record' (the wanted pages, default), 'results', or 'all'."
        ),
    ] = "record",
    gzip: Annotated[
        bool,
        typer.Option(help="Compress the WARC output (default: when --out ends in .gz)."),
    ] = False,
    text: Annotated[
        bool,
        typer.Option(help="Add each page's main text ('text'; needs the 'text' extra: "
                     "pip install 'deepcrawl\\[text]')."),
    ] = False,
) -> None:  # fmt: skip
    """Export a crawled site's stored pages, one record per page (failed fetches left out).

    Fields: url, final_url, status, fetched_at, label, prototype, prototype_regex, query,
    content_type, headers, title, via, sha256, body, body_path (and text with --text); the
    README's pages.jsonl table says what each holds. A WARC holds each page's request and
    response as they went over the wire.
    """
    from deepcrawl.export import JsonLines, page_records, write_csv, write_jsonl, write_warc
    from deepcrawl.storage import Repository
    from deepcrawl.warc import wants_gzip

    settings = load_settings(storage={"url": db})
    with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
        row = repo.find_site(site)
        pages = repo.pages(row.id, kind=None if kind == "all" else kind)
        records = page_records(repo, pages, text=text)
        try:
            if format == "warc":
                compress = gzip or (out is not None and wants_gzip(out))
                info = {"isPartOf": row.start_url}
                if out is None:
                    count = write_warc(repo, pages, sys.stdout.buffer, gzip=compress, info=info)
                else:
                    with out.open("wb") as fh:
                        count = write_warc(repo, pages, fh, gzip=compress, info=info)
            elif format == "jsonl" and out is not None:  # whole lines, even on a full disk
                lines = JsonLines(out, append=False)
                try:
                    count = write_jsonl(records, lines)
                finally:
                    lines.close()
            else:
                writer = write_jsonl if format == "jsonl" else write_csv
                if out is None:
                    count = writer(records, sys.stdout)
                else:
                    with out.open("w", encoding="utf-8", newline="") as fh:
                        count = writer(records, fh)
        except OSError as exc:
            raise ConfigError(f"cannot write {out}: {exc}") from exc
    err_console.print(f"exported {count} pages of {row.start_url}", highlight=False)
