"""A full disk under ``--out``: ``pages.jsonl`` keeps whole lines only, and a resumed crawl into
the same folder delivers every record exactly once (issue 25, item 4).

The disk is a real one: a 64 KiB tmpfs mounted over the output folder fills after a few pages,
the crawl stops with one error line, and the file is cut back to its last complete line before
the error is reported. The tmpfs is then made larger and the crawl resumed into it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections import Counter
from typing import TYPE_CHECKING

import pytest

from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on its own 64 KiB tmpfs (the tests run as root), unmounted afterwards."""
    folder = tmp_path / "out"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_leaves_whole_lines_and_resume_delivers_each_record_once(
    fixture_server: Callable[..., FixtureServer], small_disk: Path, tmp_path: Path
) -> None:
    server = fixture_server("books", records=40, seed=23)
    db = tmp_path / "crawl.db"
    args = ["crawl", server.url + "/", "--like", server.truth().detail_paths[0],
            "--db", f"sqlite:///{db}", "--out", str(small_disk)]  # fmt: skip
    full = run_deepcrawl(tmp_path, *args)
    assert full.returncode == 1, full.stderr[-3000:]
    errors = [line for line in full.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1, full.stderr[-3000:]
    assert "No space left on device" in errors[0]
    raw = (small_disk / "pages.jsonl").read_bytes()
    assert raw, "nothing was written before the disk filled"
    assert raw.endswith(b"\n"), f"a torn last line: {raw[-80:]!r}"
    written = [json.loads(line)["url"] for line in raw.decode().splitlines()]
    with sqlite3.connect(db) as conn:
        (delivered,) = conn.execute("SELECT count(*) FROM delivery").fetchone()
    assert delivered == len(written), "a delivery was remembered that the file does not hold"

    subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
    resumed = run_deepcrawl(tmp_path, *args, "--resume")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    lines = (small_disk / "pages.jsonl").read_text().splitlines()
    urls = [json.loads(line)["url"] for line in lines]
    twice = {url: n for url, n in Counter(urls).items() if n > 1}
    assert not twice, twice
    assert urls[: len(written)] == written
    with sqlite3.connect(db) as conn:
        stored = {url for (url,) in conn.execute(
            "SELECT url FROM page WHERE kind = 'record' AND error IS NULL")}  # fmt: skip
    assert set(urls) == stored
    assert len(urls) > len(written)
