"""The link learners' prior: its JSON file, loading it, and what the shipped one has learnt."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcrawl.errors import ConfigError
from deepcrawl.links._ache_model import MultiLevelLinkClassifier
from deepcrawl.links.context import LinkContext
from deepcrawl.links.prior import PRIOR_VERSION, LinkPrior, PriorExample, load_prior, merge, reward

OTHER = "http://127.0.0.1:8123"


def _prior() -> LinkPrior:
    link = LinkContext(
        url=OTHER + "/library/advanced-search?x=1",
        source=OTHER + "/library",
        anchor="Advanced search",
        around=("guides", "help"),
        offsets=("advanced@0", "search@0", "help@-1"),
    )
    gateway = LinkContext(url=OTHER + "/library", source=OTHER + "/", anchor="Library")
    return LinkPrior(
        [PriorExample(link, 1), PriorExample(gateway, 2)], 3, [{"site": "t", "seed": 5}]
    )


def test_prior_round_trips_through_json_without_hosts() -> None:
    prior = _prior()
    text = prior.to_json()
    assert "127.0.0.1" not in text  # paths only: hosts say nothing about another site
    back = LinkPrior.from_json(text)
    assert back.levels == 3
    assert back.sources == [{"site": "t", "seed": 5}]
    first = back.examples[0]
    assert first.level == 1
    assert first.link.url.endswith("/library/advanced-search?x=1")
    assert first.link.anchor == "Advanced search"
    assert first.link.around == ("guides", "help")
    assert first.link.offsets == ("advanced@0", "search@0", "help@-1")
    assert len(merge([prior, back]).examples) == 4


def test_apprentice_lessons_are_discounted_by_level() -> None:
    lessons = _prior().apprentice_lessons(0.5)
    assert [r for _, r in lessons] == [1.0, 0.5]
    assert lessons[0][0] == ("advanced@0", "search@0", "help@-1")
    assert reward(3, 3, 0.5) == 0.25
    assert reward(4, 3, 0.5) == 0.0  # beyond the levels: no path


def test_load_prior_by_name_path_or_none(tmp_path: Path) -> None:
    assert load_prior(None) is None
    assert load_prior("none") is None
    path = tmp_path / "prior.json"
    path.write_text(_prior().to_json())
    loaded = load_prior(str(path))
    assert loaded is not None
    assert len(loaded.examples) == 2
    with pytest.raises(ConfigError, match="cannot read"):
        load_prior(str(tmp_path / "missing.json"))
    path.write_text('{"version": 999, "levels": 3, "examples": []}')
    with pytest.raises(ConfigError, match=f"deepcrawl reads version {PRIOR_VERSION}"):
        load_prior(str(path))
    path.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="not a deepcrawl link prior"):
        load_prior(str(path))


def test_builtin_prior_is_from_other_seeds_and_generalises_by_words() -> None:
    prior = load_prior("builtin")
    assert prior is not None
    # the bench's form job tests the stacks site with seeds 0 and 1
    assert {s["seed"] for s in prior.sources if s["site"] == "stacks"}.isdisjoint({0, 1})
    levels = {e.level for e in prior.examples}
    assert levels == set(range(1, prior.levels + 2))
    links, ys = zip(*prior.ache_examples(), strict=True)
    clf = MultiLevelLinkClassifier().fit(list(links), list(ys))
    names = set(clf.pipeline_.named_steps["afs"].get_feature_names_out())
    assert {"anchor:search", "url:search"} <= names
    # wording none of the training sites uses: a search page, and pages of unrelated links
    host = "http://new.test"
    ranked = clf.rank(
        [
            LinkContext(host + "/records/search", host + "/x", "Search our records"),
            LinkContext(host + "/press/7", host + "/x", "Press release seven"),
            LinkContext(host + "/shop/cart", host + "/x", "Your cart"),
        ]
    )
    assert ranked[0][0] == 1
    assert ranked[1][0] > 1
    assert ranked[2][0] > 1
