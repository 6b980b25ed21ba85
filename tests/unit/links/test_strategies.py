"""The ACHE, apprentice and xCrawl strategies on a hand-made site served by a fake fetcher.

The site has both jobs in it: a search form two clicks from the home page behind a gateway
among unrelated sections, and records listed on paged browse pages, with noise beside them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from deepcrawl.browser.base import Fetcher
from deepcrawl.errors import ConfigError, NetworkError
from deepcrawl.links import STRATEGIES, AcheCrawler, ApprenticeCrawler, XCrawler, pattern_target
from deepcrawl.links.context import LinkContext, page_links
from deepcrawl.page.fetched import FetchedPage, Link
from deepcrawl.settings import Settings

if TYPE_CHECKING:
    from collections.abc import Callable

HOST = "http://site.test"
FORM = "<form action='/find'><input type='text' name='q'><input type='submit' value='Go'></form>"


def _frame(body: str) -> str:
    nav = " ".join(f"<a href='/{s}'>{s}</a>" for s in ("news", "events", "help", "library"))
    return (
        f"<html><body><header><a href='/'>Home</a> {nav}</header><main>{body}</main>"
        "<footer><a href='http://other.test/'>Partner</a> <a href='/broken'>Old</a></footer>"
        "</body></html>"
    )


def _site() -> dict[str, str]:
    pages = {"/": _frame("<a href='/browse?page=1'>Browse records</a>")}
    for section in ("news", "events", "help"):
        pages[f"/{section}"] = _frame(
            "".join(f"<p><a href='/{section}/{k}'>story {k}</a></p>" for k in range(8))
        )
        for k in range(8):
            pages[f"/{section}/{k}"] = _frame(
                "".join(f"<a href='/{section}/{(k + j) % 8}'>more</a>" for j in (1, 2))
            )
    pages["/library"] = _frame(
        "".join(f"<p><a href='/library/guide-{k}'>guide {k}</a></p>" for k in range(6))
        + "<p><a href='/library/advanced-search'>Advanced search</a></p>"
    )
    for k in range(6):
        pages[f"/library/guide-{k}"] = _frame(f"<p>guide text {k}</p>")
    pages["/library/advanced-search"] = _frame(FORM)
    for p in (1, 2, 3):
        items = "".join(
            f"<li><a href='/item/{i}'>Record {i}</a> <span>record</span></li>"
            for i in range((p - 1) * 6, p * 6)
        )
        nxt = f"<a href='/browse?page={p + 1}'>Next</a>" if p < 3 else ""
        pages[f"/browse?page={p}"] = _frame(f"<ul class='records'>{items}</ul>{nxt}")
    for i in range(18):
        pages[f"/item/{i}"] = _frame(
            f"<h1>Record {i}</h1><a href='/item/{i}/print'>Print</a>"
            f"<a href='/browse?page={i // 6 + 1}'>Back to list</a>"
        )
        pages[f"/item/{i}/print"] = f"<html><body>Record {i}</body></html>"
    return pages


class FakeSiteFetcher(Fetcher):
    """Serves the hand-made site from memory; counts requests; /broken fails."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.sent: list[str] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.sent.append(url)
        parts = urlsplit(url)
        assert f"{parts.scheme}://{parts.netloc}" == HOST, f"left the site: {url}"
        key = parts.path + (f"?{parts.query}" if parts.query else "")
        if key == "/broken":
            raise NetworkError(url, "connection reset")
        body = self.pages.get(key)
        if body is None:
            return FetchedPage(url, url, 404, "text/html", "<html><body>missing</body></html>")
        links = [Link(c.url, c.anchor) for c in page_links(body, url, d_max=0)]
        return FetchedPage(url, url, 200, "text/html", body, links=links)


def _settings() -> Settings:
    return Settings().with_overrides(
        politeness={"requests_per_second": 0.0, "concurrency_per_host": 2}
    )


def _has_form(page: FetchedPage) -> bool:
    return "name='q'" in page.body


is_record = pattern_target(r"/item/\d+")


async def _crawl(strategy: Any, budget: int = 400, stop: Callable[[FetchedPage], bool] | None = None
                 ) -> tuple[list[FetchedPage], FakeSiteFetcher]:  # fmt: skip
    fetcher = FakeSiteFetcher(_site())
    pages = []
    async with fetcher:
        async for page in strategy.crawl(HOST + "/", fetcher=fetcher, max_requests=budget):
            pages.append(page)
            if stop is not None and stop(page):
                break
    return pages, fetcher


def test_strategies_are_registered() -> None:
    assert STRATEGIES["ache"] is AcheCrawler
    assert STRATEGIES["apprentice"] is ApprenticeCrawler
    assert STRATEGIES["xcrawl"] is XCrawler


