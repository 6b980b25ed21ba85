"""The real-site scorer on a small synthetic proxy log: every figure, by its definition."""

from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, ClassVar

import pytest
from deepcrawl_fixtures.real.base import RealApp, RealTruth
from deepcrawl_fixtures.real.score import path_of, score

if TYPE_CHECKING:
    from contextlib import AbstractContextManager


class _Tracker(RealApp):
    """Four issues at ``/issue/N``; ``/issue/N?do=edit`` is a look-alike, not a record."""

    name: ClassVar[str] = "tracker"
    title: ClassVar[str] = "a tracker"
    features: ClassVar[frozenset[str]] = frozenset()
    like_path: ClassVar[str] = "/issue/1"
    search_paths: ClassVar[tuple[str, ...]] = ("/search", "/index.php?do=search")

    def install(self) -> None:
        pass

    def run(self, port: int) -> AbstractContextManager[None]:
        return nullcontext()

    def truth(self) -> RealTruth:
        return RealTruth(records=frozenset({"1", "2", "3", "4"}))

    def record_of(self, path: str) -> str | None:
        head, _, query = path.partition("?")
        if head.startswith("/issue/") and not query.startswith("do="):
            return head.removeprefix("/issue/")
        return None


def _entry(
    path: str, *, method: str = "GET", status: int = 200, asset: bool = False
) -> dict[str, object]:
    kind = "text/css" if asset else "text/html"
    return {"method": method, "path": path, "status": status, "bytes": 100, "type": kind,
            "asset": asset}  # fmt: skip


LOG = [
    _entry("/"),
    _entry("/style.css", asset=True),
    _entry("/app.js", asset=True),
    _entry("/search?q=alpha"),
    _entry("/search", method="POST"),
    _entry("/index.php?do=search&q=beta"),
    _entry("/issue/1"),
    _entry("/issue/1?ref=search"),  # the same record again: one record, two documents
    _entry("/issue/2?do=edit"),  # a look-alike
    _entry("/issue/3", status=404),
    _entry("/issue/4"),
    _entry("/login", method="POST"),  # a non-search form: must never happen
]


def test_every_figure_of_a_synthetic_crawl() -> None:
    delivered = [
        "http://127.0.0.1:9/issue/1",
        "http://127.0.0.1:9/issue/1?ref=search",
        "http://127.0.0.1:9/issue/2?do=edit",
        "http://127.0.0.1:9/issue/4",
        "http://127.0.0.1:9/issue/4",  # delivered twice: counted once
    ]
    result = score(_Tracker(), LOG, delivered)
    assert result.records == 4
    assert result.records_delivered == 2  # issues 1 and 4
    assert result.recall == pytest.approx(2 / 4)
    assert (result.delivered, result.delivered_wanted) == (4, 3)
    assert result.precision == pytest.approx(3 / 4)
    assert result.records_fetched == 2  # 1 and 4 with status 200; 3 was a 404
    assert (result.documents, result.assets) == (10, 2)
    assert result.harvest == pytest.approx(2 / 10)
    assert result.by_method == {"GET": 10, "POST": 2}
    assert (result.searches, result.other_submissions, result.submissions) == (3, 1, 4)
    data = result.to_dict()
    assert (data["recall"], data["precision"], data["harvest"]) == (0.5, 0.75, 0.2)


def test_an_empty_crawl_scores_zero_without_dividing_by_zero() -> None:
    result = score(_Tracker(), [], [])
    assert (result.recall, result.precision, result.harvest, result.submissions) == (0, 0, 0, 0)


def test_default_search_paths_and_path_of() -> None:
    class _Plain(_Tracker):
        search_paths = RealApp.search_paths

    assert _Plain().is_search("/search?q=x")
    assert not _Plain().is_search("/issue/1")
    assert path_of("http://h:1/a/b?x=1#frag") == "/a/b?x=1"
    assert path_of("http://h:1") == "/"
