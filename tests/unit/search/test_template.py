"""URL templates of GET forms, and template queries over a fake fetcher."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from deepcrawl.browser.base import Fetcher
from deepcrawl.errors import FetchTimeoutError
from deepcrawl.page.fetched import FetchedPage, Link
from deepcrawl.page.form import Form
from deepcrawl.search.judge import Judge
from deepcrawl.search.results import QueryResult, ResultLink, ResultPage
from deepcrawl.search.template import TemplateSearch, UrlTemplate, compared

BASE = "http://books.test"
FORM = Form(page_url=f"{BASE}/", action=f"{BASE}/search", method="GET", locator="form#s")


def test_template_from_a_submission_keeps_other_parameters() -> None:
    template = UrlTemplate.from_submission(FORM, "Sea Salt", f"{BASE}/search?q=sea+salt&cat=")
    assert template is not None
    assert template.keyword_param == "q"
    assert template.url_for("tea") == f"{BASE}/search?q=tea&cat="
    assert template.url_for("tea", {"cat": "art"}) == f"{BASE}/search?q=tea&cat=art"
    assert template.url_for("a b", {"lang": "en"}) == f"{BASE}/search?q=a+b&cat=&lang=en"


def test_no_template_for_post_forms_or_urls_without_the_keyword() -> None:
    post = FORM.model_copy(update={"method": "POST"})
    assert UrlTemplate.from_submission(post, "tea", f"{BASE}/search?q=tea") is None
    assert UrlTemplate.from_submission(FORM, "tea", f"{BASE}/results/1234") is None
    both = UrlTemplate.from_submission(FORM, "tea", f"{BASE}/s?x=tea&q=tea", query_field="q")
    assert both is not None
    assert both.keyword_param == "q"


def test_the_empty_querys_template_slots_the_query_field_where_the_form_has_it() -> None:
    """A form's script dropped the empty search box from the URL (``?sort=id``): the template
    leaves it out of the empty query's URL as the site did, and puts a word in it in the
    form's order."""
    from deepcrawl.page.form import FormField

    fields = (
        FormField(tag="input", type="search", name="q"),
        FormField(tag="select", type="select-one", name="sort"),
    )
    form = FORM.model_copy(update={"fields": fields})
    template = UrlTemplate.from_empty(form, f"{BASE}/search?sort=id", "q")
    assert template is not None
    assert template.url_for("") == f"{BASE}/search?sort=id"  # as the site's own URL
    assert template.url_for("tea") == f"{BASE}/search?q=tea&sort=id"
    sent = UrlTemplate.from_empty(form, f"{BASE}/search?q=&sort=id", "q")
    assert sent is not None
    assert sent.url_for("") == f"{BASE}/search?q=&sort=id"
    assert UrlTemplate.from_empty(form, f"{BASE}/search?q=tea", "q") is None  # not empty
    assert UrlTemplate.from_empty(form, f"{BASE}/elsewhere?sort=id", "q") is None
    assert UrlTemplate.from_empty(form, f"{BASE}/search?sort=id", None) is None
    post = form.model_copy(update={"method": "POST"})
    assert UrlTemplate.from_empty(post, f"{BASE}/search?sort=id", "q") is None


def test_a_post_forms_template_comes_from_its_result_pages_pager_links() -> None:
    post = FORM.model_copy(update={"method": "POST", "action": f"{BASE}/cgi-bin/search"})
    links = [
        f"{BASE}/notes/tea.html",  # a result: another path
        f"{BASE}/cgi-bin/search?config=x;words=other;page=2",  # not this keyword's
        f"{BASE}/cgi-bin/search?config=x;restrict=;words=Tea;method=and;page=2",
    ]
    template = UrlTemplate.from_result_page(post, "tea", links, query_field="words")
    assert template is not None
    assert template.keyword_param == "words"
    assert (
        template.url_for("salt")
        == f"{BASE}/cgi-bin/search?config=x&restrict=&words=salt&method=and"
    )
    assert UrlTemplate.from_result_page(post, "tea", links[:2]) is None
    assert UrlTemplate.from_result_page(post, "tea", [f"{BASE}/elsewhere?words=tea"]) is None


