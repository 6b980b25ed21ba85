"""Replaying a page-wide form's search and its postback pager over plain HTTP, on saved pages of
the bed's webforms; a fake fetcher answers by the submission's trigger."""

from __future__ import annotations

from pathlib import Path

from deepcrawl.browser.base import Fetcher
from deepcrawl.browser.http import extract_links
from deepcrawl.page.fetched import FetchedPage
from deepcrawl.page.html import parse_html
from deepcrawl.page.static_forms import parse_forms
from deepcrawl.page.submission import Submission
from deepcrawl.search.judge import classify_links
from deepcrawl.search.pagination import next_page
from deepcrawl.search.replay import FormReplay
from deepcrawl.search.results import ChromeFilter, QueryResult, ResultLink, page_from_fetched

DATA = Path(__file__).parents[2] / "data" / "real" / "webforms"
URL = "http://127.0.0.1:8000/Default.aspx"


def _page(name: str, status: int = 200) -> FetchedPage:
    body = (DATA / name).read_text(encoding="utf-8")
    root = parse_html(body)
    assert root is not None
    return FetchedPage(URL, URL, status, "text/html", body, extract_links(root, URL))


class SavedSite(Fetcher):
    """The form's page on GET; a search, its page 2, or the framework's 500 on POST."""

    def __init__(self) -> None:
        self.got: list[str] = []
        self.posted: list[Submission] = []

    async def fetch(self, url: str) -> FetchedPage:
        self.got.append(url)
        return _page("home.html")

    async def submit(self, submission: Submission) -> FetchedPage:
        self.posted.append(submission)
        trigger = dict(submission.trigger)
        if trigger.get("ctl00$Main$SearchButton") == "Search":
            return _page("search-lighthouse.html")
        if trigger.get("__EVENTARGUMENT") == "Page$2":
            return _page("search-lighthouse-page2.html")
        return _page("home.html", status=500)


def _replay(site: SavedSite) -> FormReplay:
    search = parse_forms(_page("home.html").body, URL)[1]
    return FormReplay(search, site, "ctl00$Main$Query", max_pages=2)


async def test_a_search_and_its_next_page_are_replayed_with_each_pages_state() -> None:
    site = SavedSite()
    result = await _replay(site).query("lighthouse")
    assert result.outcome == "ok"
    assert (result.pages, result.via, result.method) == (2, "http", "POST")
    assert len([url for url in result.result_urls if "Record.aspx" in url]) == 30
    assert site.got == [URL]  # the form's page once, for its state
    search, page2 = site.posted
    assert dict(search.fields)["ctl00$Main$Query"] == "lighthouse"
    assert "ctl00$LogInButton" not in dict(search.fields)
    assert dict(page2.fields)["__EVENTARGUMENT"] == "Page$2"
    # the page-2 postback carries the state of the page it was on, not of the form's page
    first = dict(search.fields)["__VIEWSTATE"]
    assert dict(page2.fields)["__VIEWSTATE"] != first


async def test_the_next_query_starts_from_the_latest_pages_state() -> None:
    site = SavedSite()
    replay = _replay(site)
    await replay.query("lighthouse", max_pages=1)
    await replay.query("lighthouse", max_pages=1)
    assert site.got == [URL]
    assert len(site.posted) == 2


async def test_the_check_compares_the_first_page_with_the_browsers() -> None:
    site = SavedSite()
    replay = _replay(site)
    page = page_from_fetched(_page("search-lighthouse.html"))
    browser = QueryResult(keyword="lighthouse", links=classify_links([page], ChromeFilter()))
    check = await replay.check(browser)
    assert check.passed
    result = await replay.query("lighthouse", max_pages=1)
    assert result.outcome == "ok"
    assert len(site.posted) == 1  # the check's page served the query
    other = QueryResult(keyword="lighthouse", links=[ResultLink(url=URL + "?other")])
    assert not (await replay.check(other)).passed


async def test_the_form_page_the_crawl_holds_is_not_fetched_again() -> None:
    site = SavedSite()
    search = parse_forms(_page("home.html").body, URL)[1]
    replay = FormReplay(search, site, "ctl00$Main$Query", page=_page("home.html"))
    page = page_from_fetched(_page("search-lighthouse.html"))
    browser = QueryResult(keyword="lighthouse", links=classify_links([page], ChromeFilter()))
    assert (await replay.check(browser)).passed
    assert site.got == []  # the held page's state served the check's submission
    assert len(site.posted) == 1


async def test_a_held_page_that_is_not_the_forms_page_is_not_taken() -> None:
    site = SavedSite()
    search = parse_forms(_page("home.html").body, URL)[1]
    elsewhere = FetchedPage(URL + "?x", URL + "?x", 200, "text/html", _page("home.html").body)
    replay = FormReplay(search, site, "ctl00$Main$Query", max_pages=1, page=elsewhere)
    await replay.query("lighthouse")
    assert site.got == [URL]


async def test_a_check_with_no_result_from_the_held_state_asks_for_the_page_afresh() -> None:
    site = SavedSite()
    search = parse_forms(_page("home.html").body, URL)[1]
    replay = FormReplay(search, site, "ctl00$Main$Query", page=_page("home.html"))
    browser = QueryResult(keyword="lighthouse", links=[ResultLink(url=URL + "?other")])
    assert not (await replay.check(browser)).passed
    assert site.got == []  # a list that differs is the path's, not the held state's
    stale = FormReplay(search, Stale(), "ctl00$Main$Query", page=_page("home.html"))
    page = page_from_fetched(_page("search-lighthouse.html"))
    wanted = QueryResult(keyword="lighthouse", links=classify_links([page], ChromeFilter()))
    assert (await stale.check(wanted)).passed
    assert isinstance(stale.fetcher, Stale)
    assert stale.fetcher.got == [URL]


