"""The critic–apprentice crawl (Chakrabarti et al., 2.3 and 3.5): ``--strategy apprentice``.

The crawl starts as the paper's *baseline* focused crawler — best first, a link (u, v) ranked by
the critic's verdict on u, ties in discovery order — while it gathers lessons for the apprentice:
every link (u, v) whose source u and target v were both fetched is a lesson, its
``<token, DOM offset>`` features taken from u. After each batch of ``APPRENTICE_BATCH`` fetched
pages the apprentice learns the batch; once it has seen both a good and a bad target (or starts
from a prior), the crawler consults it: every link of the frontier is re-scored with the
apprentice's estimate of its reward, the best of a link's in-links counting (the paper freezes
the first; combinations are allowed, note 2).

A lesson's reward is graded by distance, like ACHE's levels: 1 when the critic accepted v,
``PATH_DISCOUNT ** k`` (:mod:`deepcrawl.links.prior`) when v is ``k`` links from the nearest
accepted page in the crawled graph (``k`` below ACHE's ``LEVELS``), else 0. The paper rewards
the link to a relevant page only, which leaves nothing to learn on the way to a target that is
never linked from a relevant page (the one search form of a site, behind a gateway page). A
target found later raises the reward of the links on the way to it, so when rewards changed
the apprentice is refitted on every lesson (naive Bayes counts: linear in the lessons);
otherwise the batch is added with ``partial_fit``.

A link's priority in the frontier is its score: a link found again with a better score is
requeued with it (behind the links of that score), and a retrained apprentice requeues every
waiting link, in the order they were first found.

The paper's measure is the *loss rate*: the share of fetched pages the critic threw away
(:attr:`~deepcrawl.links.focused.FocusedStrategy.loss_rate`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.links.context import D_MAX
from deepcrawl.links.focused import FocusedStrategy, PoliteSession
from deepcrawl.links.strategy import register
from deepcrawl.storage.frontier import NewURL

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.links._apprentice_model import Apprentice
    from deepcrawl.links.focused import Target
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings
    from deepcrawl.storage.frontier import Frontier, Lease

__all__ = ["APPRENTICE_ALPHA", "APPRENTICE_BATCH", "ApprenticeCrawler"]

#: Pages per batch after which the apprentice trains on the verdicts of the batch (section 2.3:
#: "a few hundred to a few thousand").
APPRENTICE_BATCH = 200
#: Smoothing of the apprentice's naive Bayes: its features are hashed into 2**18 columns, where
#: Laplace smoothing (1) would flatten every feature's evidence. Not from the paper.
APPRENTICE_ALPHA = 0.01


@register
class ApprenticeCrawler(FocusedStrategy):
    """Best-first crawl whose priorities an apprentice learns online from the critic.

    Args:
        settings: deepcrawl settings (politeness, the forms critic's words).
        is_target: the critic; default: a page with a searchable form.
        prior: lessons ``(features of (u, v), reward)`` from crawls run ahead of time (the
            paper's "fixed prior obtained from a baseline crawl";
            :meth:`~deepcrawl.links.prior.LinkPrior.apprentice_lessons`); the apprentice
            starts from them and keeps them when refitted.
        frontier: where the links wait; default a new one in memory for each crawl.
        batch: pages after which the apprentice learns the batch's lessons.
        max_targets: stop after this many distinct targets (0: the budget alone).

    Attributes:
        apprentice: the learner.
        lessons: every lesson of this crawl (features of (u, v), final URL of v).
        trainings: how many batches were learnt.
    """

    name = "apprentice"

    def __init__(
        self,
        settings: Settings,
        *,
        is_target: Target | None = None,
        prior: Sequence[tuple[Sequence[str], float]] = (),
        frontier: Frontier | None = None,
        batch: int = APPRENTICE_BATCH,
        max_targets: int = 0,
    ) -> None:
        from deepcrawl.links._apprentice_model import Apprentice  # scikit-learn loads when used

        super().__init__(settings, is_target=is_target, frontier=frontier, max_targets=max_targets)
        self.batch = batch
        self.apprentice: Apprentice = Apprentice(d_max=D_MAX, alpha=APPRENTICE_ALPHA)
        self.prior = [(tuple(x), float(r)) for x, r in prior]
        #: Every lesson of this crawl: the features of (u, v) and the final URL of v.
        self.lessons: list[tuple[tuple[str, ...], str]] = []
        self.trainings = 0
        self._rewards: list[float] = []  # of ``lessons``, as last learnt
        self._edges: dict[str, list[str]] = {}
        self._classes: set[bool] = {r > 0 for _, r in self.prior}
        if self.prior:
            self.apprentice.fit([x for x, _ in self.prior], [r for _, r in self.prior])
        else:
            self.apprentice.partial_fit([], [])

    @property
    def instances(self) -> list[tuple[tuple[str, ...], float]]:
        """The lessons of this crawl with their current rewards."""
        return list(zip((x for x, _ in self.lessons), self.rewards(), strict=True))

    @property
    def consulted(self) -> bool:
        """True once the apprentice has seen rewarded and unrewarded links and steers the crawl."""
        return len(self._classes) == 2

    def rewards(self) -> list[float]:
        """The reward of each lesson from the targets found so far (module docstring)."""
        from deepcrawl.links.ache import LEVELS, link_levels
        from deepcrawl.links.prior import PATH_DISCOUNT, reward

        resolved = {u: [self.resolved.get(v, v) for v in outs] for u, outs in self._edges.items()}
        dist = link_levels(resolved, set(self.targets), LEVELS - 1)
        return [
            reward(dist[v] + 1, LEVELS, PATH_DISCOUNT) if v in dist else 0.0
            for _, v in self.lessons
        ]

    def _train(self) -> None:
        """Learn the lessons since the last batch; refit on all when old rewards changed."""
        rewards = self.rewards()
        old = len(self._rewards)
        if old == len(rewards) and rewards == self._rewards:
            return
        if rewards[:old] == self._rewards:
            new = self.lessons[old:]
            self.apprentice.partial_fit([x for x, _ in new], rewards[old:])
        else:
            x = [x for x, _ in self.prior] + [x for x, _ in self.lessons]
            self.apprentice.fit(x, [r for _, r in self.prior] + rewards)
        self._classes.update(r > 0 for r in rewards[old:])
        self._rewards = rewards
        self.trainings += 1

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        session = PoliteSession(self, start_url, fetcher, max_requests)
        await session.open()
        frontier = self.new_frontier()
        frontier.add([NewURL(start_url, priority=1.0)])
        priority: dict[str, float] = {start_url: 1.0}  # of each waiting link, first found first
        # Target v -> features of each fetched (u, v) (kept while v waits, and for re-scoring).
        inlinks: dict[str, list[tuple[str, ...]]] = {}
        waiting: dict[str, list[tuple[str, ...]]] = {}  # v not fetched yet -> (u, v) features
        since_batch = 0

        def lease(n: int) -> list[Lease]:
            leases = self.lease(frontier, n)
            for leased in leases:
                priority.pop(leased.url, None)
            return leases

        async for pages in self.leased_batches(session, frontier, stop=self.done, lease=lease):
            for page in pages:
                verdict = self.judge(page)
                final = self.resolved.get(page.url, page.final_url)
                for url in {page.url, page.final_url}:
                    self.lessons.extend((x, final) for x in waiting.pop(url, []))
                contexts = session.links(page, D_MAX, 0)
                self._edges[final] = [c.url for c in contexts]
                new_scores: list[tuple[str, tuple[str, ...]]] = []
                for ctx in contexts:
                    target = self.resolved.get(ctx.url, ctx.url)
                    if target in self.judged:
                        self.lessons.append((ctx.offsets, target))
                        continue
                    waiting.setdefault(ctx.url, []).append(ctx.offsets)
                    inlinks.setdefault(ctx.url, []).append(ctx.offsets)
                    if ctx.url not in session.seen or ctx.url in priority:
                        new_scores.append((ctx.url, ctx.offsets))
                better: list[NewURL] = []
                for url, score in self._score(new_scores, 1.0 if verdict else 0.0):
                    if score > priority.get(url, -1.0):
                        priority[url] = score
                        better.append(NewURL(url, score, source=final))
                frontier.requeue(better)
                yield page
            since_batch += len(pages)
            if since_batch >= self.batch:
                since_batch = 0
                self._train()
                if self.consulted:
                    self._rescore(frontier, priority, inlinks)
        self._train()  # the last lessons, for whoever reuses the apprentice

    def _score(
        self, links: list[tuple[str, tuple[str, ...]]], parent: float
    ) -> list[tuple[str, float]]:
        """The apprentice's scores once consulted, else the baseline's (the parent's verdict)."""
        if not links:
            return []
        if not self.consulted:
            return [(url, parent) for url, _ in links]
        scores = self.apprentice.score_links([list(x) for _, x in links])
        return [(url, float(s)) for (url, _), s in zip(links, scores, strict=True)]

    def _rescore(
        self,
        frontier: Frontier,
        priority: dict[str, float],
        inlinks: dict[str, list[tuple[str, ...]]],
    ) -> None:
        """Re-rank every waiting link with the retrained apprentice (best in-link counts)."""
        flat = [(url, x) for url in priority for x in inlinks.get(url, [()])]
        best: dict[str, float] = {}
        for url, score in self._score(flat, 0.0):
            best[url] = max(score, best.get(url, 0.0))
        for url in priority:
            priority[url] = best.get(url, 0.0)
        frontier.requeue(NewURL(url, score) for url, score in priority.items())
