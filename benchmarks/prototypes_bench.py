"""Benchmark of the prototyper: 1,000,000 synthetic URLs of 50 kinds.

Measures, in one run:

* fitting time (CPU and wall) and peak memory of ``Prototyper().fit`` on N URLs, against the
  time to merely normalise them (the floor any URL prototyper pays);
* matching throughput of the fitted matcher, on normalised URLs and on raw URLs, against one
  combined alternation regex of all prototypes (the naive matcher);
* the adjusted Rand index of prototypes against the true kinds;
* os-urlpattern (the nearest open tool) on a subset, beside ours on the same subset, if it is
  installed (``pip install os-urlpattern``; a benchmark-only comparison, not a dependency).

Rates are given per CPU-second (what one core does, whatever else runs on the machine) and
per wall-second; the load average printed at start and end says how shared the cores were.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/prototypes_bench.py [--n 1000000]``
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import resource
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import psutil
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from prototypes_synthetic import generate

from deepcrawl.prototypes import Prototyper
from deepcrawl.urls import URLNormaliser

if TYPE_CHECKING:
    from collections.abc import Callable

MB = 1024 * 1024
T = TypeVar("T")


def _timed(fn: Callable[..., T], *args: Any) -> tuple[T, float, float]:
    """``fn(*args)`` with its wall and CPU seconds."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _os_urlpattern(urls: list[str], kinds: list[str]) -> dict[str, float] | str:
    try:
        from os_urlpattern.formatter import pformat  # type: ignore[import-untyped]
        from os_urlpattern.pattern_maker import PatternMaker  # type: ignore[import-untyped]
        from os_urlpattern.pattern_matcher import PatternMatcher  # type: ignore[import-untyped]
    except ImportError as exc:
        return f"not installed ({exc})"
    wall, cpu = time.perf_counter(), time.process_time()
    maker = PatternMaker()
    invalid = 0
    for i, url in enumerate(urls):
        try:
            maker.load(url, meta=i)
        except Exception:  # os-urlpattern raises several exception types for odd URLs
            invalid += 1
    labels: list[str] = ["-"] * len(urls)
    patterns: list[str] = []
    for sub in maker.makers:
        for root in sub.make():
            for record in pformat("INLINE", sub.url_meta, root):
                pattern, _, meta = record.rpartition("\t")
                labels[int(meta)] = pattern
            patterns.append(pattern)
    fit_s, fit_cpu = time.perf_counter() - wall, time.process_time() - cpu
    matcher = PatternMatcher()
    for pattern in set(labels) - {"-"}:
        matcher.load(pattern, meta=pattern)
    sample = urls[:20_000]
    cpu = time.process_time()
    for url in sample:
        matcher.match(url)
    match_rate = len(sample) / (time.process_time() - cpu)
    return {
        "fit_s": fit_s,
        "fit_cpu": fit_cpu,
        "urls_per_s": len(urls) / fit_cpu,
        "patterns": float(len(set(labels) - {"-"})),
        "invalid": float(invalid),
        "ari": float(adjusted_rand_score(kinds, labels)),
        "match_per_s": match_rate,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="URLs to prototype")
    parser.add_argument("--compare-n", type=int, default=50_000, help="URLs for os-urlpattern")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores; wall times suffer above 2)")
    urls, kinds = generate(args.n, args.seed)
    rss_before = psutil.Process().memory_info().rss / MB
    print(
        f"{args.n:,} URLs of {len(set(kinds))} kinds; RSS with the URLs loaded: {rss_before:.0f} MB"
    )

    normaliser = URLNormaliser()
    normal, norm_wall, norm_cpu = _timed(lambda u: [normaliser(x) for x in u], urls)
    del normal
    fitted, fit_wall, fit_cpu = _timed(Prototyper().fit, urls)
    peak = _peak_mb()
    print(f"fit: {fit_wall:.1f} s wall, {fit_cpu:.1f} s CPU, {len(fitted.prototypes_)} prototypes")
    print(
        f"  normalising alone: {norm_wall:.1f} s wall, {norm_cpu:.1f} s CPU "
        f"-> fit / normalise = {fit_cpu / norm_cpu:.2f}x (CPU)"
    )
    print(
        f"  peak RSS of the process: {peak:.0f} MB (of which input URLs ~{rss_before:.0f} MB); "
        f"target <= 1536 MB"
    )

    predicted = fitted.predict(urls)
    ari = adjusted_rand_score(kinds, [p or "-" for p in predicted])
    print(f"ARI vs true kinds: {ari:.4f}; unmatched: {predicted.count(None)}")

    sample = [normaliser(u) for u in urls[:200_000]]
    raw_sample = urls[:200_000]
    _, m_wall, m_cpu = _timed(fitted.matcher_.match_many, sample)
    _, p_wall, p_cpu = _timed(fitted.predict, raw_sample)
    combined = re.compile(
        "|".join(f"(?P<p{i}>{p.regex})" for i, p in enumerate(fitted.prototypes_))
    )
    ids = [p.id for p in fitted.prototypes_]

    def naive(batch: list[str]) -> list[str | None]:
        out = []
        for url in batch:
            m = combined.fullmatch(url)
            out.append(ids[int(m.lastgroup[1:])] if m and m.lastgroup else None)
        return out

    naive_n = 50_000
    _, _, n_cpu = _timed(naive, sample[:naive_n])
    match_rate, predict_rate, naive_rate = (
        len(sample) / m_cpu,
        len(raw_sample) / p_cpu,
        naive_n / n_cpu,
    )
    print(
        f"matching normalised URLs: {match_rate:,.0f} URLs per CPU-second "
        f"({len(sample) / m_wall:,.0f}/s wall; target >= 100,000); "
        f"raw URLs (normalise + match): {predict_rate:,.0f} per CPU-second "
        f"({len(raw_sample) / p_wall:,.0f}/s wall)"
    )
    print(
        f"  one alternation regex of all prototypes: {naive_rate:,.0f} per CPU-second; "
        f"speed of the dispatching matcher / alternation = {match_rate / naive_rate:.2f}x"
    )

    subset, subset_kinds = urls[: args.compare_n], kinds[: args.compare_n]
    ours, ours_wall, ours_cpu = _timed(Prototyper().fit, subset)
    ours_ari = adjusted_rand_score(subset_kinds, [p or "-" for p in ours.predict(subset)])
    other = _os_urlpattern(subset, subset_kinds)
    print(
        f"on {len(subset):,} URLs: deepcrawl {ours_cpu:.2f} s CPU, {ours_wall:.2f} s wall "
        f"({len(subset) / ours_cpu:,.0f} URLs per CPU-second), {len(ours.prototypes_)} prototypes, "
        f"ARI {ours_ari:.4f}"
    )
    if isinstance(other, str):
        print(f"  os-urlpattern: {other}")
    else:
        print(
            f"  os-urlpattern: {other['fit_cpu']:.2f} s CPU, {other['fit_s']:.2f} s wall "
            f"({other['urls_per_s']:,.0f} URLs per CPU-second), "
            f"{other['patterns']:.0f} patterns, ARI {other['ari']:.4f}, "
            f"{other['invalid']:.0f} URLs refused, "
            f"matching {other['match_per_s']:,.0f} per CPU-second"
        )
        print(
            f"  ratios (CPU time): fit speed deepcrawl/os-urlpattern = "
            f"{other['fit_cpu'] / ours_cpu:.1f}x, "
            f"matching = {match_rate / other['match_per_s']:.1f}x"
        )

    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
