"""The link learners' prior for finding search forms: paths to the forms of *other* sites.

ACHE's *Offline-Online* configuration (Barbosa & Freire, sections 2.3 and 4.2) starts from a
link classifier built from the paths to known forms — "background knowledge in the form of a
'good' link classifier" — and keeps learning on the site; the apprentice paper starts from "a
fixed prior obtained from a baseline crawl". Entry-point discovery has one form per site to
find, so learning online alone has nothing to learn from before the job is done: the prior is
what lets a learner beat the breadth-first baseline there.

A prior is a versioned JSON file of training examples, not of fitted parameters, so that it
stays readable and the estimators fit it with their own feature selection:

* links between the pages a baseline (breadth-first) crawl of a training site fetched until
  its form (URL path, anchor text, ACHE's "around" words, the apprentice's ``token@d``
  features), each at its *level* — one more than its target page's distance to the nearest
  searchable form in the crawled graph, ``levels + 1`` for pages farther away or cut off — a
  sample of at most ``per_level`` per level and site (:func:`baseline_examples`);
* the sites and seeds it was built from (a benchmark must not test on them).

ACHE fits its multi-level classifier on ``(link, level)``; the apprentice takes the level as a
discounted reward, ``discount ** (level - 1)`` (0 beyond ``levels``). ``scripts/
train_link_prior.py`` builds the file shipped with deepcrawl (``settings.links.prior =
"builtin"``) with :func:`baseline_examples`.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepcrawl.errors import ConfigError
from deepcrawl.links.ache import LEVELS, link_levels
from deepcrawl.links.context import AROUND_TERMS, D_MAX, LinkContext
from deepcrawl.links.focused import FocusedStrategy, PoliteSession, url_key
from deepcrawl.storage.frontier import NewURL

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.links.focused import Target
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings

__all__ = [
    "BUILTIN_PRIOR",
    "PATH_DISCOUNT",
    "PRIOR_VERSION",
    "LinkPrior",
    "PriorExample",
    "baseline_examples",
    "load_prior",
    "merge",
    "reward",
]

#: Version of the prior's JSON layout; a file of another version is refused.
PRIOR_VERSION = 1
#: The prior shipped with deepcrawl, in this package's data.
BUILTIN_PRIOR = "link_prior.json"
#: Reward of a link ``k`` levels from a target: ``PATH_DISCOUNT ** (k - 1)`` (1 next to a
#: target, 0 beyond ACHE's levels), learnt by the apprentice and xCrawl's topic weight before any
#: authority is known: halved a level, so a gateway page is worth half its form. Not from a paper.
PATH_DISCOUNT = 0.5
#: Host given to the prior's links when loaded (a prior keeps URL paths only: hosts differ).
_HOST = "http://prior.invalid"


@dataclass(frozen=True, slots=True)
class PriorExample:
    """One training link and its level (estimated distance to a search form)."""

    link: LinkContext
    level: int


@dataclass
class LinkPrior:
    """Training examples from crawls of other sites, for the link learners (module docstring).

    Attributes:
        examples: the (link, level) examples.
        levels: the number of levels of the crawl that built it (``levels + 1``: no path).
        sources: the sites the examples come from, as ``{"site": name, "seed": n}`` objects.
    """

    examples: list[PriorExample] = field(default_factory=list)
    levels: int = LEVELS
    sources: list[dict[str, Any]] = field(default_factory=list)

    def ache_examples(self) -> list[tuple[LinkContext, int]]:
        """ACHE's ``(link, level)`` training examples."""
        return [(e.link, e.level) for e in self.examples]

    def apprentice_lessons(self, discount: float) -> list[tuple[tuple[str, ...], float]]:
        """The apprentice's ``(token@d features, reward)`` lessons: ``discount ** (level - 1)``."""
        return [(e.link.offsets, reward(e.level, self.levels, discount)) for e in self.examples]

    def to_json(self) -> str:
        """The versioned JSON file's text."""
        rows = [
            {
                "url": url_key(e.link.url),
                "anchor": e.link.anchor,
                "around": " ".join(e.link.around),
                "offsets": " ".join(e.link.offsets),
                "level": e.level,
            }
            for e in self.examples
        ]
        doc = {"version": PRIOR_VERSION, "levels": self.levels, "sources": self.sources,
               "examples": rows}  # fmt: skip
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, *, origin: str = "prior") -> LinkPrior:
        """Read a prior written by :meth:`to_json`.

        Raises:
            ConfigError: not a prior of this version.
        """
        try:
            doc = json.loads(text)
            if doc.get("version") != PRIOR_VERSION:
                raise ConfigError(
                    f"link prior {origin}: version {doc.get('version')!r}, "
                    f"deepcrawl reads version {PRIOR_VERSION}"
                )
            examples = [
                PriorExample(
                    LinkContext(
                        url=_HOST + str(row["url"]),
                        source=_HOST + "/",
                        anchor=str(row["anchor"]),
                        around=tuple(str(row["around"]).split()),
                        offsets=tuple(str(row["offsets"]).split()),
                    ),
                    int(row["level"]),
                )
                for row in doc["examples"]
            ]
            return cls(examples, int(doc["levels"]), list(doc.get("sources", [])))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"link prior {origin}: not a deepcrawl link prior ({exc})") from exc