class FakeSite(Fetcher):
    """A search of 25 records (10 a page, "Next" links), "No results" for unknown words."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.fetched: list[str] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.fetched.append(url)
        if self.fail:
            raise FetchTimeoutError(url, "no answer")
        query = parse_qs(urlsplit(url).query)
        word = query.get("q", [""])[0]
        number = int(query.get("page", ["1"])[0])
        home = Link(f"{BASE}/", "Home", dom_path="html/body/header/a")
        if word != "tea":
            body = "<html><body><p>No results for this word.</p></body></html>"
            return FetchedPage(url, url, 200, "text/html", body, links=[home])
        ids = range((number - 1) * 10 + 1, min(25, number * 10) + 1)
        links = [home] + [
            Link(f"{BASE}/book/{i}", f"Book {i}", dom_path=f"html/body/ol/li[{i}]/a") for i in ids
        ]
        if number < 3:
            links.append(Link(f"{BASE}/search?q=tea&page={number + 1}", "Next", rel="next"))
        body = "<html><body><p>25 results for tea</p></body></html>"
        return FetchedPage(url, url, 200, "text/html", body, links=links)


def _checked_search(site: FakeSite, menu_path: str = "html/body/header/a") -> TemplateSearch:
    """A template search of "tea" whose judge learnt the site's menu as the browser saw it."""
    template = UrlTemplate.from_submission(FORM, "tea", f"{BASE}/search?q=tea")
    assert template is not None
    judge = Judge()
    judge.chrome.learn_baseline([Link(f"{BASE}/", "Home", dom_path=menu_path)])
    return TemplateSearch(template, site, judge=judge)


async def test_template_search_reads_every_page_and_judges_like_the_browser() -> None:
    template = UrlTemplate.from_submission(FORM, "tea", f"{BASE}/search?q=tea")
    assert template is not None
    site = FakeSite()
    search = TemplateSearch(template, site, max_pages=10, form=FORM, nonsense_keyword="xq")
    result = await search.query("tea")
    assert result.via == "http"
    assert result.outcome == "ok"
    assert result.pages == 3
    assert result.result_urls == [f"{BASE}/book/{i}" for i in range(1, 26)]
    assert result.total_results == 25
    assert search.judge.baseline is not None
    assert search.judge.baseline.empty
    assert len(site.fetched) == 1 + 3  # the nonsense keyword's page, then the three pages
    assert [link.role for link in result.links if link.text == "Home"] == ["chrome"]
    assert (await search.query("salt")).outcome == "no_results"


async def test_template_check_compares_first_page_result_links() -> None:
    search = _checked_search(FakeSite())
    same = QueryResult(
        keyword="tea",
        links=[ResultLink(url=f"{BASE}/book/{i}", page=1) for i in range(1, 11)],
    )
    assert (await search.check(same)).passed
    scripted = QueryResult(keyword="tea", links=[ResultLink(url=f"{BASE}/story/1", page=1)])
    check = await search.check(scripted)
    assert not check.passed
    assert check.http
    assert check.browser == {f"{BASE}/story/1"}


async def test_template_failures_are_error_outcomes() -> None:
    template = UrlTemplate.from_submission(FORM, "tea", f"{BASE}/search?q=tea")
    assert template is not None
    result = await TemplateSearch(template, FakeSite(fail=True)).query("tea")
    assert result.outcome == "error"
    assert "no answer" in (result.error or "")


async def test_a_link_the_browser_called_chrome_at_another_dom_path_is_chrome_over_http() -> None:
    """Two HTML parsers repair invalid markup differently (Roundup's ``<td>`` straight inside
    ``<main>``: kept by lxml, dropped by Chromium), so a menu link sits at another DOM path over
    plain HTTP. The browser's roles decide: the check passes and later pages judge it chrome."""
    search = _checked_search(FakeSite(), "html/body/main/a")  # the browser's own path
    browser = QueryResult(
        keyword="tea",
        links=[
            ResultLink(url=f"{BASE}/", text="Home", dom_path="html/body/main/a", role="chrome"),
            *(ResultLink(url=f"{BASE}/book/{i}", page=1) for i in range(1, 11)),
        ],
    )
    check = await search.check(browser)
    assert check.passed
    result = await search.query("tea")
    assert [link.role for link in result.links if link.text == "Home"] == ["chrome"]
    # a link plain HTTP alone shows, which the browser never called chrome, fails the check
    other = Judge()
    bare = browser.model_copy(update={"links": browser.links[1:]})
    assert not (await TemplateSearch(search.template, FakeSite(), judge=other).check(bare)).passed


async def test_a_larger_page_passes_the_check_when_it_lists_every_result_of_the_browsers() -> None:
    template = UrlTemplate.from_submission(FORM, "tea", f"{BASE}/search?q=tea")
    assert template is not None
    search = TemplateSearch(template, FakeSite())
    smaller = QueryResult(
        keyword="tea", links=[ResultLink(url=f"{BASE}/book/{i}", page=1) for i in range(1, 6)]
    )
    assert not (await search.check(smaller)).passed  # not the same links
    assert (await search.check(smaller, superset=True)).passed  # but all of them, and more


