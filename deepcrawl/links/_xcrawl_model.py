"""xCrawl's weights (Shchekotykhin, Jannach & Friedrich, section 4): hubs and authorities.

xCrawl keeps a web graph of what it fetched. The validator's verdicts fix the *authorities*
(accepted pages). Two weightings guide its focused walk:

* **HITS with the validator's verdicts** (:class:`HitsHubs`): authorities start at authority
  weight 1 and hub weight 0, every other node at ``1/n`` (formula 1); the operators
  ``H: h(j) = sum of a(i) over j's successors`` and ``A: a(j) = sum of h(i) over j's
  predecessors`` are applied, normalised after each round, until the weights settle. The hub
  weights of non-authorities are kept; pages linked to many authorities come out on top —
  the index pages, category lists, A–Z indexes of a site;
* **topic-sensitive PageRank** (:class:`TopicSensitivePageRank`): known authorities start at
  weight 1, others at ``1/n``; weights flow along edges, ``weight(e(u, v)) = weight(u) /
  outdegree(u)``, damped by ``c``, and the random jump goes back to the authorities (and to
  the hubs found, by hub weight) only — so weight gathers near the records and lists found.

:func:`hub_subtree_links` is xCrawl's last step: in a hub, the DOM subtree that holds its links
to known authorities (the nearest common parent of those links) is where the other records are
listed; all of its links are downloaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator

from deepcrawl.page.html import base_url, parse_html
from deepcrawl.urls import browser_url

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from lxml.html import HtmlElement
    from numpy.typing import NDArray

__all__ = ["HitsHubs", "TopicSensitivePageRank", "WebGraph", "hub_subtree_links"]


class WebGraph:
    """The crawled part of a site: nodes are URLs, edges the links of fetched pages.

    Nodes are numbered in the order they appear; :meth:`matrix` gives the adjacency matrix in
    that order (the weight computations are vectorised over it).
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.urls: list[str] = []
        self.fetched: set[str] = set()
        self._out: dict[int, list[int]] = {}
        self._src: list[int] = []
        self._dst: list[int] = []

    def _node(self, url: str) -> int:
        i = self.index.get(url)
        if i is None:
            i = self.index[url] = len(self.urls)
            self.urls.append(url)
        return i

    def add_page(self, url: str, links: Iterable[str]) -> None:
        """Add a fetched page and its out-links (targets become nodes, unfetched)."""
        u = self._node(url)
        if url in self.fetched:
            return
        self.fetched.add(url)
        targets = [self._node(t) for t in dict.fromkeys(links) if t != url]
        self._out[u] = targets
        self._src.extend([u] * len(targets))
        self._dst.extend(targets)

    def successors(self, url: str) -> list[str]:
        """Targets of ``url``'s links (empty for an unfetched node)."""
        i = self.index.get(url)
        return [] if i is None else [self.urls[j] for j in self._out.get(i, [])]

    def matrix(self) -> csr_matrix:
        """The adjacency matrix ``A[u, v] = 1`` for each link u -> v."""
        n = len(self.urls)
        data = np.ones(len(self._src), dtype=np.float64)
        return csr_matrix((data, (self._src, self._dst)), shape=(n, n))

    def mask(self, urls: Collection[str]) -> NDArray[np.bool_]:
        """A boolean vector over the nodes: True for the nodes in ``urls``."""
        out = np.zeros(len(self.urls), dtype=bool)
        idx = [self.index[u] for u in urls if u in self.index]
        out[idx] = True
        return out


def _scaled(v: NDArray[np.float64]) -> NDArray[np.float64]:
    top = float(v.max()) if v.size else 0.0
    return v / top if top > 0 else v


class HitsHubs(BaseEstimator):  # type: ignore[misc]
    """Hub weights by HITS, with the validator's verdicts fixing the authorities.

    Args:
        max_iter: rounds of the H and A operators at most.
        tol: stop when no weight moves more than this.

    Authorities start at authority weight 1 and hub weight 0, the other nodes at ``1/n``
    (formula 1). Each round applies H then A and scales both to a maximum of 1. The
    validator's verdicts overrule HITS about authorities: every fetched page keeps the
    authority weight of its verdict (1 accepted, 0 refused) in every round, and HITS estimates
    it only for pages not fetched yet. So the hubs found are the pages linked to *validated*
    records (and to pages like them), not the site's navigation, whose pages all link to each
    other and would otherwise win.

    ``fit(graph, authorities)`` sets ``hub_`` and ``authority_`` (arrays over the graph's
    nodes; ``hub_`` is 0 for authorities) and ``n_iter_``.
    """

    def __init__(self, max_iter: int = 50, tol: float = 1e-6) -> None:
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, graph: WebGraph, authorities: Collection[str]) -> HitsHubs:
        """Run HITS on ``graph`` with the accepted pages as authorities."""
        adjacency = graph.matrix()
        known = graph.mask(authorities)
        judged = graph.mask(graph.fetched)
        n = max(1, len(graph.urls))
        auth = np.where(known, 1.0, 1.0 / n)
        hub = np.where(known, 0.0, 1.0 / n)
        self.n_iter_ = 0
        for _ in range(self.max_iter):
            self.n_iter_ += 1
            new_hub = _scaled(np.asarray(adjacency @ auth, dtype=np.float64))
            new_auth = _scaled(np.asarray(adjacency.T @ new_hub, dtype=np.float64))
            new_auth[judged] = 0.0
            new_auth[known] = 1.0
            moved = float(np.abs(new_hub - hub).max(initial=0.0))
            moved = max(moved, float(np.abs(new_auth - auth).max(initial=0.0)))
            hub, auth = new_hub, new_auth
            if moved <= self.tol:
                break
        hub[known] = 0.0
        self.hub_ = hub
        self.authority_ = auth
        return self


