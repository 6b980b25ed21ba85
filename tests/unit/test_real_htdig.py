"""ht://Dig's generated site, record_of, a saved result page, and the CGI host that serves it."""

from __future__ import annotations

import functools
import re
import threading
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from deepcrawl_fixtures.real.apps.htdig import HtDig, write_site
from deepcrawl_fixtures.real.base import RealTruth
from deepcrawl_fixtures.real.cgi_host import CgiHandler
from deepcrawl_fixtures.real.proxy import TunedHTTPServer

if TYPE_CHECKING:
    from collections.abc import Iterator

DATA = Path(__file__).parents[1] / "data" / "real" / "htdig"
STOCK = (DATA / "stock-search.html").read_text(encoding="latin-1")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("htdig-site")
    return root, write_site(root, STOCK)


@pytest.fixture
def app(site: tuple[Path, list[str]]) -> HtDig:
    _, paths = site
    app = HtDig()
    notes = frozenset(p for p in paths if p.startswith("/notes/"))
    app.__dict__["_truth"] = RealTruth(records=notes)  # what htstat -u lists, .txt twins apart
    return app


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.forms: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and (href := dict(attrs).get("href")):
            self.hrefs.append(href)
        if tag == "form":
            self.forms.append(dict(attrs))


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_the_home_page_carries_the_stock_post_search_form(site: tuple[Path, list[str]]) -> None:
    root, _ = site
    home = _parse(root / "index.html")
    assert home.forms == [{"method": "post", "action": "/cgi-bin/htsearch"}]
    assert (root / "search.html").read_text(encoding="latin-1") == STOCK


def test_a_quarter_of_the_notes_are_reachable_only_through_the_search(
    site: tuple[Path, list[str]],
) -> None:
    root, paths = site
    notes = {p for p in paths if p.startswith("/notes/")}
    assert len(notes) == 240
    linked: set[str] = set()
    for page in [
        root / "index.html",
        *(root / "topics").glob("*.html"),
        *(root / "notes").glob("*.html"),
    ]:
        linked.update(h for h in _parse(page).hrefs if h.startswith("/notes/"))
    assert len(notes - linked) in range(50, 61)  # see-also links reach a few hidden ones
    assert HtDig.like_path in notes


def test_every_note_has_a_plain_text_twin_that_is_no_record(app: HtDig) -> None:
    for record in app.truth().records:
        assert app.record_of(record) == record
        assert app.record_of(record + "?ref=x") == record
        assert app.record_of(record.removesuffix(".html") + ".txt") is None
    for other in ["/", "/search.html", "/topics/railways.html", "/htdig/star.gif",
                  "/cgi-bin/htsearch?words=prague;page=2"]:  # fmt: skip
        assert app.record_of(other) is None


def test_a_result_page_links_records_and_its_next_pages(app: HtDig) -> None:
    page = (DATA / "results-prague.html").read_text(encoding="utf-8")
    total = int(re.search(r"Documents 1 - 10 of (\d+) matches", page)[1])  # type: ignore[index]
    results = re.findall(r'<dt><strong><a href="([^"]+)"', page)
    assert total > 10
    assert len(results) == 10
    assert all(app.record_of(r) or r.endswith(".txt") for r in results)
    assert re.search(r'href="/cgi-bin/htsearch\?[^"]*words=prague;page=2"', page)


@pytest.fixture
def cgi_server(tmp_path: Path) -> Iterator[str]:
    program = tmp_path / "echo.cgi"
    program.write_text(
        "#!/bin/sh\n"
        'if [ "$QUERY_STRING" = "gone" ]; then printf "Status: 404 Not Found\\n"; fi\n'
        'printf "Content-type: text/plain\\n\\n"\n'
        'printf "%s %s %s %s|" "$REQUEST_METHOD" "$QUERY_STRING" "$CONFIG_DIR" "$HTTP_HOST"\n'
        "cat\n"
    )
    program.chmod(0o755)
    (tmp_path / "page.html").write_text("<p>static</p>")
    handler = functools.partial(
        CgiHandler,
        directory=str(tmp_path),
        script_path="/cgi-bin/echo",
        program=str(program),
        extra_env={"CONFIG_DIR": "/conf"},
    )
    server = TunedHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_cgi_host_runs_the_program_for_get_and_post(cgi_server: str) -> None:
    with httpx.Client(base_url=cgi_server) as client:
        got = client.get("/cgi-bin/echo?a=1;b=2")
        posted = client.post("/cgi-bin/echo", content=b"words=x&page=2")
        missing = client.get("/cgi-bin/echo?gone")
        static = client.get("/page.html")
    assert got.text == f"GET a=1;b=2 /conf {cgi_server.removeprefix('http://')}|"
    assert posted.text.startswith("POST  /conf")
    assert posted.text.endswith("|words=x&page=2")
    assert missing.status_code == 404
    assert static.text == "<p>static</p>"
    assert got.http_version == "HTTP/1.1"
