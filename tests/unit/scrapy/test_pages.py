"""The readers of a crawl's output and the responses they become: pages.jsonl, WARC files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import scrapy
from scrapy.http import HtmlResponse, TextResponse, XmlResponse
from scrapy.settings import Settings
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from deepcrawl.errors import ConfigError
from deepcrawl.scrapy import (
    META_KEY,
    DeepcrawlSpider,
    DeliveredPage,
    DeliveredPageMiddleware,
    jsonl_pages,
    response_for,
    warc_pages,
)

RECORD = {
    "url": "http://books.test/book/7",
    "final_url": "http://books.test/book/7/",
    "status": 200,
    "label": "book",
    "query": "river",
    "content_type": "text/html",
    "headers": {"content-type": "text/html; charset=windows-1252", "content-encoding": "gzip"},
    "title": "Café",
    "body": "<html><head><title>Café</title></head><body><h1>Café</h1></body></html>",
}


def write_jsonl(path: Path, *lines: object) -> Path:
    path.write_text("".join(f"{json.dumps(x) if not isinstance(x, str) else x}\n" for x in lines))
    return path


def test_a_jsonl_page_keeps_its_urls_status_headers_and_record(tmp_path: Path) -> None:
    [page] = jsonl_pages(write_jsonl(tmp_path / "pages.jsonl", RECORD))
    assert (page.url, page.final_url, page.status) == (RECORD["url"], RECORD["final_url"], 200)
    assert page.body == RECORD["body"].encode("utf-8")  # type: ignore[union-attr]
    assert page.encoding == "utf-8"
    # the decoded body must not be decoded again: the wire's encodings are left out
    assert dict(page.headers) == {"content-type": "text/html; charset=windows-1252"}
    assert page.meta["label"] == "book"
    assert page.meta["query"] == "river"
    assert "body" not in page.meta


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: not a JSON object"),
        ({"status": 200, "body": "x"}, "line 2: no 'url'"),
        ({"url": "http://x.test/", "body": None}, "line 2: no 'body' and no 'body_path'"),
    ],
)
def test_a_bad_jsonl_line_is_an_error_naming_the_file_and_line(
    tmp_path: Path, line: object, words: str
) -> None:
    path = write_jsonl(tmp_path / "pages.jsonl", RECORD, line)
    with pytest.raises(ConfigError, match=words) as caught:
        list(jsonl_pages(path))
    assert str(path) in str(caught.value)


def test_a_large_body_is_read_from_its_body_path(tmp_path: Path) -> None:
    body = tmp_path / "body.html"
    body.write_bytes(b"<html><body>big</body></html>")
    record = {**RECORD, "body": None, "body_path": str(body)}
    [page] = jsonl_pages(write_jsonl(tmp_path / "pages.jsonl", record))
    assert page.body == body.read_bytes()


def test_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read .*nowhere\.jsonl"):
        list(jsonl_pages(tmp_path / "nowhere.jsonl"))
    with pytest.raises(ConfigError, match="cannot read"):
        list(warc_pages(tmp_path / "nowhere.warc"))
    (tmp_path / "text.warc").write_text("plain text, no WARC\n")
    with pytest.raises(ConfigError, match="not a WARC file"):
        list(warc_pages(tmp_path / "text.warc"))


def _warc(path: Path) -> Path:
    """A redirect, its page in windows-1252 with its rendered DOM, then a page in UTF-8."""
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=True)

        def response(uri: str, status: str, headers: list[tuple[str, str]], body: bytes) -> str:
            record = writer.create_warc_record(
                uri, "response", payload=io.BytesIO(body), length=len(body),
                http_headers=StatusAndHeaders(status, headers, protocol="HTTP/1.1"),
            )  # fmt: skip
            writer.write_record(record)
            return str(record.rec_headers.get_header("WARC-Record-ID"))

        response("http://b.test/old", "301 Moved", [("Location", "http://b.test/new")], b"")
        first = response(
            "http://b.test/new", "200 OK",
            [("Content-Type", "text/html; charset=windows-1252"),
             ("X-Archive-Orig-Content-Encoding", "gzip")],
            "<html><body><p>café</p></body></html>".encode("cp1252"),
        )  # fmt: skip
        dom = "<html><body><p>café</p><p>added by a script</p></body></html>".encode()
        writer.write_record(
            writer.create_warc_record(
                "http://b.test/new", "conversion", payload=io.BytesIO(dom), length=len(dom),
                warc_content_type="text/html; charset=utf-8",
                warc_headers_dict={"WARC-Refers-To": first},
            )
        )  # fmt: skip
        response("http://b.test/feed", "200 OK", [("Content-Type", "application/xml")], b"<a/>")
    return path


def test_a_warc_gives_each_final_page_once_under_the_url_asked_for(tmp_path: Path) -> None:
    pages = list(warc_pages(_warc(tmp_path / "c.warc.gz")))
    assert [(p.url, p.final_url, p.status) for p in pages] == [
        ("http://b.test/old", "http://b.test/new", 200),
        ("http://b.test/feed", "http://b.test/feed", 200),
    ]
    rendered = pages[0]
    assert b"added by a script" in rendered.body
    assert rendered.encoding == "utf-8"
    assert rendered.meta["via"] == "browser"


def test_a_warc_read_for_the_servers_bytes_keeps_their_charset(tmp_path: Path) -> None:
    page = next(warc_pages(_warc(tmp_path / "c.warc.gz"), rendered=False))
    assert b"added by a script" not in page.body
    response = response_for(page, scrapy.Request(page.url))
    assert isinstance(response, HtmlResponse)
    assert response.encoding == "cp1252"
    assert response.css("p::text").get() == "café"


def test_the_response_class_follows_the_content_type() -> None:
    def kind(content_type: str, body: bytes) -> type:
        page = DeliveredPage("http://b.test/x", "http://b.test/x", 200,
                             (("content-type", content_type),), body, encoding="utf-8")  # fmt: skip
        return type(response_for(page, scrapy.Request(page.url)))

    assert kind("text/html", b"<html></html>") is HtmlResponse
    assert kind("application/xml", b"<a/>") is XmlResponse
    assert kind("text/plain", b"words") is TextResponse


def test_the_middleware_answers_the_spiders_requests_only(tmp_path: Path) -> None:
    [page] = jsonl_pages(write_jsonl(tmp_path / "pages.jsonl", RECORD))
    middleware = DeliveredPageMiddleware()
    assert middleware.process_request(scrapy.Request("http://books.test/other")) is None

    spider = DeepcrawlSpider(name="t")
    request = spider.request_for(page)
    response = middleware.process_request(request)
    assert isinstance(response, HtmlResponse)
    assert (response.url, response.status) == (RECORD["final_url"], 200)
    assert response.request is request
    assert "deepcrawl" in response.flags
    assert response.css("h1::text").get() == "Café"
    assert response.meta[META_KEY]["label"] == "book"


def test_a_label_picks_its_own_callback() -> None:
    class Spider(DeepcrawlSpider):
        name = "labels"

        def parse_book(self, response: object) -> None: ...

    spider = Spider()
    book = DeliveredPage("http://b.test/1", "http://b.test/1", 200, (), b"", meta={"label": "book"})
    other = DeliveredPage("http://b.test/2", "http://b.test/2", 200, (), b"", meta={"label": "x"})
    assert spider.callback_for(book) == spider.parse_book
    assert spider.callback_for(other) == spider.parse


async def test_the_spider_adds_its_middleware_and_wants_one_source() -> None:
    settings = Settings({"DOWNLOADER_MIDDLEWARES": {"project.Middleware": 543}})
    DeepcrawlSpider.update_settings(settings)
    assert settings.getdict("DOWNLOADER_MIDDLEWARES") == {
        "project.Middleware": 543,
        "deepcrawl.scrapy.DeliveredPageMiddleware": 50,
    }
    spider = DeepcrawlSpider(name="t", pages="a.jsonl", warc="b.warc")
    with pytest.raises(ConfigError, match="exactly one of pages, warc and crawl_url"):
        await anext(spider.delivered_pages())
