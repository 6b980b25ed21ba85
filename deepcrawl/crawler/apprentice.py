"""The critic–apprentice crawl (Chakrabarti et al., 2.3 and 3.5): ``--strategy apprentice``.

The crawl starts as the paper's *baseline* focused crawler — best first, a link (u, v) ranked by
the critic's verdict on u, ties in discovery order — while it gathers lessons for the apprentice:
every link (u, v) whose source u and target v were both fetched is an instance, its
``<token, DOM offset>`` features taken from u, its label the critic's verdict on v. After each
batch of ``apprentice_batch`` fetched pages the apprentice takes in the new instances
(``partial_fit``); once it has seen both a good and a bad target, the crawler consults it: every
link of the frontier is re-scored with the probability of the high-relevance class, the best of
a link's in-links counting (the paper freezes the first; combinations are allowed, note 2).

The paper's measure is the *loss rate*: the share of fetched pages the critic threw away
(:attr:`~deepcrawl.crawler.focused.FocusedStrategy.loss_rate`).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from deepcrawl.crawler.focused import FocusedStrategy, PoliteSession
from deepcrawl.crawler.strategy import register

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from deepcrawl.browser.base import FetchedPage, Fetcher
    from deepcrawl.classify.apprentice import Apprentice
    from deepcrawl.crawler.focused import Target
    from deepcrawl.settings import Settings

__all__ = ["ApprenticeCrawler"]


@register
class ApprenticeCrawler(FocusedStrategy):
    """Best-first crawl whose priorities an apprentice learns online from the critic.

    Args:
        settings: deepcrawl settings (``settings.links.d_max``, ``apprentice_batch``).
        is_target: the critic; default: records by ``links.record_pattern``, else forms.
        prior: instances ``(features of (u, v), verdict on v)`` from a crawl run ahead of time
            (the paper's "fixed prior obtained from a baseline crawl"); the apprentice starts
            from them.

    Attributes:
        apprentice: the learner.
        instances: every instance learnt from during this crawl.
        trainings: how many batches were learnt.
    """

    name = "apprentice"

    def __init__(
        self,
        settings: Settings,
        *,
        is_target: Target | None = None,
        prior: Sequence[tuple[Sequence[str], bool]] = (),
    ) -> None:
        from deepcrawl.classify.apprentice import Apprentice  # scikit-learn loads when used

        super().__init__(settings, is_target=is_target)
        self.apprentice: Apprentice = Apprentice(d_max=settings.links.d_max)
        self.instances: list[tuple[tuple[str, ...], bool]] = []
        self.trainings = 0
        self._classes: set[bool] = set()
        if prior:
            self.apprentice.fit([list(x) for x, _ in prior], [int(v) for _, v in prior])
            self._classes = {bool(v) for _, v in prior}
        else:
            self.apprentice.partial_fit([], [])

    @property
    def consulted(self) -> bool:
        """True once the apprentice has seen both verdicts and steers the crawl."""
        return len(self._classes) == 2

    def _train(self, batch: list[tuple[tuple[str, ...], bool]]) -> None:
        if not batch:
            return
        self.apprentice.partial_fit([list(x) for x, _ in batch], [int(v) for _, v in batch])
        self._classes.update(v for _, v in batch)
        self.instances.extend(batch)
        self.trainings += 1

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        links = self.settings.links
        session = PoliteSession(self, start_url, fetcher, max_requests)
        await session.open()
        seq = 0
        heap: list[tuple[float, int, str]] = [(-1.0, 0, start_url)]
        priority: dict[str, float] = {start_url: 1.0}
        # Target v -> features of each fetched (u, v) (kept while v waits, and for re-scoring).
        inlinks: dict[str, list[tuple[str, ...]]] = {}
        waiting: dict[str, list[tuple[str, ...]]] = {}  # v not judged yet -> (u, v) features
        batch: list[tuple[tuple[str, ...], bool]] = []
        since_batch = 0
        while heap and session.budget > 0 and not self.done():
            chosen: list[str] = []
            while heap and len(chosen) < session.concurrency:
                neg, _, url = heapq.heappop(heap)
                if url in priority and -neg == priority[url]:
                    del priority[url]
                    chosen.append(url)
            pages = await session.fetch_many(chosen)
            for page in pages:
                verdict = self.judge(page)
                for url in {page.url, page.final_url}:
                    batch.extend((x, verdict) for x in waiting.pop(url, []))
                contexts = session.links(page, links.d_max, 0)
                new_scores: list[tuple[str, tuple[str, ...]]] = []
                for ctx in contexts:
                    target = self.resolved.get(ctx.url, ctx.url)
                    if target in self.judged:
                        batch.append((ctx.offsets, self.judged[target]))
                        continue
                    waiting.setdefault(ctx.url, []).append(ctx.offsets)
                    inlinks.setdefault(ctx.url, []).append(ctx.offsets)
                    if ctx.url not in session.seen or ctx.url in priority:
                        new_scores.append((ctx.url, ctx.offsets))
                for url, score in self._score(new_scores, 1.0 if verdict else 0.0):
                    if score > priority.get(url, -1.0):
                        seq += 1
                        priority[url] = score
                        heapq.heappush(heap, (-score, seq, url))
                yield page
            since_batch += len(pages)
            if since_batch >= links.apprentice_batch:
                since_batch = 0
                self._train(batch)
                batch = []
                if self.consulted:
                    heap, seq = self._rescore(priority, inlinks, seq)
        self._train(batch)  # the last lessons, for whoever reuses the apprentice

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
        priority: dict[str, float],
        inlinks: dict[str, list[tuple[str, ...]]],
        seq: int,
    ) -> tuple[list[tuple[float, int, str]], int]:
        """Re-rank every waiting link with the retrained apprentice (best in-link counts)."""
        urls = list(priority)
        flat = [(url, x) for url in urls for x in inlinks.get(url, [()])]
        best: dict[str, float] = {}
        for url, score in self._score(flat, 0.0):
            best[url] = max(score, best.get(url, 0.0))
        heap: list[tuple[float, int, str]] = []
        for url in urls:
            seq += 1
            priority[url] = best.get(url, 0.0)
            heap.append((-priority[url], seq, url))
        heapq.heapify(heap)
        return heap, seq
