"""Keyword policies and the coverage estimate, measured without a browser.

For each database — synthetic ones (Zipf texts over a domain-shifted vocabulary) and the fixture
sites' own search indexes, queried in-process with the sites' documented matching rule (AND over
lower-case words, books ignoring stop words, shop accepting them) — every policy drives a fresh
:class:`~deepcrawl.querying.QueryLoop` (:func:`deepcrawl.querying.simulate.crawl`: the words
and their saturation, each query's list read whole), and we report:

- queries (and requests) to reach 95% and 98% of the records, saturation switched off;
- greedy queries as a ratio of random queries to 95% (target <= 0.5), measured in the same run;
- the size estimate's relative error when 50%, 75% and 90% of the records are reached
  (Chao's Mh, the manager's estimator, and Schnabel's for comparison; target |error| <= 10% at
  90%);
- where the manager stops with its default saturation settings, and why.

Run::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/keywords_sim.py            # all
    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/keywords_sim.py --only synthetic --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from typing import Any

from deepcrawl.keywords import frequent_words, stopwords
from deepcrawl.querying.simulate import (
    SearchBackend,
    SearchResult,
    SyntheticDatabase,
    TracePoint,
    crawl,
    domain_vocabulary,
)
from deepcrawl.settings import Settings

POLICIES = ("greedy", "random", "frequency")
CHECKPOINTS = (0.5, 0.75, 0.9)


@dataclass
class FixtureBackend:
    """A fixture site's search, run in-process on its index (same rule as its /search page)."""

    name: str
    records: int
    seed: int
    title_only: bool = False
    max_pages: int = 50

    def __post_init__(self) -> None:
        from deepcrawl_fixtures import build_site
        from deepcrawl_fixtures.data import STOP_WORDS, tokenize

        self.site = build_site(self.name, records=self.records, seed=self.seed)
        self._tokenize = tokenize
        # books ignores stop words (a query of stop words only finds nothing); shop does not.
        self._drop = STOP_WORDS if self.name == "books" else frozenset()

    def search(self, query: str) -> SearchResult:
        hits = self.site.corpus.search(self._tokenize(query), drop=self._drop)
        shown = hits[: 10 * self.max_pages]
        return SearchResult([str(i) for i in shown], max(1, math.ceil(len(shown) / 10)), len(hits))

    def text(self, record_id: str) -> str:
        record = self.site.corpus.records[int(record_id) - 1]
        return record.title if self.title_only else f"{record.title} {record.description}"


def _first(trace: list[TracePoint], reached: float) -> TracePoint | None:
    return next((p for p in trace if p.reached >= reached), None)


def _settings(policy: str, **querying: int) -> Settings:
    return Settings().with_overrides(keywords={"policy": policy}, querying=querying)


def measure(backend: SearchBackend, total: int, policy: str, max_queries: int) -> dict[str, Any]:
    """One policy on one database: the race to 98% and the default-settings stop."""
    started = time.perf_counter()
    racing = _settings(policy, max_queries=max_queries, saturation_window=10**9)
    _, trace = crawl(racing, backend, until_reached=math.ceil(0.98 * total))
    row: dict[str, Any] = {"policy": policy}
    for share in (0.95, 0.98):
        point = _first(trace, share * total)
        row[f"q{round(share * 100)}"] = point.queries if point else None
        row[f"cost{round(share * 100)}"] = point.cost if point else None
    for share in CHECKPOINTS:
        point = _first(trace, share * total)
        key = round(share * 100)
        for name, value in (
            ("chao1", point.estimated if point else None),
            ("schnabel", point.schnabel if point else None),
        ):
            row[f"err{key}_{name}"] = None if value is None else round(value / total - 1, 3)
    stopped, stop_trace = crawl(_settings(policy, max_queries=max_queries), backend)
    last = stop_trace[-1]
    row["stop_queries"] = last.queries
    row["stop_reached"] = round(last.reached / total, 3)
    row["stop_reason"] = str(stopped.words_stop)
    row["stop_err_chao1"] = None if last.estimated is None else round(last.estimated / total - 1, 3)
    row["seconds"] = round(time.perf_counter() - started, 2)
    return row


def databases(args: argparse.Namespace) -> list[tuple[str, SearchBackend, int]]:
    """The databases to measure: (label, backend, true record count)."""
    out: list[tuple[str, SearchBackend, int]] = []
    if args.only in ("all", "synthetic"):
        vocab = list(frequent_words())
        for seed in range(args.seeds):
            for accepts in (True, False):
                db = SyntheticDatabase.generate(
                    domain_vocabulary(vocab, seed=seed),
                    args.synthetic_records,
                    seed=seed,
                    mean_length=30,
                    length_sigma=0.5,
                    min_length=8,
                    max_pages=20,
                    accepts_stopwords=accepts,
                    stop_words=stopwords(),
                )
                label = (
                    f"synthetic-{args.synthetic_records}-s{seed}-{'stop' if accepts else 'nostop'}"
                )
                out.append((label, db, args.synthetic_records))
    if args.only in ("all", "fixtures"):
        for name in ("books", "shop"):
            for title_only in (False, True):
                backend = FixtureBackend(name, args.fixture_records, 0, title_only=title_only)
                label = f"{name}-{args.fixture_records}-{'titles' if title_only else 'pages'}"
                out.append((label, backend, args.fixture_records))
    return out


def main() -> None:
    """Parse arguments, run every policy on every database, print a table (or JSON)."""
    parser = argparse.ArgumentParser(description="keyword policies and coverage estimate")
    parser.add_argument("--only", choices=("all", "synthetic", "fixtures"), default="all")
    parser.add_argument("--seeds", type=int, default=2, help="synthetic databases per setting")
    parser.add_argument("--synthetic-records", type=int, default=2000)
    parser.add_argument("--fixture-records", type=int, default=500)
    parser.add_argument("--max-queries", type=int, default=3000)
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    args = parser.parse_args()
    rows = []
    for label, backend, total in databases(args):
        by_policy = {p: measure(backend, total, p, args.max_queries) for p in POLICIES}
        for row in by_policy.values():
            greedy, random_ = by_policy["greedy"]["q95"], row["q95"]
            row["db"] = label
            row["greedy_vs_this_q95"] = round(greedy / random_, 3) if greedy and random_ else None
            rows.append(row)
            if not args.json:
                print(_line(row), flush=True)
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()


def _line(row: dict[str, Any]) -> str:
    return (
        f"{row['db']:<28} {row['policy']:<9} q95={row['q95']} q98={row['q98']} "
        f"req95={row['cost95']} greedy/this={row['greedy_vs_this_q95']} "
        f"err@50/75/90 chao1={row['err50_chao1']}/{row['err75_chao1']}/{row['err90_chao1']} "
        f"schnabel={row['err50_schnabel']}/{row['err75_schnabel']}/{row['err90_schnabel']} "
        f"stop: {row['stop_reason']} after {row['stop_queries']} q, "
        f"{row['stop_reached']:.0%} reached, est err {row['stop_err_chao1']} "
        f"({row['seconds']}s)"
    )


if __name__ == "__main__":
    main()
