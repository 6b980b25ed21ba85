"""An IPv6 literal keeps its brackets wherever a URL's authority is rebuilt (issue 47)."""

from __future__ import annotations

import pytest

from deepcrawl.browser.scope import Scope, check_url, host_of, netloc_of
from deepcrawl.fetch.robots import robots_url


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://[::1]:8080/a", "[::1]:8080"),
        ("http://[::1]/a", "[::1]"),
        ("https://[2001:DB8::1]:443/", "[2001:db8::1]:443"),
        ("http://127.0.0.1:8080/", "127.0.0.1:8080"),
        ("http://Example.com/", "example.com"),
    ],
)
def test_host_of_is_an_authority_again(url: str, host: str) -> None:
    assert host_of(url) == host
    assert host_of(f"http://{host}/x") == host  # what it gives reads back as itself


def test_robots_txt_of_an_ipv6_host_keeps_its_brackets() -> None:
    assert robots_url("http://[::1]:8080/search?q=a") == "http://[::1]:8080/robots.txt"


def test_a_scope_of_an_ipv6_host_allows_its_urls_only() -> None:
    scope = Scope((host_of("http://[::1]:8080/"),), implicit=False)
    assert scope.allows("http://[::1]:8080/robots.txt")
    assert not scope.allows("http://[::1]:8081/")
    assert not scope.allows("http://[::2]:8080/")
    any_port = Scope(("[::1]",), implicit=False)
    assert any_port.allows("http://[::1]:8081/")
    assert any_port.allows("http://[::1]/")
    bare = Scope(("::1",), implicit=False)  # as a user may write it
    assert bare.allows("http://[::1]:9/")


def test_netloc_of_brackets_an_ipv6_literal_once() -> None:
    assert netloc_of("::1", 80) == "[::1]:80"
    assert netloc_of("[::1]") == "[::1]"
    assert netloc_of("example.com", 8080) == "example.com:8080"
    assert check_url("http://[::1]:8080/") == "http://[::1]:8080/"
