"""xCrawl's focused walk over one site (Shchekotykhin et al., section 4): ``--strategy xcrawl``.

The per-site loop of the paper's Figure 3, over the web graph of what was fetched:

1. *start*: known records (the authorities the search form surfaced, when the caller has them;
   xCrawl's AQG step finds them with a web search engine, which deepcrawl has no use for), else
   a breadth-first bootstrap from the start URL until the validator accepts a first page;
2. *focused walk*: from a random known authority, follow links — the link leading to the node
   of highest weight (topic-sensitive PageRank from the authorities, plus the HITS hub weight),
   ties broken at random — fetching each new page and handing it to the validator, until a
   random *restart* (probability ``restart_probability``, 0.15 in the paper);
3. *hub identification* at each restart: HITS with the validator's verdicts; a page linked to
   at least ``hub_min_authorities`` authorities with a hub weight is a hub;
4. *hub download*: every link of the hub's DOM subtree that holds its links to the known
   authorities is fetched and validated;
5. stop when no new hub appeared within ``max_iterations`` restarts (or the budget is spent).

Choices the paper leaves open: a walk step to an already fetched page costs no request; a walk
never steps onto a page it visited already or onto a known authority (it is there to discover
pages; the authorities are where it starts); hubs found also attract PageRank's random jumps;
and a hub's subtree is downloaded as soon as the hub is found rather than after the walk
converged, so a crawl cut short by its request budget still has the records the hubs list.
"""

from __future__ import annotations

import random
from collections import deque
from typing import TYPE_CHECKING

from deepcrawl.crawler.focused import FocusedStrategy, PoliteSession
from deepcrawl.crawler.strategy import register

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    import numpy as np
    from numpy.typing import NDArray

    from deepcrawl.browser.base import FetchedPage, Fetcher
    from deepcrawl.classify.xcrawl import WebGraph
    from deepcrawl.crawler.focused import Target
    from deepcrawl.settings import Settings

__all__ = ["XCrawler"]


