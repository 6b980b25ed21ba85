"""WARC files of stored pages (ISO 28500, WARC/1.1), as web archive tools read them.

A file opens with a ``warcinfo`` record naming the software and the crawl; then, per page:

* a ``response`` record: the status line, the headers and the payload bytes as the server sent
  them (the page's :class:`~deepcrawl.page.fetched.Exchange`), and the ``request`` record that
  got it, linked by ``WARC-Concurrent-To`` — after the same pair for each redirect that led to
  it, so that a replay of the URL asked for follows the redirects;
* for a page rendered in the browser, a ``conversion`` record of the rendered DOM (what the crawl
  stored and delivered), linked to the response by ``WARC-Refers-To``;
* for a page stored without its exchange (by a deepcrawl older than the ``page_exchange`` table),
  a ``resource`` record of the stored body: an honest record of what is known, not a response
  rebuilt from it.

The HTTP clients undo transfer and content encodings as they read (httpx and Chromium both hand
over a de-chunked, decompressed payload), so the headers announcing them would misdescribe the
stored payload and make readers decode it twice; they are kept renamed with the
``X-Archive-Orig-`` prefix web archive replay tools use for headers they do not apply, as is a
``Content-Length`` that counted other bytes than those stored.

Written as the crawl goes (:class:`WarcFile`): a page's records are built in memory and appended
with one write, then flushed, so a crawl killed at any point leaves whole records; a failed write
is cut off again. Compressed (one gzip member per record, as archive tools expect) only when the
file name ends in ``.gz`` or the caller asks.
"""

from __future__ import annotations

import contextlib
import io
import os
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from typing import IO, TYPE_CHECKING
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from deepcrawl._version import __version__
from deepcrawl.errors import OutputError, StorageError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import TracebackType

    from warcio.recordloader import ArcWarcRecord

    from deepcrawl.page.fetched import Exchange
    from deepcrawl.storage import PageRead

__all__ = ["ORIGINAL_PREFIX", "WarcFile", "wants_gzip"]

#: Prefix of a response header kept for the record but no longer true of the stored payload.
ORIGINAL_PREFIX = "X-Archive-Orig-"
_DECODED = frozenset({"transfer-encoding", "content-encoding"})
_WARC_VERSION = "1.1"


def wants_gzip(path: Path) -> bool:
    """Whether a WARC file of this name is compressed (``pages.warc.gz``)."""
    return path.suffix.lower() == ".gz"


