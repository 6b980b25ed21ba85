"""Build the link learners' prior shipped with deepcrawl (``deepcrawl/links/link_prior.json``).

ACHE's *Offline-Online* prior (see :mod:`deepcrawl.links.prior`): a breadth-first crawl of
each training site until its search form, the path to the form read back from the crawled
graph, one (link, level) example per fetched page. The training sites are the ``stacks``
fixture site with seeds that ``deepcrawl bench --job form`` does not test on (it tests seeds 0
and 1; the seeds here start at 100), so the wording of the path to the form (gateway name,
anchor text, slug, depth) varies as it does between the bench's seeds.

Usage (from a source checkout)::

    PYTHONPATH=.:fixtures .venv/bin/python scripts/train_link_prior.py [--seeds 100-111] [--out F]

The feature terms that dominate each level are printed, to check that the prior generalises by
words (search, catalogue, find ...) rather than by one site's URLs.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from deepcrawl_fixtures import FixtureServer

from deepcrawl.bench.runner import fixture_settings
from deepcrawl.browser import make_fetcher
from deepcrawl.links.ache import LEVELS
from deepcrawl.links.focused import form_target
from deepcrawl.links.prior import BUILTIN_PRIOR, LinkPrior, baseline_examples, merge
from deepcrawl.settings import load_settings

OUT = Path(__file__).resolve().parent.parent / "deepcrawl" / "links" / BUILTIN_PRIOR


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        out += list(range(int(first), int(last or first) + 1))
    return out


async def build(seeds: list[int], records: int, per_level: int) -> LinkPrior:
    """One prior from breadth-first crawls of the stacks site with each seed."""
    settings = fixture_settings(load_settings())
    target = form_target(settings)
    priors = []
    for seed in seeds:
        with FixtureServer("stacks", records=records, seed=seed) as srv:
            async with make_fetcher(settings, render="never", forms=False) as fetcher:
                examples = await baseline_examples(
                    srv.url + "/", settings, fetcher=fetcher, is_target=target,
                    per_level=per_level, seed=f"stacks:{seed}",
                )  # fmt: skip
        levels = sorted({e.level for e in examples})
        print(f"stacks seed {seed}: {len(examples)} examples, levels {levels}")
        priors.append(LinkPrior(examples, LEVELS, [{"site": "stacks", "seed": seed}]))
    return merge(priors)


def report(prior: LinkPrior) -> None:
    """Print the features ACHE's selection keeps and naive Bayes' strongest per level."""
    import numpy as np

    from deepcrawl.links._ache_model import MultiLevelLinkClassifier

    links, levels = zip(*prior.ache_examples(), strict=True)
    clf = MultiLevelLinkClassifier().fit(list(links), list(levels))
    names = clf.pipeline_.named_steps["afs"].get_feature_names_out()
    nb = clf.pipeline_.named_steps["clf"]
    log_p = nb.feature_log_prob_
    for row, level in enumerate(clf.classes_):
        # how much more likely a feature is at this level than at the others, on average
        lift = log_p[row] - np.delete(log_p, row, axis=0).mean(axis=0)
        top = [names[j] for j in np.argsort(-lift)[:8]]
        count = sum(1 for lv in levels if lv == level)
        print(f"level {level} ({count} examples): {', '.join(top)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="100-111", help="stacks seeds, e.g. 100-111,120")
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--per-level", type=int, default=25)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    prior = asyncio.run(build(_seeds(args.seeds), args.records, args.per_level))
    args.out.write_text(prior.to_json() + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(prior.examples)} examples, {args.out.stat().st_size} bytes")
    report(prior)


if __name__ == "__main__":
    main()
