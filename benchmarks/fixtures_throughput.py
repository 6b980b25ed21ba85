"""Plain-HTTP throughput of a fixture server, as seen by one httpx client.

Fetches the same number of pages of three sorts from a fixture server running in its own
process, over one keep-alive connection, sequentially (the way a polite crawler does):

- ``robots``: /robots.txt, the cheapest page the server has (the reference);
- ``detail``: record detail pages (~3.3 KB);
- ``mixed``: a seeded mix of every page kind from ``truth.sample_paths()``.

The sorts are run in turn over five rounds and each keeps its best round, which damps the noise
of a busy machine. Prints pages/s per sort (best round, and over all rounds), the best round's
ratio to the reference, and the server's own CPU time per page (user + system of the server
process: the figure that does not depend on how busy the machine is). Run::

    .venv/bin/python benchmarks/fixtures_throughput.py [--site books] [--records 500] [-n 2000]
"""

from __future__ import annotations

import argparse
import random
import time

import httpx
import psutil
from deepcrawl_fixtures import FixtureServer


def _rate(client: httpx.Client, paths: list[str]) -> float:
    start = time.perf_counter()
    for path in paths:
        client.get(path).read()
    return len(paths) / (time.perf_counter() - start)


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", default="books")
    parser.add_argument("--records", type=int, default=500)
    parser.add_argument("-n", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(0)
    with FixtureServer(args.site, records=args.records) as srv:
        truth = srv.truth()
        samples = [p for k, ps in truth.sample_paths(50).items() if k != "disallowed" for p in ps]
        sorts = {
            "robots": ["/robots.txt"] * args.n,
            "detail": [rng.choice(truth.detail_paths) for _ in range(args.n)],
            "mixed": [rng.choice(samples) for _ in range(args.n)],
        }
        server = psutil.Process(srv.pid)
        rounds = 5
        rates = dict.fromkeys(sorts, 0.0)
        spent = dict.fromkeys(sorts, 0.0)
        cpu = dict.fromkeys(sorts, 0.0)
        with httpx.Client(base_url=srv.url) as client:
            _rate(client, sorts["robots"][:200])  # warm up
            for r in range(rounds):
                for name, paths in sorts.items():
                    part = paths[r::rounds]
                    before = sum(server.cpu_times()[:2])
                    rate = _rate(client, part)
                    cpu[name] += sum(server.cpu_times()[:2]) - before
                    spent[name] += len(part) / rate
                    rates[name] = max(rates[name], rate)
        served = srv.stats(log=False)
    ref = rates["robots"]
    print(
        f"site={args.site} records={args.records} n={args.n} requests_served={served['requests']}"
    )
    for name, rate in rates.items():
        overall = len(sorts[name]) / spent[name]
        per_page = cpu[name] / len(sorts[name])
        print(
            f"{name:>7}: best round {rate:6.0f} pages/s (ratio to robots.txt {rate / ref:.2f}), "
            f"all rounds {overall:6.0f} pages/s; server CPU {per_page * 1e6:.0f} µs a page "
            f"(capacity {1 / per_page:.0f} pages/s per core)"
        )


if __name__ == "__main__":
    main()
