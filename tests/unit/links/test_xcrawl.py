"""xCrawl's web graph, HITS with validator verdicts, topic-sensitive PageRank, hub subtrees."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from deepcrawl.links._xcrawl_model import (
    HitsHubs,
    TopicSensitivePageRank,
    WebGraph,
    hub_subtree_links,
)


def _graph() -> WebGraph:
    # "index" lists three records; "nav1" and "nav2" are site chrome linking each other and
    # the home page; records link back to the index and to the chrome.
    graph = WebGraph()
    graph.add_page("home", ["nav1", "nav2", "index"])
    graph.add_page("nav1", ["home", "nav2"])
    graph.add_page("nav2", ["home", "nav1"])
    graph.add_page("index", ["r1", "r2", "r3", "home"])
    for r in ("r1", "r2"):
        graph.add_page(r, ["index", "nav1", "nav2"])
    return graph


def test_graph_keeps_nodes_edges_and_fetched_pages() -> None:
    graph = _graph()
    assert graph.successors("index") == ["r1", "r2", "r3", "home"]
    assert graph.successors("r3") == []  # known, not fetched
    assert "r3" not in graph.fetched
    matrix = graph.matrix().toarray()
    assert matrix[graph.index["index"], graph.index["r3"]] == 1
    assert matrix.sum() == 3 + 2 + 2 + 4 + 3 + 3


def test_hits_finds_the_index_as_hub() -> None:
    graph = _graph()
    hits = HitsHubs(max_iter=50).fit(graph, {"r1", "r2"})
    hub = {u: hits.hub_[i] for u, i in graph.index.items()}
    assert max(hub, key=hub.__getitem__) == "index"
    assert hub["r1"] == hub["r2"] == 0.0  # authorities are no hubs
    assert hub["index"] > 2 * max(hub["nav1"], hub["nav2"], hub["home"])
    # The validator's verdicts hold: r1 and r2 stay authorities, chrome pages are not.
    auth = {u: hits.authority_[i] for u, i in graph.index.items()}
    assert auth["r1"] == auth["r2"] == 1.0
    assert auth["nav1"] == 0.0
    assert auth["r3"] > 0.0  # not fetched yet: HITS estimates it from the hub linking to it
    assert hits.n_iter_ >= 1


def test_topic_sensitive_pagerank_flows_from_authorities() -> None:
    graph = _graph()
    pr = TopicSensitivePageRank(damping=0.85).fit(graph, {"r1"})
    w = {u: pr.weights_[i] for u, i in graph.index.items()}
    assert w["r3"] > 0  # reached from r1 through the index
    # Topic-sensitive: jumping back to r1 puts more weight near r1 than jumping to nav1 does.
    other = TopicSensitivePageRank(damping=0.85).fit(graph, {"nav1"}).weights_
    assert w["r3"] > other[graph.index["r3"]]
    assert w["index"] > other[graph.index["index"]]
    # With damping 0, all weight stays on the jump targets.
    still = TopicSensitivePageRank(damping=0.0).fit(graph, {"r1"}).weights_
    assert np.isclose(still[graph.index["r1"]], 1.0)
    assert np.isclose(still.sum(), 1.0)


def test_hubs_attract_the_random_jump() -> None:
    graph = _graph()
    hubs = np.zeros(len(graph.urls))
    hubs[graph.index["index"]] = 1.0
    plain = TopicSensitivePageRank().fit(graph, {"r1"}).weights_
    boosted = TopicSensitivePageRank().fit(graph, {"r1"}, hubs).weights_
    assert boosted[graph.index["r3"]] > plain[graph.index["r3"]]


def test_estimators_clone() -> None:
    assert clone(HitsHubs(max_iter=7)).get_params() == {"max_iter": 7, "tol": 1e-6}
    assert clone(TopicSensitivePageRank(damping=0.5)).get_params()["damping"] == 0.5


HUB = """<html><body>
<nav><a href="/about">About</a><a href="/help">Help</a></nav>
<ul class="records">
  <li><a href="/r/1">One</a></li><li><a href="/r/2">Two</a></li><li><a href="/r/3">Three</a></li>
</ul>
<ul class="other"><li><a href="/r/9">Nine</a></li><li><a href="/x">X</a></li></ul>
<a href="/page/2">Next</a>
</body></html>"""


def test_hub_subtree_is_the_common_parent_of_authority_links() -> None:
    base = "http://s.test/list"
    known = {"http://s.test/r/1", "http://s.test/r/3"}
    assert hub_subtree_links(HUB, base, known) == [
        "http://s.test/r/1",
        "http://s.test/r/2",
        "http://s.test/r/3",
    ]
    # One authority link: the subtree is the list it sits in, not just its <li>.
    assert hub_subtree_links(HUB, base, {"http://s.test/r/9"}) == [
        "http://s.test/r/9",
        "http://s.test/x",
    ]
    assert hub_subtree_links(HUB, base, {"http://s.test/nowhere"}) == []
