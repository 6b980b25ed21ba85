"""Hand stored pages to a downstream extractor: JSON lines, CSV, WARC, or Python records.

One record per page, the same fields in every format: ``url``, ``final_url``, ``canonical_url``
(the record's one URL by the evidence of its page: its canonical link in scope, else ``url``),
``status``,
``fetched_at``, ``label``, ``prototype`` and its ``prototype_regex``, ``query`` (the keyword whose
results led to the page), ``content_type``, ``headers``, ``title``, ``via``, ``sha256`` and the
page ``body`` (or ``body_path`` when the caller asks for paths instead of bodies), and with
``text=True`` the page's main ``text`` (trafilatura, the ``text`` extra). The README's
"pages.jsonl" table says what each field holds.

WARC output (:mod:`deepcrawl.warc`) keeps each page's request and response as they went over
the wire, which archive tools and many extractors read directly.
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any, Literal, TextIO

from deepcrawl.errors import ConfigError
from deepcrawl.page.html import page_title
from deepcrawl.storage.frontier import SETUP_SOURCE, source_query
from deepcrawl.warc import WarcFile

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from pathlib import Path

    from deepcrawl.page.fetched import Exchange, FetchedPage
    from deepcrawl.storage import PageRead, Repository

__all__ = [
    "EXPORT_FIELDS",
    "FAILURE_FIELDS",
    "TEXT_FIELD",
    "Held",
    "JsonLines",
    "failure_records",
    "header_fields",
    "json_line",
    "page_records",
    "page_text",
    "require_text",
    "write_csv",
    "write_jsonl",
    "write_warc",
]

#: The fields of every exported record, in order.
EXPORT_FIELDS = (
    "url",
    "final_url",
    "canonical_url",
    "status",
    "fetched_at",
    "label",
    "prototype",
    "prototype_regex",
    "query",
    "content_type",
    "headers",
    "title",
    "via",
    "sha256",
    "body",
    "body_path",
)

#: The field a record gains when the caller asks for the main text.
TEXT_FIELD = "text"


def require_text() -> None:
    """Check that the main text can be extracted (trafilatura is installed).

    Raises:
        ConfigError: it is not; the message says how to install it.
    """
    try:
        import trafilatura  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            "the main text (--text, setting crawl.deliver_text) needs trafilatura: "
            "pip install 'deepcrawl[text]'"
        ) from exc


def page_text(body: bytes) -> str | None:
    """The page's main text, boilerplate (menus, footers) removed; None when it has none.

    Raises:
        ConfigError: trafilatura is not installed (see :func:`require_text`).
    """
    require_text()
    import trafilatura

    if not body.strip():
        return None
    text: str | None = trafilatura.extract(body.decode("utf-8", errors="replace"))
    return text


def header_fields(exchange: Exchange | None) -> dict[str, str] | None:
    """The response headers as one JSON object: names lower-cased, a repeated header's values
    joined by ``", "`` (RFC 9110, section 5.3); None for a page stored without them."""
    if exchange is None:
        return None
    fields: dict[str, str] = {}
    for name, value in exchange.headers:
        key = name.lower()
        fields[key] = f"{fields[key]}, {value}" if key in fields else value
    return fields


#: The fields of a failed URL's record (``deepcrawl failures``), in order.
FAILURE_FIELDS = ("url", "kind", "status", "error_class", "attempts", "failed_at", "reason")


def _utc(when: datetime) -> str:
    aware = when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)
    return aware.isoformat()


def failure_records(pages: Iterable[PageRead]) -> Iterator[dict[str, Any]]:
    """One record per URL that failed for good (pages without an error are skipped).

    Fields (:data:`FAILURE_FIELDS`): ``url``; ``kind`` (``record``, ``sitemap`` …); ``status``,
    the last HTTP status (0: no answer); ``error_class``, the failure's class in
    :mod:`deepcrawl.errors` (None when a deepcrawl before it was recorded stored it);
    ``attempts`` (None: not recorded); ``failed_at`` (ISO 8601, UTC); ``reason``.
    """
    for page in pages:
        if page.error is None:
            continue
        yield {
            "url": page.url,
            "kind": page.kind,
            "status": page.status,
            "error_class": page.error_class,
            "attempts": page.attempts or None,
            "failed_at": _utc(page.fetched_at),
            "reason": page.error,
        }


@dataclass(frozen=True, slots=True)
class Held:
    """What the crawl holds in hand of a page it delivers as it stores it: the page as fetched
    (its body and headers are those stored) and why its URL was queued (its frontier entry's
    ``source``; None: not known here, read from the store). Nothing of it is read back."""

    page: FetchedPage
    source: str | None = None


def page_records(
    repo: Repository,
    pages: Iterable[PageRead],
    *,
    bodies: Literal["inline", "path"] = "inline",
    text: bool = False,
    fetched: Mapping[int, Held] | None = None,
) -> Iterator[dict[str, Any]]:
    """One export record per page (failed fetches are skipped: they have no body to extract).

    Args:
        bodies: ``inline`` puts the decoded body in ``body``; ``path`` leaves ``body`` empty and
            gives ``body_path`` where the body is a file (large bodies only).
        text: add the main ``text`` field (:func:`page_text`).
        fetched: pages just fetched and stored, by their stored id: their body, headers and
            source are taken from the page in hand (what the store holds of them) instead of
            read back.

    Raises:
        ConfigError: ``text`` is asked for and trafilatura is not installed.
    """
    if text:
        require_text()
    for page in pages:
        if page.error is not None:
            continue
        held = fetched.get(page.id) if fetched else None
        tree = None if held is None else held.page.root()  # the page as parsed when fetched
        if held is not None:
            raw, headers = held.page.stored_body(), header_fields(held.page.exchange)
        else:
            raw = repo.body(page.id) or b""
            headers = header_fields(repo.exchange(page.id, with_body=False))
        record = {
            "url": page.url,
            "final_url": page.final_url,
            "canonical_url": page.canonical_url or page.url,
            "status": page.status,
            "fetched_at": page.fetched_at.astimezone(UTC).isoformat()
            if page.fetched_at.tzinfo
            else page.fetched_at.replace(tzinfo=UTC).isoformat(),
            "label": page.label,
            "prototype": page.prototype_id,
            "prototype_regex": None
            if page.prototype_id is None
            else repo.prototype_regex(page.site_id, page.prototype_id),
            "query": _query(repo, page, None if held is None else held.source),
            "content_type": page.content_type,
            "headers": headers,
            "title": page_title(raw if tree is None else tree),
            "via": page.via,
            "sha256": page.sha256,
            "body": raw.decode("utf-8", errors="replace") if bodies == "inline" else None,
            "body_path": page.body_path,
        }
        if text:
            record[TEXT_FIELD] = page_text(raw)
        yield record


def json_line(record: Mapping[str, Any]) -> str:
    """A record as one line of JSON lines: compact JSON, UTF-8 as is, and the newline."""
    return json.dumps(record, ensure_ascii=False) + "\n"


class JsonLines:
    """A JSON lines file that holds whole lines only, whatever fails.

    Each line is encoded first and handed to the operating system in one unbuffered write (a
    short write goes on from where it stopped), so a process killed between two lines leaves
    none torn. When a write fails — a full disk, a quota — the file is cut back to its last
    complete line before the error is raised: every reader of the file can read it, and a
    later run appending to it starts on a line of its own.

    Args:
        path: the file; created when missing.
        append: add to what the file holds (else it is emptied first).

    Raises:
        OSError: the file cannot be opened.
    """

    def __init__(self, path: Path, *, append: bool = True) -> None:
        self.path = path
        self._file = path.open("ab" if append else "wb", buffering=0)
        #: Where the last complete line ends: what a failed write is cut back to.
        self._end = os.fstat(self._file.fileno()).st_size

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one record as one whole line.

        Raises:
            OSError: the write failed; the file is back at its last complete line.
        """
        line = memoryview(json_line(record).encode("utf-8"))
        done = 0
        try:
            while done < len(line):
                done += self._file.write(line[done:]) or 0
        except OSError:
            with contextlib.suppress(OSError):  # the write's error is the one to report
                os.ftruncate(self._file.fileno(), self._end)
            raise
        self._end += done

    def close(self) -> None:
        """Close the file."""
        self._file.close()


