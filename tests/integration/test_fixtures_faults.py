"""Fault mode over real HTTP: every fault happens, as documented, on the pages truth lists."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from deepcrawl_fixtures import FAULTS, FixtureServer
from deepcrawl_fixtures.faults import HUGE_BYTES

ServerFactory = Callable[..., FixtureServer]

# A server of its own (seed 11): the transient faults' memory is not shared with other tests.
SEED = 11


@pytest.fixture(scope="module")
def faulty(fixture_server: ServerFactory) -> FixtureServer:
    return fixture_server("books", records=200, seed=SEED, faults=True)


@pytest.fixture(scope="module")
def fault_paths(faulty: FixtureServer) -> dict[str, str]:
    """Fault name -> one page with that fault."""
    by_fault: dict[str, str] = {}
    for path, fault in sorted(faulty.truth().faults.items()):
        by_fault.setdefault(fault, path)
    assert set(by_fault) == set(FAULTS)
    return by_fault


@pytest.fixture
def client(faulty: FixtureServer) -> Iterator[httpx.Client]:
    faulty.reset_stats()  # transient faults happen again
    with httpx.Client(base_url=faulty.url, timeout=5.0) as client:
        yield client


def test_server_error_is_transient(client: httpx.Client, fault_paths: dict[str, str]) -> None:
    path = fault_paths["server_error"]
    assert client.get(path).status_code == 503
    assert client.get(path).status_code == 200


def test_rate_limit_sends_retry_after(client: httpx.Client, fault_paths: dict[str, str]) -> None:
    first = client.get(fault_paths["rate_limit"])
    assert first.status_code == 429
    assert first.headers["retry-after"] == "1"
    assert client.get(fault_paths["rate_limit"]).status_code == 200


def test_timeout_hangs_then_a_retry_works(
    client: httpx.Client, fault_paths: dict[str, str], faulty: FixtureServer
) -> None:
    with pytest.raises(httpx.ReadTimeout):
        client.get(fault_paths["timeout"], timeout=0.5)
    # Logged on arrival, long before the 30 s hang ends.
    assert [e["fault"] for e in faulty.stats()["log"]] == ["timeout"]
    assert client.get(fault_paths["timeout"]).status_code == 200


def test_slow_page_takes_two_seconds(client: httpx.Client, fault_paths: dict[str, str]) -> None:
    with pytest.raises(httpx.ReadTimeout):
        client.get(fault_paths["slow"], timeout=0.5)
    start = time.perf_counter()
    assert client.get(fault_paths["slow"], timeout=5.0).status_code == 200
    assert 1.8 < time.perf_counter() - start < 4.0


def test_truncated_body_raises(client: httpx.Client, fault_paths: dict[str, str]) -> None:
    with pytest.raises(httpx.RemoteProtocolError, match="incomplete|complete message"):
        client.get(fault_paths["truncated"])


def test_redirect_loop(client: httpx.Client, fault_paths: dict[str, str]) -> None:
    first = client.get(fault_paths["redirect_loop"])
    assert first.status_code == 302
    assert first.headers["location"] == fault_paths["redirect_loop"] + "?loop=1"
    with pytest.raises(httpx.TooManyRedirects):
        client.get(fault_paths["redirect_loop"], follow_redirects=True)


def test_malformed_html_keeps_the_text(
    client: httpx.Client, fault_paths: dict[str, str], faulty: FixtureServer
) -> None:
    response = client.get(fault_paths["malformed"])
    assert response.status_code == 200
    assert "</html>" not in response.text
    assert "<<>" in response.text
    record = faulty.truth().detail_paths.index(fault_paths["malformed"])
    title = build_title(faulty, record)
    assert title in response.text


def test_huge_page_is_ten_megabytes(client: httpx.Client, fault_paths: dict[str, str]) -> None:
    response = client.get(fault_paths["huge"])
    assert response.status_code == 200
    assert HUGE_BYTES <= len(response.content) < HUGE_BYTES + 100_000


def test_pages_without_faults_behave(client: httpx.Client, faulty: FixtureServer) -> None:
    clean = [p for p in faulty.truth().detail_paths if p not in faulty.truth().faults][:20]
    assert all(client.get(p).status_code == 200 for p in clean)


def test_faulty_requests_are_counted(client: httpx.Client, faulty: FixtureServer) -> None:
    faults = faulty.truth().faults
    path = next(p for p, f in sorted(faults.items()) if f == "server_error")
    client.get(path)
    stats = faulty.stats()
    assert stats["by_status"] == {503: 1}
    [entry] = stats["log"]
    assert entry["path"] == path
    assert (entry["kind"], entry["status"], entry["fault"]) == ("detail", 503, "server_error")
    assert entry["bytes"] == stats["bytes"] > 0


def build_title(server: FixtureServer, index: int) -> str:
    """The escaped title of the record at ``index`` (as the page shows it)."""
    from deepcrawl_fixtures import build_site

    site = build_site(server.name, records=server.records, seed=server.seed)
    return site.corpus.records[index].title
