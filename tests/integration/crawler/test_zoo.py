"""The crawl on zoo seeds, as ``deepcrawl bench --suite zoo`` runs it: served, crawled as a child
process, scored against the seed's truth."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from deepcrawl.bench.zoo import run_zoo_bench
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.slow
def test_a_get_form_whose_own_submit_buttons_turn_the_pages_is_read_to_its_end(
    tmp_path: Path,
) -> None:
    # seed 3 draws a GET form whose result page is the form again, its pages the form's own
    # submit buttons (`name=go value=2` ... and "Next" beside a hidden page number), another
    # kind at three times the records' share, echo and session parameters, print twins, views
    settings = load_settings().with_overrides(bench={"zoo_timeout_s": 240.0})
    (run,) = run_zoo_bench([3], settings, records=250, out=tmp_path)
    assert run.config["pager"] == "get-buttons"
    assert run.stopped, run.stop
    assert run.recall >= 0.98, run
    assert run.precision >= 0.99, run
    assert run.passes()["claim_true"], run
    assert run.passes()["size"], run


@pytest.mark.slow
def test_a_start_box_that_filters_the_page_leads_to_the_records_search_on_their_pages(
    tmp_path: Path,
) -> None:
    # seed 1 draws its search on inner pages only: the start page's box filters its list of
    # collections, the records' search (a page-wide form renamed on every load, its results
    # scrolled in from a JSON feed) sits on each collection's page and every record page
    settings = load_settings().with_overrides(bench={"zoo_timeout_s": 240.0})
    (run,) = run_zoo_bench([1], settings, records=300, out=tmp_path)
    assert (run.config["placement"], run.config["start_box"]) == ("inner", "collections")
    assert run.stopped, run.stop
    assert run.recall >= 0.95, run
    assert run.precision >= 0.99, run
    assert run.passes()["claim_true"], run


def test_a_records_search_robots_txt_forbids_is_named_and_navigate_browses_the_lists(
    tmp_path: Path,
) -> None:
    # seed 6 draws its records' search on inner pages (the start page's box filters projects),
    # and a robots.txt that forbids that search: no query is sent to it, and the one line says
    # what robots.txt still allows, rather than deliver the projects as records; the bench then
    # crawls with --navigate as the line says, and with no example the records' kind is picked
    # from the allowed lists, which are read to their end
    settings = load_settings().with_overrides(bench={"zoo_timeout_s": 120.0})
    (run,) = run_zoo_bench([6], settings, records=150, out=tmp_path, example=False)
    assert (run.config["placement"], run.config["robots"]) == ("inner", "no-search")
    log = (tmp_path / "seed-6" / "crawl.log").read_text()
    first = log.split("$ deepcrawl crawl")[1].strip().splitlines()[-1]
    assert "which robots.txt forbids: no query is sent; robots.txt still allows" in first, first
    assert "crawl with --navigate" in first, first
    assert run.followed == "--navigate", run
    assert run.stopped, run.stop
    assert run.recall >= 0.98, run
    assert run.precision >= 0.99, run
    assert run.passes()["harvest"], run


@pytest.mark.slow
def test_a_box_searched_as_typed_on_inner_pages_with_semicolon_parameters_is_read_whole(
    tmp_path: Path,
) -> None:
    # seed 2 draws a search as you type (no form: a box whose script fetches an HTML feed and
    # a "More results" button), on inner pages only (the start page's box filters projects),
    # ';' between the parameters of every URL and the query echoed in each result link; no
    # example: the crawl must find the search, read the feed over plain HTTP and pick the kind
    settings = load_settings().with_overrides(bench={"zoo_timeout_s": 240.0})
    (run,) = run_zoo_bench([2], settings, records=150, out=tmp_path, example=False)
    config = run.config
    assert (config["form"], config["placement"], config["separator"]) == (
        "none",
        "inner",
        "semicolon",
    )
    assert run.stopped, run.stop
    assert run.recall >= 0.98, run
    assert run.precision >= 0.99, run
    assert run.passes()["claim_true"], run
