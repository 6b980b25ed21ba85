"""xCrawl's focused walk over one site (Shchekotykhin et al., section 4): ``--strategy xcrawl``.

The per-site loop of the paper's Figure 3, over the web graph of what was fetched:

1. *start*: known records (the authorities the search form surfaced, when the caller has them;
   xCrawl's AQG step finds them with a web search engine, which deepcrawl has no use for), else
   a bootstrap from the start URL until the validator accepts a first page. With no authority
   there is nothing for the PageRank to propagate from, so the bootstrap's topic weights come
   from a prior when there is one (paths to targets of other sites,
   :mod:`deepcrawl.links.prior`): every link seen is weighed by the prior's link classifier
   — its expected reward, ``PATH_DISCOUNT ** (level - 1)`` summed over the levels'
   probabilities — and the heaviest is fetched next; without a prior, breadth-first;
2. *focused walk*: from a random known authority or hub, follow links — the link leading to the node
   of highest weight (topic-sensitive PageRank from the authorities, plus the HITS hub weight),
   ties broken at random — fetching each new page and handing it to the validator, until a
   random *restart* (probability :data:`RESTART_PROBABILITY`, 0.15 in the paper);
3. *hub identification* at each restart: HITS with the validator's verdicts; a page linked to
   at least :data:`HUB_MIN_AUTHORITIES` authorities with a hub weight is a hub;
4. *hub download*: every link of the hub's DOM subtree that holds its links to the known
   authorities is fetched and validated;
5. the walk stops when no new hub appeared within ``max_iterations`` walks that downloaded a
   page, or when ``max_iterations`` walks in a row downloaded nothing (or the budget is spent);
6. then the other pages of each hub's list — its links with the hub's own URL path (pager,
   orderings) — are fetched, and the lists of the new hubs among them, until no new hub
   appears (not in the paper: see below).

Choices the paper leaves open: a walk step to an already fetched page costs no request; a walk
never steps onto a page it visited already or onto a known authority (it is there to discover
pages; the authorities are where it starts); hubs found also attract PageRank's random jumps;
and a hub's subtree is downloaded as soon as the hub is found rather than after the walk
converged, so a crawl cut short by its request budget still has the records the hubs list.
Two choices differ from the paper's Figure 3: a walk may start from a known hub as well as an
authority — a hub's pager and sort links lead to the next pages of its list, which hold records
no known authority links to (the paper starts from authorities only, and missed 1 of 30 such
records on the ``stacks`` fixture site); and since steps through known pages cost nothing here
while every step of the paper's walk downloads a page, a walk that downloaded nothing does not
count toward the convergence bound (with it, the crawl stopped after 50 cheap walks). Step 6
is an addition: the walk reaches the later pages of a long paged list by chance only, and with
steps 1-5 alone 1 or 2 of the 30 records listed on such pages only were missed on the
``stacks`` site, depending on the walk's seed; it costs the requests of the lists' other pages.
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from deepcrawl.links.ache import LEVELS
from deepcrawl.links.context import AROUND_TERMS
from deepcrawl.links.focused import FocusedStrategy, PoliteSession
from deepcrawl.links.prior import PATH_DISCOUNT
from deepcrawl.links.strategy import register

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    import numpy as np
    from numpy.typing import NDArray

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.links._ache_model import MultiLevelLinkClassifier
    from deepcrawl.links._xcrawl_model import WebGraph
    from deepcrawl.links.context import LinkContext
    from deepcrawl.links.focused import Target
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings

__all__ = ["HUB_MIN_AUTHORITIES", "MAX_ITERATIONS", "RESTART_PROBABILITY", "XCrawler"]

#: xCrawl's random restart probability of the focused walk (section 5: 0.15 was best).
RESTART_PROBABILITY = 0.15
#: The walk stops when no new hub appeared within this many restarts (section 5: about 50).
MAX_ITERATIONS = 50
#: A page is a hub when it links to at least this many known authorities and has a hub weight
#: (the paper says "many"; 1 finds the later pages of a paged list). Not from the paper.
HUB_MIN_AUTHORITIES = 1


@register
class XCrawler(FocusedStrategy):
    """Focused walk with random restarts toward hubs, then the hubs' record lists.

    Args:
        settings: deepcrawl settings (politeness, the forms critic's words).
        is_target: the validator; default: a page with a searchable form.
        known_records: URLs of records known before the crawl (from the search form); they
            are fetched first and seed the authorities.
        prior: ``(link, level)`` examples of paths to targets of other sites; they weigh the
            links of the bootstrap (module docstring).
        max_iterations: the convergence bound of the walk (restarts without a new hub).
        seed: seed of the walk's random choices and restarts.
        max_targets: stop after this many distinct targets (0: the budget alone).

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
        prior: Sequence[tuple[LinkContext, int]] = (),
        max_iterations: int = MAX_ITERATIONS,
        seed: int = 0,
        max_targets: int = 0,
    ) -> None:
        from deepcrawl.links._xcrawl_model import WebGraph  # numpy and scipy load when used

        super().__init__(settings, is_target=is_target, max_targets=max_targets)
        self.max_iterations = max_iterations
        self.seed = seed
        self.known_records = list(known_records)
        self.prior_classifier: MultiLevelLinkClassifier | None = None
        if prior:
            from deepcrawl.links._ache_model import MultiLevelLinkClassifier

            self.prior_classifier = MultiLevelLinkClassifier().fit(
                [c for c, _ in prior], [lv for _, lv in prior]
            )
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

        from deepcrawl.links._xcrawl_model import TopicSensitivePageRank

        authorities = set(self.targets)
        pagerank = TopicSensitivePageRank().fit(self.graph, authorities, self._hub_weights)
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

    def topic_weights(self, contexts: Sequence[LinkContext]) -> list[float]:
        """The prior's expected reward of each link (1 for a link it places at level 1)."""
        import numpy as np

        if self.prior_classifier is None or not contexts:
            return [0.0] * len(contexts)
        classes = [int(c) for c in self.prior_classifier.classes_]
        gains = [PATH_DISCOUNT ** (c - 1) if 1 <= c <= LEVELS else 0.0 for c in classes]
        probabilities = self.prior_classifier.predict_proba(list(contexts))
        return [float(w) for w in probabilities @ np.asarray(gains)]

    def _find_hubs(self) -> list[str]:
        from deepcrawl.links._xcrawl_model import HitsHubs

        authorities = set(self.targets)
        hits = HitsHubs().fit(self.graph, authorities)
        self._hub_weights = hits.hub_
        new: list[str] = []
        for url in self.graph.fetched:
            i = self.graph.index[url]
            if url in authorities or hits.hub_[i] <= 0 or url in self.hubs:
                continue
            linked = sum(1 for v in self.graph.successors(url) if v in authorities)
            if linked >= HUB_MIN_AUTHORITIES:
                new.append(url)
        new.sort(key=lambda u: -float(hits.hub_[self.graph.index[u]]))
        self.hubs.extend(new)
        return new

    async def crawl(
        self, start_url: str, *, fetcher: Fetcher, max_requests: int
    ) -> AsyncIterator[FetchedPage]:
        from deepcrawl.links._xcrawl_model import hub_subtree_links

        rng = random.Random(self.seed)
        session = PoliteSession(self, start_url, fetcher, max_requests)
        await session.open()

        async def fetch_all(urls: Sequence[str]) -> AsyncIterator[FetchedPage]:
            wanted = [
                u for u in dict.fromkeys(urls) if session.allowed(u) and u not in session.seen
            ]
            for i in range(0, len(wanted), session.concurrency):
                for page in await fetch(wanted[i : i + session.concurrency]):
                    yield page

        around = AROUND_TERMS if self.prior_classifier is not None else 0
        contexts: dict[str, LinkContext] = {}  # first context of each link (the bootstrap's)

        async def fetch(urls: Sequence[str]) -> list[FetchedPage]:
            wanted = [u for u in dict.fromkeys(urls) if u not in session.seen]
            pages = await session.fetch_many(wanted)
            for page in pages:
                self.judge(page)
                final = self.resolved.get(page.url, page.final_url)
                found = session.links(page, 0, around)
                if not self.targets:
                    for ctx in found:
                        contexts.setdefault(ctx.url, ctx)
                outs = [c.url for c in found]
                self.graph.add_page(final, outs)
                if page.url != final:
                    self.graph.add_page(page.url, [final])
                if page.is_html:
                    self._bodies[final] = page.body
            return pages

        # 1. Start: the known records, else the bootstrap until the validator accepts a page:
        # the heaviest link by the prior's topic weights, ties (and no prior) breadth-first.
        seeds = [u for u in self.known_records if session.allowed(u)]
        for page in await fetch([start_url, *seeds]):
            yield page
        # The bootstrap's queue is a heap of its own, not the crawl's frontier: it holds a link
        # once per page that links to it, and a batch counts each copy (a link found on three
        # pages can take three of a batch's slots and be fetched once). A frontier keeps one
        # entry a URL: on it, stacks' form took 18 / 26 pages instead of 15 / 22.
        heap: list[tuple[float, int, str]] = []
        order = 0

        def push(urls: Sequence[str]) -> None:
            nonlocal order
            fresh = [u for u in dict.fromkeys(urls) if u not in session.seen and u in contexts]
            for url, weight in zip(fresh, self.topic_weights([contexts[u] for u in fresh]),
                                   strict=True):  # fmt: skip
                order += 1
                heapq.heappush(heap, (-weight, order, url))

        push(self.graph.successors(self.resolved.get(start_url, start_url)))
        while not self.targets and heap and session.budget > 0:
            batch: list[str] = []
            while heap and len(batch) < session.concurrency:
                url = heapq.heappop(heap)[2]
                if url not in session.seen:
                    batch.append(url)
            for page in await fetch(batch):
                push(self.graph.successors(self.resolved.get(page.url, page.final_url)))
                yield page
        quiet = idle = 0
        while (
            self.targets
            and quiet < self.max_iterations
            and idle < self.max_iterations
            and session.budget > 0
        ):
            if self.done():
                return
            # 2. Focused walk from a random authority (or hub) until a restart.
            current = rng.choice([*self.targets, *self.hubs])
            walked = {current}
            downloaded = 0
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
                        downloaded += 1
                        yield page
                    current = self.resolved.get(current, current)
                if rng.random() < RESTART_PROBABILITY:
                    break
            self.restarts += 1
            # 3. Hubs, by HITS with the validator's verdicts; 4. their subtrees downloaded.
            # 5. The convergence bound counts the walks that downloaded a page (the paper's walk
            # downloads at every step); walks through known pages only stop the crawl when
            # ``max_iterations`` of them come in a row: nothing new is reachable any more.
            new_hubs = self._find_hubs()
            idle = 0 if downloaded else idle + 1
            if new_hubs:
                quiet = 0
            elif downloaded:
                quiet += 1
            for hub in new_hubs:
                body = self._bodies.get(hub, "")
                async for page in fetch_all(hub_subtree_links(body, hub, set(self.targets))):
                    yield page
        # 6. Once the walk converged: the other pages of each hub's list (its pager and
        # orderings: the hub's links with the hub's URL path), and the lists of the new hubs
        # among them, until no new hub appears. The walk reaches them by chance only, and a
        # record listed on one of them alone is missed (1 to 2 of 30 on the stacks site).
        pending = deque(self.hubs)
        while pending and self.targets and session.budget > 0 and not self.done():
            hub = pending.popleft()
            path = urlsplit(hub).path
            async for page in fetch_all(
                [v for v in self.graph.successors(hub) if urlsplit(v).path == path]
            ):
                yield page
            for new in self._find_hubs():
                pending.append(new)
                body = self._bodies.get(new, "")
                async for page in fetch_all(hub_subtree_links(body, new, set(self.targets))):
                    yield page