def _warc_date(when: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, as WARC-Date wants it."""
    stamp = when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _response_headers(headers: tuple[tuple[str, str], ...], size: int) -> list[tuple[str, str]]:
    """The headers as received, with those no longer true of the stored payload of ``size``
    bytes renamed: the encodings the client undid, a length that counted other bytes (the
    compressed ones, or a redirect's body Chromium did not keep)."""
    kept = []
    for name, value in headers:
        lower = name.lower()
        if lower in _DECODED or (lower == "content-length" and value.strip() != str(size)):
            name = ORIGINAL_PREFIX + name
        kept.append((name, value))
    return kept


class WarcFile:
    """A WARC file pages are appended to, one page at a time.

    Opening an existing file continues it: a torn last record (a disk that filled up) is cut
    off, and the pages already in it are not written again (:meth:`has`). Each opening writes a
    ``warcinfo`` record describing the run, which the page records name by ``WARC-Warcinfo-ID``.

    Args:
        target: a file path, or an open binary stream (standard output) written from its start.
        gzip: compress; default: when ``target`` is a path ending in ``.gz``.
        info: fields of the ``warcinfo`` record beside the software and format (``isPartOf``:
            the start URL, ``http-header-user-agent`` …).

    Raises:
        StorageError: the file cannot be opened, or what it holds is not a WARC file.
    """

    def __init__(
        self,
        target: Path | IO[bytes],
        *,
        gzip: bool | None = None,
        info: Mapping[str, str] | None = None,
    ) -> None:
        #: Pages written by this object.
        self.written = 0
        self._seen: set[str] = set()
        if isinstance(target, Path):
            self.gzip = wants_gzip(target) if gzip is None else gzip
            self._seen = _scan(target)
            try:
                self._out: IO[bytes] = target.open("ab", buffering=0)
            except OSError as exc:
                raise StorageError(f"cannot write {target}: {exc}") from exc
            self._own = True
            self._where = str(target)
        else:
            self.gzip = bool(gzip)
            self._out = target
            self._own = False
            self._where = str(getattr(target, "name", "") or "the output")
        self._writer = WARCWriter(None, gzip=self.gzip, warc_version=_WARC_VERSION)
        fields = {
            "software": f"deepcrawl/{__version__} (warcio)",
            "format": f"WARC File Format {_WARC_VERSION}",
            "conformsTo": "https://iipc.github.io/warc-specifications/specifications/"
            "warc-format/warc-1.1/",
            **(info or {}),
        }
        name = target.name if isinstance(target, Path) else ""
        warcinfo = self._writer.create_warcinfo_record(name, fields)
        self._warcinfo_id = warcinfo.rec_headers.get_header("WARC-Record-ID")
        self._append([warcinfo])

    def __enter__(self) -> WarcFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def has(self, uri: str) -> bool:
        """Whether a page with this target URI is in the file already."""
        return uri in self._seen

    def write_page(self, page: PageRead, body: bytes, exchange: Exchange | None) -> bool:
        """Append a page's records; False when the file holds the page already.

        Args:
            page: the stored page (its URL, date, backend, content type).
            body: its stored body (the rendered DOM for a page fetched in the browser).
            exchange: its request and response as they went over the wire, when stored.

        Raises:
            OutputError: the write failed (the file is left as it was before it).
        """
        uri = exchange.url if exchange is not None else (page.final_url or page.url)
        if uri in self._seen:
            return False
        date = _warc_date(page.fetched_at)
        if exchange is None:
            records = [self._resource(uri, date, page.content_type, body)]
        else:
            records = []
            for hop in exchange.redirects:  # the redirects first, as they happened
                hop_response = self._response(hop, date)
                records += [hop_response, self._request(hop, date, hop_response)]
            response = self._response(exchange, date)
            records += [response, self._request(exchange, date, response)]
            if page.via == "browser" and body != exchange.body:
                records.append(self._conversion(uri, date, body, response))
        self._append(records)
        self._seen.add(uri)
        self.written += 1
        return True

    def close(self) -> None:
        """Close the file (a stream given by the caller is only flushed)."""
        with contextlib.suppress(OSError):  # a full disk was reported by ``write_page``
            if self._own:
                self._out.close()
            else:
                self._out.flush()

    # -- records ------------------------------------------------------------------------------

    def _headers(self, date: str, **extra: str) -> dict[str, str]:
        return {"WARC-Date": date, "WARC-Warcinfo-ID": self._warcinfo_id, **extra}

    def _response(self, exchange: Exchange, date: str) -> ArcWarcRecord:
        reason = exchange.reason or _phrase(exchange.status)
        http_headers = StatusAndHeaders(
            f"{exchange.status} {reason}".strip(),
            _response_headers(exchange.headers, len(exchange.body)),
            protocol=exchange.protocol or "HTTP/1.1",
        )
        return self._writer.create_warc_record(
            exchange.url,
            "response",
            payload=io.BytesIO(exchange.body),
            length=len(exchange.body),
            http_headers=http_headers,
            warc_headers_dict=self._headers(date),
        )

    def _request(self, exchange: Exchange, date: str, response: ArcWarcRecord) -> ArcWarcRecord:
        parts = urlsplit(exchange.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        http_headers = StatusAndHeaders(
            f"{exchange.method} {target} {exchange.protocol or 'HTTP/1.1'}",
            list(exchange.request_headers),
            is_http_request=True,
        )
        response_id = response.rec_headers.get_header("WARC-Record-ID")
        return self._writer.create_warc_record(
            exchange.url,
            "request",
            http_headers=http_headers,
            warc_headers_dict=self._headers(date, **{"WARC-Concurrent-To": response_id}),
        )

    def _conversion(
        self, uri: str, date: str, body: bytes, response: ArcWarcRecord
    ) -> ArcWarcRecord:
        response_id = response.rec_headers.get_header("WARC-Record-ID")
        return self._writer.create_warc_record(
            uri,
            "conversion",
            payload=io.BytesIO(body),
            length=len(body),
            warc_content_type="text/html; charset=utf-8",
            warc_headers_dict=self._headers(date, **{"WARC-Refers-To": response_id}),
        )

    def _resource(self, uri: str, date: str, content_type: str, body: bytes) -> ArcWarcRecord:
        return self._writer.create_warc_record(
            uri,
            "resource",
            payload=io.BytesIO(body),
            length=len(body),
            warc_content_type=content_type or "application/octet-stream",
            warc_headers_dict=self._headers(date),
        )

    def _append(self, records: list[ArcWarcRecord]) -> None:
        """Write the records with one write and flush; on failure, cut the file back."""
        buffer = io.BytesIO()
        self._writer.out = buffer
        for record in records:
            self._writer.write_record(record)
        data = buffer.getvalue()
        start = self._position()
        try:
            view = memoryview(data)
            while view:
                done = self._out.write(view)
                view = view[done or 0 :]
            self._out.flush()
        except OSError as exc:
            if self._own and start is not None:
                with contextlib.suppress(OSError):
                    os.truncate(self._out.fileno(), start)
            reason = exc.strerror or str(exc)
            raise OutputError(
                f"cannot write to {self._where} after {self.written} pages: {reason}",
                written=self.written,
            ) from exc

    def _position(self) -> int | None:
        try:
            return os.fstat(self._out.fileno()).st_size
        except (OSError, ValueError, io.UnsupportedOperation):
            return None


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _scan(path: Path) -> set[str]:
    """Target URIs of the pages in an existing WARC file; a torn last record is cut off.

    Torn: the file ends inside a record (a disk that filled up mid-write), which warcio reads
    as a record shorter than its length, or not at all.
    """
    size = path.stat().st_size if path.exists() else 0
    if size == 0:
        return set()
    seen: set[str] = set()
    good = 0
    try:
        with path.open("rb") as fh:
            records = ArchiveIterator(fh)
            try:
                for record in records:
                    records.read_to_end(record)
                    if getattr(record.raw_stream, "limit", 0) > 0:  # ends before its length
                        break
                    if record.rec_type in ("response", "resource"):
                        seen.add(record.rec_headers.get_header("WARC-Target-URI") or "")
                    good = records.get_record_offset() + records.get_record_length()
            except (ArchiveLoadFailed, ValueError, EOFError) as exc:
                if good == 0:
                    raise StorageError(f"{path} is not a WARC file ({exc})") from exc
            # an uncompressed record's length leaves out the blank lines that close it
            fh.seek(good)
            if fh.read(4) == b"\r\n\r\n":
                good += 4
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc
    if good == 0:
        raise StorageError(f"{path} is not a WARC file (no whole record)")
    if good < size:
        with path.open("r+b") as fh:
            fh.truncate(good)
    return seen
