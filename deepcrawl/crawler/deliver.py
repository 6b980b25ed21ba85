"""Delivery to the downstream extractor: JSON lines (file or stdout), a WARC file, a callback,
an iterator.

Every delivered page is one record with the fields of :func:`deepcrawl.export.page_records`
(``url``, ``final_url``, ``status``, ``fetched_at``, ``label``, ``prototype``,
``content_type``, ``title``, ``body`` …). A :class:`Sink` writes the record, then the crawl
state remembers the delivery, so a resumed crawl never delivers a page twice. The one window
left — killed after writing, before remembering — is closed for files by :class:`JsonlSink`,
which reads back the URLs already in its file when it opens and skips them, and for WARC files
by :class:`WarcSink` (:class:`deepcrawl.warc.WarcFile` reads back the pages in its file).

**One delivery point.** In a crawl shared through PostgreSQL, ``deepcrawl worker`` processes
store pages but deliver none: the ``deepcrawl crawl`` process is the only one that delivers, and
in it only :class:`DeliveryPoller` does — its own fetch tasks store pages like the workers. Two
deliverers could each write a page before either recorded it; one cannot. The poller reads the
pages stored above a watermark that have no delivery row, delivers them (write, then remember),
and a final full sweep (:meth:`DeliveryPoller.close`) once no URL is pending catches any page
the watermark passed over. One process crawling alone (SQLite) delivers each page right after
storing it, with no poller.
"""

from __future__ import annotations

import abc
import asyncio
import collections
import contextlib
import inspect
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO

from deepcrawl.errors import OutputClosedError, OutputError, StorageError
from deepcrawl.export import Held, JsonLines, json_line, page_records
from deepcrawl.warc import WarcFile

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

    from deepcrawl._tasks import Supervisor
    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.storage import PageRead

    Record = dict[str, Any]

__all__ = [
    "CallbackSink",
    "DeliveryPoller",
    "JsonlSink",
    "NullSink",
    "QueueSink",
    "Sink",
    "TeeSink",
    "WarcSink",
]

#: Seconds a poll's findings must age before the watermark passes them: PostgreSQL hands out
#: page ids when a row is inserted, not when it is committed, so a page with a lower id may
#: become visible just after a higher one (two workers storing at once). Such a page is read by
#: the next polls as long as it is above the watermark; one whose transaction stalled longer is
#: delivered by the final sweep.
_WATERMARK_LAG_S = 5.0


class Sink(abc.ABC):
    """Where delivered pages go."""

    #: Whether delivering to the sink records a delivery (a :class:`NullSink` does not: its
    #: pages stay undelivered for a later run or an export).
    remembers: bool = True

    @abc.abstractmethod
    async def write(self, record: Record) -> None:
        """Hand one record to the extractor."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the sink holds (files)."""

    async def write_page(self, ctx: CrawlContext, page: PageRead, record: Record) -> None:
        """Hand one stored page over; by default its record (:meth:`write`). A sink that needs
        more than the record (a WARC file: the bytes as they went over the wire) reads it here."""
        await self.write(record)

    async def deliver_page(
        self, ctx: CrawlContext, page: PageRead, held: Held | None = None
    ) -> None:
        """Write a stored page's record, then remember that it was delivered.

        ``held`` is what the crawl has in hand of a page it delivers as it stores it (the page
        as fetched, its frontier source): that is not read back.
        """
        await self.deliver_pages(ctx, [(page, held)])

    async def deliver_pages(
        self, ctx: CrawlContext, pages: Sequence[tuple[PageRead, Held | None]]
    ) -> None:
        """Write the records of stored pages, in order, then remember that they were delivered
        (one write to the store for them all); each with what the crawl has in hand of it, if
        anything (:meth:`deliver_page`).

        A write that fails leaves the pages written before it remembered, and raises.
        """
        crawl = ctx.settings.crawl
        bodies: Literal["inline", "path"] = "inline" if crawl.deliver_bodies else "path"
        written: list[int] = []
        try:
            for page, held in pages:
                records = page_records(
                    ctx.repo,
                    [page],
                    bodies=bodies,
                    text=crawl.deliver_text,
                    fetched=None if held is None else {page.id: held},
                )
                for record in records:
                    await self.write_page(ctx, page, record)
                written.append(page.id)
        finally:
            ctx.state.mark_delivered_many(written)


