"""Delivery to the downstream extractor: JSON lines (file or stdout), a callback, an iterator.

Every delivered page is one record with the fields of :func:`deepcrawl.export.page_records`
(``url``, ``final_url``, ``status``, ``fetched_at``, ``label``, ``prototype``,
``content_type``, ``title``, ``body`` …). A :class:`Sink` writes the record, then the crawl
state remembers the delivery, so a resumed crawl never delivers a page twice. The one window
left — killed after writing, before remembering — is closed for files by :class:`JsonlSink`,
which reads back the URLs already in its file when it opens and skips them.
"""

from __future__ import annotations

import abc
import asyncio
import inspect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from deepcrawl.errors import StorageError
from deepcrawl.export import page_records

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from deepcrawl.crawler.context import CrawlContext
    from deepcrawl.storage import PageRead

    Record = dict[str, Any]

__all__ = ["CallbackSink", "JsonlSink", "NullSink", "QueueSink", "Sink", "TeeSink"]


class Sink(abc.ABC):
    """Where delivered pages go."""

    @abc.abstractmethod
    async def write(self, record: Record) -> None:
        """Hand one record to the extractor."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the sink holds (files)."""

    async def deliver_page(self, ctx: CrawlContext, page: PageRead) -> None:
        """Write a stored page's record, then remember that it was delivered."""
        bodies: Literal["inline", "path"] = (
            "inline" if ctx.settings.crawl.deliver_bodies else "path"
        )
        for record in page_records(ctx.repo, [page], bodies=bodies):
            await self.write(record)
        ctx.state.mark_delivered(page.id)


class NullSink(Sink):
    """Delivers nothing and remembers nothing: pages stay stored for a later run or export."""

    async def write(self, record: Record) -> None:
        return None

    async def deliver_page(self, ctx: CrawlContext, page: PageRead) -> None:
        return None


class JsonlSink(Sink):
    """One JSON object per line, to a file (appending, idempotent across runs) or a stream.

    Args:
        target: a file path, or an open text stream (stdout).
    """

    def __init__(self, target: Path | TextIO) -> None:
        self._seen: set[str] = set()
        if isinstance(target, Path):
            path = target
            self._seen = _urls_in(path)
            try:
                self._out: TextIO = path.open("a", encoding="utf-8")
            except OSError as exc:
                raise StorageError(f"cannot write {path}: {exc}") from exc
            self._own = True
        else:
            self._out = target
            self._own = False
        self.written = 0

    async def write(self, record: Record) -> None:
        if record["url"] in self._seen:
            return
        self._seen.add(record["url"])
        self._out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._out.flush()
        self.written += 1

    def close(self) -> None:
        if self._own:
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

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()