def write_jsonl(records: Iterable[dict[str, Any]], out: TextIO | JsonLines) -> int:
    """Write one JSON object per line (each line whole, in one write); return how many were
    written."""
    count = 0
    for record in records:
        if isinstance(out, JsonLines):
            out.write(record)
        else:
            out.write(json_line(record))
        count += 1
    if not isinstance(out, JsonLines):
        out.flush()
    return count


def write_csv(records: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write a header and one row per record (RFC 4180 quoting); return the row count.

    The columns are :data:`EXPORT_FIELDS`, and ``text`` when the records carry it.
    """
    rows = iter(records)
    first = next(rows, None)
    with_text = first is not None and TEXT_FIELD in first
    fields = (*EXPORT_FIELDS, TEXT_FIELD) if with_text else EXPORT_FIELDS
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    count = 0
    for record in itertools.chain([first] if first is not None else [], rows):
        writer.writerow({k: _cell(v) for k, v in record.items()})
        count += 1
    out.flush()
    return count


def _query(repo: Repository, page: PageRead, source: str | None = None) -> str | None:
    """The keyword whose result pages led to the page: its frontier entry's ``source`` (read
    from the store when not given), or for a page the setup phase fetched (queued as
    ``setup``), the first query that showed it."""
    if source is None:
        source = repo.found_by(page.site_id, page.url)
    if source == SETUP_SOURCE:
        return repo.first_query_showing(page.site_id, {page.url, page.final_url})
    return source_query(source)


def _cell(value: Any) -> Any:
    """A CSV cell: empty for None, JSON for an object (``headers``)."""
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value


def write_warc(
    repo: Repository,
    pages: Iterable[PageRead],
    out: IO[bytes],
    *,
    gzip: bool = False,
    info: Mapping[str, str] | None = None,
) -> int:
    """Write the pages as a WARC file (:class:`deepcrawl.warc.WarcFile`) to an open binary
    stream; return how many pages were written (failed fetches are skipped).

    Args:
        gzip: compress each record (``.warc.gz``).
        info: fields of the ``warcinfo`` record.
    """
    warc = WarcFile(out, gzip=gzip, info=info)
    for page in pages:
        if page.error is None:
            warc.write_page(page, repo.body(page.id) or b"", repo.exchange(page.id))
    warc.close()
    return warc.written