class Stale(SavedSite):
    """A site whose first answer to a search is an empty page (a state it no longer knows)."""

    async def submit(self, submission: Submission) -> FetchedPage:
        if not self.posted:
            self.posted.append(submission)
            return FetchedPage(URL, URL, 200, "text/html", "<html><body>expired</body></html>")
        return await super().submit(submission)


def test_the_postback_pager_is_the_next_page_and_the_last_page_has_none() -> None:
    form = parse_forms(_page("home.html").body, URL)[1]
    first = page_from_fetched(_page("search-lighthouse.html"), form=form)
    turn = next_page(first, 1, ())
    assert turn is not None
    assert (turn.kind, turn.text, turn.how) == ("submit", "2", "form")
    assert next_page(first, 5, ()) is None  # no "6" on the pager


async def test_a_list_the_page_cap_stopped_is_read_on_from_its_last_pages_state() -> None:
    site = SavedSite()
    replay = _replay(site)
    first = await replay.query("lighthouse", max_pages=1)
    assert first.error is not None
    assert first.error.startswith("stopped at the page cap")
    again = await replay.query("lighthouse", max_pages=1)
    assert (again.outcome, again.first_page, again.pages) == ("ok", 2, 1)
    assert dict(site.posted[-1].trigger)["__EVENTARGUMENT"] == "Page$2"
    assert len(site.posted) == 2  # no search again: page 2 turned from page 1's state


def test_an_ellipsis_after_the_last_number_shown_is_the_next_ten() -> None:
    from deepcrawl.page.form_turns import FormTurn
    from deepcrawl.search.results import ResultPage

    def turns(*texts: str) -> list[FormTurn]:
        return [FormTurn(t, f"#t{i}", (("arg", t),)) for i, t in enumerate(texts)]

    tenth = ResultPage(url=URL, turns=turns(*map(str, range(1, 10)), "...", "Last"))
    turn = next_page(tenth, 10, ())
    assert turn is not None
    assert turn.text == "..."
    eleventh = ResultPage(url=URL, turns=turns("First", "...", "12", "13"))
    turn = next_page(eleventh, 11, ())
    assert turn is not None
    assert turn.text == "12"  # the ellipsis before the numbers goes back
    last = ResultPage(url=URL, turns=turns("First", "...", "11", "12"))
    assert next_page(last, 13, ()) is None


class SizedSite(Fetcher):
    """A POST search form with a "results per page" select; records every submission."""

    PAGE = """<html><body><form method="post" action="/search">
    <input name="q"><select name="per_page"><option>10</option><option>25</option>
    <option>50</option></select><input type="submit" value="Search"></form></body></html>"""

    def __init__(self) -> None:
        self.posted: list[Submission] = []

    def _page(self) -> FetchedPage:
        return FetchedPage(URL, URL, 200, "text/html", self.PAGE, [])

    async def fetch(self, url: str) -> FetchedPage:
        return self._page()

    async def submit(self, submission: Submission) -> FetchedPage:
        self.posted.append(submission)
        return self._page()


async def test_the_search_asks_for_the_largest_page_as_the_browsers_filler_does() -> None:
    for largest, size in ((True, "50"), (False, "10")):
        site = SizedSite()
        form = parse_forms(SizedSite.PAGE, URL)[0]
        replay = FormReplay(form, site, "q", max_pages=1, largest_page_size=largest)
        await replay.query("tea")
        assert dict(site.posted[0].fields)["per_page"] == size
        assert dict(site.posted[0].fields)["q"] == "tea"


class EchoingSite(Fetcher):
    """A POST search whose answer shows the form again with the category it was sent selected."""

    FORM = """<html><body><form method="post" action="/search"><input name="q">
    <select name="category"><option value="">All</option><option value="maps"{maps}>maps</option>
    <option value="notes"{notes}>notes</option></select>
    <select name="year"><option value="">Any</option><option value="2024"{y2024}>2024</option>
    </select><input type="submit" value="Search"></form></body></html>"""

    def __init__(self) -> None:
        self.posted: list[dict[str, str]] = []

    def _page(self, sent: dict[str, str]) -> FetchedPage:
        marks = {"maps": "", "notes": "", "y2024": ""}
        if sent.get("category") in ("maps", "notes"):
            marks[sent["category"]] = " selected"
        if sent.get("year") == "2024":
            marks["y2024"] = " selected"
        return FetchedPage(URL, URL, 200, "text/html", self.FORM.format(**marks), [])

    async def fetch(self, url: str) -> FetchedPage:
        return self._page({})

    async def submit(self, submission: Submission) -> FetchedPage:
        sent = dict(submission.fields)
        self.posted.append(sent)
        return self._page(sent)


async def test_a_select_the_answer_left_chosen_takes_the_forms_own_choice_again() -> None:
    # the answer to category=notes shows notes selected; the next query, by year, must not
    # send notes with it: the form's own choice ("All") goes instead
    site = EchoingSite()
    form = parse_forms(EchoingSite.FORM.format(maps="", notes="", y2024=""), URL)[0]
    replay = FormReplay(form, site, "q", max_pages=1)
    await replay.query("", {"category": "notes"})
    await replay.query("", {"year": "2024"})
    assert [(sent["category"], sent["year"]) for sent in site.posted] == [
        ("notes", ""),
        ("", "2024"),
    ]
