"""Prototypes against the true page kinds of every fixture site (adjusted Rand index).

For each site, two URL sets: the ground truth's sample of every page kind (all kinds together),
and — with ``--live`` — the links a breadth-first walk over the served site finds (plain HTTP,
as the pages spell them). Each line gives the ARI (target >= 0.95), the purity, the number of
prototypes against the number of kinds, and the kinds split over several prototypes. The
reference in the same run is the ARI of one prototype per distinct first path segment (the
obvious cheap baseline).

Run: ``PYTHONPATH=.:fixtures .venv/bin/python benchmarks/prototypes_fixtures.py [--live]``
"""

from __future__ import annotations

import argparse
from collections import deque
from urllib.parse import urljoin, urlsplit

import httpx
import lxml.html
from deepcrawl_fixtures import SITES, FixtureServer, build_site
from sklearn.metrics import adjusted_rand_score

from deepcrawl.prototypes import PrototypeScore, score_prototypes
from deepcrawl.urls import normalise_url

ORIGIN = "http://127.0.0.1:8000"
_NO_FETCH = ("submit", "disallowed", "robots", "asset", "export")


def _first_segment_ari(urls: list[str], kinds: list[str]) -> float:
    heads = [urlsplit(u).path.split("/")[1] for u in urls]
    return float(adjusted_rand_score(kinds, heads))


def _line(name: str, source: str, score: PrototypeScore, baseline: float) -> str:
    split = ", ".join(f"{k}:{n}" for k, n in score.split_kinds.items()) or "-"
    return (
        f"{name:6} {source:7} ARI {score.ari:.4f} (first-segment baseline {baseline:.4f}) "
        f"purity {score.purity:.3f}  {score.prototypes} prototypes / {score.kinds} kinds  "
        f"{score.urls} URLs  split: {split}"
    )


def _samples(name: str) -> tuple[list[str], list[str]]:
    urls, kinds = [], []
    for kind, paths in build_site(name).truth().sample_paths().items():
        if kind != "unknown":
            urls += [ORIGIN + p for p in paths]
            kinds += [kind] * len(paths)
    return urls, kinds


def _live(name: str, max_pages: int) -> tuple[list[str], list[str]]:
    with FixtureServer(name) as server:
        truth = server.truth()
        starts = [server.url + "/"]
        for word in ("history", "water", "light"):
            starts += [server.url + f"/search?q={word}", server.url + f"/search?keywords={word}"]
        queue, seen, found = deque(starts), set(starts), []
        with httpx.Client(timeout=10) as client:
            for _ in range(max_pages):
                if not queue:
                    break
                url = queue.popleft()
                response = client.get(url)
                if "html" not in response.headers.get("content-type", "") or not response.text:
                    continue
                for href in lxml.html.fromstring(response.text).xpath("//a/@href"):
                    absolute = urljoin(url, href)
                    if urlsplit(absolute).netloc != urlsplit(server.url).netloc:
                        continue
                    found.append(normalise_url(href, url))
                    kind = truth.page_kind(absolute)
                    if absolute not in seen and not any(k in kind for k in _NO_FETCH):
                        seen.add(absolute)
                        queue.append(absolute)
        kinds = [truth.page_kind(u) for u in found]
    pairs = [(u, k) for u, k in zip(found, kinds, strict=True) if k != "unknown"]
    return [u for u, _ in pairs], [k for _, k in pairs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", action="store_true", help="also walk the served sites")
    parser.add_argument("--pages", type=int, default=120, help="pages fetched per live walk")
    args = parser.parse_args()
    for name in sorted(SITES):
        urls, kinds = _samples(name)
        print(
            _line(name, "samples", score_prototypes(urls, kinds), _first_segment_ari(urls, kinds))
        )
        if args.live:
            urls, kinds = _live(name, args.pages)
            print(
                _line(name, "live", score_prototypes(urls, kinds), _first_segment_ari(urls, kinds))
            )


if __name__ == "__main__":
    main()
