"""Delivery sinks, canonical URLs and the crawl's figures (no browser, no server)."""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from deepcrawl.crawler.context import CrawlStats
from deepcrawl.crawler.deliver import CallbackSink, JsonlSink, QueueSink, TeeSink
from deepcrawl.errors import OutputClosedError, OutputError
from deepcrawl.records.kinds import canonical_url

if TYPE_CHECKING:
    from pathlib import Path


def _record(url: str) -> dict[str, Any]:
    return {"url": url, "status": 200, "body": "<html></html>"}


async def test_jsonl_sink_appends_and_skips_what_the_file_already_holds(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    sink = JsonlSink(path)
    await sink.write(_record("http://a/1"))
    await sink.write(_record("http://a/2"))
    sink.close()
    # a run killed mid-line leaves a torn record behind
    with path.open("a") as fh:
        fh.write('{"url": "http://a/3", "sta')
    again = JsonlSink(path)
    await again.write(_record("http://a/2"))  # delivered before the crash: skipped
    await again.write(_record("http://a/3"))  # torn: written again, whole
    again.close()
    urls = [json.loads(line)["url"] for line in path.read_text().splitlines()]
    assert urls == ["http://a/1", "http://a/2", "http://a/3"]
    assert again.written == 1


async def test_callback_sink_awaits_coroutine_callbacks() -> None:
    seen: list[str] = []

    async def collect(record: dict[str, Any]) -> None:
        seen.append(record["url"])

    sink = TeeSink(CallbackSink(collect), CallbackSink(lambda r: seen.append(r["url"] + "!")))
    await sink.write(_record("http://a/1"))
    assert seen == ["http://a/1", "http://a/1!"]


async def test_queue_sink_puts_records_in_order() -> None:
    sink = QueueSink(maxsize=4)
    await sink.write(_record("http://a/1"))
    await sink.write(_record("http://a/2"))
    got = [await sink.queue.get(), await sink.queue.get()]
    assert [r["url"] for r in got if r is not None] == ["http://a/1", "http://a/2"]


def test_canonical_url_drops_tracking_session_and_sort_keys_only() -> None:
    drop = re.compile(r"utm_.*|sid|sort\Z", re.IGNORECASE)
    url = "http://shop.test/item?cat=toys&id=7&sid=abc&sort=price&utm_source=x"
    assert canonical_url(url, drop) == "http://shop.test/item?cat=toys&id=7"
    assert canonical_url("http://shop.test/item?id=7", drop) == "http://shop.test/item?id=7"
    assert canonical_url("http://shop.test/book/7", drop) == "http://shop.test/book/7"


def test_stats_are_json_ready() -> None:
    stats = CrawlStats(queries=3, records_reached=10, records_estimated=12.345)
    data = stats.to_dict()
    assert data["records_estimated"] == 12.3
    assert "started" not in data
    json.dumps(data)


class _Failing(io.StringIO):
    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error
        self.name = "<stdout>"

    def flush(self) -> None:
        raise self.error


async def test_jsonl_sink_reports_a_closed_pipe_and_a_full_disk_and_counts_only_written() -> None:
    pipe = JsonlSink(_Failing(BrokenPipeError(32, "Broken pipe")))
    with pytest.raises(OutputClosedError, match="the output pipe closed after 0 pages"):
        await pipe.write(_record("http://a/1"))
    assert pipe.written == 0
    full = JsonlSink(_Failing(OSError(28, "No space left on device")))
    with pytest.raises(OutputError, match="standard output after 0 pages: No space left") as err:
        await full.write(_record("http://a/1"))
    assert not isinstance(err.value, OutputClosedError)
    with pytest.raises(OutputError):  # not counted as seen: the record is offered again
        await full.write(_record("http://a/1"))
