"""The reference client of the speed comparison: plain httpx + lxml over a list of URLs.

On a big real site the crawl's speed is judged against the simplest client that gets the same
record pages: an httpx connection pool and lxml's parser, no browser, no storage, nothing
learnt. It fetches exactly the URLs it is given — the truth's record pages — at the crawl's
politeness: the same :class:`~deepcrawl.fetch.politeness.HostLimiter`, so the same requests a
second and the same requests in flight to the host. Each answer is parsed and its links read,
as any client that uses a page must.

It runs as a child process of the bench, like the crawl, so that the same sampler
(:class:`~deepcrawl.bench.usage.TreeSampler`) watches the memory of both and nothing else
shares its process; it times itself (wall and CPU from its first request to its last answer)
so that its figures exclude the interpreter's start and the imports::

    python -m deepcrawl.bench.reference URLS.txt --rate 200 --concurrency 8

prints one JSON object (:meth:`ReferenceResult.to_dict`) on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import lxml.etree
import lxml.html

from deepcrawl.fetch.politeness import HostLimiter
from deepcrawl.settings import PolitenessSettings

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = ["ReferenceResult", "fetch_all", "main"]

_TIMEOUT_S = 60.0
"""One request's timeout: far above any answer of a local server, even a loaded one."""


@dataclass(frozen=True)
class ReferenceResult:
    """What the reference client did."""

    urls: int
    """URLs it was given."""
    ok: int
    """Pages answered with status 200."""
    failed: int
    """Other statuses and transport errors (each URL is tried once)."""
    bytes: int
    """Body bytes received."""
    links: int
    """Links read from the parsed pages."""
    wall_s: float
    """Seconds from the first request to the last answer."""
    cpu_s: float
    """CPU seconds of this process over the same span (user + system, every thread): the
    fetching and parsing, not the interpreter's start."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return asdict(self)


async def fetch_all(
    urls: Sequence[str],
    *,
    requests_per_second: float,
    concurrency: int,
    transport: httpx.AsyncBaseTransport | None = None,
) -> ReferenceResult:
    """GET every URL once, parse it with lxml, at the given politeness.

    Args:
        urls: the pages to fetch, in order.
        requests_per_second: the host's request rate ceiling (0: none).
        concurrency: requests in flight to the host at most.
        transport: httpx's transport (a test's mock); the network when ``None``.
    """
    politeness = PolitenessSettings(
        requests_per_second=requests_per_second, concurrency_per_host=concurrency
    )
    limiter = HostLimiter(politeness)
    pending: Iterator[str] = iter(urls)
    totals = {"ok": 0, "failed": 0, "bytes": 0, "links": 0}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def worker(client: httpx.AsyncClient) -> None:
        for url in pending:  # one iterator shared by the workers: each URL is taken once
            async with limiter.slot(url):
                try:
                    response = await client.get(url)
                except httpx.HTTPError:
                    totals["failed"] += 1
                    continue
            totals["bytes"] += len(response.content)
            if response.status_code != 200:
                totals["failed"] += 1
                continue
            totals["ok"] += 1
            totals["links"] += _links(response.content)

    started, cpu_started = time.perf_counter(), time.process_time()
    async with httpx.AsyncClient(
        limits=limits, timeout=_TIMEOUT_S, transport=transport, trust_env=False
    ) as client:
        await asyncio.gather(*(worker(client) for _ in range(max(1, concurrency))))
    return ReferenceResult(
        urls=len(urls),
        **totals,
        wall_s=round(time.perf_counter() - started, 3),
        cpu_s=round(time.process_time() - cpu_started, 3),
    )


def _links(body: bytes) -> int:
    """How many ``<a href>`` links the page holds (0 for a body lxml cannot parse)."""
    try:
        document = lxml.html.document_fromstring(body)
    except (lxml.etree.ParserError, ValueError):
        return 0
    return len(document.xpath("//a[@href]"))


def main(argv: list[str] | None = None) -> int:
    """Fetch the URLs of a file (one a line) and print the figures as JSON; the exit status."""
    parser = argparse.ArgumentParser(prog="python -m deepcrawl.bench.reference")
    parser.add_argument("urls", type=Path, help="a file of URLs, one a line")
    parser.add_argument("--rate", type=float, required=True, help="requests a second (0: any)")
    parser.add_argument("--concurrency", type=int, required=True, help="requests in flight")
    args = parser.parse_args(argv)
    urls = args.urls.read_text().split()
    result = asyncio.run(
        fetch_all(urls, requests_per_second=args.rate, concurrency=args.concurrency)
    )
    print(json.dumps(result.to_dict()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