@pytest.mark.parametrize("name", ["ache", "apprentice", "xcrawl"])
@pytest.mark.parametrize("budget", [7, 60])
async def test_contract(name: str, budget: int) -> None:
    classes: dict[str, type[AcheCrawler | ApprenticeCrawler | XCrawler]] = {
        "ache": AcheCrawler,
        "apprentice": ApprenticeCrawler,
        "xcrawl": XCrawler,
    }
    options = {"ache": {"learning_threshold": 3}, "apprentice": {"batch": 5}}.get(name, {})
    strategy = classes[name](_settings(), is_target=is_record, **options)
    pages, fetcher = await _crawl(strategy, budget)
    assert len(fetcher.sent) <= budget  # robots.txt included
    urls = [p.url for p in pages]
    assert len(urls) == len(set(urls)), "a page was yielded twice"
    assert all(u.startswith(HOST) for u in fetcher.sent)
    if budget == 60:
        assert any(is_record(p) for p in pages)


async def test_failures_are_recorded_not_raised() -> None:
    strategy = AcheCrawler(_settings(), is_target=is_record)
    await _crawl(strategy, 400)
    assert "connection reset" in strategy.failures[HOST + "/broken"]


def _paths_to_form() -> list[tuple[LinkContext, int]]:
    """Paths another site taught: 'advanced search' links lead to the form (level 1)."""
    other = "http://other.test/"

    def ctx(url: str, anchor: str) -> LinkContext:
        return LinkContext(url=other + url, source=other, anchor=anchor)

    return [
        (ctx("catalogue/advanced-search", "Advanced search"), 1),
        (ctx("collections/search", "Search the collections"), 1),
        (ctx("catalogue", "Catalogue"), 2),
        (ctx("news/1", "story one"), 4),
        (ctx("events/2", "concert"), 4),
        (ctx("help/3", "guide"), 4),
    ]


async def test_ache_with_prior_finds_the_form_sooner_than_breadth_first() -> None:
    bfs = STRATEGIES["bfs"](_settings())
    bfs_pages, _ = await _crawl(bfs, 400, stop=_has_form)
    ache = AcheCrawler(_settings(), is_target=_has_form, prior=_paths_to_form(), max_targets=1)
    ache_pages, _ = await _crawl(ache, 400, stop=_has_form)
    assert _has_form(bfs_pages[-1])
    assert _has_form(ache_pages[-1])
    assert ache.targets == [HOST + "/library/advanced-search"]
    assert len(ache_pages) < len(bfs_pages) / 2
    assert ache.done()


async def test_ache_learns_online_and_reranks() -> None:
    ache = AcheCrawler(_settings(), is_target=is_record, learning_threshold=3, frontier_batch=10)
    pages, _ = await _crawl(ache, 400)
    assert ache.learning_iterations >= 1
    assert ache.classifier is not None
    levels = {lv for _, lv in ache.examples}
    assert 1 in levels  # links to records
    assert 4 in levels  # links on no path
    # Every record on the site is found.
    assert len(ache.targets) == 18
    assert len(pages) == len(ache.judged)


async def test_apprentice_trains_in_batches_and_beats_its_baseline() -> None:
    apprentice = ApprenticeCrawler(_settings(), is_target=is_record, batch=10)
    await _crawl(apprentice, 60)
    assert apprentice.trainings >= 2
    assert apprentice.consulted
    assert {r > 0 for _, r in apprentice.instances} == {True, False}
    bfs = STRATEGIES["bfs"](_settings())
    bfs_pages, _ = await _crawl(bfs, 60)
    bfs_loss = 1 - sum(1 for p in bfs_pages if is_record(p)) / len(bfs_pages)
    assert apprentice.loss_rate < bfs_loss


async def test_xcrawl_finds_the_hub_and_downloads_its_list() -> None:
    xcrawl = XCrawler(_settings(), is_target=is_record, max_iterations=10)
    await _crawl(xcrawl, 400)
    assert HOST + "/browse?page=1" in xcrawl.hubs
    assert {f"{HOST}/item/{i}" for i in range(6)} <= set(xcrawl.targets)
    assert xcrawl.restarts >= 10


async def test_xcrawl_starts_from_known_records() -> None:
    xcrawl = XCrawler(
        _settings(), is_target=is_record, known_records=[HOST + "/item/7"], max_iterations=5
    )
    _, fetcher = await _crawl(xcrawl, 400)
    assert fetcher.sent[1:3] == [HOST + "/", HOST + "/item/7"]  # after robots.txt
    assert HOST + "/browse?page=2" in xcrawl.hubs


def test_bad_record_pattern_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="record pattern '\\('"):
        pattern_target("(")
    strategy = AcheCrawler(_settings(), is_target=pattern_target(r"/item/\d+"))
    page = FetchedPage(HOST + "/item/3", HOST + "/item/3", 200, "text/html", "")
    assert strategy.is_target(page)
    assert not strategy.is_target(FetchedPage(HOST + "/item/3/print", HOST + "/x", 200, "", ""))


