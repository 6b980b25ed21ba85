"""The admission's decisions are kept per URL (issue 27): a record page's chrome links, the same
on every record page, cost the learned model one run, not one a page; a new classifier or a
parameter learnt to be no part of a URL makes them be decided again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.crawler.admission import Admission
from deepcrawl.crawler.context import CrawlContext, CrawlStats
from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.fetch.robots import RobotsPolicy
from deepcrawl.settings import Settings
from deepcrawl.storage import Repository
from deepcrawl.storage.frontier import SqlFrontier
from deepcrawl.storage.state import CrawlState

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    import pytest

    from deepcrawl.classify.url import Decision

BASE = "http://shop.test"


def test_a_url_is_decided_once_until_the_classifier_or_the_parameters_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Repository.open(f"sqlite:///{tmp_path / 'crawl.db'}") as repo:
        settings = Settings()
        site = repo.site(BASE + "/")
        ctx = CrawlContext(
            start_url=BASE + "/",
            settings=settings,
            repo=repo,
            site=site,
            state=CrawlState(repo, site.id),
            limiter=HostLimiter(settings.politeness),
            robots=RobotsPolicy("test"),
            stats=CrawlStats(),
        )
        admission = Admission(ctx, SqlFrontier(repo.engine, site.id))
        asked: list[list[str]] = []
        decide = admission.classifier.decide_many

        def counted(urls: Iterable[str], base: str | None = None) -> list[Decision]:
            urls = list(urls)
            asked.append(urls)
            return decide(urls, base)

        monkeypatch.setattr(admission.classifier, "decide_many", counted)
        chrome = [f"{BASE}/", f"{BASE}/about", f"{BASE}/"]
        first = admission.wanted(((u, "") for u in chrome), "link on a", on_record=True)
        again = admission.wanted(((u, "") for u in chrome), "link on b", on_record=True)
        assert first == again
        assert asked == [[f"{BASE}/about"]]  # once; the start page was decided on creation
        assert admission.decide(f"{BASE}/about").url == f"{BASE}/about"
        assert len(asked) == 1
        ctx.sessions.know({"sid"})  # the spelling of a URL may change: decided again
        admission.decide(f"{BASE}/about")
        assert len(asked) == 2
        admission.classifier = type(admission.classifier)().fit([f"{BASE}/"])  # a new one
        admission.decide(f"{BASE}/about")
        assert admission.decide(f"{BASE}/about").url == f"{BASE}/about"
        assert len(asked) == 2  # the new classifier was asked, not the counted one
        assert admission._decided_by[0] is admission.classifier
