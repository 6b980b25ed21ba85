"""Why a query failed, told apart whichever way it was sent."""

from __future__ import annotations

import pytest

from deepcrawl.errors import (
    BlockedError,
    FetchError,
    FetchTimeoutError,
    HTTPStatusError,
    NetworkError,
    UnsafeFormError,
)
from deepcrawl.search.causes import cause_of_error, cause_of_status, describe_causes

URL = "http://a.test/search"


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (FetchTimeoutError(URL, "no answer within 2 s"), "timeout"),
        (BlockedError(URL, "out of the crawl's scope (not fetched)"), "out of scope"),
        (BlockedError(URL, "refused: http://b.test/find (out of scope)"), "out of scope"),
        (BlockedError(URL, "disallowed by robots.txt (not fetched)"), "robots.txt"),
        (BlockedError(URL, "refused by the safety rule, 'login' (not submitted)"), "blocked"),
        (UnsafeFormError("the form signs in"), "blocked"),
        (HTTPStatusError(URL, 503), "throttled"),
        (HTTPStatusError(URL, 429), "throttled"),
        (HTTPStatusError(URL, 403), "blocked"),
        (HTTPStatusError(URL, 500), "error"),
        (NetworkError(URL, "connection refused"), "error"),
        (FetchError(URL, "the list's next page is gone"), "error"),
    ],
)
def test_each_failure_is_told_apart(error: Exception, cause: str) -> None:
    assert cause_of_error(error) == cause


def test_an_error_page_is_told_by_its_status() -> None:
    assert [cause_of_status(s) for s in (429, 503, 401, 403, 451, 500, 200)] == [
        "throttled", "throttled", "blocked", "blocked", "blocked", "error", "error",
    ]  # fmt: skip


def test_a_stop_line_names_the_causes_in_one_order() -> None:
    counts = {"no results": 2, "timeout": 3, "throttled": 0, "out of scope": 1}
    assert describe_causes(counts) == "3 timed out, 1 out of the crawl's scope, 2 no results"
    assert describe_causes({}) == ""
