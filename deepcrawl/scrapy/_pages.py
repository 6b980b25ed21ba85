"""A crawl's delivered pages, read from where deepcrawl put them: ``pages.jsonl``, a WARC file,
or a live crawl through the Python iterator.

Each source yields :class:`DeliveredPage` objects: the URL asked for and the one the answer came
from, the status, the headers and the body bytes, and the rest of the delivered record (label,
prototype, query, title …) as metadata. They are what :mod:`deepcrawl.scrapy` turns into Scrapy
responses; nothing here imports Scrapy.

The three sources differ in what they hold. ``pages.jsonl`` (and the iterator) carry the body
deepcrawl delivers — the rendered DOM of a page fetched in the browser, the decoded HTML of one
fetched over plain HTTP — as text, so it is handed on as UTF-8. A WARC file holds the bytes the
server sent, in their own character set; for a page rendered in the browser it also holds the
rendered DOM (a ``conversion`` record), which is handed on instead unless the caller asks for
the server's bytes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from deepcrawl.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator, Mapping, Sequence

    from warcio.recordloader import ArcWarcRecord

__all__ = ["DeliveredPage", "crawl_pages", "jsonl_pages", "warc_pages"]

#: Headers that describe the bytes on the wire, not the body handed on: the HTTP clients undid
#: the transfer and content encodings, and the length counted other bytes. Left out, so that
#: no reader decodes the body a second time.
WIRE_HEADERS = frozenset({"content-encoding", "transfer-encoding", "content-length"})
#: The record fields that are the page itself rather than what is known about it.
_PAGE_FIELDS = frozenset({"url", "final_url", "status", "headers", "body", "body_path"})


@dataclass(frozen=True, slots=True)
class DeliveredPage:
    """One page a crawl delivered, as an extractor receives it.

    Attributes:
        url: the URL the crawl asked for (its normal form: the crawl's key).
        final_url: where the answer came from, after redirects.
        status: the final response's HTTP status.
        headers: the response headers, in order, as name and value pairs.
        body: the page's bytes.
        encoding: the bytes' character set, when the source knows it (UTF-8 for
            ``pages.jsonl`` and the iterator; a WARC's rendered DOM too).
        meta: the rest of the delivered record (``label``, ``prototype``, ``query``,
            ``title``, ``fetched_at``, ``via``, ``canonical_url`` …; see pages.jsonl).
    """

    url: str
    final_url: str
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    encoding: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, where: str = "record") -> DeliveredPage:
        """A page from a delivered record (a ``pages.jsonl`` line, or a Python API record).

        Raises:
            ConfigError: the record has no ``url``, or neither a ``body`` nor a readable
                ``body_path``; the message names ``where``.
        """
        url = record.get("url")
        if not isinstance(url, str) or not url:
            raise ConfigError(f"{where}: no 'url' (is this a deepcrawl pages.jsonl?)")
        body = record.get("body")
        if isinstance(body, str):
            data = body.encode("utf-8")
        elif isinstance(body, bytes):
            data = body
        elif record.get("body_path"):
            try:
                data = Path(record["body_path"]).read_bytes()
            except OSError as exc:
                raise ConfigError(f"{where}: cannot read body_path: {exc}") from exc
        else:
            raise ConfigError(
                f"{where}: no 'body' and no 'body_path' (crawl.deliver_bodies was off?)"
            )
        headers = record.get("headers") or {}
        if not isinstance(headers, dict):
            raise ConfigError(f"{where}: 'headers' is not an object")
        pairs = [(str(k), str(v)) for k, v in headers.items() if k.lower() not in WIRE_HEADERS]
        content_type = record.get("content_type")
        if content_type and not any(k.lower() == "content-type" for k, _ in pairs):
            pairs.append(("content-type", str(content_type)))
        return cls(
            url=url,
            final_url=str(record.get("final_url") or url),
            status=int(record.get("status") or 200),
            headers=tuple(pairs),
            body=data,
            encoding="utf-8",
            meta={k: v for k, v in record.items() if k not in _PAGE_FIELDS},
        )


def jsonl_pages(path: Path | str) -> Iterator[DeliveredPage]:
    """The pages of a ``pages.jsonl`` file (``deepcrawl crawl --out``, ``deepcrawl export``),
    in order, read one line at a time.

    Raises:
        ConfigError: the file cannot be read, or a line is no JSON object of a page (the error
            names the file and the line).
    """
    source = Path(path)
    try:
        handle = source.open(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {source}: {exc.strerror or exc}") from exc
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{source}, line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{where}: not JSON ({exc.msg})") from exc
            if not isinstance(record, dict):
                raise ConfigError(f"{where}: not a JSON object")
            yield DeliveredPage.from_record(record, where=where)


def warc_pages(path: Path | str, *, rendered: bool = True) -> Iterator[DeliveredPage]:
    """The pages of a WARC file (``deepcrawl crawl --warc``, ``deepcrawl export --format warc``;
    gzipped or not), in order.

    A page is its final ``response`` record (the redirects that led to it are passed over), or
    a ``resource`` record for a page stored without its exchange. Its body is the server's
    payload, or with ``rendered`` (the default) the rendered DOM of a page fetched in the
    browser — the ``conversion`` record that refers to the response, what ``pages.jsonl`` would
    deliver. Other WARC files are read too: any response with its target URI is a page.

    Raises:
        ConfigError: the file cannot be read or is no WARC file.
    """
    source = Path(path)
    try:
        handle = source.open("rb")
    except OSError as exc:
        raise ConfigError(f"cannot read {source}: {exc.strerror or exc}") from exc
    pending: DeliveredPage | None = None
    pending_id: str | None = None
    asked: str | None = None  # the URL a chain of redirects started from
    with handle, _read_errors(source):
        for record in ArchiveIterator(handle):
            kind = record.rec_type
            if kind == "conversion" and pending is not None:
                refers = record.rec_headers.get_header("WARC-Refers-To")
                if rendered and refers == pending_id:
                    pending = _rendered(pending, record)
                continue
            if kind not in ("response", "resource"):
                continue
            page = _page(record)
            if page is None:  # no HTTP response
                continue
            if 300 <= page.status < 400 and any(k.lower() == "location" for k, _ in page.headers):
                asked = asked or page.url  # a hop: the page follows
                continue
            if asked is not None:
                page, asked = dataclasses.replace(page, url=asked), None
            if pending is not None:
                yield pending
            pending, pending_id = page, record.rec_headers.get_header("WARC-Record-ID")
    if pending is not None:
        yield pending


@contextlib.contextmanager
def _read_errors(source: Path) -> Iterator[None]:
    try:
        yield
    except ArchiveLoadFailed as exc:
        raise ConfigError(f"{source}: not a WARC file ({exc})") from exc
    except OSError as exc:  # a truncated gzip member, a read error
        raise ConfigError(f"{source}: cannot be read to its end ({exc})") from exc


def _page(record: ArcWarcRecord) -> DeliveredPage | None:
    uri = record.rec_headers.get_header("WARC-Target-URI")
    if not uri:
        return None
    meta = {"fetched_at": record.rec_headers.get_header("WARC-Date")}
    if record.rec_type == "resource":
        content_type = record.rec_headers.get_header("Content-Type") or "application/octet-stream"
        body = record.content_stream().read()
        return DeliveredPage(uri, uri, 200, (("content-type", content_type),), body, meta=meta)
    http = record.http_headers
    if http is None:
        return None
    status = int(http.get_statuscode() or 0)
    body = record.content_stream().read()
    headers = tuple(
        (name, value) for name, value in http.headers if name.lower() not in WIRE_HEADERS
    )
    return DeliveredPage(uri, uri, status, headers, body, meta=meta)


def _rendered(page: DeliveredPage, conversion: ArcWarcRecord) -> DeliveredPage:
    """``page`` with the rendered DOM of its ``conversion`` record as its body (UTF-8)."""
    body = conversion.content_stream().read()
    content_type = conversion.rec_headers.get_header("Content-Type") or "text/html"
    charset = content_type.partition("charset=")[2].split(";")[0].strip() or "utf-8"
    headers = tuple((k, v) for k, v in page.headers if k.lower() != "content-type")
    media = content_type.split(";")[0].strip()
    headers += (("content-type", f"{media}; charset={charset}"),)
    meta = {**page.meta, "via": "browser"}
    return dataclasses.replace(page, headers=headers, body=body, encoding=charset, meta=meta)


async def crawl_pages(
    start_url: str, *, like: Sequence[str] = (), **options: Any
) -> AsyncIterator[DeliveredPage]:
    """The pages of a live crawl, as the Python iterator (:func:`deepcrawl.crawl`) yields them.

    Args:
        start_url: the page with the site's search form.
        like: example URLs (or paths) of the pages wanted.
        **options: the iterator's other arguments (``db``, ``labels``, ``max_pages``,
            ``max_queries``, ``keywords``, ``settings``, ``resume``).
    """
    from deepcrawl.crawler import crawl_pages as crawl

    records = crawl(start_url, like=like, **options)
    try:
        async for record in records:
            yield DeliveredPage.from_record(record, where=f"page {record.get('url')}")
    finally:  # a reader that stops early ends the crawl now, not when the generator is collected
        close = getattr(records, "aclose", None)
        if close is not None:
            await close()
