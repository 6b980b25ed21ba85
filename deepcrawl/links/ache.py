"""ACHE's adaptive crawl of one site (Barbosa & Freire, sections 2.2 and 3): ``--strategy ache``.

The loop, in the paper's terms:

1. the *frontier manager* keeps one queue per level of the link classifier (plus one for links
   on no known path) — a link sits in the queue of its estimated distance to a target, ordered
   by its likelihood of that level — and the next link is the best of the first non-empty
   queue. Links of fetched pages go to a *persistent* frontier; the crawling frontier is
   refilled from it, best links first, only when it runs empty (section 2.2), so links of
   delayed benefit are still explored. Here the persistent frontier is the crawl's
   :class:`~deepcrawl.storage.frontier.Frontier`, the levels folded into one priority (the level
   first, then the likelihood, ties in discovery order), and the crawling frontier is the
   batch leased from it;
2. the *critic* (the form critic, or the record validator) judges every fetched page;
3. the *adaptive link learner* (Algorithm 1): once :data:`LEARNING_THRESHOLD` new targets were
   found, the paths to all targets found so far are collected (a link's level is one more than
   its target page's distance to the nearest target in the crawled graph), features are
   selected anew (:class:`~deepcrawl.links._ache_model.AutomaticFeatureSelector`), a new link
   classifier is built, and every link of the frontier is re-ranked with it;
4. the per-site stopping criteria: the request budget, and ``max_targets`` distinct targets.

Before the first learning iteration, without a prior classifier, every link waits in queue 1
in discovery order: ACHE's *Online* configuration starts as the baseline crawler. Given a prior
(a fitted classifier, or paths from other sites), it is *Offline-Online*.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.links.context import AROUND_TERMS, LinkContext
from deepcrawl.links.focused import FocusedStrategy, PoliteSession
from deepcrawl.links.strategy import register
from deepcrawl.storage.frontier import NewURL

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.links._ache_model import MultiLevelLinkClassifier
    from deepcrawl.links.focused import Target
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings
    from deepcrawl.storage.frontier import Frontier, Lease

__all__ = ["FRONTIER_BATCH", "LEARNING_THRESHOLD", "LEVELS", "AcheCrawler", "link_levels"]

#: Levels of ACHE's multi-level link classifier: a link's distance to a target (section 4.1:
#: three). Links on no path of that length form one more, lowest-priority level.
LEVELS = 3
#: ACHE learns again after this many new targets (section 3.2: 100 new relevant forms).
LEARNING_THRESHOLD = 100
#: ACHE refills its crawling frontier with this many best links when it runs empty (section
#: 2.2 gives no size). A batch is crawled whole before its pages' links are ranked, so its size
#: is a floor on the pages spent per step of a path: small.
FRONTIER_BATCH = 10


@dataclass(slots=True)
class _Entry:
    ctx: LinkContext
    seq: int
    level: int = 1
    likelihood: float = 0.0
    version: int = -1

    def key(self) -> tuple[int, float, int]:
        """The crawling frontier's order: level, then likelihood, then discovery."""
        return (self.level, -self.likelihood, self.seq)


def _priority(level: int, likelihood: float) -> float:
    """A link's frontier priority: a lower level first, then a higher likelihood (in [0, 1]).

    The likelihood is halved so that the best link of a level stays behind the worst of the
    level above it. (Two likelihoods a few units in the last place apart may round to one
    priority; their links then go in discovery order.)
    """
    return likelihood / 2 - level


def link_levels(edges: dict[str, list[str]], targets: set[str], max_level: int) -> dict[str, int]:
    """Distance of each crawled page to the nearest target, by backward breadth-first search.

    Args:
        edges: page URL -> URLs it links to (final URLs).
        targets: the target pages (distance 0).
        max_level: distances beyond this are not returned.

    Returns:
        page URL -> distance (0 for targets), for pages within ``max_level`` of a target.
    """
    into: dict[str, list[str]] = {}
    for source, outs in edges.items():
        for target in outs:
            into.setdefault(target, []).append(source)
    dist = dict.fromkeys(targets, 0)
    queue = deque(targets)
    while queue:
        v = queue.popleft()
        if dist[v] >= max_level:
            continue
        for u in into.get(v, []):
            if u not in dist:
                dist[u] = dist[v] + 1
                queue.append(u)
    return dist


