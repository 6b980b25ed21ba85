"""Which kind of result link is the records, from the result lists alone (issue 28)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from deepcrawl.prototypes import LabelSession, ShownLink, kind_evidence, record_kinds
from deepcrawl.storage import Repository

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

H = "https://h.com"


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Repository]:
    with Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}") as repo:
        yield repo


def _verdicts(repo: Repository, links: list[ShownLink], **searches: str) -> dict[str, str]:
    """Each kind's verdict, keyed by its URLs' path with numbers as N and no last letters."""
    site = repo.site(f"{H}/")
    session = LabelSession.learn(repo, site.id, [url for _q, url, _t, _r in links])
    found = kind_evidence(
        session, links, {int(q[1:]): (url, url.rsplit("=", 1)[1]) for q, url in searches.items()}
    )
    return {_key(e.prototype.examples[0]): e.verdict for e in found}


def _key(url: str) -> str:
    path = urlsplit(url).path
    return re.sub(r"[0-9]+", "N", path.rstrip("0123456789")).strip("/")


def _results(query: int, path: str, ids: range, role: str = "result") -> list[ShownLink]:
    return [(query, f"{H}/{path}/{i}", f"{path} title {i}", role) for i in ids]


def test_the_kind_of_most_distinct_records_wins_over_the_kind_of_most_links(
    repo: Repository,
) -> None:
    # a tracker's search: its ten help pages for every word, beside a few tickets each
    links: list[ShownLink] = []
    for q in range(8):
        links += _results(q, "wiki", range(10))
        links += _results(q, "ticket", range(q * 4, q * 4 + 5))
    site = repo.site(f"{H}/")
    session = LabelSession.learn(repo, site.id, [url for _q, url, _t, _r in links])
    found = kind_evidence(session, links)
    wiki = next(e for e in found if "wiki" in e.prototype.regex)
    ticket = next(e for e in found if "ticket" in e.prototype.regex)
    assert wiki.entries == 80 > ticket.entries == 40  # twice the result links …
    assert ticket.records == 33 > wiki.records == 10  # … and a third of the records
    assert next(e.prototype for e in record_kinds(found)) == ticket.prototype


def test_pager_chrome_twins_navigation_and_search_pages_are_no_records(repo: Repository) -> None:
    links: list[ShownLink] = []
    for q in range(4):
        ids = range(q * 10, q * 10 + 10)
        links += _results(q, "issue", ids)
        # every entry also links the record's history page and two of a few tags
        links += [(q, f"{H}/issue/{i}/history", f"history of {i}", "result") for i in ids]
        links += [(q, f"{H}/issue/{i}.txt", f"text of {i}", "result") for i in ids]
        links += [(q, f"{H}/tag/t{i % 6}", f"tag {i % 6}", "result") for i in ids for _ in "ab"]
        links += _results(q, "page", range(2, 5), role="pager")
        links += _results(q, "menu", range(3), role="chrome")
        # sort links back to the search, named alike
        links += [(q, f"{H}/search?order={o}&q=w{q}", "sort", "result") for o in ("a", "b")]
    verdicts = _verdicts(repo, links, **{f"q{q}": f"{H}/search?q=w{q}" for q in range(4)})
    assert verdicts == {
        "issue": "records",
        "issue/N/history": "twin",
        "issue/N.txt": "twin",
        "page": "pager",
        "menu": "chrome",
        "tag/t": "navigation",
        "search": "search page",
    }


def test_a_kind_seen_once_or_named_alike_is_no_records(repo: Repository) -> None:
    links = _results(0, "once", range(9))
    links += [(q, f"{H}/view/{q}{i}", "View", "result") for q in range(3) for i in range(4)]
    verdicts = _verdicts(repo, links)
    assert verdicts == {"once": "too few", "view": "named alike"}
    site = repo.site(f"{H}/")
    session = LabelSession(repo, site.id, [url for _q, url, _t, _r in links])
    # with nothing else, records linked as "View" are still taken
    assert [e.verdict for e in record_kinds(kind_evidence(session, links))] == ["named alike"]
