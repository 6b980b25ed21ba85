"""The labelling web app's requests: every decision stored at once, errors shown, export valid."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from deepcrawl.label_web import create_app
from deepcrawl.prototypes import LabelSession, read_labels_file
from deepcrawl.storage import Repository

NEXT = "deepcrawl crawl https://h.com/ --db sqlite:///x.db --resume"


@pytest.fixture
def session(tmp_path: Path) -> Iterator[LabelSession]:
    repo = Repository.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    site = repo.site("https://h.com/")
    urls = [f"https://h.com/book/{i}" for i in range(1, 30)]
    urls += [f"https://h.com/author/{i}" for i in range(1, 9)]
    urls += ["https://h.com/about", "https://h.com/login", "https://h.com/help"]
    yield LabelSession.learn(repo, site.id, urls)
    repo.close()


PAGE = "http://127.0.0.1:8765"


class PageClient(httpx.AsyncClient):
    """The page's own requests, as a browser sends them from it: with its ``Origin`` and, in
    every form posted, the token the page wrote into its forms."""

    token = ""

    async def post(self, url: str, *, data: dict[str, str] | None = None, **kw: Any) -> Any:  # type: ignore[override]
        if not self.token:
            found = re.search(r'name="token" value="([^"]+)"', (await self.get("/")).text)
            assert found is not None  # in the page's forms
            self.token = found[1]
        return await super().post(url, data={"token": self.token, **(data or {})}, **kw)


@pytest.fixture
async def client(session: LabelSession) -> AsyncIterator[PageClient]:
    """The page's own requests (:class:`PageClient`)."""
    transport = httpx.ASGITransport(create_app(session, session.repo, NEXT))
    async with PageClient(transport=transport, base_url=PAGE, headers={"Origin": PAGE}) as c:
        yield c


async def test_the_page_lists_every_kind_in_plain_words(
    client: PageClient, session: LabelSession
) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert "/book/‹number›" in page.text
    assert "/author/‹number›" in page.text
    assert page.text.count('class="kind') == len(session.prototypes)
    assert NEXT in page.text
    assert (await client.get("/static/htmx.min.js")).status_code == 200  # no CDN
    assert (await client.get(f"/kind/{session.prototypes[0].id}/thumbnail.png")).status_code == 404


async def test_a_click_is_stored_at_once_and_answers_the_card(
    client: PageClient, session: LabelSession
) -> None:
    book = session.like("https://h.com/book/1")
    answer = await client.post(
        f"/kind/{book.id}",
        data={"verdict": "unwanted", "name": "book"},
        headers={"HX-Request": "true"},
    )
    assert answer.status_code == 200
    assert answer.text.lstrip().startswith("<article")
    assert "book: not wanted" in answer.text
    assert session.labels() == {book.id: ("book", False)}
    skipped = await client.post(f"/kind/{book.id}", data={"verdict": "skip"})
    assert skipped.status_code == 303
    assert session.labels() == {book.id: ("book", False)}  # skip changes nothing


async def test_pages_like_this_one_merge_and_errors(
    client: PageClient, session: LabelSession
) -> None:
    liked = await client.post("/like", data={"url": "https://h.com/author/4", "name": "author"})
    assert liked.status_code == 303
    author = session.like("https://h.com/author/4")
    assert session.labels()[author.id] == ("author", True)
    unknown = await client.post("/like", data={"url": "https://elsewhere.org/x/y/z"})
    assert unknown.status_code == 400
    assert "no prototype matches" in unknown.text
    book = session.like("https://h.com/book/1")
    count = len(session.prototypes)
    merged = await client.post("/merge", data={"first": book.id, "second": author.id})
    assert merged.status_code == 303
    assert len(session.prototypes) == count - 1
    assert (
        await client.post("/merge", data={"first": book.id, "second": "nope"})
    ).status_code == 400


async def test_changes_from_another_origin_are_refused(
    client: PageClient, session: LabelSession
) -> None:
    pid = session.prototypes[0].id
    forged = await client.post(
        f"/kind/{pid}", data={"verdict": "wanted"}, headers={"Origin": "http://evil.example"}
    )
    assert forged.status_code == 403
    assert session.labels() == {}


async def test_the_export_is_a_labels_file(
    client: PageClient, session: LabelSession, tmp_path: Path
) -> None:
    book = session.like("https://h.com/book/1")
    await client.post(f"/kind/{book.id}", data={"verdict": "wanted", "name": "book"})
    exported = await client.get("/labels.yaml")
    assert exported.status_code == 200
    assert "attachment" in exported.headers["content-disposition"]
    path = tmp_path / "labels.yaml"
    path.write_text(exported.text, encoding="utf-8")
    assert read_labels_file(path) == [{"prototype": book.id, "name": "book", "relevant": True}]


@pytest.mark.parametrize("origin", [None, PAGE], ids=["no-origin", "own-origin"])
async def test_a_change_needs_the_pages_token_whatever_its_origin(
    client: PageClient, session: LabelSession, origin: str | None
) -> None:
    pid = session.prototypes[0].id
    if origin is None:
        del client.headers["Origin"]  # an old browser, or a request forged without one
    # a plain client: the request as any program may write it, the page's Origin included
    post = super(PageClient, client).post
    refused = await post(f"/kind/{pid}", data={"verdict": "wanted"})
    assert refused.status_code == 403
    wrong = await post(f"/kind/{pid}", data={"verdict": "wanted", "token": "guess"})
    assert wrong.status_code == 403
    assert session.labels() == {}
    taken = await client.post(f"/kind/{pid}", data={"verdict": "wanted"})  # the page's token
    assert taken.status_code == 303
    assert session.labels()[pid][1] is True


@pytest.mark.parametrize("host", ["evil.example:8765", "127.0.0.1.evil.example", "192.168.1.5"])
async def test_a_request_naming_another_host_is_refused(
    client: PageClient, session: LabelSession, host: str
) -> None:
    pid = session.prototypes[0].id
    forged = await client.post(
        f"/kind/{pid}",
        data={"verdict": "wanted"},
        headers={"Host": host, "Origin": f"http://{host}"},  # DNS rebinding: both agree
    )
    assert forged.status_code == 400
    assert session.labels() == {}
    assert (await client.get("/", headers={"Host": host})).status_code == 400
    assert (await client.get("/", headers={"Host": "localhost:8765"})).status_code == 200