async def test_apprentice_rewards_links_on_the_way_to_the_form() -> None:
    # One form on the site: the links to it are rewarded 1, the links to the gateway that
    # leads to it 0.5 (path_discount), links to pages two steps away 0.25, the rest 0.
    apprentice = ApprenticeCrawler(_settings(), is_target=_has_form, batch=10**6)
    await _crawl(apprentice, 400, stop=_has_form)
    rewards: dict[str, set[float]] = {}
    for (_, target), reward in zip(apprentice.lessons, apprentice.rewards(), strict=True):
        rewards.setdefault(urlsplit(target).path, set()).add(reward)
    assert rewards["/library/advanced-search"] == {1.0}
    assert rewards["/library"] == {0.5}
    assert rewards["/news"] == {0.25}  # it links to /library (the header)
    assert max(rewards["/library/guide-0"]) == 0.25
    assert set(apprentice.rewards()) <= {0.0, 0.25, 0.5, 1.0}


async def test_apprentice_with_a_graded_prior_finds_the_form_sooner_than_breadth_first() -> None:
    bfs_pages, _ = await _crawl(STRATEGIES["bfs"](_settings()), 400, stop=_has_form)
    prior = [
        (("advanced@0", "search@0"), 1.0),
        (("search@0", "the@0", "collections@0"), 1.0),
        (("library@0", "help@-1"), 0.5),
        (("story@0",), 0.0),
        (("news@0", "home@-1"), 0.0),
        (("more@0",), 0.0),
    ]
    apprentice = ApprenticeCrawler(_settings(), is_target=_has_form, prior=prior, max_targets=1)
    assert apprentice.consulted
    pages, _ = await _crawl(apprentice, 400, stop=_has_form)
    assert apprentice.targets == [HOST + "/library/advanced-search"]
    assert len(pages) < len(bfs_pages) / 2


async def test_xcrawl_bootstrap_follows_the_prior_before_any_authority() -> None:
    bfs_pages, _ = await _crawl(STRATEGIES["bfs"](_settings()), 400, stop=_has_form)
    blind = XCrawler(_settings(), is_target=_has_form, max_targets=1)
    blind_pages, _ = await _crawl(blind, 400, stop=_has_form)
    guided = XCrawler(_settings(), is_target=_has_form, prior=_paths_to_form(), max_targets=1)
    guided_pages, _ = await _crawl(guided, 400, stop=_has_form)
    assert guided.targets == [HOST + "/library/advanced-search"]
    # without a prior the bootstrap is breadth-first; with one it goes for the gateway
    assert len(blind_pages) == len(bfs_pages)
    assert len(guided_pages) < len(bfs_pages) / 2
    weights = guided.topic_weights(
        [
            LinkContext(HOST + "/library/advanced-search", HOST + "/", "Advanced search"),
            LinkContext(HOST + "/news/3", HOST + "/", "story"),
        ]
    )
    assert weights[0] > weights[1]
    assert XCrawler(_settings()).topic_weights([LinkContext(HOST + "/a", HOST)]) == [0.0]


async def test_xcrawl_reaches_the_records_no_known_record_links_to() -> None:
    # The known records are those of the list's second page: only that page's pager leads to
    # the third, whose records no known record links to.
    known = [f"{HOST}/item/{i}" for i in range(6, 12)]
    xcrawl = XCrawler(_settings(), is_target=is_record, known_records=known, max_iterations=3)
    await _crawl(xcrawl, 400)
    assert HOST + "/browse?page=2" in xcrawl.hubs
    assert {f"{HOST}/item/{i}" for i in range(12, 18)} <= set(xcrawl.targets)


async def test_baseline_examples_give_the_levels_of_the_path_to_the_form() -> None:
    from deepcrawl.links.prior import baseline_examples

    fetcher = FakeSiteFetcher(_site())
    async with fetcher:
        examples = await baseline_examples(
            HOST + "/", _settings(), fetcher=fetcher, is_target=_has_form, per_level=1000
        )
    levels: dict[str, set[int]] = {}
    for example in examples:
        levels.setdefault(urlsplit(example.link.url).path, set()).add(example.level)
    assert levels["/library/advanced-search"] == {1}
    assert levels["/library"] == {2}
    assert levels["/news"] == {3}
    assert all(1 <= e.level <= 4 for e in examples)
    assert any(e.link.offsets and e.link.around for e in examples)  # both learners' features
    # the sample keeps at most per_level examples of each level
    async with FakeSiteFetcher(_site()) as fetcher:
        few = await baseline_examples(
            HOST + "/", _settings(), fetcher=fetcher, is_target=_has_form, per_level=2
        )
    counts = [sum(1 for e in few if e.level == lv) for lv in {e.level for e in few}]
    assert max(counts) == 2