class TopicSensitivePageRank(BaseEstimator):  # type: ignore[misc]
    """PageRank whose random jump lands on the known authorities only.

    Args:
        damping: the share ``c`` of weight that follows links (1 - c jumps back).
        max_iter: iterations at most.
        tol: stop when no weight moves more than this.

    ``fit(graph, authorities)`` sets ``weights_`` (an array over the graph's nodes) and
    ``n_iter_``.
    """

    def __init__(self, damping: float = 0.85, max_iter: int = 50, tol: float = 1e-6) -> None:
        self.damping = damping
        self.max_iter = max_iter
        self.tol = tol

    def fit(
        self,
        graph: WebGraph,
        authorities: Collection[str],
        hubs: NDArray[np.float64] | None = None,
    ) -> TopicSensitivePageRank:
        """Propagate weight from ``authorities`` (and known hubs) over ``graph``.

        Args:
            graph: the web graph.
            authorities: the pages the validator accepted.
            hubs: hub weights by node (from :class:`HitsHubs`, possibly for fewer nodes than
                the graph has now); hubs then receive random jumps too, in proportion to
                their weight — xCrawl "updates the weights of the links connected to the hub".
        """
        adjacency = graph.matrix()
        known = graph.mask(authorities)
        n = max(1, len(graph.urls))
        start = known.astype(np.float64)
        if hubs is not None and len(hubs):
            start[: len(hubs)] += _scaled(np.asarray(hubs, dtype=np.float64))
        jump = start / start.sum() if start.any() else np.full(len(graph.urls), 1.0 / n)
        weight = np.where(known, 1.0, 1.0 / n)
        outdegree = np.asarray(adjacency.sum(axis=1)).ravel()
        inverse = np.divide(1.0, outdegree, out=np.zeros_like(outdegree), where=outdegree > 0)
        self.n_iter_ = 0
        for _ in range(self.max_iter):
            self.n_iter_ += 1
            # weight(e(u, v)) = weight(u) / outdegree(u), summed over v's in-links.
            flow = np.asarray(adjacency.T @ (weight * inverse), dtype=np.float64)
            new = (1 - self.damping) * jump + self.damping * flow
            moved = float(np.abs(new - weight).max(initial=0.0))
            weight = new
            if moved <= self.tol:
                break
        self.weights_ = weight
        return self


def _ancestors(element: HtmlElement) -> list[HtmlElement]:
    chain = [element]
    while (parent := chain[-1].getparent()) is not None:
        chain.append(parent)
    return chain[::-1]


def hub_subtree_links(html: str | bytes, page_url: str, authorities: Collection[str]) -> list[str]:
    """The links of the hub's DOM subtree that holds its links to known authorities.

    The subtree is rooted at the nearest common parent of the ``<a>`` elements pointing to
    authorities (for a single such link, the nearest ancestor holding another link too: the
    list it sits in).

    Returns:
        Absolute URLs of every link in that subtree, in document order, without duplicates;
        empty when the page links to no authority.
    """
    root = parse_html(html, comments=True)
    if root is None:
        return []
    base = base_url(root, page_url)

    def absolute(element: Any) -> str:
        return browser_url(urldefrag(urljoin(base, str(element.get("href", "")).strip())).url)

    anchors = list(root.iter("a"))
    hits = [a for a in anchors if a.get("href") is not None and absolute(a) in authorities]
    if not hits:
        return []
    chains = [_ancestors(a)[:-1] for a in hits]  # each anchor's ancestors, root first
    common: HtmlElement = chains[0][-1]
    for depth in range(min(len(c) for c in chains)):
        if all(c[depth] is chains[0][depth] for c in chains):
            common = chains[0][depth]
        else:
            break
    # One authority link: its list is the nearest ancestor holding more than that one link.
    while len(hits) == 1 and sum(1 for _ in common.iter("a")) < 2:
        parent = common.getparent()
        if parent is None:
            break
        common = parent
    return list(dict.fromkeys(absolute(a) for a in common.iter("a") if a.get("href") is not None))
