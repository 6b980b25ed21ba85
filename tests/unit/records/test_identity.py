"""A record's identity from its page (issue 26, item 4): canonical links, main-text fingerprints
and the parameters a record's own URL lacks, on saved pages of a real wiki."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from deepcrawl.page.fetched import FetchedPage
from deepcrawl.querying import main_text
from deepcrawl.records.identity import (
    DroppedParams,
    Identities,
    canonical_link,
    extra_items,
    fingerprint,
)
from deepcrawl.settings import Settings
from deepcrawl.urls import normalise_url

if TYPE_CHECKING:
    from deepcrawl.crawler.context import CrawlContext

DATA = Path(__file__).parents[2] / "data" / "real" / "dokuwiki"
SITE = "http://127.0.0.1:45777"
RECORD = f"{SITE}/doku.php?id=places:anymore_leeds_home"


def _page(name: str, url: str, headers: dict[str, str] | None = None) -> FetchedPage:
    body = (DATA / name).read_text() if name else ""
    kind = "text/html" if name else "text/plain"
    return FetchedPage(url, url, 200, kind, body, headers=headers or {})


def test_the_canonical_link_of_a_page_under_a_highlight_url() -> None:
    page = _page("page-highlight.html", f"{RECORD}&s%5B%5D=leeds")
    assert canonical_link(page) == RECORD
    assert canonical_link(_page("start.html", f"{SITE}/doku.php?id=start")) == f"{SITE}/"


def test_the_link_header_names_the_canonical_url_of_what_has_no_head() -> None:
    header = f'<{SITE}/style.css>; rel="preload", </doku.php?id=a>; rel="canonical"'
    page = _page("", f"{SITE}/export?id=a", {"link": header})
    assert canonical_link(page) == f"{SITE}/doku.php?id=a"
    assert canonical_link(_page("", f"{SITE}/x", {"link": f'<{SITE}/y>; rel="next"'})) is None


def test_one_record_under_two_urls_has_one_fingerprint() -> None:
    plain = main_text((DATA / "page.html").read_text())
    highlighted = main_text((DATA / "page-highlight.html").read_text())
    found = fingerprint(plain, min_words=20)
    assert found is not None
    assert fingerprint(highlighted, min_words=20) == found
    assert fingerprint(main_text((DATA / "start.html").read_text()), min_words=20) != found
    assert fingerprint("a stub of a page", min_words=20) is None


def test_a_canonical_url_is_the_page_less_some_query_items() -> None:
    assert extra_items(f"{RECORD}&s%5B%5D=leeds", RECORD) == ["s%5B%5D=leeds"]
    assert extra_items(RECORD, f"{SITE}/") is None  # the home page: another page
    assert extra_items(f"{SITE}/doku.php?id=b", RECORD) is None  # another record


def test_parameters_records_lack_under_several_values_are_learnt() -> None:
    rules = DroppedParams(min_values=3)
    lower = str.lower
    rules.refute(RECORD, lower)
    assert rules.observe(f"{RECORD}&hl=a", RECORD, lower) == set()
    assert rules.observe(f"{RECORD}&hl=b&id=x", f"{RECORD}&id=x", lower) == set()
    assert rules.observe(f"{SITE}/doku.php?id=c&hl=c", f"{SITE}/doku.php?id=c", lower) == {"hl"}
    # a name a record keeps is part of the URL, however often pages add it elsewhere
    assert "id" in rules.refuted
    rules.refute(f"{SITE}/view?mode=full", lower)
    for value in ("a", "b", "c"):
        assert rules.observe(f"{SITE}/v?mode={value}", f"{SITE}/v", lower) == set()


def _identities() -> Identities:
    settings = Settings()
    ctx = SimpleNamespace(settings=settings, in_scope=lambda url: url.startswith(SITE + "/"))
    return Identities(cast("CrawlContext", ctx), normalise_url, main_text)


def test_a_canonical_link_off_scope_or_to_another_page_is_not_believed() -> None:
    identities = _identities()
    highlighted = _page("page-highlight.html", f"{RECORD}&s%5B%5D=leeds")
    assert identities.of(highlighted.url, highlighted).canonical == RECORD
    body = highlighted.body
    elsewhere = body.replace(f'href="{RECORD}"', 'href="http://mirror.test/doku.php?id=x"')
    page = FetchedPage(highlighted.url, highlighted.url, 200, "text/html", elsewhere)
    assert identities.of(page.url, page).canonical is None  # another site's
    home = body.replace(f'href="{RECORD}"', f'href="{SITE}/"')
    page = FetchedPage(highlighted.url, highlighted.url, 200, "text/html", home)
    assert identities.of(page.url, page).canonical is None  # every page names the home page
    plain = _page("page.html", RECORD)
    found = identities.of(RECORD, plain)
    assert found.canonical is None  # its own URL
    assert found.fingerprint == identities.of(highlighted.url, highlighted).fingerprint
