"""Property tests of the prototyper: a partition of its training URLs, whatever they are."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from deepcrawl.prototypes import Prototyper
from deepcrawl.urls import normalise_url

_word = st.sampled_from(["a", "book", "x1", "new", "2024-01-02", "17", "ff00aa11", "a-b", "", "é"])
_segments = st.lists(_word, min_size=1, max_size=4)
_query = st.lists(st.tuples(st.sampled_from(["q", "page", "id", "s"]), _word), max_size=3)


@st.composite
def url_sets(draw: st.DrawFn) -> list[str]:
    templates = draw(st.lists(st.tuples(_segments, _query), min_size=1, max_size=6))
    urls = []
    for segments, query in templates:
        for i in range(draw(st.integers(1, 12))):
            path = "/".join(s if s != "17" else str(i) for s in segments)
            q = "&".join(f"{k}={v}" for k, v in query)
            urls.append(f"http://h.com/{path}" + (f"?{q}" if q else ""))
    return urls


_PARAMS = st.sampled_from(
    [
        {},
        {"fold_trailing_slash": False},
        {"nested_folders": False, "numeric_literals": True},
        {"split_required_query_keys": True, "query_split_max_values": 3},
        {"literal_threshold": 0.3, "min_support": 1, "merge_min_siblings": 2},
    ]
)


@settings(max_examples=200, deadline=None)
@given(url_sets(), _PARAMS)
def test_every_url_falls_in_exactly_one_prototype(urls: list[str], params: dict[str, Any]) -> None:
    fitted = Prototyper(**params).fit(urls)
    compiled = [(p.id, re.compile(p.regex)) for p in fitted.prototypes_]
    assert sum(p.count for p in fitted.prototypes_) == fitted.n_urls_
    for url in urls:
        normal = normalise_url(url)
        hits = [pid for pid, rx in compiled if rx.fullmatch(normal)]
        assert len(hits) == 1, (normal, hits, [p.regex for p in fitted.prototypes_])
        assert fitted.matcher_.match(normal) == hits[0]
