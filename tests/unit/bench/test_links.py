"""The link learners' bench: the navigate-phase figures taken from the server's request log."""

from __future__ import annotations

from deepcrawl_fixtures import build_site

from deepcrawl.bench import DeepcrawlStrategy
from deepcrawl.bench.links import navigate_figures
from deepcrawl.links import STRATEGIES


def testnavigate_figures_count_the_phase_after_the_last_result_page() -> None:
    truth = build_site("stacks", records=100, seed=0).truth()
    nav_only = truth.nav_only_paths
    assert len(nav_only) == 10
    searched = [p for p in truth.detail_paths if p not in nav_only][:3]

    def entry(path: str) -> dict[str, object]:
        return {"path": path, "kind": truth.page_kind(path)}

    log = [entry("/"), entry("/search?q=map"), *map(entry, searched), entry("/search?q=x")]
    # the navigate phase: a category page, two nav-only records, a near-duplicate of one of
    # them, a record the queries had fetched already, then the other nav-only records
    phase = ["/category/maps", nav_only[0], nav_only[1], nav_only[0] + "?ref=x", searched[0]]
    phase += nav_only[2:]
    log += map(entry, phase)
    got = set(searched) | set(nav_only)
    stats = {"log": log, "requests": len(log)}
    figures = navigate_figures(stats, truth, got, set(nav_only), budget=3)
    assert figures["navigate_requests"] == len(phase)
    assert figures["navigate_records"] == 10  # new records only, each once
    assert figures["loss_rate"] == round(1 - 10 / len(phase), 4)
    assert figures["nav_only_recall"] == 1.0
    assert figures["nav_only_recall_at_3"] == 0.2  # two of ten within the first 3 requests
    assert figures["requests_to_all_nav_only"] == len(phase)
    assert figures["recall"] == round(13 / 100, 4)
    assert figures["harvest"] == round(13 / len(log), 4)


def test_the_whole_crawl_is_a_strategy_the_bench_knows_by_name() -> None:
    assert STRATEGIES["deepcrawl"] is DeepcrawlStrategy