@register
class AcheCrawler(FocusedStrategy):
    """ACHE's frontier with levels and adaptive link learner, on one site.

    Args:
        settings: deepcrawl settings (politeness, the forms critic's words).
        is_target: the critic; default: a page with a searchable form.
        prior: training examples ``(link, level)`` from other crawls (Offline-Online); they
            stay in the path repository, beside the paths this crawl finds.
        frontier: the persistent frontier; default a new one in memory for each crawl.
        learning_threshold: new targets after which the link learner runs again.
        frontier_batch: links the crawling frontier is refilled with when it runs empty.
        max_targets: stop after this many distinct targets (0: the budget alone).

    Attributes:
        classifier: the current link classifier (None before any learning).
        examples: the (link, level) examples of the last learning iteration.
        learning_iterations: how many times the link learner ran.
    """

    name = "ache"

    def __init__(
        self,
        settings: Settings,
        *,
        is_target: Target | None = None,
        prior: Sequence[tuple[LinkContext, int]] = (),
        frontier: Frontier | None = None,
        learning_threshold: int = LEARNING_THRESHOLD,
        frontier_batch: int = FRONTIER_BATCH,
        max_targets: int = 0,
    ) -> None:
        super().__init__(settings, is_target=is_target, frontier=frontier, max_targets=max_targets)
        self.learning_threshold = learning_threshold
        self.frontier_batch = frontier_batch
        self.prior = list(prior)
        self.classifier: MultiLevelLinkClassifier | None = None
        self.examples: list[tuple[LinkContext, int]] = []
        self.learning_iterations = 0
        self._version = 0
        #: Fetched page -> URLs of its links; fetched page -> the link it was reached by.
        self._edges: dict[str, list[str]] = {}
        self._incoming: dict[str, LinkContext] = {}
        if self.prior:
            self._fit(self.prior)

    def _new_classifier(self) -> MultiLevelLinkClassifier:
        from deepcrawl.links._ache_model import MultiLevelLinkClassifier  # loads scikit-learn, nltk

        return MultiLevelLinkClassifier()

    def _fit(self, examples: Sequence[tuple[LinkContext, int]]) -> None:
        self.classifier = self._new_classifier().fit(
            [c for c, _ in examples], [lv for _, lv in examples]
        )
        self._version += 1

    def _rank(self, entries: Sequence[_Entry]) -> None:
        stale = [e for e in entries if e.version != self._version]
        if self.classifier is None or not stale:
            return
        for entry, (level, likelihood) in zip(
            stale, self.classifier.rank([e.ctx for e in stale]), strict=True
        ):
            entry.level, entry.likelihood, entry.version = level, likelihood, self._version

    def collect_examples(self) -> list[tuple[LinkContext, int]]:
        """The paths of this crawl to its targets, as (link, level) examples.

        A fetched page's level is one more than its distance to the nearest target in the
        crawled graph; pages farther than ``levels`` (or cut off from every target) give the
        extra, lowest level ``levels + 1``. Each fetched page contributes the link it was
        reached by.
        """
        top = LEVELS
        resolved = {u: [self.resolved.get(v, v) for v in outs] for u, outs in self._edges.items()}
        dist = link_levels(resolved, set(self.targets), top)
        return [
            (ctx, min(dist[url] + 1, top + 1) if url in dist else top + 1)
            for url, ctx in self._incoming.items()
        ]

    def learn(self) -> None:
        """Algorithm 1: collect the paths to the targets, select features, build the classifier."""
        self.examples = self.collect_examples()
        self._fit([*self.prior, *self.examples])
        self.learning_iterations += 1

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        session = PoliteSession(self, start_url, fetcher, max_requests)
        await session.open()
        frontier = self.new_frontier()
        seq = 0
        start = _Entry(LinkContext(url=start_url, source=""), seq)
        frontier.add([NewURL(start_url, priority=_priority(start.level, start.likelihood))])
        # The links queued in the persistent frontier (their contexts and ranks), and those of
        # the crawling frontier: leased, fetched ``concurrency`` at a time.
        queued: dict[str, _Entry] = {}
        crawling: dict[str, _Entry] = {start_url: start}
        held: list[Lease] = []
        edges = self._edges = {}
        incoming = self._incoming = {}
        since_learning = 0

        def refill(n: int) -> list[Lease]:
            # The persistent frontier's links ranked by the current classifier, best first.
            self._requeue_stale(frontier, queued)
            leases = self.lease(frontier, n)
            for lease in leases:
                if lease.url in queued:  # the start URL is in the crawling frontier already
                    crawling[lease.url] = queued.pop(lease.url)
            return leases

        size = max(1, self.frontier_batch)
        batches = self.leased_batches(
            session, frontier, stop=self.done, size=size, held=held, lease=refill
        )
        async for pages in batches:
            for page in pages:
                before = len(self.targets)
                self.judge(page)
                since_learning += len(self.targets) - before
                final = self.resolved.get(page.url, page.final_url)
                reached = crawling.pop(page.url, None)
                if reached is not None and reached.ctx.source:
                    incoming.setdefault(final, reached.ctx)
                contexts = session.links(page, 0, AROUND_TERMS)
                new = []
                for ctx in contexts:
                    if self.unseen(session, frontier, ctx.url):
                        seq += 1
                        queued[ctx.url] = entry = _Entry(ctx, seq)
                        rank = _priority(entry.level, entry.likelihood)
                        new.append(NewURL(ctx.url, rank, source=final))
                frontier.add(new)
                edges[final] = [c.url for c in contexts]
                yield page
            if since_learning >= self.learning_threshold:
                since_learning = 0
                self.learn()
                self._rank([crawling[lease.url] for lease in held])
                held.sort(key=lambda lease: crawling[lease.url].key())

    def _requeue_stale(self, frontier: Frontier, queued: dict[str, _Entry]) -> None:
        """Rank the queued links the current classifier has not ranked, and requeue them.

        The links go back in discovery order, so that ties keep it: every link when the
        classifier changed, else the links discovered since the last refill (the latest).
        """
        stale = [e for e in queued.values() if e.version != self._version]
        if self.classifier is None or not stale:
            return
        self._rank(stale)
        frontier.requeue(NewURL(e.ctx.url, _priority(e.level, e.likelihood)) for e in stale)
