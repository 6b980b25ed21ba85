"""The query loop between the keyword manager and a form, over a fake search."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from deepcrawl.querying import QueryLoop
from deepcrawl.search.results import QueryResult, ResultLink
from tests.unit.querying.sections import settings_of

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from deepcrawl.search.results import ResultPage

BASE = "http://books.test"
RECORDS = {
    1: "red apple pie",
    2: "green apple tart",
    3: "red cherry pie",
    4: "blue berry jam",
    5: "green pear jam",
}


class FakeSearch:
    """Finds records whose text holds the word; ignores stop words; one page per 2 results."""

    accepts_empty = False
    partitions: ClassVar[dict[str, list[str]]] = {}

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def query(
        self,
        keyword: str,
        values: Mapping[str, str] | None = None,
        *,
        max_pages: int | None = None,
        more: Callable[[ResultPage, int], bool] | None = None,
        resume: tuple[str, int] | None = None,
    ) -> QueryResult:
        self.asked.append(keyword)
        hits = [i for i, text in RECORDS.items() if keyword in text.split()]
        links = [
            ResultLink(url=f"{BASE}/book/{i}?ref={keyword}", text=RECORDS[i], page=1 + n // 2)
            for n, i in enumerate(hits)
        ]
        links.append(ResultLink(url=f"{BASE}/", text="Home", role="chrome"))
        return QueryResult(
            keyword=keyword,
            links=links,
            pages=max(1, (len(hits) + 1) // 2),
            outcome="ok" if hits else "no_results",
            total_results=len(hits),
        )


class Stored:
    """A query store that keeps each query's word and new records."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    def save(self, result: QueryResult, *, new_records: int) -> None:
        self.seen.append((result.keyword, new_records))


async def test_the_loop_probes_stop_words_then_queries_until_every_record_is_found() -> None:
    # a window wide enough that the order of equally good terms cannot end the loop early
    settings = settings_of(saturation_window=6, max_queries=40, stopword_probes=("the", "a"))
    stored = Stored()
    loop = QueryLoop(
        settings,
        record_id=lambda url: url.split("?")[0],
        frequent=["apple", "jam"],
        stop_words={"the", "a"},
        store=stored,
    )
    fake = FakeSearch()
    results = []
    while (result := await loop.step(fake)) is not None:
        results.append(result)
    assert fake.asked[:2] == ["the", "a"]
    assert loop.words.stopwords_accepted is False
    assert fake.asked[2] == "apple"  # the cold start, then terms learnt from the results
    assert loop.ledger.records == {f"{BASE}/book/{i}" for i in RECORDS}
    assert [r.keyword for r in results] == fake.asked
    assert stored.seen[2] == ("apple", 2)
    assert loop.verdict is not None
    assert loop.ledger.cost == sum(max(1, r.pages) for r in results)
