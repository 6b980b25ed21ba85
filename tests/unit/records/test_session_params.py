"""Session parameters learnt from the responses' links (issue 25), without a crawl."""

from __future__ import annotations

from types import SimpleNamespace

from deepcrawl.records.session_params import LearntSessions, url_params

SITE = "http://h.test"


def _page(session: str, *paths: str) -> list[str]:
    """A response's links: each path under the session ``session`` as ``visit=``."""
    return [f"{SITE}{p}{'&' if '?' in p else '?'}visit={session}" for p in paths]


def test_url_params_name_query_items_and_path_parameters() -> None:
    found = list(url_params(f"{SITE}/a;v=abc/b?q=1&visit=xyz"))
    assert found == [
        ("q", "1", f"{SITE}/a;v=abc/b?visit=xyz"),
        ("visit", "xyz", f"{SITE}/a;v=abc/b?q=1"),
        ("v", "abc", f"{SITE}/a/b?q=1&visit=xyz"),
    ]


def test_a_parameter_with_a_new_value_on_every_response_is_learnt() -> None:
    stored: list[set[str]] = []
    heard: list[set[str]] = []
    learnt = LearntSessions(store=stored.append)
    learnt.listeners.append(heard.append)
    assert learnt.observe(_page("a1b2c3d4e5f6a7b8", "/book/1", "/book/2", "/about")) == set()
    assert learnt.observe(_page("f0e9d8c7b6a5f4e3", "/book/2", "/book/3")) == set()  # one link
    assert learnt.observe(_page("0123456789abcdef", "/book/3", "/about")) == {"visit"}
    assert stored == heard == [{"visit"}]
    assert learnt.drop(f"{SITE}/book/3?q=x&visit=77aa88bb99cc") == f"{SITE}/book/3?q=x"
    assert learnt.drop(f"{SITE}/book/3?visit=12") == f"{SITE}/book/3?visit=12"  # no id


def test_values_that_differ_on_one_page_or_stay_the_same_are_no_session() -> None:
    learnt = LearntSessions()
    # a sort order: another value link by link on one page
    learnt.observe([f"{SITE}/list?sort=title-ascending", f"{SITE}/list?sort=date-descending"])
    # a language: one value, the same on every page
    for _ in range(3):
        learnt.observe([f"{SITE}/a?lang=en-gb-oxford", f"{SITE}/b?lang=en-gb-oxford"])
    # page numbers: too short, and numbers
    learnt.observe([f"{SITE}/list?page=2"])
    learnt.observe([f"{SITE}/list?page=3"])
    for n in range(3):
        learnt.observe([f"{SITE}/list?sort=title-ascending&x={n}"])
        learnt.observe([f"{SITE}/list?sort=date-descending&x={n}"])
    assert learnt.names == frozenset()


def test_names_known_elsewhere_are_taken_and_learning_can_be_off() -> None:
    learnt = LearntSessions(["Visit"])
    assert learnt.drop(f"{SITE}/a?visit=abcdef012345") == f"{SITE}/a"
    learnt.know(["token"])
    assert learnt.names == {"visit", "token"}
    off = LearntSessions(learn=False)
    for session in ("a1b2c3d4e5f6", "f6e5d4c3b2a1", "0a1b2c3d4e5f"):
        off.observe(_page(session, "/x", "/y"))
    assert off.names == frozenset()


def test_a_query_result_is_one_response_a_page() -> None:
    learnt = LearntSessions()
    links = [
        SimpleNamespace(url=url, page=page, role="result")
        for page, session in ((1, "a1b2c3d4e5f6a7b8"), (2, "0123456789abcdef"))
        for url in _page(session, "/book/1", "/book/2")
    ]
    assert learnt.observe_result(links) == {"visit"}
