"""The MediaWiki test-bed app: which of the wiki's URLs are articles (URL lists saved from it)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from urllib.parse import quote

import pytest
from deepcrawl_fixtures.real import REAL_APPS
from deepcrawl_fixtures.real.apps.mediawiki import MediaWiki, article_of

DATA = Path(__file__).parents[1] / "data" / "real" / "mediawiki"
GENERATOR = Path(__file__).parents[2] / "fixtures" / "real" / "mediawiki" / "generate.py"
_TITLES = json.loads((DATA / "titles.json").read_text())
ARTICLES = frozenset(_TITLES["articles"])
REDIRECTS: dict[str, str] = _TITLES["redirects"]
BY_ID: dict[str, str] = _TITLES["by_id"]
# Pages of other kinds, by a mark in their URL.
_NOT_ARTICLE = re.compile(
    r"[?&](action|oldid|diff|returnto|redlink)=|/(Special|Talk|User|User_talk|Category|Template"
    r"|Atlas_Wiki)(:|%3A)|title=(Special|Talk|User|Category|Template|Atlas_Wiki)(:|%3A)"
)


def of(path: str) -> str | None:
    return article_of(path, ARTICLES, REDIRECTS, BY_ID)


def test_registered() -> None:
    import deepcrawl_fixtures.real.apps  # noqa: F401  (fills REAL_APPS)

    assert REAL_APPS["mediawiki"] is MediaWiki
    assert of(MediaWiki.like_path) is not None


def test_every_article_path_is_its_record() -> None:
    assert len(ARTICLES) >= 200
    for title in ARTICLES:
        assert of("/index.php/" + quote(title, safe=";@$!*(),/~:")) == title
        assert of("/index.php?title=" + quote(title)) == title


def test_breadth_first_urls_split_into_articles_and_other_pages() -> None:
    urls = (DATA / "bfs_urls.txt").read_text().split()
    assert len(urls) == 300
    articles = [u for u in urls if of(u)]
    assert len(articles) > 150
    for url in urls:
        key = of(url)
        if _NOT_ARTICLE.search(url) or url.endswith("/Main_Page"):
            assert key is None, url
        elif url.startswith("/index.php/") and "?" not in url:
            assert key == url.removeprefix("/index.php/"), url


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/index.php/Understanding_Village", "Understanding_Village"),
        ("/index.php/understanding_Village", "Understanding_Village"),  # first letter folds
        ("/index.php/Understanding%20Village", "Understanding_Village"),
        ("/index.php?title=Understanding+Village", "Understanding_Village"),
        ("/index.php?title=Understanding_Village&action=view", "Understanding_Village"),
        ("/index.php?title=Understanding_Village&printable=yes", "Understanding_Village"),
        ("/index.php/Understanding_Village#History", "Understanding_Village"),
        ("/index.php/Village_Understanding", "Understanding_Village"),  # a redirect's title
        ("/index.php?title=Village_Understanding&redirect=no", None),
        ("/index.php/Understanding_village", None),  # only the first letter folds
        ("/index.php?title=Understanding_Village&action=edit", None),
        ("/index.php?title=Understanding_Village&action=history", None),
        ("/index.php?title=Understanding_Village&action=info", None),
        ("/index.php?title=Understanding_Village&action=raw", None),
        ("/index.php?title=Understanding_Village&oldid=12", None),
        ("/index.php?title=Understanding_Village&diff=prev&oldid=12", None),
        ("/index.php/Talk:Understanding_Village", None),
        ("/index.php/Special:Search", None),
        ("/index.php?search=village&title=Special%3ASearch&fulltext=Search", None),
        ("/index.php/Main_Page", None),
        ("/index.php", None),
        ("/", None),
        ("/load.php?modules=site.styles&only=styles", None),
    ],
)
def test_url_forms(path: str, expected: str | None) -> None:
    assert of(path) == expected


def test_curid_names_the_article() -> None:
    page_id, title = next(iter(BY_ID.items()))
    assert of(f"/index.php?curid={page_id}") == title
    assert of("/index.php?curid=999999") is None


def test_search_results_mix_kinds() -> None:
    html = (DATA / "search_village.html").read_text()
    links = re.findall(r'mw-search-result-heading"><a href="([^"]+)"', html)
    keys = [of(link) for link in links]
    assert any(k is None for k in keys)  # a talk page among the results
    assert sum(k is not None for k in keys) >= 10
    assert 'data-mw-num-results-total="19"' in html


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mediawiki_generate", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_is_deterministic() -> None:
    build = _generator().build
    dump, main_page = build()
    assert (dump, main_page) == build()
    assert dump.count("<ns>0</ns>") >= 200 + 20  # articles and redirects
    for title in ("Understanding Village", "Talk:Understanding Village", "Template:Stub"):
        assert f"<title>{title}</title>" in dump
