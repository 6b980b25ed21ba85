"""Hand stored pages to a downstream extractor: JSON lines, CSV, WARC, or Python records.

One record per page, the same fields in every format: ``url``, ``final_url``, ``status``,
``fetched_at``, ``label``, ``prototype``, ``content_type``, ``title``, ``via``, ``sha256`` and
the page ``body`` (or ``body_path`` when the caller asks for paths instead of bodies).
WARC output (ISO 28500, written with warcio) keeps each page as a ``response`` record with its
status line and content type, which archive tools and many extractors read directly.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO

from lxml import html as lxml_html
from lxml.etree import ParserError
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from deepcrawl.storage import PageRead, Repository

__all__ = [
    "EXPORT_FIELDS",
    "FAILURE_FIELDS",
    "failure_records",
    "page_records",
    "page_title",
    "write_csv",
    "write_jsonl",
    "write_warc",
]

#: The fields of every exported record, in order.
EXPORT_FIELDS = (
    "url",
    "final_url",
    "status",
    "fetched_at",
    "label",
    "prototype",
    "content_type",
    "title",
    "via",
    "sha256",
    "body",
    "body_path",
)

#: The fields of a failed URL's record (``deepcrawl failures``), in order.
FAILURE_FIELDS = ("url", "kind", "status", "error_class", "attempts", "failed_at", "reason")

_REASONS = {200: "OK", 203: "Non-Authoritative Information", 206: "Partial Content"}


def page_title(body: bytes) -> str:
    """The document's ``<title>``, whitespace-collapsed; empty when it has none."""
    if not body.strip():
        return ""
    try:
        tree = lxml_html.fromstring(body)
    except (ParserError, ValueError):
        return ""
    title = tree.findtext(".//title") or ""
    return " ".join(title.split())


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


def page_records(
    repo: Repository, pages: Iterable[PageRead], *, bodies: Literal["inline", "path"] = "inline"
) -> Iterator[dict[str, Any]]:
    """One export record per page (failed fetches are skipped: they have no body to extract).

    Args:
        bodies: ``inline`` puts the decoded body in ``body``; ``path`` leaves ``body`` empty and
            gives ``body_path`` where the body is a file (large bodies only).
    """
    for page in pages:
        if page.error is not None:
            continue
        raw = repo.body(page.id) or b""
        yield {
            "url": page.url,
            "final_url": page.final_url,
            "status": page.status,
            "fetched_at": page.fetched_at.astimezone(UTC).isoformat()
            if page.fetched_at.tzinfo
            else page.fetched_at.replace(tzinfo=UTC).isoformat(),
            "label": page.label,
            "prototype": page.prototype_id,
            "content_type": page.content_type,
            "title": page_title(raw),
            "via": page.via,
            "sha256": page.sha256,
            "body": raw.decode("utf-8", errors="replace") if bodies == "inline" else None,
            "body_path": page.body_path,
        }


def write_jsonl(records: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write one JSON object per line; return how many were written."""
    count = 0
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    out.flush()
    return count


def write_csv(records: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write a header and one row per record (RFC 4180 quoting); return the row count."""
    writer = csv.DictWriter(out, fieldnames=EXPORT_FIELDS, extrasaction="ignore")
    writer.writeheader()
    count = 0
    for record in records:
        writer.writerow({k: "" if v is None else v for k, v in record.items()})
        count += 1
    out.flush()
    return count


def write_warc(records: Iterable[dict[str, Any]], out: BinaryIO) -> int:
    """Write one gzipped WARC ``response`` record per page; return how many were written."""
    writer = WARCWriter(out, gzip=True)
    count = 0
    for record in records:
        body = (record["body"] or "").encode("utf-8")
        status = int(record["status"])
        http_headers = StatusAndHeaders(
            f"{status} {_REASONS.get(status, 'Status')}",
            [
                ("Content-Type", record["content_type"] or "application/octet-stream"),
                ("Content-Length", str(len(body))),
            ],
            protocol="HTTP/1.1",
        )
        warc_record = writer.create_warc_record(
            record["final_url"] or record["url"],
            "response",
            payload=io.BytesIO(body),
            length=len(body),
            http_headers=http_headers,
            warc_headers_dict={"WARC-Date": record["fetched_at"].replace("+00:00", "Z")},
        )
        writer.write_record(warc_record)
        count += 1
    out.flush()
    return count
