"""The ``--like`` layout check against a served fixture site, fetched over real HTTP.

Prototyped with loose thresholds, the books site's record pages and category pages fall in one
prototype; the example record page's layout must split it until only record pages remain.
"""

from __future__ import annotations

from pathlib import Path

from deepcrawl_fixtures import FixtureServer

from deepcrawl.browser.http import HttpFetcher
from deepcrawl.classify.layout import SAMPLES, narrow_to_example
from deepcrawl.prototypes import LabelSession, Prototyper
from deepcrawl.settings import Settings
from deepcrawl.storage import Repository


async def test_a_wrong_generalisation_costs_a_handful_of_requests(
    books_server: FixtureServer, tmp_path: Path
) -> None:
    truth = books_server.truth()
    samples = truth.sample_paths()
    urls = [books_server.url + p for kind in ("detail", "category") for p in samples[kind]]
    loose = Prototyper(literal_threshold=0.9, closed_vocabulary_max=0, closed_vocabulary_share=0.0)
    example = books_server.url + truth.detail_paths[0]
    fetched: list[str] = []
    with Repository.open(f"sqlite:///{tmp_path / 'crawl.db'}") as repo:
        site = repo.site(books_server.url + "/")
        session = LabelSession.learn(repo, site.id, urls, loose)
        assert session.label_like(example, "book").count == len(urls)  # records and categories
        async with HttpFetcher(Settings()) as fetcher:

            async def fetch(url: str) -> str | None:
                fetched.append(url)
                page = await fetcher.fetch(url)
                return page.body if page.status == 200 else None

            check = await narrow_to_example(session, example, fetch)
    assert check.splits >= 1
    assert check.alike
    members = session.members[check.prototype.id]
    assert sorted(members) == sorted({books_server.url + p for p in samples["detail"]})
    assert {truth.page_kind(u) for u in fetched} <= {"detail", "category"}
    assert len(fetched) <= 1 + 2 * SAMPLES
    assert session.labels()[check.prototype.id] == ("book", True)
