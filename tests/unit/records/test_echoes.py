"""Parameters that echo the query, learnt across queries (issue 26, item 4), on a saved result
page of a real wiki whose result links carry the submitted word (``&s[]=word``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from lxml import html

from deepcrawl.records.echoes import QueryEchoes
from deepcrawl.records.session_params import LearntSessions, url_params

DATA = Path(__file__).parents[2] / "data" / "real" / "dokuwiki"
SITE = "http://127.0.0.1:45777"


def _results(word: str) -> list[SimpleNamespace]:
    """The saved result page as another word would list it: every link of the page, those of
    the result list as result entries, each carrying ``word`` where the page carried its own."""
    page = (DATA / "search-harbour.html").read_text().replace("harbour", word)
    root = html.fromstring(page)
    entries = {id(a) for a in root.xpath("//dl[contains(@class, 'search_results')]//a")}
    return [
        SimpleNamespace(
            url=SITE + a.get("href"), page=1, role="result" if id(a) in entries else "chrome"
        )
        for a in root.iter("a")
        if a.get("href", "").startswith("/")
    ]


def test_the_highlight_parameter_is_learnt_once_records_come_back_under_other_words() -> None:
    stored: list[tuple[set[str], bool]] = []
    heard: list[set[str]] = []
    sessions = LearntSessions(store=lambda names, anyway=False: stored.append((names, anyway)))
    sessions.listeners.append(heard.append)
    assert sessions.observe_result(_results("harbour"), "harbour") == set()
    assert sessions.observe_result(_results("quay"), "quay") == {"s[]"}
    assert stored == [({"s[]"}, True)]
    assert heard == [{"s[]"}]
    link = f"{SITE}/doku.php?id=places:yes_household&s%5B%5D=anything"
    assert sessions.drop(link) == f"{SITE}/doku.php?id=places:yes_household"
    # the search's own parameters (the query, the namespace filter) and the ids are no echo
    assert {"q", "id", "do", "sf"} <= sessions.echoes.refuted


def test_chrome_links_and_one_query_teach_nothing() -> None:
    sessions = LearntSessions()
    chrome = [SimpleNamespace(url=r.url, page=1, role="chrome") for r in _results("harbour")]
    assert sessions.observe_result(chrome, "harbour") == set()
    assert sessions.observe_result(_results("harbour"), "harbour") == set()
    assert sessions.observe_result(_results("harbour"), "harbour") == set()  # the same word
    assert sessions.names == frozenset()


def test_a_value_that_is_not_the_query_refutes_the_name() -> None:
    echoes = QueryEchoes(url_params, min_links=1)
    # ``view=`` echoes "print" once by chance; its other values are no query's words
    assert (
        echoes.observe("print", [f"{SITE}/a?id=1&view=print", f"{SITE}/b?id=2&view=full"]) == set()
    )
    assert echoes.observe("full", [f"{SITE}/a?id=1&view=full"]) == set()
    assert "view" in echoes.refuted
    # the words of a longer query are echoed, on the links to two records, one of them
    # listed again by another query: learnt
    assert echoes.observe("old town", [f"{SITE}/c?hl=old+town", f"{SITE}/d?hl=town"]) == set()
    assert echoes.observe("harbour", [f"{SITE}/c?hl=harbour"]) == {"hl"}


def test_a_parameter_on_one_url_a_query_is_no_echo() -> None:
    # a list of tags: the same URL under every word, no record's own identity beside it
    echoes = QueryEchoes(url_params, min_links=2)
    for word in ("harbour", "quay", "tide", "pier"):
        assert echoes.observe(word, [f"{SITE}/tag?name={word}"]) == set()


def test_the_search_s_own_field_is_never_learnt() -> None:
    # a table's column links keep the search: ``?_search=word&_sort=name`` is another search
    echoes = QueryEchoes(url_params, min_links=2)
    for word in ("harbour", "quay", "tide"):
        links = [f"{SITE}/t?_search={word}&_sort={column}" for column in ("name", "date")]
        assert echoes.observe(word, links, [f"{SITE}/t?_search={word}"]) == set()
    assert "_search" in echoes.refuted