@register
class XCrawler(FocusedStrategy):
    """Focused walk with random restarts toward hubs, then the hubs' record lists.

    Args:
        settings: deepcrawl settings (``settings.links``: restart probability, iteration bound,
            damping, hub threshold, seed).
        is_target: the validator; default: records by ``links.record_pattern``, else forms.
        known_records: URLs of records known before the crawl (from the search form); they
            are fetched first and seed the authorities.

    Attributes:
        graph: the web graph of the crawl.
        hubs: hubs found, in order.
        restarts: restarts of the walk.
    """

    name = "xcrawl"

    def __init__(
        self,
        settings: Settings,
        *,
        is_target: Target | None = None,
        known_records: Sequence[str] = (),
    ) -> None:
        from deepcrawl.classify.xcrawl import WebGraph  # numpy and scipy load when used

        super().__init__(settings, is_target=is_target)
        self.known_records = list(known_records)
        self.graph: WebGraph = WebGraph()
        self.hubs: list[str] = []
        self.restarts = 0
        self._bodies: dict[str, str] = {}
        self._hub_weights: NDArray[np.float64] | None = None

    def _weights(self) -> NDArray[np.float64]:
        """Node weights of the walk: 1 for authorities, the (scaled) HITS hub weight for other
        fetched pages, the topic-sensitive PageRank (scaled over unfetched nodes) for the rest.
        """
        import numpy as np

        from deepcrawl.classify.xcrawl import TopicSensitivePageRank

        links = self.settings.links
        authorities = set(self.targets)
        pagerank = TopicSensitivePageRank(
            links.damping, links.weight_iterations, links.weight_tolerance
        ).fit(self.graph, authorities, self._hub_weights)
        weights = np.asarray(pagerank.weights_, dtype=np.float64)
        fetched = self.graph.mask(self.graph.fetched)
        top = float(weights[~fetched].max(initial=0.0))
        weights = weights / top if top > 0 else weights
        hubs = np.zeros_like(weights)
        if self._hub_weights is not None and len(self._hub_weights):
            scaled = self._hub_weights / max(float(self._hub_weights.max()), 1e-12)
            hubs[: len(scaled)] = scaled
        weights = np.where(fetched, hubs, weights)
        weights[self.graph.mask(authorities)] = 1.0
        return weights

    def _find_hubs(self) -> list[str]:
        from deepcrawl.classify.xcrawl import HitsHubs

        links = self.settings.links
        authorities = set(self.targets)
        hits = HitsHubs(links.weight_iterations, links.weight_tolerance).fit(
            self.graph, authorities
        )
        self._hub_weights = hits.hub_
        new: list[str] = []
        for url in self.graph.fetched:
            i = self.graph.index[url]
            if url in authorities or hits.hub_[i] <= 0 or url in self.hubs:
                continue
            linked = sum(1 for v in self.graph.successors(url) if v in authorities)
            if linked >= links.hub_min_authorities:
                new.append(url)
        new.sort(key=lambda u: -float(hits.hub_[self.graph.index[u]]))
        self.hubs.extend(new)
        return new

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        from deepcrawl.classify.xcrawl import hub_subtree_links

        links = self.settings.links
        rng = random.Random(links.seed)
        session = PoliteSession(self, start_url, fetcher, max_requests)
        await session.open()

        async def fetch(urls: Sequence[str]) -> list[FetchedPage]:
            wanted = [u for u in dict.fromkeys(urls) if u not in session.seen]
            pages = await session.fetch_many(wanted)
            for page in pages:
                self.judge(page)
                final = self.resolved.get(page.url, page.final_url)
                outs = [c.url for c in session.links(page, 0, 0)]
                self.graph.add_page(final, outs)
                if page.url != final:
                    self.graph.add_page(page.url, [final])
                if page.is_html:
                    self._bodies[final] = page.body
            return pages

        # 1. Start: the known records, else breadth-first until the validator accepts a page.
        seeds = [u for u in self.known_records if session.allowed(u)]
        for page in await fetch([start_url, *seeds]):
            yield page
        queue = deque(self.graph.successors(self.resolved.get(start_url, start_url)))
        while not self.targets and queue and session.budget > 0:
            batch: list[str] = []
            while queue and len(batch) < session.concurrency:
                url = queue.popleft()
                if url not in session.seen:
                    batch.append(url)
            for page in await fetch(batch):
                queue.extend(self.graph.successors(self.resolved.get(page.url, page.final_url)))
                yield page
        quiet = 0
        while self.targets and quiet < links.max_iterations and session.budget > 0:
            if self.done():
                return
            # 2. Focused walk from a random authority until a restart.
            current = rng.choice(self.targets)
            walked = {current}
            while session.budget > 0:
                known = set(self.targets)
                pool = [
                    v
                    for v in self.graph.successors(current)
                    if v not in walked and v not in known and v not in session.failed
                ]
                if not pool:
                    break
                weights = self._weights()
                scores = [float(weights[self.graph.index[v]]) for v in pool]
                best = max(scores)
                current = rng.choice([v for v, s in zip(pool, scores, strict=True) if s == best])
                walked.add(current)
                if current not in self.graph.fetched:
                    for page in await fetch([current]):
                        yield page
                    current = self.resolved.get(current, current)
                if rng.random() < links.restart_probability:
                    break
            self.restarts += 1
            # 3. Hubs, by HITS with the validator's verdicts; 4. their subtrees downloaded.
            new_hubs = self._find_hubs()
            quiet = 0 if new_hubs else quiet + 1
            for hub in new_hubs:
                body = self._bodies.get(hub, "")
                subtree = hub_subtree_links(body, hub, set(self.targets))
                wanted = [u for u in subtree if session.allowed(u) and u not in session.seen]
                for i in range(0, len(wanted), session.concurrency):
                    for page in await fetch(wanted[i : i + session.concurrency]):
                        yield page
