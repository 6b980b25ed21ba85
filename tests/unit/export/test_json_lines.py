"""Whole lines or nothing: :class:`deepcrawl.export.JsonLines` under failing writes (issue 25)."""

from __future__ import annotations

import errno
import json
from typing import TYPE_CHECKING

import pytest

from deepcrawl.crawler.deliver import JsonlSink
from deepcrawl.errors import OutputError
from deepcrawl.export import JsonLines

if TYPE_CHECKING:
    from pathlib import Path


class _FillingFile:
    """A real file that takes ``room`` more bytes, a short write at the edge, then ENOSPC: what
    a filling disk does to ``write(2)``."""

    def __init__(self, inner: object, room: int) -> None:
        self.inner = inner
        self.room = room

    def write(self, data: memoryview) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = data[: self.room]
        self.room -= len(taken)
        written: int = self.inner.write(taken)  # type: ignore[attr-defined]
        return written

    def fileno(self) -> int:
        number: int = self.inner.fileno()  # type: ignore[attr-defined]
        return number

    def close(self) -> None:
        self.inner.close()  # type: ignore[attr-defined]


def _record(n: int) -> dict[str, object]:
    return {"url": f"http://a.test/{n}", "body": "x" * 50 + "é"}


def test_a_write_that_fills_the_disk_is_cut_back_to_the_last_whole_line(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    lines = JsonLines(path)
    lines.write(_record(1))
    whole = path.read_bytes()
    lines._file = _FillingFile(lines._file, room=30)  # type: ignore[assignment]
    with pytest.raises(OSError, match="No space left"):
        lines.write(_record(2))
    assert path.read_bytes() == whole
    lines._file.room = 10_000  # type: ignore[attr-defined]
    lines.write(_record(3))  # room again: the next line starts on a line of its own
    lines.close()
    assert [json.loads(line)["url"] for line in path.read_text().splitlines()] == [
        "http://a.test/1",
        "http://a.test/3",
    ]


def test_short_writes_go_on_until_the_line_is_whole(tmp_path: Path) -> None:
    class Trickle(_FillingFile):
        def write(self, data: memoryview) -> int:
            return super().write(data[:7])

    path = tmp_path / "pages.jsonl"
    lines = JsonLines(path, append=False)
    lines._file = Trickle(lines._file, room=10_000)  # type: ignore[assignment]
    lines.write(_record(1))
    lines.close()
    assert json.loads(path.read_text())["url"] == "http://a.test/1"


async def test_the_sink_reports_a_full_disk_with_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    sink = JsonlSink(path)
    await sink.write(_record(1))
    assert isinstance(sink._out, JsonLines)
    sink._out._file = _FillingFile(sink._out._file, room=12)  # type: ignore[assignment]
    with pytest.raises(OutputError, match="after 1 pages: No space left on device"):
        await sink.write(_record(2))
    sink.close()
    assert path.read_bytes().endswith(b"\n")
    again = JsonlSink(path)  # a resumed run: the record not written is written now
    await again.write(_record(1))
    await again.write(_record(2))
    again.close()
    urls = [json.loads(line)["url"] for line in path.read_text().splitlines()]
    assert urls == ["http://a.test/1", "http://a.test/2"]
