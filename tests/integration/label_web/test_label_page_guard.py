"""The real label page (``deepcrawl label SITE --web``) against forged changes (issue 25, item 6).

A page of another site may post to the label page in two ways: from a name that was made to
resolve to 127.0.0.1 (DNS rebinding: ``Host`` and ``Origin`` then both name that site), or from
a context that sends no ``Origin``. The server refuses both; and any program may write the
page's own ``Origin`` (issue 47): a change counts only with the token written into the page's
forms, which its own page sends, whatever the ``Origin`` says.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import httpx
import pytest

from deepcrawl.prototypes import LabelSession
from deepcrawl.storage import Repository
from tests.integration.label_web.served import label_page as served

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def _labels(db: str) -> dict[str, tuple[str, bool]]:
    with Repository.open(db, create=False) as repo:
        return LabelSession(repo, 1, {}).labels()


@pytest.fixture
def label_page(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """A stored site's prototypes served by the real command: (page URL, database, a kind)."""
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    with Repository.open(db) as repo:
        site = repo.site("https://h.example/")
        urls = [f"https://h.example/book/{i}" for i in range(1, 30)]
        urls += [f"https://h.example/author/{i}" for i in range(1, 9)]
        kind = LabelSession.learn(repo, site.id, urls).like("https://h.example/book/3").id
    with served(tmp_path, db) as page:
        yield page, db, kind


def _token(page: str) -> str:
    """The token the label page writes into its forms."""
    token = re.search(r'name="token" value="([^"]+)"', httpx.get(page + "/").text)
    assert token is not None  # in the page's forms
    return token[1]


def test_a_rebound_host_changes_no_label(label_page: tuple[str, str, str]) -> None:
    page, db, kind = label_page
    port = page.rsplit(":", 1)[1]
    evil = f"evil.example:{port}"  # resolves to 127.0.0.1; its page posts to itself
    rebound = httpx.post(
        f"{page}/kind/{kind}",
        data={"verdict": "wanted", "name": "book"},
        headers={"Host": evil, "Origin": f"http://{evil}"},
    )
    assert rebound.status_code == 400
    assert httpx.get(page + "/", headers={"Host": evil}).status_code == 400
    assert _labels(db) == {}
    by_name = f"http://localhost:{port}"  # the other name of this machine is its own
    own = httpx.post(
        f"{by_name}/kind/{kind}",
        data={"verdict": "wanted", "name": "book", "token": _token(page)},
        headers={"Origin": by_name},
    )
    assert own.status_code == 303
    assert _labels(db) == {kind: ("book", True)}


def test_a_post_without_origin_needs_the_pages_token(label_page: tuple[str, str, str]) -> None:
    page, db, kind = label_page
    bare = httpx.post(f"{page}/kind/{kind}", data={"verdict": "wanted", "name": "book"})
    assert bare.status_code == 403
    assert _labels(db) == {}
    token = re.search(r'name="token" value="([^"]+)"', httpx.get(page + "/").text)
    assert token is not None  # in the page's forms
    tokened = httpx.post(
        f"{page}/kind/{kind}", data={"verdict": "unwanted", "name": "book", "token": token[1]}
    )
    assert tokened.status_code == 303
    assert _labels(db) == {kind: ("book", False)}


def test_the_pages_own_origin_without_its_token_changes_no_label(
    label_page: tuple[str, str, str],
) -> None:
    page, db, kind = label_page
    for token in (None, "guess"):  # no token, a wrong one: the Origin is the page's own
        forged = httpx.post(
            f"{page}/kind/{kind}",
            data={"verdict": "wanted", "name": "book", **({"token": token} if token else {})},
            headers={"Origin": page},
        )
        assert forged.status_code == 403, token
    assert _labels(db) == {}
    own = httpx.post(
        f"{page}/kind/{kind}",
        data={"verdict": "wanted", "name": "book", "token": _token(page)},
        headers={"Origin": page},
    )
    assert own.status_code == 303
    assert _labels(db) == {kind: ("book", True)}