def reward(level: int, levels: int, discount: float) -> float:
    """The apprentice's discounted reward of a link at ``level``: 1 for a link to a target."""
    return discount ** (level - 1) if 1 <= level <= levels else 0.0


def load_prior(spec: str | None) -> LinkPrior | None:
    """The prior ``settings.links.prior`` names: ``"builtin"``, a JSON file's path, or none.

    Args:
        spec: ``"builtin"`` (the prior shipped with deepcrawl), a path, or ``None`` / ``""`` /
            ``"none"`` for no prior (ACHE's *Online* configuration).

    Raises:
        ConfigError: the file is missing or not a prior.
    """
    if not spec or spec.lower() == "none":
        return None
    if spec == "builtin":
        text = resources.files("deepcrawl.links").joinpath(BUILTIN_PRIOR).read_text("utf-8")
        return LinkPrior.from_json(text, origin="builtin")
    path = Path(spec).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"setting links.prior: cannot read {path}: {exc.strerror}") from exc
    return LinkPrior.from_json(text, origin=str(path))


class _Baseline(FocusedStrategy):
    """Breadth-first until the first target, keeping every fetched page's links in context."""

    name = "prior-baseline"

    def __init__(self, settings: Settings, *, is_target: Target) -> None:
        super().__init__(settings, is_target=is_target)
        #: Fetched page (final URL) -> its in-scope links in context.
        self.links: dict[str, list[LinkContext]] = {}

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        session = PoliteSession(self, start_url, fetcher, max_requests)
        await session.open()
        frontier = self.new_frontier()
        frontier.add([NewURL(start_url)])
        until_target = self.leased_batches(session, frontier, stop=lambda: bool(self.targets))
        async for pages in until_target:
            for page in pages:
                self.judge(page)
                final = self.resolved.get(page.url, page.final_url)
                contexts = session.links(page, D_MAX, AROUND_TERMS)
                self.links[final] = contexts
                frontier.add(
                    NewURL(c.url, source=final)
                    for c in contexts
                    if self.unseen(session, frontier, c.url)
                )
                yield page


async def baseline_examples(
    start_url: str,
    settings: Settings,
    *,
    fetcher: Fetcher,
    is_target: Target,
    max_requests: int = 1000,
    per_level: int = 40,
    seed: str = "",
) -> list[PriorExample]:
    """Examples of one training site: a breadth-first crawl until its first target.

    Every link (u, v) between two fetched pages is an example, at the level of v: the backward
    paths of ACHE's training (all the back links of the pages on a path), not only the link
    each page was first reached by.

    Args:
        start_url: the training site's home page.
        settings: deepcrawl settings (politeness).
        fetcher: an entered fetcher.
        is_target: the critic (a page with a searchable form).
        max_requests: the crawl's budget.
        per_level: examples kept per level at most, a seeded random sample (a breadth-first
            crawl holds thousands of links at the farthest levels and a few on the path; the
            cap keeps the file small and every example of a rare level).
        seed: seed of the sample.

    Returns:
        The examples, or none when no target was found within the budget.
    """
    top = LEVELS
    crawler = _Baseline(settings, is_target=is_target)
    async for _page in crawler.crawl(start_url, fetcher=fetcher, max_requests=max_requests):
        pass
    if not crawler.targets:
        return []
    resolved = {
        u: [crawler.resolved.get(c.url, c.url) for c in links] for u, links in crawler.links.items()
    }
    dist = link_levels(resolved, set(crawler.targets), top)
    by_level: dict[int, list[PriorExample]] = {}
    for source, contexts in crawler.links.items():
        for ctx, target in zip(contexts, resolved[source], strict=True):
            if target == source or target not in crawler.links:
                continue  # links to itself teach nothing; unfetched pages have no level
            level = min(dist[target] + 1, top + 1) if target in dist else top + 1
            by_level.setdefault(level, []).append(PriorExample(ctx, level))
    rng = random.Random(f"prior:{seed}")
    out: list[PriorExample] = []
    for level in sorted(by_level):
        group = by_level[level]
        out += group if len(group) <= per_level else rng.sample(group, per_level)
    return out


def merge(priors: Sequence[LinkPrior]) -> LinkPrior:
    """One prior of several (same ``levels``)."""
    if not priors:
        return LinkPrior()
    return LinkPrior(
        [e for p in priors for e in p.examples],
        priors[0].levels,
        [s for p in priors for s in p.sources],
    )