class NullSink(Sink):
    """Delivers nothing and remembers nothing: pages stay stored for a later run or export."""

    remembers = False

    async def write(self, record: Record) -> None:
        return None

    async def deliver_pages(
        self, ctx: CrawlContext, pages: Sequence[tuple[PageRead, Held | None]]
    ) -> None:
        return None


class JsonlSink(Sink):
    """One JSON object per line, to a file (appending, idempotent across runs) or a stream.

    A record counts as written once its line is out whole (a file's line in one write,
    :class:`~deepcrawl.export.JsonLines`; a stream's flushed); a write that fails raises
    :class:`~deepcrawl.errors.OutputError` (:class:`~deepcrawl.errors.OutputClosedError` when
    the reader of a pipe went away), so the page is not remembered as delivered and a resumed
    crawl delivers it. A file is cut back to its last complete line before the error is raised.

    Args:
        target: a file path, or an open text stream (stdout).
    """

    def __init__(self, target: Path | TextIO) -> None:
        self._seen: set[str] = set()
        self._out: TextIO | JsonLines
        if isinstance(target, Path):
            path = target
            self._seen = _urls_in(path)
            try:
                self._out = JsonLines(path)
            except OSError as exc:
                raise StorageError(f"cannot write {path}: {exc}") from exc
            self._own = True
            self._where = str(path)
        else:
            self._out = target
            self._own = False
            name = getattr(target, "name", "")
            self._where = "standard output" if name == "<stdout>" else str(name or "the output")
        self.written = 0

    async def write(self, record: Record) -> None:
        if record["url"] in self._seen:
            return
        try:
            if isinstance(self._out, JsonLines):
                self._out.write(record)
            else:
                self._out.write(json_line(record))
                self._out.flush()
        except BrokenPipeError as exc:
            raise OutputClosedError(
                f"the output pipe closed after {self.written} pages", written=self.written
            ) from exc
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise OutputError(
                f"cannot write to {self._where} after {self.written} pages: {reason}",
                written=self.written,
            ) from exc
        self._seen.add(record["url"])
        self.written += 1

    def close(self) -> None:
        if self._own:
            with contextlib.suppress(OSError):  # a full disk was reported by ``write``
                self._out.close()


def _urls_in(path: Path) -> set[str]:
    """URLs of the complete lines of a JSONL file; a torn last line is cut off."""
    if not path.exists():
        return set()
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):  # killed mid-line: drop the torn record
        raw = raw[: raw.rfind(b"\n") + 1]
        path.write_bytes(raw)
    seen = set()
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            seen.add(json.loads(line)["url"])
        except (ValueError, KeyError, TypeError):
            continue
    return seen


class WarcSink(Sink):
    """A WARC file the delivered pages are appended to as the crawl goes (see
    :mod:`deepcrawl.warc`): each page's records are written and flushed before the page is
    remembered as delivered, so a crawl killed at any point leaves a valid file of what it
    delivered, and a resumed crawl appends to it.

    Args:
        target: a file path (compressed when it ends in ``.gz``), or an open binary stream.
        gzip: compress whatever the name says.
        info: ``warcinfo`` fields (the start URL, the user agent).
    """

    def __init__(
        self,
        target: Path | BinaryIO,
        *,
        gzip: bool | None = None,
        info: Mapping[str, str] | None = None,
    ) -> None:
        self.file = WarcFile(target, gzip=gzip, info=info)

    async def write(self, record: Record) -> None:
        """Refused: a WARC keeps the exchange as it went over the wire, which a delivery record
        does not carry; the crawl hands pages over through :meth:`write_page`."""
        raise TypeError("a WarcSink writes stored pages (write_page), not delivery records")

    async def write_page(self, ctx: CrawlContext, page: PageRead, record: Record) -> None:
        body = ctx.repo.body(page.id) or b""
        self.file.write_page(page, body, ctx.repo.exchange(page.id))

    def close(self) -> None:
        self.file.close()


class CallbackSink(Sink):
    """Calls ``callback(record)`` for each page; the callback may be a coroutine function."""

    def __init__(self, callback: Callable[[Record], Awaitable[None] | None]) -> None:
        self.callback = callback

    async def write(self, record: Record) -> None:
        result = self.callback(record)
        if inspect.isawaitable(result):
            await result


class QueueSink(Sink):
    """Puts records on an :class:`asyncio.Queue` (behind ``async for page in crawl(...)``).

    The queue is bounded: a slow consumer slows the crawl instead of filling memory.
    """

    def __init__(self, maxsize: int = 64) -> None:
        self.queue: asyncio.Queue[Record | None] = asyncio.Queue(maxsize)

    async def write(self, record: Record) -> None:
        await self.queue.put(record)


