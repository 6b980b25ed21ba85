"""A crawl of internationalised URLs: one record, one key, however its links spell it.

The ``intl`` fixture site serves its records at ``/bücher/<id>`` and links to them in five
spellings (raw Unicode, escaped, lower-case escapes with a dot segment, and absolute with the
host in Unicode). It is crawled at ``http://bücher.localhost:PORT/``: Chromium resolves every
``*.localhost`` name to the loopback address by itself, and deepcrawl's HTTP fetcher does the
same (``deepcrawl.browser.http._LoopbackNames``, RFC 6761), so no resolver is asked and nothing
leaves 127.0.0.1; both send the punycode name in the ``Host`` header.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

import pytest

from deepcrawl.urls import normalise_url
from tests.integration.run_cli import run_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Callable

    from deepcrawl_fixtures import FixtureServer

pytestmark = pytest.mark.browser


def test_idn_records_are_fetched_and_delivered_once_under_their_normal_form(
    fixture_server: Callable[..., FixtureServer], tmp_path: Path
) -> None:
    server = fixture_server("intl", records=40, seed=19)
    server.reset_stats()
    truth = server.truth()
    port = server.url.rsplit(":", 1)[1]
    out = tmp_path / "out"
    done = run_deepcrawl(
        tmp_path, "crawl", f"http://bücher.localhost:{port}/",
        "--like", "/bücher/3", "--db", f"sqlite:///{tmp_path / 'crawl.db'}", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    urls = [r["url"] for r in records]
    prefix = f"http://xn--bcher-kva.localhost:{port}/b%C3%BCcher/"
    assert all(url.startswith(prefix) and normalise_url(url) == url for url in urls), urls
    assert len(set(urls)) == len(urls)
    shown = [truth.record_of(unquote(urlsplit(url).path)) for url in urls]
    assert None not in shown
    assert len(set(shown)) == len(shown)  # each record once, whatever spelling led to it
    assert len(records) >= 30  # of 40: a tiny site saturates its form before the last few
    stats = server.stats()
    # every spelling reached the server as the one path it means: none was encoded twice (the
    # one unknown path a crawl asks for is /sitemap.xml, which this site does not have)
    unknown = [e["path"] for e in stats["log"] if e["kind"] == "unknown"]
    assert unknown in ([], ["/sitemap.xml"])
    assert stats["by_kind"]["detail"] >= len(records)
