"""The WordPress test-bed app: which of the blog's URLs are posts (URL lists saved from it)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from deepcrawl_fixtures.real import REAL_APPS
from deepcrawl_fixtures.real.apps.wordpress import Post, WordPress, post_of

DATA = Path(__file__).parents[1] / "data" / "real" / "wordpress"
GENERATOR = Path(__file__).parents[2] / "fixtures" / "real" / "wordpress" / "generate.py"
POSTS: dict[str, Post] = {}
for _line in (DATA / "posts.tsv").read_text().splitlines():
    _pid, _slug, _month = _line.split("\t")
    POSTS[_pid] = (_month, _slug)
BY_PERMALINK = {post: pid for pid, post in POSTS.items()}
LIKE_ID = "171"  # the post of WordPress.like_path, in the saved database read-out


def of(path: str) -> str | None:
    return post_of(path, POSTS, BY_PERMALINK)


def test_registered() -> None:
    import deepcrawl_fixtures.real.apps  # noqa: F401  (fills REAL_APPS)

    assert REAL_APPS["wordpress"] is WordPress
    assert of(WordPress.like_path) == LIKE_ID


def test_every_permalink_is_its_post() -> None:
    assert len(POSTS) >= 200
    for pid, (month, slug) in POSTS.items():
        assert of(f"/{month}/{slug}/") == pid
        assert of(f"/?p={pid}") == pid


def test_breadth_first_urls_split_into_posts_and_other_pages() -> None:
    urls = (DATA / "bfs_urls.txt").read_text().split()
    assert len(urls) == 300
    posts = {u: of(u) for u in urls if of(u)}
    assert len(posts) > 100
    assert len(set(posts.values())) == len(posts)  # the list holds each post once
    for url in urls:
        if re.fullmatch(r"/\d{4}/\d{2}/[a-z0-9-]+/", url):
            assert of(url) is not None, url
        else:
            assert of(url) is None, url  # archives, tags, authors, feeds, replytocom ...


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/2020/10/february-fight-armed-hospital-drugs/", LIKE_ID),
        ("/2020/10/february-fight-armed-hospital-drugs", LIKE_ID),  # no trailing slash
        ("/2020/10/February-Fight-Armed-Hospital-Drugs/", LIKE_ID),  # upper-case twin
        ("/2020/10/february-fight-armed-hospital-drugs/#comment-222", LIKE_ID),
        ("/?p=171", LIKE_ID),
        ("/index.php?p=171", LIKE_ID),
        ("/2020/10/february-fight-armed-hospital-drugs/?replytocom=222", None),
        ("/?p=171&replytocom=222", None),
        ("/2020/10/february-fight-armed-hospital-drugs/feed/", None),
        ("/2020/10/february-fight-armed-hospital-drugs/embed/", None),
        ("/2019/10/february-fight-armed-hospital-drugs/", None),  # another month
        ("/2020/10/", None),
        ("/2020/", None),
        ("/category/travel/", None),
        ("/tag/friends/", None),
        ("/author/keiko/", None),
        ("/feed/", None),
        ("/comments/feed/", None),
        ("/page/2/", None),
        ("/?s=design", None),
        ("/page/2/?s=design", None),
        ("/?p=999999", None),
        ("/?page_id=264", None),
        ("/wp-json/wp/v2/posts/171", None),
        ("/wp-login.php", None),
        ("/", None),
    ],
)
def test_url_forms(path: str, expected: str | None) -> None:
    assert of(path) == expected


def test_search_results_mix_posts_and_pages() -> None:
    first = (DATA / "search_design.html").read_text()
    second = (DATA / "search_design_p2.html").read_text()
    assert "We found 18 results for your search." in first
    links = re.findall(
        r'<h2 class="entry-title[^"]*"><a href="http://[^/]+([^"]+)"', first + second
    )
    assert len(links) == 18
    assert sum(of(link) is not None for link in links) == 17  # and one page ("About")


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wordpress_generate", GENERATOR)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_is_deterministic() -> None:
    build = _generator().build
    blog = build()
    assert blog == build()
    assert len(blog["posts"]) >= 200
    assert any(post["comments"] for post in blog["posts"])