class TeeSink(Sink):
    """Hands each record to several sinks in turn."""

    def __init__(self, *sinks: Sink) -> None:
        self.sinks = sinks

    async def write(self, record: Record) -> None:
        for sink in self.sinks:
            await sink.write(record)

    async def write_page(self, ctx: CrawlContext, page: PageRead, record: Record) -> None:
        for sink in self.sinks:
            await sink.write_page(ctx, page, record)

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


class DeliveryPoller:
    """The one delivery point of a shared crawl: delivers what any process stored.

    Runs as a task of the ``deepcrawl crawl`` process (:meth:`start`): every ``poll_s`` seconds,
    or sooner when :meth:`wake` says a page was stored here, it delivers the stored pages above
    its watermark that have no delivery row (:meth:`CrawlState.undelivered_after
    <deepcrawl.storage.state.CrawlState.undelivered_after>`). The watermark follows, ``lag_s``
    late, the highest page id delivered, so a poll reads the pages of the last few seconds and
    its cost stays flat as the crawl grows. :meth:`close` stops the task once its poll in hand is
    done (never between writing a record and remembering it) and, with ``sweep``, delivers every
    page still undelivered — the guarantee that nothing is missed.

    Args:
        ctx: the crawl's context (its state, settings and figures).
        sink: where pages go.
        full: whether the crawl's page budget is spent (delivery stops there).
        poll_s: seconds between two polls (``crawl.deliver_poll_s``).
        lag_s: how old a poll's findings are before the watermark passes them.
    """

    def __init__(
        self,
        ctx: CrawlContext,
        sink: Sink,
        *,
        full: Callable[[], bool],
        poll_s: float,
        lag_s: float = _WATERMARK_LAG_S,
    ) -> None:
        self.ctx = ctx
        self.sink = sink
        self.full = full
        self.poll_s = poll_s
        self.lag_s = lag_s
        #: Pages with an id at or below this one are left to the final sweep.
        self.watermark = 0
        #: ``(when, highest id delivered)`` of the polls the watermark has not passed yet.
        self._found: collections.deque[tuple[float, int]] = collections.deque()
        self._wake = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None

    def start(self, tasks: Supervisor) -> None:
        """Start polling, as a task of the crawl's supervised scope: a failure of the poller
        (the sink, the database) stops the crawl at once."""
        if self._task is None:
            self._task = tasks.daemon(self._run(), name="delivery poller")

    def wake(self) -> None:
        """A page was stored: poll now rather than at the next tick."""
        self._wake.set()

    async def poll(self) -> int:
        """Deliver the undelivered pages above the watermark; returns how many."""
        now = time.monotonic()
        top = self.watermark
        delivered = await self._deliver(self.ctx.state.undelivered_after(self.watermark))
        if delivered:
            top = max(top, delivered[-1])
        self._found.append((now, top))
        while self._found and now - self._found[0][0] >= self.lag_s:
            self.watermark = max(self.watermark, self._found.popleft()[1])
        return len(delivered)

    async def _deliver(self, pages: Iterable[PageRead]) -> list[int]:
        done: list[int] = []
        for page in pages:
            if self.full():
                break
            await self.sink.deliver_page(self.ctx, page)
            self.ctx.stats.pages_delivered += 1
            self.ctx.changed()
            done.append(page.id)
        return done

    async def _run(self) -> None:
        while not self._closing:
            self._wake.clear()  # before the poll: a page stored during it wakes the next one
            await self.poll()
            if self._closing:
                return
            # ``asyncio.timeout``: 3.11's ``wait_for`` can lose a cancellation (a stop request)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_s):
                    await self._wake.wait()

    async def close(self, *, sweep: bool = True) -> int:
        """Stop polling (after the poll in hand); with ``sweep``, deliver every page left.

        Sweep only once no URL of the crawl is pending (every process's leases settled): a page
        is stored before its lease is settled, so none can appear afterwards. Returns how many
        pages the sweep delivered.

        Raises:
            StorageError, or the sink's error: the poller or the sweep failed.
        """
        task, self._task = self._task, None
        if task is not None:
            self._closing = True
            self._wake.set()
            await task  # raises what stopped it, if anything did
        if not sweep:
            return 0
        return len(await self._deliver(self.ctx.state.undelivered()))