async def test_the_check_compares_links_by_normal_form_without_session_ids() -> None:
    """The browser and plain HTTP are two clients: a server that writes its session into its
    links gives each its own id, and the same records pass the check."""
    search = _checked_search(FakeSite())
    theirs = [ResultLink(url=f"{BASE}/book/{i}?sid=ad879157a9c30d57", page=1) for i in range(1, 11)]
    assert (await search.check(QueryResult(keyword="tea", links=theirs))).passed
    other = [ResultLink(url=f"{BASE}/book/{i}?sid=17", page=1) for i in range(1, 11)]
    assert not (await search.check(QueryResult(keyword="tea", links=other))).passed  # an id
    assert compared([f"{BASE}/b?y=2&x=1&PHPSESSID=0123456789abcdef"]) == {f"{BASE}/b?x=1&y=2"}


async def test_the_query_after_a_check_starts_from_the_page_the_check_fetched() -> None:
    site = FakeSite()
    search = _checked_search(site)
    browser = QueryResult(
        keyword="tea", links=[ResultLink(url=f"{BASE}/book/{i}", page=1) for i in range(1, 11)]
    )
    assert (await search.check(browser)).passed
    result = await search.query("tea")
    assert result.pages == 3
    assert site.fetched == [  # pages 2 and 3 fetched: the first came with the check
        f"{BASE}/search?q=tea",
        *(f"{BASE}/search?q=tea&page={n}" for n in (2, 3)),
    ]
    await search.query("tea")  # asked again: the check's page is not used twice
    assert len(site.fetched) == 6


async def test_a_resumed_list_starts_on_its_later_page_numbered_on_from_it() -> None:
    """A list read before up to its first page goes on from the page-2 link it showed: one
    request a page past it, the paging control asked with the pages' numbers in the list."""
    site = FakeSite()
    search = _checked_search(site)
    numbers: list[int] = []

    def more(_page: ResultPage, number: int) -> bool:
        numbers.append(number)
        return True

    result = await search.query("tea", more=more, resume=(f"{BASE}/search?q=tea&page=2", 2))
    assert site.fetched == [f"{BASE}/search?q=tea&page={n}" for n in (2, 3)]
    assert numbers == [2, 3]
    assert result.first_page == 2
    assert result.pages == 2
    assert result.result_urls == [f"{BASE}/book/{i}" for i in range(11, 26)]
    # a page of another keyword's list is no place to resume this one's
    await search.query("tea", resume=(f"{BASE}/search?q=salt&page=2", 2))
    assert site.fetched[2] == f"{BASE}/search?q=tea"


class ButtonPagedSite(Fetcher):
    """A GET search whose result pages turn by the result form's own "Next" button."""

    def __init__(self) -> None:
        self.fetched: list[str] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.fetched.append(url)
        query = parse_qs(urlsplit(url).query)
        page = int(query.get("at", ["1"])[0]) + (1 if "next" in query else 0)
        items = "".join(f"<li><a href='/book/{page}-{i}'>Book {i}</a></li>" for i in range(3))
        more = "<input type='submit' name='next' value='Next'>" if page < 3 else ""
        body = (
            "<html><body><form id='s' action='/search' method='get'>"
            f"<input name='q' value='tea'><input type='hidden' name='at' value='{page}'>"
            f"<input type='submit' name='go' value='Search'>{more}</form>"
            f"<ol>{items}</ol></body></html>"
        )
        links = [Link(f"{BASE}/book/{page}-{i}", f"Book {i}") for i in range(3)]
        return FetchedPage(url, url, 200, "text/html", body, links)


async def test_a_get_forms_own_next_button_turns_its_pages_by_url() -> None:
    from deepcrawl.page.form import FormField, SubmitControl

    form = Form(
        page_url=f"{BASE}/",
        action=f"{BASE}/search",
        method="GET",
        id="s",
        locator="form#s",
        fields=(FormField(tag="input", type="text", name="q"),),
        submits=(SubmitControl(kind="input", name="go", value="Search"),),
    )
    site = ButtonPagedSite()
    template = UrlTemplate(f"{BASE}/search", (("q", ""),), "q")
    search = TemplateSearch(template, site, form=form)
    result = await search.query("tea")
    assert result.pages == 3
    assert len(result.result_urls) == 9
    assert site.fetched[1] == f"{BASE}/search?q=tea&at=1&next=Next"
