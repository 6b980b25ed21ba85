"""The query loop between the keyword manager and a form, over a fake search."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from deepcrawl.keywords import KeywordManager
from deepcrawl.search.form_search import exhaust
from deepcrawl.search.results import QueryResult, ResultLink
from deepcrawl.settings import KeywordSettings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from deepcrawl.search.form_search import FormSearch

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

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def query(
        self, keyword: str, values: Mapping[str, str] | None = None, *, max_pages: int | None = None
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


async def test_exhaust_probes_stop_words_then_queries_until_every_record_is_found() -> None:
    # a window wide enough that the order of equally good terms cannot end the loop early
    settings = KeywordSettings(saturation_window=6, max_queries=40, stopword_probes=("the", "a"))
    manager = KeywordManager(settings, frequent=["apple", "jam"], stop_words={"the", "a"})
    fake = FakeSearch()
    seen: list[tuple[str, int]] = []
    results = await exhaust(
        cast("FormSearch", fake),
        manager,
        record_id=lambda url: url.split("?")[0],
        on_result=lambda result, outcome: seen.append((result.keyword, outcome.new)),
    )
    assert fake.asked[:2] == ["the", "a"]
    assert manager.stopwords_accepted is False
    assert fake.asked[2] == "apple"  # the cold start, then terms learnt from the results
    assert manager.records == {f"{BASE}/book/{i}" for i in RECORDS}
    assert [r.keyword for r in results] == fake.asked
    assert seen[2] == ("apple", 2)
    assert manager.stop_reason is not None
    assert manager.cost == sum(max(1, r.pages) for r in results)
