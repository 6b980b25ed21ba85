"""Which responses the pool's memory cache may reuse, and for how long (RFC 9111)."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from deepcrawl.browser.subrequests import lifetime_s

TTL = 3600.0
STAMP = "Mon, 23 Nov 2026 19:05:31 GMT"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, 0.0),  # a dynamic answer: no lifetime, no validator
        ({"last-modified": STAMP}, TTL),  # a static file: heuristic freshness
        ({"etag": '"abc"'}, TTL),
        ({"cache-control": "max-age=60"}, 60.0),
        ({"cache-control": "public, max-age=999999"}, TTL),
        ({"cache-control": "no-store", "last-modified": STAMP}, 0.0),
        ({"cache-control": "no-cache, max-age=60"}, 0.0),
        ({"cache-control": "max-age=oops"}, 0.0),
        ({"vary": "Cookie", "last-modified": STAMP}, 0.0),
        ({"vary": "Accept-Encoding", "last-modified": STAMP}, TTL),
        ({"expires": "not a date", "last-modified": STAMP}, 0.0),
    ],
)
def test_lifetime_follows_the_response_headers(headers: dict[str, str], expected: float) -> None:
    assert lifetime_s(headers, TTL) == expected


def test_expires_in_the_future_gives_the_time_left() -> None:
    import time

    left = lifetime_s({"expires": formatdate(time.time() + 120, usegmt=True)}, TTL)
    assert 100 < left <= 120
    assert lifetime_s({"expires": formatdate(time.time() - 120, usegmt=True)}, TTL) == 0.0
