"""The ``Crawl`` resource and the ``deepcrawl.crawl`` entry point (no browser)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import deepcrawl
from deepcrawl.browser.base import Fetcher
from deepcrawl.crawler import Crawl
from deepcrawl.errors import ConfigError, InvalidURLError
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.settings import Settings, load_settings

if TYPE_CHECKING:
    from pathlib import Path


class _NoFetch(Fetcher):
    async def fetch(self, url: str) -> FetchedPage:
        raise AssertionError(f"nothing should be fetched ({url})")


def _settings(tmp_path: Path) -> Settings:
    return load_settings(storage={"url": f"sqlite:///{tmp_path / 'crawl.db'}"})


async def test_a_crawl_cannot_be_entered_twice(tmp_path: Path) -> None:
    crawl = Crawl("http://127.0.0.1:9/", settings=_settings(tmp_path), fetcher=_NoFetch())
    async with crawl:
        assert crawl.ctx is not None
        assert crawl.ctx.in_scope("http://127.0.0.1:9/book/1")
        assert not crawl.ctx.in_scope("http://127.0.0.2:9/book/1")
        with pytest.raises(RuntimeError, match="twice"):
            await crawl.__aenter__()


async def test_scope_prefix_narrows_the_scope(tmp_path: Path) -> None:
    settings = _settings(tmp_path).with_overrides(crawl={"scope_prefix": "http://h.test/books/"})
    async with Crawl("http://h.test/books/", settings=settings, fetcher=_NoFetch()) as crawl:
        assert crawl.ctx is not None
        assert crawl.ctx.in_scope("http://h.test/books/17")
        assert not crawl.ctx.in_scope("http://h.test/admin/")


async def test_resume_needs_a_stored_crawl(tmp_path: Path) -> None:
    crawl = Crawl("http://127.0.0.1:9/", settings=_settings(tmp_path), resume=True,
                  fetcher=_NoFetch())  # fmt: skip
    with pytest.raises(ConfigError, match="nothing to resume"):
        async with crawl:
            pass


def test_the_start_url_must_be_http() -> None:
    with pytest.raises(InvalidURLError):
        Crawl("ftp://example.org/")


def test_deepcrawl_crawl_is_callable_and_lazy() -> None:
    pages = deepcrawl.crawl("http://127.0.0.1:9/", like=["/x"])
    assert hasattr(pages, "__anext__")
    assert callable(deepcrawl.crawl_each)
    assert deepcrawl.Crawl is Crawl
